#!/bin/bash
# test-systemd.sh — jetsamd under a REAL systemd (252, PID 1 of a throw-away container), on build machines whose
# PID 1 is not systemd. `make test` and `make test-systemd` call it.
#
# It `make install`s jetsam with DESTDIR into a staging dir, boots systemd with `systemd-nspawn --directory=/
# --volatile=yes --boot` (the host's /usr on a tmpfs root, no image) in a user namespace (so that the v1 memory,
# cpu and pids controllers are delegated to the Delegate=yes jetsamd.service), with the staging dir's usr/local as
# the container's /usr/local (where systemd finds the installed units and sysusers.d entry) and its etc/jetsam as
# /etc/jetsam, and runs scripts/systemd-test/check.sh inside as a oneshot service. The checker drives
# jetsamd.socket/jetsamd.service with systemctl and jetsamctl: socket activation, READY, STATUS, reload, watchdog
# and SIGKILL restarts with re-adoption of running and suspended apps, kill order, journal fields, clean stop; and
# the exit records forwarded by systemd-journal-upload to systemd-journal-remote as the README's fleet says.
#
# Adapted from the shared recipe /work/shared/systemd-in-ci/run-systemd-test.sh ("systemd in CI": its nspawn
# route with --userns, per-run cgroups, a private mount namespace with a tmpfs on /run/systemd, the masked
# systemd-firstboot, results through a bind-mounted dir chowned to the shifted uid); what jetsam needs of it is
# carried here, so the project does not depend on ../shared.
#
# Usage (root):  scripts/test-systemd.sh
# Env: JETSAM_BIN_DIR [<package>/.build/debug]  jetsamd, jetsamctl, jetsam-testapp to install (a toolchain
#                                              outside /usr, e.g. /opt/swift, is bind-mounted read-only)
#      SYSTEMD_TEST_TIMEOUT [150]             container wall-clock limit (s); the checker gets 15 s less
#      TMPDIR [/tmp]                          where the work dir is made
#      SYSTEMD_TEST_KEEP [0]                  1: keep the work dir (console.log, check.log, journal.txt)
#      SYSTEMD_TEST_EXTRA_DROPIN []           a drop-in file added to jetsamd.service (experiments)
#      SYSTEMD_TEST_USERNS [1 on hybrid cgroups, 0 on pure v2]   boot the container in a user namespace
# Exit status: 0 when every check passed; 1 when one failed or no result came back; 124 on the time limit.
# Last line:  systemd-test: 37 checks passed, 0 failed (boot 0.9 s, checks 31.2 s, total 33.0 s)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${JETSAM_BIN_DIR:-$ROOT/.build/debug}
TIMEOUT=${SYSTEMD_TEST_TIMEOUT:-150}
SHIFT=1000000   # the container's root is this host uid (--private-users=$SHIFT:65536)
# The user namespace is what gets the v1 controllers of a hybrid host (these build machines) delegated. Pure cgroup
# v2 hosts are not supported yet: tried in the cgroup v2 VM (where a chroot'ed caller cannot create a user
# namespace, hence none there), the container's services got no memory/cpu/pids controllers.
if [ "$(stat -fc %T /sys/fs/cgroup)" = cgroup2fs ]; then USERNS=${SYSTEMD_TEST_USERNS:-0}; else USERNS=${SYSTEMD_TEST_USERNS:-1}; fi
say() { echo "systemd-test: $*"; }
T0=$(date +%s%N)
secs() { local n=$(($1 / 1000000)); printf '%d.%d' $((n / 1000)) $((n % 1000 / 100)); }

[ "$(id -u)" = 0 ] || { say "needs root (it boots a container and creates cgroups)"; exit 2; }
for p in jetsamd jetsamctl jetsam-testapp; do
  [ -x "$BIN/$p" ] || { say "missing $BIN/$p: build first (make build, or set JETSAM_BIN_DIR)"; exit 1; }
done

