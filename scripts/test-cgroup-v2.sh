#!/bin/bash
# The integration tests (every suite of Tests/JetsamIntegrationTests: real jetsamd, jetsamctl and apps) and the
# shell's real-kernel suites (JetsamShellTests CgroupTests and SpawnerTests) on PURE cgroup v2, the layout
# systemd users run, inside a throw-away QEMU VM. `make test` calls this after the host tests.
#
# The build machines have a hybrid v1/v2 layout, so the v2 path cannot be exercised on the host. The VM
# (scripts/cgroup-v2-vm/run-v2-vm.sh) boots a Debian kernel on the host's own root filesystem (read-only 9p +
# tmpfs overlay) with a pure cgroup2 hierarchy, and runs the test bundle that `swift build --build-tests`
# already built, unchanged: scripts/cgroup-v2-vm/guest-tests.sh puts the runner in a non-root cgroup and
# the harness starts each jetsamd in /sys/fs/cgroup/<name>.service, as systemd would.
#
# Exit status: 0 when every selected test passed; 1 on a failure or when no results came back; 124 when
# the VM hit its time limit. The guest's output streams to stdout; the last line is the verdict:
#   cgroup-v2-vm: 67 tests passed, 0 failed, 3 skipped (boot 4.2 s, tests 368.1 s, VM 373.7 s (qemu CPU 610 s), total 373.9 s)
#
# Env knobs [defaults]:
#   BUILD_DIR [<package>/.build/debug]     where jetsamPackageTests.xctest is
#   JETSAM_BIN_DIR [$BUILD_DIR]            where the tests find jetsamd, jetsamctl, jetsam-testapp
#   V2_TEST_FILTER ['^(JetsamIntegrationTests\.|JetsamShellTests\.(CgroupTests|SpawnerTests)/)']
#                                          Swift Testing --filter regex over test ids (Module.Suite/test())
#   V2_TEST_ARGS [--experimental-maximum-parallelization-width 3 --skip LabTests --skip LabHostsTests --skip LabCheckTests --skip MetricsEndpointIntegrationTests --skip AppLifecycleTests --skip RestorationTests --skip WatchTests --skip UserLookupTests --skip CrashReportTrustTests --skip ControlSocketTests --skip WatchdogDebuggerIntegrationTests --skip LaunchMetricsIntegrationTests --skip MetricsIntegrationTests --skip SignpostMetricsIntegrationTests]
#                                          more arguments for the test bundle. Three tests at a time: the suites
#                                          run off Swift's cooperative pool (Tests/JetsamTestTraits), so their
#                                          blocking waits no longer starve each other (they did on the pool's two
#                                          threads, into spurious .timeLimit and 15 s wait failures, when this
#                                          ran serially); more than three only slows two emulated CPUs.
#                                          The labs (jetsam-lab run and check, and labs across hosts over sshd:
#                                          three minutes on the host) are
#                                          clients of jetsamd whose every request the other suites run on v2 here
#                                          (their v2 run passed: 2c5bae8); under emulation they would take a large
#                                          part of the VM's time limit. Skipped too, as the same on either
#                                          cgroup layout: the metrics endpoint (HTTP on the loop), the app
#                                          channel's lifecycle and the restoration verdicts (the app protocol
#                                          and the core's judgements; their suspends and kills are the other
#                                          suites' here). With those two the tests took 830 s of their 840.
#                                          Also skipped, for the same reason: the watch stream and its output
#                                          budget (255 watchers that never read: socket memory on the loop), the
#                                          user lookups off the loop (their slow-lookup library is compiled at
#                                          test time, and the guest has no compiler) and the crash reports'
#                                          credential checks (SO_PASSCRED on a socket pair; the crash diagnostics
#                                          suite still takes a real crash's stacks on v2 here). With them the
#                                          tests ran out of their 840 s on a busy host. Then, when issue 25's
#                                          suites pushed them over again on a busy host: the control socket's
#                                          requests (the protocol, not the cgroups; every verb is run by the
#                                          other suites here), the watchdog under a debugger (ptrace and
#                                          TracerPid), and the MetricKit payloads' figures (exit counts, launch
#                                          and signpost metrics: the core's measurements of events).
#   VM_DIR [${TMPDIR:-/tmp}/jetsam-v2-vm]  work dir: cache/ (kernel, initramfs) makes later runs fast
#   MEM [3072] SMP [2]                     guest RAM (MiB) and vCPUs (kill-order tests hold ~600 MiB)
#   DISK_MB [1024]                         scratch ext4 disk on /var/tmp (sparse; the PSI trigger test needs real
#                                          writeback stalls, which the 9p + tmpfs root cannot make); 0: none
#   TIMEOUT [900]                          VM wall-clock limit (s); the test bundle gets TIMEOUT-60. A run takes
#                                          about 5 min on an idle 2-core host, but 9+ min when the host is busy
#   ACCEL [tcg]                            tcg | kvm (KVM hangs on the nested build machines even with /dev/kvm)
#   JETSAM_TEST_SLOWDOWN [4]               stretches the tests' waits and lifecycle time scale: everything runs
#                                          several times slower under emulation
#   KEEP_VM_OUTPUT [0]                     1: keep the run's dir (console.log, guest-output.txt, results.xml)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$ROOT/.build/debug}
BUNDLE=$BUILD_DIR/jetsamPackageTests.xctest
export JETSAM_BIN_DIR=${JETSAM_BIN_DIR:-$BUILD_DIR}
FILTER=${V2_TEST_FILTER:-'^(JetsamIntegrationTests\.|JetsamShellTests\.(CgroupTests|SpawnerTests)/)'}
export VM_DIR=${VM_DIR:-${TMPDIR:-/tmp}/jetsam-v2-vm}
export MEM=${MEM:-3072} SMP=${SMP:-2} TIMEOUT=${TIMEOUT:-900} ACCEL=${ACCEL:-tcg} DISK_MB=${DISK_MB:-1024}
say() { echo "cgroup-v2-vm: $*"; }
T0=$(date +%s.%N)

