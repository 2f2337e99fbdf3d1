#!/usr/bin/env bash
# The layering rules a build cannot check (ARCHITECTURE.md, *Code map*):
#   - no `@_exported import`: every file imports what it uses;
#   - every import of a module of this package is a declared dependency of its target (check-imports.py);
#   - with --bin-dir DIR (the debug build's binaries): jetsam-lab, jetsam-spawner and jetsam-sockets link neither libcgroup nor
#     libsystemd; jetsam-lab holds none of the shell's code (nor the spawner service's: it starts programs through
#     the platform layer's spawnProcess, as the spawner does), and jetsam-spawner, the most privileged process, none but its own, the platform layer's and the shared values' (no policy, no config,
#     no protocol, no shell); jetsam-sockets, which the spawner service runs with its rights, none of the shell's,
#     the spawner's, the config's or the protocol's; jetsam-runnable, started as an app's user, none but the platform
#     layer's.
# `make lint` runs the first two, `make test-unit` all of them.
set -euo pipefail
cd "$(dirname "$0")/.."

bin_dir=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --bin-dir) bin_dir="$2"; shift 2 ;;
    *) echo "usage: $0 [--bin-dir DIR]" >&2; exit 64 ;;
  esac
done

status=0
fail() { echo "check-layering: $*" >&2; status=1; }

if grep -rn --include='*.swift' '@_exported' Sources Tests; then
  fail "@_exported hides a real dependency: import the module where it is used, and declare it in Package.swift"
fi
scripts/check-imports.py || status=1

if [[ -n "$bin_dir" ]]; then
  # program, then the modules whose code it must not hold (their mangled names start with <length><name>).
  for entry in "jetsam-lab JetsamShell JetsamSpawning" \
    "jetsam-spawner JetsamShell JetsamConfig JetsamLab JetsamCore JetsamWire JetsamProtocol JetsamControlClient" \
    "jetsam-sockets JetsamShell JetsamSpawning JetsamConfig JetsamLab JetsamProtocol JetsamControlClient" \
    "jetsam-runnable JetsamShell JetsamSpawning JetsamConfig JetsamLab JetsamCore JetsamProtocol JetsamControlClient"; do
    read -r program forbidden <<<"$entry"
    binary="$bin_dir/$program"
    [[ -x "$binary" ]] || { fail "$binary is not built"; continue; }
    if libraries=$(ldd "$binary" | grep -E 'libcgroup|libsystemd'); then
      fail "$program links what it must not (the shell's C libraries):"$'\n'"$libraries"
    fi
    symbols=$(nm "$binary")
    for module in $forbidden; do
      if grep -q "${#module}${module}" <<<"$symbols"; then
        fail "$program holds code of $module, e.g. $(grep -m1 "${#module}${module}" <<<"$symbols")"
      fi
    done
    # The shell's services by their C names, in case they ever come back without the shell's module.
    if grep -qE ' (sd_event_|sd_notify|cgroup_init|sd_journal)' <<<"$symbols"; then
      fail "$program calls libsystemd or libcgroup: $(grep -m1 -E ' (sd_event_|sd_notify|cgroup_init|sd_journal)' <<<"$symbols")"
    fi
  done
fi

exit $status
