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
uptime_s() { cut -d' ' -f1 /proc/uptime; }

echo "== cgroup-v2-vm guest: kernel $(uname -r), $(nproc) vCPUs, $(awk '/MemTotal/{printf "%d MiB", $2/1024}' /proc/meminfo)"
echo "== $CG: $(stat -f -c %T $CG), controllers: $(cat $CG/cgroup.controllers), subtree_control: $(cat $CG/cgroup.subtree_control)"
if [ "$(stat -f -c %T $CG)" != cgroup2fs ] || [ -e $CG/unified ]; then
  echo "cgroup-v2-vm: FATAL: $CG is not a pure cgroup v2 hierarchy"; exit 2
fi

# As on a systemd host, no test process lives in the root cgroup: the runner goes into a scope of its own,
# and the harness starts each jetsamd in a sibling /sys/fs/cgroup/<name>.service.
mkdir -p $CG/jetsam-tests.scope && echo $$ > $CG/jetsam-tests.scope/cgroup.procs || exit 2
echo "== test runner cgroup: $(cat /proc/self/cgroup)"
echo "== uptime $(uptime_s)s: running $BUNDLE --testing-library swift-testing --filter '$FILTER' $*"
echo "@@cgroup-v2-vm tests-start $(uptime_s)"
timeout -k 10 "${GUEST_TIMEOUT:-840}" "$BUNDLE" --testing-library swift-testing --filter "$FILTER" \
  --xunit-output "$OUT/results.xml" "$@"
rc=$?
echo "@@cgroup-v2-vm tests-end $(uptime_s) rc=$rc"
[ $rc = 124 ] && echo "cgroup-v2-vm: the test bundle hit the guest time limit of ${GUEST_TIMEOUT:-840}s"

# Whatever the tests left behind shows here (the VM, and with it every cgroup, is gone a moment later).
left=$(find $CG -mindepth 1 -type d ! -path "$CG/jetsam-tests.scope" | head -20)
[ -z "$left" ] || echo "cgroup-v2-vm: WARNING: cgroups left behind by the tests:" "$left"
exit $rc
