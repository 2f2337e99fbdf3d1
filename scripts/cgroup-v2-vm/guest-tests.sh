#!/bin/sh
# Runs INSIDE the cgroup v2 VM (started by scripts/test-cgroup-v2.sh through run-v2-vm.sh): runs the host-built
# Swift Testing bundle, filtered, with the results as xUnit XML in the shared output dir.
#
#   guest-tests.sh OUT_DIR TEST_BUNDLE FILTER [MORE-TEST-ARGS...]
#
# Env: JETSAM_BIN_DIR (where the tests find jetsamd, jetsamctl, jetsam-testapp), GUEST_TIMEOUT (s).
set -u
OUT=$1 BUNDLE=$2 FILTER=$3
shift 3
CG=/sys/fs/cgroup
SCOPE=$CG/jetsam-tests.scope
LIMIT=${GUEST_TIMEOUT:-840}
uptime_s() { cut -d' ' -f1 /proc/uptime; }

echo "== cgroup-v2-vm guest: kernel $(uname -r), $(nproc) vCPUs, $(awk '/MemTotal/{printf "%d MiB", $2/1024}' /proc/meminfo)"
echo "== $CG: $(stat -f -c %T $CG), controllers: $(cat $CG/cgroup.controllers), subtree_control: $(cat $CG/cgroup.subtree_control)"
if [ "$(stat -f -c %T $CG)" != cgroup2fs ] || [ -e $CG/unified ]; then
  echo "cgroup-v2-vm: FATAL: $CG is not a pure cgroup v2 hierarchy"; exit 2
fi

# Every cgroup with its frozen flag and processes, and every process with its state and cgroup.
snapshot() {
  echo "---- cgroups (frozen flag, populated flag, pids):"
  find $CG -mindepth 1 -type d | sort | while read -r d; do
    echo "${d#$CG/}: frozen=$(awk '$1=="frozen"{print $2}' "$d/cgroup.events") populated=$(awk '$1=="populated"{print $2}' "$d/cgroup.events") procs=$(tr '\n' ' ' < "$d/cgroup.procs")"
  done
  echo "---- processes:"
  ps -eo pid,ppid,stat,pcpu,etimes,rss,args --sort=pid | grep -v ' \[.*\]$' | cut -c1-160
  echo "---- /proc/pressure/memory: $(tr '\n' ' ' < /proc/pressure/memory); MemAvailable: $(awk '/MemAvailable/{print $2" kB"}' /proc/meminfo)"
}

# The tests run in a scope of their own, as a systemd host would place them (nothing lives in the root
# cgroup there); the harness starts each jetsamd in a sibling /sys/fs/cgroup/<name>.service. This shell and
# its watchdog stay in the root cgroup, so nothing the tests do to their own cgroups (freeze, kill) can
# stop the watchdog from reporting and ending them.
mkdir -p $SCOPE || exit 2
echo "== uptime $(uptime_s)s: running $BUNDLE --testing-library swift-testing --filter '$FILTER' $* in ${SCOPE#$CG}"
echo "@@cgroup-v2-vm tests-start $(uptime_s)"
# The bundle's output is prefixed "v2| ", so that its lines (its closing "Test run with N tests" above all)
# cannot be mistaken for the host's in a CI log.
{
  sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' $SCOPE \
    "$BUNDLE" --testing-library swift-testing --filter "$FILTER" --xunit-output "$OUT/results.xml" "$@" 2>&1
  echo $? > /run/jetsam-tests.rc
} | sed -u 's/^/v2| /' &
tests=$!
(
  sleep "$LIMIT" </dev/null >/dev/null 2>&1   # (must not hold the console pipe open once orphaned)
  echo "cgroup-v2-vm: TIMEOUT: the tests are still running after ${LIMIT}s; state of the VM:"
  snapshot
  touch /run/jetsam-tests.timeout
  echo 1 > $SCOPE/cgroup.kill   # kills every process in the scope, frozen ones included
) &
watchdog=$!
wait $tests
rc=$(cat /run/jetsam-tests.rc 2>/dev/null || echo 1)
kill $watchdog 2>/dev/null
[ -e /run/jetsam-tests.timeout ] && rc=124
echo "@@cgroup-v2-vm tests-end $(uptime_s) rc=$rc"

# Whatever the tests left behind shows here (the VM, and with it every cgroup, is gone a moment later).
left=$(find $CG -mindepth 1 -type d ! -path $SCOPE | head -20)
[ -z "$left" ] || echo "cgroup-v2-vm: WARNING: cgroups left behind by the tests:" $left
exit $rc