"$ROOT/scripts/install-deps.sh" test
for f in "$BUNDLE" "$JETSAM_BIN_DIR/jetsamd" "$JETSAM_BIN_DIR/jetsamctl" "$JETSAM_BIN_DIR/jetsam-testapp" "$JETSAM_BIN_DIR/jetsam-spawner"; do
  [ -x "$f" ] || { say "missing $f: run 'swift build --build-tests' first (make test does)"; exit 1; }
done

mkdir -p "$VM_DIR"
OUT=$(mktemp -d "$VM_DIR/run.XXXXXX")
if [ "${KEEP_VM_OUTPUT:-0}" = 1 ]; then
  trap 'say "run output kept in $OUT"' EXIT
else
  trap 'rm -rf "$OUT"' EXIT
fi

say "running $FILTER from $BUNDLE on pure cgroup v2 (QEMU $ACCEL, $SMP vCPU, $MEM MiB)"
# In the background, so that a SIGINT/SIGTERM here reaches the runner (which then ends qemu) before $OUT goes.
OUT=$OUT "$ROOT/scripts/cgroup-v2-vm/run-v2-vm.sh" -- \
  env JETSAM_BIN_DIR="$JETSAM_BIN_DIR" GUEST_TIMEOUT=$((TIMEOUT - 60)) JETSAM_TEST_SLOWDOWN="${JETSAM_TEST_SLOWDOWN:-4}" \
  "$ROOT/scripts/cgroup-v2-vm/guest-tests.sh" "$OUT" "$BUNDLE" "$FILTER" ${V2_TEST_ARGS---experimental-maximum-parallelization-width 3 --skip LabTests --skip LabCheckTests --skip MetricsEndpointIntegrationTests --skip AppLifecycleTests --skip RestorationTests --skip WatchTests --skip UserLookupTests --skip CrashReportTrustTests --skip ControlSocketTests --skip WatchdogDebuggerIntegrationTests --skip LaunchMetricsIntegrationTests --skip MetricsIntegrationTests --skip SignpostMetricsIntegrationTests} &
