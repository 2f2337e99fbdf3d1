#!/bin/bash
# Installs the Debian packages jetsam needs that this machine lacks (apt-get update first, once).
# Usage: scripts/install-deps.sh build|test|bench|demo
# build: compile jetsam (libdw-dev: call stacks); test: + the cgroup v2 VM (qemu, busybox), JSON Schema checks, tmux (`top`), chromium (lab reports); bench: + earlyoom.
set -euo pipefail
want=(pkg-config libcgroup-dev libsystemd-dev libdw-dev)
case "${1:-build}" in
  test) want+=(qemu-system-x86 busybox-static xz-utils time rsync python3-jsonschema tmux chromium) ;;
  bench) want+=(earlyoom) ;;
esac
missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ]; then
  echo "jetsam needs these Debian packages: ${missing[*]}; run as root or: sudo apt-get install ${missing[*]}" >&2
  exit 1
fi
echo "installing: ${missing[*]}"
apt-get update -qq
for i in $(seq 1 60); do  # another installer may hold the dpkg lock
  if DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/tmp/jetsam-apt.log 2>&1; then
    exit 0
  fi
  grep -q 'Could not get lock\|Unable to acquire the dpkg' /tmp/jetsam-apt.log || { cat /tmp/jetsam-apt.log >&2; exit 1; }
  sleep 5
done
echo "dpkg lock stayed busy" >&2
exit 1