# ---- prerequisites: systemd-nspawn (package systemd-container) and systemd-journal-remote (the checker's section 13),
# each the exact version of the installed systemd, without recommends (a recommended package edits
# /etc/nsswitch.conf); openssl (section 13's certificates). Installed on the host: the container sees its /usr.
version=$(dpkg-query -W -f='${Version}' systemd)
want=()
command -v systemd-nspawn > /dev/null || want+=("systemd-container=$version")
[ -x /lib/systemd/systemd-journal-remote ] || want+=("systemd-journal-remote=$version")
command -v openssl > /dev/null || want+=(openssl)
if [ ${#want[@]} -gt 0 ]; then
  say "installing ${want[*]}"
  [ -n "$(find /var/lib/apt/lists -name '*_Packages' -mmin -1440 2> /dev/null | head -1)" ] || apt-get update -qq
  for i in $(seq 1 60); do  # another installer may hold the dpkg lock
    if DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${want[@]}" \
      > /tmp/jetsam-systemd-apt.log 2>&1; then break; fi
    grep -q 'Could not get lock\|Unable to acquire the dpkg' /tmp/jetsam-systemd-apt.log \
      || { cat /tmp/jetsam-systemd-apt.log >&2; exit 1; }
    sleep 5
  done
fi
command -v systemd-nspawn > /dev/null || { say "systemd-nspawn still missing"; exit 1; }
[ -x /lib/systemd/systemd-journal-remote ] || { say "systemd-journal-remote still missing"; exit 1; }
command -v openssl > /dev/null || { say "openssl still missing"; exit 1; }
[ -x /lib/systemd/systemd ] || { say "no /lib/systemd/systemd (package systemd)"; exit 1; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/jetsam-systemd-test.XXXXXX")
STAGE=$WORK/stage UNITS=$WORK/units OUTD=$WORK/out ETCSD=$WORK/etc-systemd
mkdir -p "$STAGE" "$UNITS" "$OUTD" "$ETCSD"

# ---- per-run cgroups (host hygiene): a fresh child of our cgroup in every hierarchy, so that nspawn's and the
# container's cgroups live below it (and are removed with it), and it is the container's cgroup namespace root.
RUN=jetsam-sdtest-$$
CGCREATED=()
cg_enter() {
  local snap id ctrls path h d
  snap=$(cat /proc/self/cgroup)   # a snapshot: /proc/self/cgroup changes while we move ourselves
  while IFS=: read -r id ctrls path; do
    if [ "$id" = 0 ]; then
      if [ "$(stat -fc %T /sys/fs/cgroup)" = cgroup2fs ]; then h=/sys/fs/cgroup; else h=/sys/fs/cgroup/unified; fi
    else h=/sys/fs/cgroup/${ctrls#name=}; fi
    { [ "$id" = 0 ] || [ -n "$ctrls" ]; } && mountpoint -q "$h" || continue
    d="$h${path%/}/$RUN"
    mkdir -p "$d"; CGCREATED+=("$d")
    if [[ ",$ctrls," == *,cpuset,* ]]; then cat "${d%/*}/cpuset.cpus" > "$d/cpuset.cpus"; cat "${d%/*}/cpuset.mems" > "$d/cpuset.mems"; fi
    echo $$ > "$d/cgroup.procs"
  done <<< "$snap"
}
cleanup() {
  local d i
  for d in "${CGCREATED[@]}"; do echo $$ > "${d%/*}/cgroup.procs" 2> /dev/null || true; done
  for d in "${CGCREATED[@]}"; do
    for i in $(seq 1 50); do   # after a SIGKILL teardown the kernel may still be reaping tasks
      find "$d" -depth -type d -exec rmdir {} \; 2> /dev/null || true
      [ -d "$d" ] || break; sleep 0.1
    done
    [ -d "$d" ] && say "WARNING: could not remove $d"
  done
  [ -n "${MADE_RUN_SYSTEMD:-}" ] && rmdir /run/systemd 2> /dev/null
  if [ "${SYSTEMD_TEST_KEEP:-0}" = 1 ]; then say "work dir kept: $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

# ---- make install into the staging dir (DESTDIR): binaries, units, sysusers.d, config, profiles, docs
make -C "$ROOT" --no-print-directory install DESTDIR="$STAGE" PREFIX=/usr/local INSTALL_BIN_DIR="$BIN" > "$WORK/install.log" 2>&1 \
  || { cat "$WORK/install.log"; say "make install DESTDIR=$STAGE failed"; exit 1; }
for f in usr/local/bin/jetsamd usr/local/bin/jetsam-spawner usr/local/bin/jetsam-stack usr/local/bin/jetsam-sockets \
  usr/local/bin/jetsam-runnable \
  usr/local/lib/jetsam/libjetsam-crash.so usr/local/lib/systemd/system/jetsamd.service \
  usr/local/lib/systemd/system/jetsamd.socket usr/local/lib/systemd/system/jetsam-spawner.service \
  usr/local/lib/systemd/system/jetsam-spawner.socket \
  usr/local/lib/sysusers.d/jetsam.conf etc/jetsam/jetsamd.json5 usr/local/bin/jetsam-lab \
  usr/local/share/doc/jetsam/LABS.md usr/local/share/doc/jetsam/labs/restoration.json5; do
  [ -e "$STAGE/$f" ] || { say "make install did not install /$f"; exit 1; }
done

# Libraries outside the container's view (the volatile root has only the host's /usr): a toolchain's runtime.
binds=()
for dir in $(ldd "$BIN/jetsamd" "$BIN/jetsam-spawner" "$BIN/jetsamctl" "$BIN/jetsam-testapp" "$BIN/jetsam-stack" "$BIN/jetsam-sockets" "$BIN/jetsam-runnable" 2> /dev/null | sed -n 's|.*=> \(/[^ ]*\)/[^/ ]* (.*|\1|p' | sort -u); do
  case "$dir" in /usr/* | /lib/* | /lib64/*) ;; *) binds+=(--bind-ro="$dir") ;; esac
done

# ---- the container's /etc/systemd/system: the checker, its target, the test drop-in; firstboot masked (/etc is
# empty in the volatile root, so systemd-firstboot would prompt on the console until the time limit)
cp "$ROOT/scripts/systemd-test/units/jetsam-check.service" "$ROOT/scripts/systemd-test/units/jetsam-test.target" "$UNITS/"
cp -r "$ROOT/scripts/systemd-test/units/jetsamd.service.d" "$UNITS/"
ln -s /dev/null "$UNITS/systemd-firstboot.service"
mkdir -p "$UNITS/jetsam-check.service.d"
printf '[Service]\nTimeoutStartSec=%s\n' $((TIMEOUT - 15)) > "$UNITS/jetsam-check.service.d/timeout.conf"
# Experiments: one more drop-in for jetsamd.service, e.g. a smaller CapabilityBoundingSet=.
[ -n "${SYSTEMD_TEST_EXTRA_DROPIN:-}" ] && cp "$SYSTEMD_TEST_EXTRA_DROPIN" "$UNITS/jetsamd.service.d/zz-extra.conf"

cg_enter
# The container's root is host uid $SHIFT: give it our per-run cgroups (nspawn then mounts the v1 controllers
# read-write for it), the output dir, the config dir and its /etc/systemd (bind mounts keep host ownership with
# ownership=off; the mount point nspawn makes for /etc/systemd/system would leave /etc/systemd to the host's root,
# and the checker writes /etc/systemd/journal-remote.conf and journal-upload.conf there, as the README says).
if [ "$USERNS" = 1 ]; then
  for d in "${CGCREATED[@]}"; do chown -R "$SHIFT:$SHIFT" "$d"; done
  chown -R "$SHIFT:$SHIFT" "$OUTD" "$STAGE/etc/jetsam" "$ETCSD"
  userns=(--private-users=$SHIFT:65536 --private-users-ownership=off)
else
  userns=()
fi

say "booting systemd in a container ($([ "$USERNS" = 1 ] && echo "user namespace, ")volatile root); jetsam installed from $BIN"
set +e
# nspawn's own system call allow-list lacks process_mrelease (EPERM for everything in the container): add it, so
# that jetsamd's reaping of a victim's memory and the unit's filter for it are tested for real.
# A network of the container's own (loopback only), owned by its user namespace: SOCK_DESTROY asks for CAP_NET_ADMIN
# in the user namespace that owns the network, which the container's root has in its own network, never in the
# host's (section 8e: jetsam-sockets, run by the spawner service, defuncts a suspended app's connection).
# Private mount namespace with a tmpfs on /run/systemd: nspawn creates /run/systemd/nspawn* entries that it refuses
# to remove from a disk-backed /run ("Attempted to remove disk file system"); keep them off the host.
[ -d /run/systemd ] || { mkdir -p /run/systemd; MADE_RUN_SYSTEMD=1; }
unshare --mount --propagation private -- sh -c 'mount -t tmpfs tmpfs /run/systemd && exec "$@"' sh \
  timeout -k 10 "$TIMEOUT" systemd-nspawn --quiet --directory=/ --volatile=yes \
    --register=no --keep-unit "${userns[@]}" --private-network \
    --system-call-filter=process_mrelease \
    --bind="$OUTD":/out --bind="$ETCSD":/etc/systemd --bind-ro="$UNITS":/etc/systemd/system --bind-ro="$ROOT/scripts/systemd-test":/jetsam-test \
    --bind-ro="$STAGE/usr/local":/usr/local --bind="$STAGE/etc/jetsam":/etc/jetsam "${binds[@]}" \
    --boot -- systemd.unit=jetsam-test.target > "$WORK/console.log" 2>&1
rc=$?
set -e
T1=$(date +%s%N)
[ "$USERNS" = 1 ] && chown -R 0:0 "$OUTD"

if [ -s "$OUTD/check.log" ]; then
  cat "$OUTD/check.log"
  if ! grep -q '^RESULT:' "$OUTD/check.log"; then
    say "the checker did not finish; jetsamd in the journal:"
    grep -E 'jetsamd|jetsam-check' "$OUTD/journal.txt" 2> /dev/null | tail -60
  fi
else
  say "no check.log; the container's console:"; tail -50 "$WORK/console.log"
fi
timing="total $(secs $((T1 - T0))) s"
if [ -s "$OUTD/check.start" ] && [ -s "$OUTD/check.end" ]; then
  timing="boot $(secs $(($(cat "$OUTD/check.start") - T0))) s, checks $(secs $(($(cat "$OUTD/check.end") - $(cat "$OUTD/check.start")))) s, $timing"
fi
{ read -r passed failed < "$OUTD/summary"; } 2> /dev/null || { passed=0; failed=1; }
if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
  say "the container hit the ${TIMEOUT}s time limit"; failed=$((failed + 1)); rc=124
elif [ "$rc" != 0 ] && [ "$failed" = 0 ]; then
  say "the container exited with status $rc"; failed=1
fi
say "$passed checks passed, $failed failed ($timing)"
[ "$failed" = 0 ] && [ "$rc" = 0 ] && exit 0
[ "$rc" = 124 ] && exit 124
exit 1