runner=$!
trap 'kill -TERM $runner 2>/dev/null; wait $runner; exit 130' INT
trap 'kill -TERM $runner 2>/dev/null; wait $runner; exit 143' TERM
wait $runner && vm_rc=0 || vm_rc=$?
trap - INT TERM
T1=$(date +%s.%N)

# Timings: the guest marks the start and end of the test run with its uptime (boot = uptime at start).
marks=$(grep -a '^@@cgroup-v2-vm tests-' "$OUT/guest-output.txt" 2>/dev/null || true)
boot=$(awk '$2 == "tests-start" { print $3 }' <<<"$marks")
tests=$(awk '$2 == "tests-start" { s = $3 } $2 == "tests-end" { printf "%.1f", $3 - s }' <<<"$marks")
# qemu's CPU time against its wall time shows how much a loaded host slowed the emulation down.
vm=$(tail -1 "$OUT/qemu.time" 2>/dev/null | awk '{ printf "%s s (qemu CPU %.0f s)", $1, $3 + $4 }')
timing="boot ${boot:-?} s, tests ${tests:-?} s, VM ${vm:-? s}, total $(awk -v a="$T0" -v b="$T1" 'BEGIN { printf "%.1f", b - a }') s"

# Results: Swift Testing's xUnit file (one <testcase> per test function; parameterized cases count once).
xml=$OUT/results.xml
if [ "$vm_rc" = 124 ] || ! grep -q '<testsuite ' "$xml" 2>/dev/null; then
  case $vm_rc in
    124) say "TIMED OUT: the tests did not finish within the time limit (VM ${TIMEOUT} s, tests $((TIMEOUT - 60)) s) ($timing)" ;;
    *) say "no test results came back (exit status $vm_rc; see the guest output above) ($timing)" ;;
  esac
  [ "$vm_rc" = 0 ] && exit 1 || exit "$vm_rc"
fi
attr() { grep -o "<testsuite [^>]*" "$xml" | head -1 | grep -o " $1=\"[0-9]*\"" | grep -o '[0-9]\+' || echo 0; }
total=$(attr tests) failures=$(attr failures) errors=$(attr errors) skipped=$(attr skipped)
failed=$((failures + errors))
passed=$((total - failed - skipped))
if [ "$failed" -gt 0 ]; then
  say "failed tests:"
  # <testcase classname="M.Suite" name="test()" time="…"> followed by <failure …>
  awk '/<testcase / { match($0, /classname="[^"]*"/); c = substr($0, RSTART + 11, RLENGTH - 12)
                      match($0, / name="[^"]*"/); n = substr($0, RSTART + 7, RLENGTH - 8) }
       /<(failure|error)/ && c != "" { m = ""; if (match($0, /message="[^"]*"/)) m = ": " substr($0, RSTART + 9, RLENGTH - 10)
                                       print "  " c "/" n m; c = "" }' "$xml" |
    sed 's/&quot;/"/g; s/&apos;/'"'"'/g; s/&lt;/</g; s/&gt;/>/g; s/&amp;/\&/g'
fi
say "$passed tests passed, $failed failed, $skipped skipped ($timing)"
if [ "$passed" -le 0 ] && [ "$failed" = 0 ]; then say "no test ran (filter $FILTER; $skipped skipped)"; exit 1; fi
if [ "$failed" -gt 0 ]; then exit 1; fi
if [ "$vm_rc" != 0 ]; then say "the test bundle or the VM exited with status $vm_rc"; exit "$vm_rc"; fi
exit 0
