#!/bin/bash
# check.sh — runs INSIDE the throw-away systemd container of scripts/test-systemd.sh, as jetsam-check.service
# (Type=oneshot; its exit status becomes the container's and the test's exit status). Drives the installed
# jetsamd.socket / jetsamd.service with systemctl and jetsamctl and checks the results with systemctl show,
# the cgroup files, /proc and `journalctl -o json`. Log: /out/check.log; counts: /out/summary.
#
# No awk here: the container's /etc is an empty tmpfs, so /usr/bin/awk -> /etc/alternatives/awk dangles.
# JSON is read with python3 (/usr/bin/python3 -> python3.11, no alternatives link).
set -u
OUT=${JETSAM_TEST_OUT:-/out}
exec > "$OUT/check.log" 2>&1
date +%s%N > "$OUT/check.start"
export PATH=/usr/local/bin:/usr/bin:/usr/sbin
BIN=/usr/local/bin
UNIT=jetsamd.service
CONF=/etc/jetsam/jetsamd.json5
JETSAM_KILL_ID=5f1c8a0e2d8b4c6f9a3e7b1d0c4f2a61   # Journal.MessageID.jetsamKill

pass=0 fail=0
ok()  { echo "PASS: $*"; pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
check() { local what=$1; shift; if "$@"; then ok "$what"; else bad "$what"; fi; }
info() { echo "  . $*"; }
section() { echo; echo "== $*"; }
prop() { systemctl show "${2:-$UNIT}" -p "$1" --value; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }
# wait_until SECONDS COMMAND...: polls every 0.1 s; status 0 as soon as COMMAND succeeds.
wait_until() {
  local limit=$(($(now_ms) + $1 * 1000)); shift
  while ! "$@"; do [ "$(now_ms)" -ge "$limit" ] && return 1; sleep 0.1; done
}
ctl() { timeout 10 "$BIN/jetsamctl" "$@"; }
is_active() { [ "$(prop ActiveState "${1:-$UNIT}")" = active ]; }
is_inactive() { [ "$(prop ActiveState "${1:-$UNIT}")" = inactive ]; }
alive() { [ -n "$1" ] && kill -0 "$1" 2>/dev/null; }
dead() { [ -n "$1" ] && ! kill -0 "$1" 2>/dev/null; }
# protocol_app PATH < CASES: writes an executable bash app at PATH that says hello, acknowledges every event,
# and runs CASES (case arms on the event's `name=…` field, from standard input) for each event first.
protocol_app() {
  { printf '%s\n' '#!/bin/bash' 'echo "hello version=1" >&"$JETSAM_FD"' \
      'while read -r -u "$JETSAM_FD" line; do' '  set -- $line' '  case "${3:-}" in'
    cat
    printf '%s\n' '  esac' '  [ "$1" = event ] && echo "ack ${2/id=/event=}" >&"$JETSAM_FD"' 'done'
  } > "$1"
  chmod 755 "$1"
}
# foreground_seconds NAME: the app's cumulativeForegroundTime in seconds, from `jetsamctl --json metrics --app NAME`.
foreground_seconds() {
  timeout 10 "$BIN/jetsamctl" --json metrics --app "$1" 2>/dev/null | python3 -c '
import json, sys
time = json.load(sys.stdin)[0].get("applicationTimeMetrics", {}).get("cumulativeForegroundTime", "")
print(time.split()[0].replace(",", "") if time else "")' 2>/dev/null
}
# The state letter of /proc/PID/stat (R, S, T, Z…), read without awk.
proc_state() { local s; s=$(cat "/proc/$1/stat" 2>/dev/null) || { echo gone; return; }; s=${s##*) }; echo "${s%% *}"; }
# app_field NAME FIELD: from `jetsamctl --json ps` (empty when the app is not listed).
app_field() {
  ctl --json ps 2>/dev/null | python3 -c '
import json, sys
try: apps = json.load(sys.stdin)
except Exception: sys.exit(0)
for a in apps:
    if a.get("name") == sys.argv[1]: print(a.get(sys.argv[2], ""))' "$1" "$2"
}
app_pid() { app_field "$1" pid; }
# The cgroup directory of PID in hierarchy CONTROLLER ("memory", "pids", or "" for the cgroup2 one).
cgroup_dir() {
  local id ctrls path
  while IFS=: read -r id ctrls path; do
    if [ -z "$2" ] && [ "$id" = 0 ]; then
      [ "$(stat -fc %T /sys/fs/cgroup)" = cgroup2fs ] && echo "/sys/fs/cgroup$path" || echo "/sys/fs/cgroup/unified$path"; return
    elif [ -n "$2" ] && [[ ",$ctrls," == *",$2,"* ]]; then echo "/sys/fs/cgroup/$ctrls$path"; return; fi
  done < "/proc/$1/cgroup"
}
# The memory cap file of PID's cgroup and its value.
mem_limit_file() {
  [ -n "$1" ] || { echo /no-such-app; return; }
  local d; d=$(cgroup_dir "$1" memory)
  if [ -n "$d" ] && [ -e "$d/memory.limit_in_bytes" ]; then echo "$d/memory.limit_in_bytes"; return; fi
  d=$(cgroup_dir "$1" ""); echo "$d/memory.max"
}
restarts() { prop NRestarts; }
main_pid() { prop MainPID; }
socket_inode() { stat -c %i /run/jetsam/jetsamd.sock 2>/dev/null; }
journal_json() { journalctl --no-pager -o json "$@" 2>/dev/null; }
# The jetsam-device directories below jetsamd's unit cgroup, in every hierarchy.
device_dirs() { ls -d /sys/fs/cgroup/*/system.slice/jetsamd.service/jetsam-device /sys/fs/cgroup/system.slice/jetsamd.service/jetsam-device 2>/dev/null; }

write_config() {  # write_config MEMORY_LIMIT_OF_capped
  cat > "$CONF" <<JSON5
// jetsamd.json5 of the systemd test (the installed default was checked with --check-config first).
{
  device: { ram: "1G", cgroupName: "jetsam-device" },
  suspend: { mode: "signal", backgroundGrace: null },   // suspended only on request: a deterministic order
  defaults: { pidsLimit: 64 },
  terminateGrace: "2s",
  watchdog: { launch: "3s" },                            // section 8d's hang, without a 20 s wait
  stateDirectory: "/var/lib/jetsam", runtimeDirectory: "/run/jetsam", controlGroup: "jetsam",
  debugRequests: true,                                   // jetsamctl debugFreeze: the watchdog check
  metrics: { textfile: "/run/jetsam/metrics/jetsam.prom", interval: "1s" },   // section 11b
  apps: {
    capped: { command: ["$BIN/jetsam-testapp", "alloc", "8", "--hold"], memoryLimit: "$1" },
    asuser: { command: ["$BIN/jetsam-testapp", "alloc", "4", "--hold"], user: "nobody" },
    s1: { command: ["$BIN/jetsam-testapp", "alloc", "6", "--hold"] },
    s2: { command: ["$BIN/jetsam-testapp", "alloc", "6", "--hold"] },
    s3: { command: ["$BIN/jetsam-testapp", "alloc", "6", "--hold"] },
    talker: { command: ["/bin/bash", "/run/jetsam-talker.sh"] },   // speaks the app protocol (section 8)
  },
}
JSON5
}

# ---------------------------------------------------------------------------------------------------
section "environment"
echo "virt: $(systemd-detect-virt 2>&1); $(systemctl --version | head -1)"
echo "/proc/self/cgroup:"; cat /proc/self/cgroup
systemctl show -p Version,Virtualization,ControlGroup --no-pager | sed 's/^/  . manager /'

section "1. make install layout (DESTDIR staging as the container's /usr/local and /etc/jetsam)"
check "jetsam group exists (sysusers.d/jetsam.conf applied at boot): $(getent group jetsam)" getent group jetsam
fragment=$(prop FragmentPath)
check "jetsamd.service loaded from the installed unit ($fragment)" [ "$fragment" = /usr/local/lib/systemd/system/jetsamd.service ]
execstart=$(prop ExecStart)
check "ExecStart names the installed binary, config and spawner service" grep -q 'path=/usr/local/bin/jetsamd ; argv\[\]=/usr/local/bin/jetsamd --config /etc/jetsam/jetsamd.json5 --spawner /run/jetsam-spawner/spawner.sock' <<< "$execstart"
# The score of the installed unit, as issue 9 asks (2.0 or lower): jetsamd's sandbox is its own, the apps'
# is jetsam-spawner.service's.
score() { systemd-analyze security --offline=true "/usr/local/lib/systemd/system/$1" 2>&1 | sed -n 's/.*exposure level for [^:]*: \([0-9.]*\).*/\1/p'; }
jetsamd_score=$(score jetsamd.service); spawner_score=$(score jetsam-spawner.service)
check "systemd-analyze security --offline=true: jetsamd.service $jetsamd_score (2.0 or lower), jetsam-spawner.service $spawner_score" \
  python3 -c "import sys; sys.exit(0 if 0 < float('${jetsamd_score:-0}') <= 2.0 else 1)"
out=$("$BIN/jetsamd" --config "$CONF" --check-config 2>&1); rc=$?
check "installed default config is valid: $out" [ "$rc" = 0 ]
check "profiles installed in /etc/jetsam/profiles ($(ls /etc/jetsam/profiles | tr '\n' ' '))" [ -e /etc/jetsam/profiles/phone-2g.json5 ]
write_config 64M
out=$("$BIN/jetsamd" --config "$CONF" --check-config 2>&1) || bad "test config invalid: $out"

section "2. jetsamd.socket: listening before jetsamd runs"
systemctl start jetsamd.socket
check "jetsamd.socket active" is_active jetsamd.socket
perm=$(stat -c '%a %U %G %F' /run/jetsam/jetsamd.sock 2>&1)
check "socket /run/jetsam/jetsamd.sock is '660 root jetsam socket' ($perm)" [ "$perm" = "660 root jetsam socket" ]
check "jetsamd.service not started yet ($(prop ActiveState))" is_inactive
sock_ino=$(socket_inode)

section "3. socket activation: jetsamctl works while jetsamd.service is inactive, and starts it"
t0=$(now_ms)
status_out=$(ctl status 2>&1); rc=$?
info "jetsamctl status (rc $rc, $(( $(now_ms) - t0 )) ms): $(echo "$status_out" | head -3 | tr '\n' '|')"
check "jetsamctl status answered through the socket (rc $rc)" [ "$rc" = 0 ]
check "jetsamd.service was started by the connection and is active" is_active
check "TriggeredBy=jetsamd.socket ($(prop TriggeredBy))" grep -q jetsamd.socket <<< "$(prop TriggeredBy)"
mp=$(main_pid)
st=$(grep -E '^(NoNewPrivs|Seccomp|CapBnd|CapEff):' "/proc/$mp/status" | tr -s '\t ' ' ' | tr '\n' ' ')
info "sandbox of jetsamd (pid $mp): $st; oom_score_adj $(cat /proc/$mp/oom_score_adj)"
# CAP_DAC_OVERRIDE 1, CAP_KILL 5 (jetsamd); CAP_DAC_OVERRIDE 1, CAP_SETGID 6, CAP_SETUID 7, CAP_NET_ADMIN 12,
# CAP_SYS_PTRACE 19 (the spawner)
check "hardening in force: NoNewPrivs 1, Seccomp 2 (filter), CapBnd 0000000000000022" \
  eval 'grep -q "NoNewPrivs: 1 " <<< "$st" && grep -q "Seccomp: 2 " <<< "$st" && grep -q "CapBnd: 0000000000000022 " <<< "$st"'
check "jetsamd has a network namespace of its own (PrivateNetwork=): $(readlink /proc/$mp/ns/net) vs the host's $(readlink /proc/1/ns/net)" \
  eval '[ "$(readlink /proc/$mp/ns/net)" != "$(readlink /proc/1/ns/net)" ]'
check "jetsam-spawner.service was started through its socket by jetsamd ($(prop ActiveState jetsam-spawner.service))" \
  is_active jetsam-spawner.service
sp=$(prop MainPID jetsam-spawner.service)
sp_st=$(grep -E '^(NoNewPrivs|Seccomp|CapBnd):' "/proc/$sp/status" 2>/dev/null | tr -s '\t ' ' ' | tr '\n' ' ')
check "the spawner's sandbox (the apps'): NoNewPrivs 1, Seccomp 2, CapBnd 00000000000810c2 (SETUID SETGID DAC_OVERRIDE NET_ADMIN SYS_PTRACE) ($sp_st)" \
  eval 'grep -q "NoNewPrivs: 1 " <<< "$sp_st" && grep -q "Seccomp: 2 " <<< "$sp_st" && grep -q "CapBnd: 00000000000810c2 " <<< "$sp_st"'
perm=$(stat -c '%a %U %F' /run/jetsam-spawner/spawner.sock 2>&1)
check "the spawner's socket is root's alone: '600 root socket' ($perm)" [ "$perm" = "600 root socket" ]
# The units' resolved system call filters, applied to a probe: process_mrelease must reach the kernel for
# jetsamd, clone3 for the spawner service (EINVAL for these arguments), not be refused by the filter (EPERM).
# Control: plain @system-service refuses process_mrelease.
probe() {
  systemd-run --quiet --wait --pipe -p SystemCallFilter="$1" -p SystemCallErrorNumber=EPERM -p NoNewPrivileges=yes \
    python3 -c '
import ctypes, errno, subprocess
libc = ctypes.CDLL(None, use_errno=True)
def call(*args):
    r = libc.syscall(*args)
    return "ok" if r >= 0 else errno.errorcode[ctypes.get_errno()]
child = subprocess.Popen(["sleep", "5"])
pidfd = libc.syscall(434, child.pid, 0)                   # pidfd_open
print("clone3=" + call(435, None, 0), "process_mrelease=" + call(448, pidfd, 0))
child.kill()' 2>&1
}
p_unit=$(probe "$(prop SystemCallFilter)"); p_ctrl=$(probe @system-service)
p_spawner=$(probe "$(prop SystemCallFilter jetsam-spawner.service)")
check "filters: jetsamd's lets process_mrelease through ($p_unit), the spawner's clone3 ($p_spawner); plain @system-service: $p_ctrl" \
  eval '[ "${p_unit#* }" = "process_mrelease=EINVAL" ] && [ "${p_spawner%% *}" = "clone3=EINVAL" ] && [ "$p_ctrl" = "clone3=EINVAL process_mrelease=EPERM" ]'
# The sandbox keeps CAP_SYS_NICE out and RestrictRealtime= refuses SCHED_FIFO: the loop stays on the normal
# scheduler (a drop-in can give SCHED_FIFO on a host, not in this user-namespaced container).
info "jetsamd's scheduling under the unit: $(chrt -p "$mp" | head -1)"
systemctl stop "$UNIT"
check "after systemctl stop jetsamd.service, the socket still listens (same inode)" \
  eval '[ "$(prop ActiveState jetsamd.socket)" = active ] && [ "$(socket_inode)" = "$sock_ino" ]'

section "4. Type=notify: the unit is active only after READY=1 (READY delayed by a 2 s wrapper)"
mkdir -p /run/systemd/system/jetsamd.service.d
cat > /run/systemd/system/jetsamd.service.d/slow-ready.conf <<EOF
[Service]
ExecStart=
ExecStart=/bin/sh -c 'sleep 2; exec $BIN/jetsamd --config $CONF --spawner /run/jetsam-spawner/spawner.sock'
EOF
systemctl daemon-reload
t0=$(now_ms)
systemctl start --no-block "$UNIT"
sleep 1
s1=$(prop ActiveState)/$(prop SubState)
check "1 s after start, while READY is delayed: $s1" [ "$s1" = activating/start ]
wait_until 10 is_active; t1=$(now_ms)
dev_at_ready=$(device_dirs | wc -l)
check "active after $((t1 - t0)) ms (>= 2000: when READY=1 came, not when the process started)" [ $((t1 - t0)) -ge 2000 ]
check "at READY the device cgroup exists ($dev_at_ready hierarchies) and the socket answers" \
  eval '[ "$dev_at_ready" -ge 1 ] && ctl status > /dev/null'
rm -f /run/systemd/system/jetsamd.service.d/slow-ready.conf
systemctl daemon-reload

section "5. STATUS= follows the apps"
ctl launch capped > /dev/null || bad "launch capped"
ctl launch asuser --background > /dev/null || bad "launch asuser"
wait_until 5 sh -c "systemctl show $UNIT -p StatusText --value | grep -q '^2 apps'"
st=$(prop StatusText)
check "StatusText: '$st'" grep -Eq '^2 apps: 1 foreground, 1 background; pressure normal; [0-9]+ exits? recorded$' <<< "$st"
capped_pid=$(app_pid capped); asuser_pid=$(app_pid asuser)
info "capped pid $capped_pid, asuser pid $asuser_pid"
uid=$(grep '^Uid:' "/proc/$asuser_pid/status" 2>/dev/null | tr -s '\t ' ' ')
check "app with user: nobody runs as uid 65534 ($uid)" grep -q '^Uid: 65534 65534 65534 65534' <<< "$uid"
ppid=$(grep '^PPid:' "/proc/$capped_pid/status" 2>/dev/null | tr -dc 0-9)
check "apps are the spawner service's children (PPid $ppid = $(prop MainPID jetsam-spawner.service)), in jetsamd's cgroups" \
  eval '[ "$ppid" = "$(prop MainPID jetsam-spawner.service)" ] && grep -q "jetsamd.service" /proc/$capped_pid/cgroup'
check "apps keep the host's network (jetsamd has none): $(readlink /proc/$capped_pid/ns/net)" \
  eval '[ "$(readlink /proc/$capped_pid/ns/net)" = "$(readlink /proc/1/ns/net)" ]'
ctl suspend asuser > /dev/null
# The stop and the band are two writes of jetsamd's (the band may land after the stop is visible): wait for both.
wait_until 3 sh -c "grep -q '^State:.*T' /proc/$asuser_pid/status 2>/dev/null && [ \"\$(cat /proc/$asuser_pid/oom_score_adj)\" = 900 ]"
oom=$(cat "/proc/$asuser_pid/oom_score_adj" 2>/dev/null)
check "app of another user suspended: state $(proc_state "$asuser_pid"), oom_score_adj $oom (idle band: 900)" \
  eval '[ "$(proc_state "$asuser_pid")" = T ] && [ "$oom" = 900 ]'
ctl resume asuser > /dev/null
wait_until 3 sh -c "! grep -q '^State:.*T' /proc/$asuser_pid/status 2>/dev/null && [ \"\$(cat /proc/$asuser_pid/oom_score_adj)\" = 660 ]"
oom=$(cat "/proc/$asuser_pid/oom_score_adj" 2>/dev/null)
check "and resumed: state $(proc_state "$asuser_pid"), oom_score_adj $oom (background band: 660)" \
  eval '[ "$(proc_state "$asuser_pid")" != T ] && [ "$oom" = 660 ]'

section "6. systemctl reload: a running app's memory cap follows the config"
lf=$(mem_limit_file "$capped_pid")
before=$(cat "$lf" 2>/dev/null)
check "capped's cap before: $lf = $before (64M)" [ "$before" = 67108864 ]
write_config 96M
t0=$(now_ms)
systemctl reload "$UNIT"; rc=$?
wait_until 5 sh -c "[ \"\$(cat $lf 2>/dev/null)\" = 100663296 ]"
after=$(cat "$lf" 2>/dev/null)
check "after systemctl reload (rc $rc): $after (96M) within $(( $(now_ms) - t0 )) ms" [ "$after" = 100663296 ]
check "capped kept running through the reload (pid $capped_pid)" alive "$capped_pid"
wait_until 3 is_active
check "unit back to active after RELOADING=1 … READY=1 ($(prop ActiveState)/$(prop SubState))" is_active
check "journal has jetsamd's reload message" sh -c "journalctl -u $UNIT --no-pager -o cat | grep -q '^reloaded '"

section "7. watchdog: a hung jetsamd (debugFreeze) is killed and restarted; its apps live on"
r0=$(restarts); mp0=$(main_pid)
info "WatchdogUSec=$(prop WatchdogUSec), NRestarts=$r0, MainPID=$mp0"
( timeout 20 "$BIN/jetsamctl" debugFreeze > /dev/null 2>&1 & )
t0=$(now_ms)
wait_until 25 sh -c "[ \$(systemctl show $UNIT -p NRestarts --value) -gt $r0 ]" && wait_until 10 is_active
t1=$(now_ms)
mp1=$(main_pid)
check "restarted by the watchdog: NRestarts $r0 -> $(restarts), MainPID $mp0 -> $mp1, after $((t1 - t0)) ms" \
  eval '[ "$(restarts)" -gt "$r0" ] && [ "$mp1" != "$mp0" ] && is_active'
check "systemd logged the watchdog timeout" sh -c "journalctl -u $UNIT --no-pager -o cat | grep -q 'Watchdog timeout'"
check "apps survived the restart: capped $capped_pid and asuser $asuser_pid alive" eval 'alive "$capped_pid" && alive "$asuser_pid"'
check "socket survived the restart (same inode)" [ "$(socket_inode)" = "$sock_ino" ]
wait_until 5 sh -c "[ -n \"\$(timeout 5 $BIN/jetsamctl --json ps 2>/dev/null)\" ]"
pc=$(app_pid capped); pa=$(app_pid asuser)
info "jetsamctl ps after restart: $(ctl ps 2>&1 | tr '\n' '|')"
check "re-adopted: jetsamctl ps --json lists capped (pid '$pc') and asuser (pid '$pa') with the same pids" \
  eval '[ "$pc" = "$capped_pid" ] && [ "$pa" = "$asuser_pid" ]'
check "re-adopted states: capped '$(app_field capped state)', asuser '$(app_field asuser state)'" \
  eval '[ "$(app_field capped state)" = foreground ] && [ "$(app_field asuser state)" = background ]'

section "8. systemctl restart: jetsamd leaves its apps running and the new one re-adopts them"
# An app speaking the protocol, to check that its channel survives the restart (systemd's descriptor store).
cat > /run/jetsam-talker.sh <<'SH'
#!/bin/bash
echo "hello version=1" >&"$JETSAM_FD"
while read -r -u "$JETSAM_FD" line; do
  echo "$line" >> /var/lib/jetsam/talker.events
  set -- $line
  [ "$1" = event ] && echo "ack ${2/id=/event=}" >&"$JETSAM_FD"
done
SH
ctl launch talker --background > /dev/null || bad "launch talker"
talker_pid=$(app_pid talker)
wait_until 5 grep -q didFinishLaunching /var/lib/jetsam/talker.events
check "talker (pid $talker_pid) heard didFinishLaunching on its channel" grep -q didFinishLaunching /var/lib/jetsam/talker.events
# The running apps' launch figures are kept in the state file (issue 26): capped's foreground time goes on from
# where it was, rather than from the restart.
fg_before=$(foreground_seconds capped)
mp0=$(main_pid)
t0=$(now_ms)
systemctl restart "$UNIT"; rc=$?
mp1=$(main_pid)
check "systemctl restart rc $rc in $(( $(now_ms) - t0 )) ms: MainPID $mp0 -> $mp1, $(prop ActiveState)" \
  eval '[ "$rc" = 0 ] && [ "$mp1" != "$mp0" ] && is_active'
check "apps kept running through the restart: capped $capped_pid and asuser $asuser_pid alive" \
  eval 'alive "$capped_pid" && alive "$asuser_pid"'
pc=$(app_pid capped); pa=$(app_pid asuser)
check "re-adopted after systemctl restart: capped (pid '$pc') and asuser (pid '$pa')" \
  eval '[ "$pc" = "$capped_pid" ] && [ "$pa" = "$asuser_pid" ]'
check "the talker was re-adopted with its channel (journal)" \
  sh -c "journalctl -u $UNIT --no-pager -o cat | grep -q 're-adopted talker .*with its channel'"
fg_after=$(foreground_seconds capped)
check "capped's foreground time survived the restart: ${fg_before:-none} s before, ${fg_after:-none} s after" \
  python3 -c "import sys; sys.exit(0 if float('${fg_after:-0}') >= float('${fg_before:-0}') > 0 else 1)"
ctl pressure set warning > /dev/null; ctl pressure clear > /dev/null
wait_until 5 grep -q memoryWarning /var/lib/jetsam/talker.events
check "the talker (same pid $(app_pid talker)) heard memoryWarning from the new jetsamd through its kept channel" \
  eval 'grep -q memoryWarning /var/lib/jetsam/talker.events && [ "$(app_pid talker)" = "$talker_pid" ]'
ctl terminate talker > /dev/null
wait_until 10 dead "$talker_pid"

section "8b. a restoration verdict reaches the journal with its own fields"
# Launched fresh, it says it saved digest d1; launched after an exit, that it restored d1: a match. (In the
# background throughout, so that the foreground app of the later sections stays where it is.)
protocol_app /run/jetsam-restorer.sh <<'SH'
    name=didFinishLaunching)
      if [ "$JETSAM_LAUNCH_REASON" = fresh ]; then phase=saved; else phase=restored; fi
      echo "stateDigest phase=$phase value=d1" >&"$JETSAM_FD" ;;
SH
ctl launch restorer --background -- /run/jetsam-restorer.sh > /dev/null || bad "launch restorer"
wait_until 5 eval '[ "$(app_field restorer savedDigest)" = d1 ]'
restorer_pid=$(app_pid restorer)
# Not memoryPressure: section 10 counts those.
ctl kill restorer --reason appWatchdog > /dev/null
# Ended for jetsamd too (its exit told by the spawner service, its record written), not only reaped.
wait_until 5 eval 'dead "$restorer_pid" && [ -z "$(app_pid restorer)" ]'
ctl launch restorer --background -- /run/jetsam-restorer.sh > /dev/null || bad "relaunch restorer"
verdict_fields() {
  journal_json MESSAGE_ID=221f3b1897c74a118091bd557e3aa373 JETSAM_APP=restorer | python3 -c '
import json, sys
for line in sys.stdin:
    e = json.loads(line)
    print(e.get("JETSAM_RESTORATION"), e.get("JETSAM_LAUNCH"), e.get("JETSAM_SAVED_DIGEST"), e.get("JETSAM_RESTORED_DIGEST"))'
}
wait_until 5 eval '[ -n "$(verdict_fields)" ]'
check "journal: the relaunch's verdict with JETSAM_RESTORATION, JETSAM_LAUNCH and both digests: '$(verdict_fields)'" \
  eval '[ "$(verdict_fields)" = "match 2 d1 d1" ]'
check "jetsamctl ps shows it: '$(app_field restorer restoration)'" eval '[ "$(app_field restorer restoration)" = match ]'
restorer_pid=$(app_pid restorer)
ctl kill restorer --reason appWatchdog > /dev/null
wait_until 5 dead "$restorer_pid"

section "8c. a stale return across a restart: the saved state's validity and time away survive the state file"
# Saves f1 valid for 1 s, is suspended, jetsamd restarts, and 1.5 s later the app comes back showing f1 still:
# stale. It writes what its return's events told it.
protocol_app /run/jetsam-feeder.sh <<'SH'
    name=didFinishLaunching) echo "stateDigest phase=saved value=f1 validFor=1" >&"$JETSAM_FD" ;;
    name=willEnterForeground) echo "$line" >> /var/lib/jetsam/feeder.events ;;
    name=didBecomeActive) echo "stateDigest phase=resumed value=f1" >&"$JETSAM_FD" ;;
SH
ctl launch feeder --background -- /run/jetsam-feeder.sh > /dev/null || bad "launch feeder"
wait_until 5 eval '[ "$(app_field feeder savedDigest)" = f1 ]'
feeder_pid=$(app_pid feeder)
ctl suspend feeder > /dev/null
systemctl restart "$UNIT" || bad "restart for the feeder"
sleep 1.5
ctl activate feeder > /dev/null || bad "activate feeder"
resumption_fields() {
  journal_json MESSAGE_ID=298319db56a1412b83b51d9ab663cd51 JETSAM_APP=feeder | python3 -c '
import json, sys
for line in sys.stdin:
    e = json.loads(line)
    print(e.get("JETSAM_RESUMPTION"), e.get("JETSAM_SAVED_DIGEST"), e.get("JETSAM_RESUMED_DIGEST"),
          e.get("JETSAM_VALID_FOR_SECONDS"), float(e.get("JETSAM_STATE_AGE_SECONDS", "0")) > 1.5)'
}
wait_until 5 eval '[ -n "$(resumption_fields)" ]'
check "journal: the return is stale (f1, valid 1 s, older than 1.5 s) after the restart: '$(resumption_fields)'" \
  eval '[ "$(resumption_fields)" = "stale f1 f1 1.000 True" ]'
check "jetsamctl ps shows it for the same pid: '$(app_field feeder resumption)'" \
  eval '[ "$(app_field feeder resumption)" = stale ] && [ "$(app_pid feeder)" = "$feeder_pid" ]'
told=$(grep -o 'suspendedFor=[0-9.]*' /var/lib/jetsam/feeder.events | head -1)
check "willEnterForeground told it how long it was suspended, across the restart: '$told'" \
  eval 'python3 -c "import sys; sys.exit(0 if float(\"${told#*=}\") >= 1.5 else 1)"'
# The foreground slot goes back to capped, as the later sections expect.
ctl activate capped > /dev/null
ctl kill feeder --reason appWatchdog > /dev/null
wait_until 5 dead "$feeder_pid"

section "8d. a hang diagnostic under the sandbox: jetsam-stack attaches (CAP_SYS_PTRACE, ptrace allowed) before the kill"
# Hung in didFinishLaunching (its 3 s launch deadline in this config), launched into the background.
ctl launch hanger --background -- "$BIN/jetsam-testapp" speak --hang-in didFinishLaunching > /dev/null || bad "launch hanger"
hanger_pid=$(app_pid hanger)
wait_until 15 dead "$hanger_pid"
hang_fields() {
  ctl --json diagnostics --app hanger 2>/dev/null | python3 -c '
import json, sys
for payload in json.load(sys.stdin):
    for d in payload.get("hangDiagnostics", []):
        tree = d.get("callStackTree") or {}
        names = []
        def walk(frames):
            for f in frames:
                names.append(f.get("symbol", "?"))
                walk(f.get("subFrames", []))
        for stack in tree.get("callStacks", []):
            walk(stack.get("callStackRootFrames", []))
        meta = d["diagnosticMetaData"]
        print(meta.get("jetsamLifecycleEvent"), "stuck_in_handler" in names, meta.get("jetsamCaptureError", "-"))'
}
wait_until 5 eval '[ -n "$(hang_fields)" ]'
check "jetsamctl diagnostics: the hang's stacks name the hung function: '$(hang_fields)'" \
  eval '[ "$(hang_fields)" = "didFinishLaunching True -" ]'
check "journal: the hang diagnostic has its MESSAGE_ID and names the stack" \
  eval 'journal_json MESSAGE_ID=6d67c11267c141c8989db8e04fa3c5ac JETSAM_APP=hanger | grep -q stuck_in_handler'
check "the watchdog record refers to it" \
  eval 'ctl --json exits --app hanger | python3 -c "import json,sys; r=json.load(sys.stdin)[0]; sys.exit(0 if r[\"reason\"]==\"appWatchdog\" and r.get(\"diagnostics\") else 1)"'

# A crash: the reporter preloaded from /usr/local/lib/jetsam tells jetsamd, whose diagnostic names crash_segv.
ctl launch segv --background -- "$BIN/jetsam-testapp" crash segv > /dev/null || bad "launch segv"
crash_fields() {
  ctl --json diagnostics --app segv 2>/dev/null | python3 -c '
import json, sys
for payload in json.load(sys.stdin):
    for d in payload.get("crashDiagnostics", []):
        frames = d.get("callStackTree", {}).get("callStacks", [{}])[0].get("callStackRootFrames", [])
        print(d["diagnosticMetaData"].get("signal"), frames[0].get("symbol") if frames else None)'
}
wait_until 10 eval '[ -n "$(crash_fields)" ]'
check "a segfault's crash diagnostic starts at the faulting function: '$(crash_fields)'" \
  eval '[ "$(crash_fields)" = "11 crash_segv" ]'

section "8e. sockets at suspension under the real units: jetsam-sockets, run by the spawner service in the apps' network, defuncts a TCP connection"
# The peer: a listener here (the checker shares the spawner's network; jetsamd has its own), which says when the
# connection is accepted and how it ended (a reset is what SOCK_DESTROY gives the peer).
cat > /run/jetsam-sockpeer.py <<'PY'
import socket, sys
listener = socket.create_server(("127.0.0.1", 0))
open(sys.argv[1] + ".port", "w").write(str(listener.getsockname()[1]))
connection, _ = listener.accept()
open(sys.argv[1] + ".accepted", "w").write("yes")
try:
    while connection.recv(1):
        pass
    result = "eof"
except ConnectionResetError:
    result = "reset"
except OSError as error:
    result = type(error).__name__
open(sys.argv[1] + ".result", "w").write(result)
PY
# The app: connects and waits to read; suspended meanwhile, its read ends once it runs again (ECONNABORTED, what
# iOS apps see of a defuncted socket), written where the spawner's sandbox lets apps write.
cat > /run/jetsam-sockapp.py <<'PY'
import errno, socket, sys
connection = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
try:
    connection.recv(1)
    result = "eof"
except OSError as error:
    result = errno.errorcode.get(error.errno, str(error.errno))
open("/var/lib/jetsam/sockapp.result", "w").write(result)
PY
rm -f /run/sockpeer.* /var/lib/jetsam/sockapp.result
python3 /run/jetsam-sockpeer.py /run/sockpeer & peer=$!
wait_until 5 test -s /run/sockpeer.port
ctl launch sockapp --background -- /usr/bin/python3 /run/jetsam-sockapp.py "$(cat /run/sockpeer.port 2>/dev/null)" > /dev/null \
  || bad "launch sockapp"
wait_until 5 test -s /run/sockpeer.accepted
ctl suspend sockapp > /dev/null || bad "suspend sockapp"
wait_until 5 test -s /run/sockpeer.result
check "the peer of a suspended app's TCP connection got a reset: '$(cat /run/sockpeer.result 2>/dev/null)'" \
  eval '[ "$(cat /run/sockpeer.result 2>/dev/null)" = reset ]'
sockets_entry() {
  journal_json MESSAGE_ID=195bc79bd5054248bc9aaad94b6c3fd9 JETSAM_APP=sockapp | python3 -c '
import json, sys
for line in sys.stdin:
    entry = json.loads(line)
    print(entry.get("JETSAM_SOCKETS", "-"), "|", entry.get("JETSAM_SOCKETS_PROBLEM", "no problem"))'
}
wait_until 5 eval '[ -n "$(sockets_entry)" ]'
check "journal: the defunct names the connection, without a problem: '$(sockets_entry)'" \
  eval 'grep -q "established.*| no problem" <<< "$(sockets_entry)"'
ctl resume sockapp > /dev/null || bad "resume sockapp"
wait_until 5 test -s /var/lib/jetsam/sockapp.result
check "back from the suspension, the app's read fails with ECONNABORTED: '$(cat /var/lib/jetsam/sockapp.result 2>/dev/null)'" \
  eval '[ "$(cat /var/lib/jetsam/sockapp.result 2>/dev/null)" = ECONNABORTED ]'
ctl kill sockapp > /dev/null 2>&1
kill "$peer" 2>/dev/null; wait "$peer" 2>/dev/null

section "9. SIGKILL of jetsamd while apps are suspended: restart, re-adoption, kill order kept"
for a in s1 s2 s3; do
  ctl launch "$a" --background > /dev/null || bad "launch $a"
done
declare -A spid
for a in s1 s2 s3; do spid[$a]=$(app_pid "$a"); done
for a in s1 s2 s3; do ctl suspend "$a" > /dev/null || bad "suspend $a"; sleep 0.4; done
wait_until 3 sh -c "for p in ${spid[s1]} ${spid[s2]} ${spid[s3]}; do grep -q '^State:.*T' /proc/\$p/status 2>/dev/null || exit 1; done"
info "suspended in order s1 ${spid[s1]}, s2 ${spid[s2]}, s3 ${spid[s3]}: states $(proc_state "${spid[s1]}")$(proc_state "${spid[s2]}")$(proc_state "${spid[s3]}")"
r0=$(restarts); mp0=$(main_pid)
systemctl kill -s KILL --kill-whom=main "$UNIT"
wait_until 10 sh -c "[ \$(systemctl show $UNIT -p NRestarts --value) -gt $r0 ]" && wait_until 10 is_active
mp1=$(main_pid)
check "automatic restart after SIGKILL: NRestarts $r0 -> $(restarts), MainPID $mp0 -> $mp1" \
  eval '[ "$(restarts)" -gt "$r0" ] && [ "$mp1" != "$mp0" ] && is_active'
check "suspended apps stayed alive and stopped (states $(proc_state "${spid[s1]}")$(proc_state "${spid[s2]}")$(proc_state "${spid[s3]}"))" \
  [ "$(proc_state "${spid[s1]}")$(proc_state "${spid[s2]}")$(proc_state "${spid[s3]}")" = TTT ]
wait_until 5 sh -c "[ -n \"\$(timeout 5 $BIN/jetsamctl --json ps 2>/dev/null)\" ]"
info "jetsamctl ps after restart: $(ctl ps 2>&1 | tr '\n' '|')"
got="$(app_pid s1)/$(app_field s1 state) $(app_pid s2)/$(app_field s2 state) $(app_pid s3)/$(app_field s3 state)"
want="${spid[s1]}/suspended ${spid[s2]}/suspended ${spid[s3]}/suspended"
check "re-adopted as suspended with the same pids: $got" [ "$got" = "$want" ]
info "stateSeconds after restart: s1 $(app_field s1 stateSeconds), s2 $(app_field s2 stateSeconds), s3 $(app_field s3 stateSeconds)"

section "10. pressure critical after the restart: longest-suspended first"
# A forced critical level never clears by itself: jetsam kills every app, suspended ones first (longest-suspended
# first), then background, then foreground.
pressure_order() {
  ctl --json exits 2>/dev/null | python3 -c '
import json, sys
# exits answers newest first: oldest first is kill order.
recs = [r for r in reversed(json.load(sys.stdin)) if r.get("reason") == "memoryPressure"]
print(" ".join(r["app"] + ":" + r["state"] for r in recs))'
}
ctl pressure set critical > /dev/null || bad "pressure set critical"
all5="${spid[s1]} ${spid[s2]} ${spid[s3]} $asuser_pid $capped_pid"
# A victim is recorded once its memory is back: wait for the five records, not just for the processes.
wait_until 6 eval '[ "$(pressure_order | wc -w)" -ge 5 ]'
ctl pressure clear > /dev/null
check "all five apps killed ($all5)" eval '( for p in $all5; do dead "$p" || exit 1; done )'
order=$(pressure_order)
suspended_order=$(tr ' ' '\n' <<< "$order" | grep -E '^s[123]:' | tr '\n' ' ')
check "exit records: the suspended apps in kill order, longest-suspended first: '$suspended_order'" \
  [ "$suspended_order" = "s1:suspended s2:suspended s3:suspended " ]
check "exit records: then background, then foreground: '$order'" \
  [ "$order" = "s1:suspended s2:suspended s3:suspended asuser:background capped:foreground" ]

section "11. exit records in the journal (journalctl -o json JETSAM_REASON=memoryPressure)"
jorder=$(journal_json JETSAM_REASON=memoryPressure | python3 -c '
import json, sys
want = dict(zip(sys.argv[1::2], sys.argv[2::2]))
out = []
for line in sys.stdin:
    e = json.loads(line)
    app = e.get("JETSAM_APP")
    if app not in want: continue
    good = (e.get("JETSAM_PID") == want[app] and e.get("JETSAM_STATE") == "suspended"
            and e.get("MESSAGE_ID") == "'$JETSAM_KILL_ID'" and e.get("_SYSTEMD_UNIT") == "jetsamd.service"
            and e.get("JETSAM_REASON") == "memoryPressure")
    out.append(app + ("" if good else "(bad fields: " + json.dumps({k: v for k, v in e.items() if k.startswith("JETSAM") or k in ("MESSAGE_ID", "_SYSTEMD_UNIT")}) + ")"))
print(" ".join(out))' s1 "${spid[s1]}" s2 "${spid[s2]}" s3 "${spid[s3]}")
check "journal entries with JETSAM_APP/JETSAM_PID/JETSAM_STATE=suspended, MESSAGE_ID=$JETSAM_KILL_ID, _SYSTEMD_UNIT=jetsamd.service, in order: '$jorder'" \
  [ "$jorder" = "s1 s2 s3" ]
n=$(journal_json MESSAGE_ID=$JETSAM_KILL_ID | wc -l)
check "journalctl MESSAGE_ID=$JETSAM_KILL_ID finds the jetsam kills ($n entries)" [ "$n" -ge 3 ]

section "11b. the Prometheus textfile, written under the hardened unit (UMask=0077, ProtectSystem=strict)"
textfile=/run/jetsam/metrics/jetsam.prom
kills_now() { ctl metrics --prometheus | grep '^jetsam_kills_total'; }
# Rewritten every second: waits for the file to catch up with the kills of section 10.
wait_until 10 bash -c "[ \"\$(grep '^jetsam_kills_total' $textfile 2>/dev/null)\" = '$(kills_now)' ]" || true
check "$textfile counts s1, s2 and s3 killed by jetsam while suspended" \
  grep -q '^jetsam_exits_total{app="s3",reason="memoryPressure",state="suspended"} 1$' "$textfile"
check "its jetsam_kills_total{reason=\"memoryPressure\"} is at least 3: $(grep '^jetsam_kills_total{reason="memoryPressure"}' "$textfile")" \
  [ "$(sed -n 's/^jetsam_kills_total{reason="memoryPressure"} //p' "$textfile")" -ge 3 ]
check "the file is readable by node_exporter's user (0644, directory 0755) despite UMask=0077: $(stat -c '%a %U' "$textfile") $(stat -c '%a' /run/jetsam/metrics)" \
  [ "$(stat -c '%a' "$textfile")/$(stat -c '%a' /run/jetsam/metrics)" = "644/755" ]
check "jetsamctl metrics --prometheus shows the same kill counters as the file" \
  [ "$(grep '^jetsam_kills_total' "$textfile")" = "$(kills_now)" ]

section "11c. jetsamd-metrics.socket: GET /metrics from systemd's socket, jetsamd's sandbox unchanged"
scrape() { python3 -c 'import sys, urllib.request; sys.stdout.write(urllib.request.urlopen("http://127.0.0.1:9772/metrics", timeout=float(sys.argv[1])).read().decode())' "${1:-5}" 2>/dev/null; }
check "jetsamd-metrics.socket installed, and off until enabled: $(systemctl is-enabled jetsamd-metrics.socket 2>&1)" \
  eval '[ -e /usr/local/lib/systemd/system/jetsamd-metrics.socket ] && [ "$(systemctl is-enabled jetsamd-metrics.socket 2>&1)" = disabled ]'
check "nothing serves metrics before it is started" eval '! scrape > /dev/null'
# As the README says: enabled (--runtime: /etc/systemd/system is read-only here), then jetsamd restarted, whose
# start now pulls the socket in first (systemd starts no socket whose service already runs).
systemctl reset-failed "$UNIT" 2>/dev/null || true   # the start rate limit: this section starts jetsamd twice
systemctl enable --runtime jetsamd-metrics.socket 2>/dev/null
ctl launch s3 > /dev/null; s3_pid=$(app_pid s3)
mp0=$(main_pid)
systemctl restart "$UNIT" || bad "systemctl restart to take the metrics socket"
check "jetsamd-metrics.socket active after the restart, listening on $(prop Listen jetsamd-metrics.socket)" is_active jetsamd-metrics.socket
check "s3 kept running through that restart, re-adopted (pid $s3_pid, now '$(app_pid s3)')" \
  eval 'alive "$s3_pid" && [ "$(app_pid s3)" = "$s3_pid" ]'
metrics_body=$(scrape)
check "GET /metrics on 127.0.0.1:9772 answers jetsamd's exposition ($(grep -c '^jetsam_' <<< "$metrics_body") samples, MainPID $mp0 -> $(main_pid))" \
  grep -q '^jetsam_exit_records_written_total ' <<< "$metrics_body"
apps_now=$(ctl metrics --prometheus | grep '^jetsam_apps{')
check "its app gauges are jetsamctl's: $(tr '\n' ' ' <<< "$apps_now")" \
  eval '[ -n "$apps_now" ] && [ "$(grep "^jetsam_apps{" <<< "$metrics_body")" = "$apps_now" ]'
# A scrape sent while no jetsamd runs (killed; Restart= brings the next one a second later) waits in systemd's
# socket and is answered by the next daemon instead of failing.
r0=$(restarts); mp0=$(main_pid)
kill -9 "$mp0"; wait_until 5 dead "$mp0" || true
during=$(scrape 30)
mp=$(main_pid)
check "a scrape sent while jetsamd was down is answered by the next one (MainPID $mp0 -> $mp, NRestarts $r0 -> $(restarts))" \
  eval 'grep -q "^jetsam_info{" <<< "$during" && [ "$mp" != 0 ] && [ "$mp" != "$mp0" ]'
check "jetsamd serves it from its own network namespace (PrivateNetwork=yes): $(readlink /proc/$mp/ns/net) vs $(readlink /proc/1/ns/net)" \
  eval '[ -n "$(readlink /proc/$mp/ns/net)" ] && [ "$(readlink /proc/$mp/ns/net)" != "$(readlink /proc/1/ns/net)" ]'
check "jetsamd.service is as sandboxed as before: PrivateNetwork=$(prop PrivateNetwork), RestrictAddressFamilies=$(prop RestrictAddressFamilies)" \
  eval '[ "$(prop PrivateNetwork)" = yes ] && [ "$(prop RestrictAddressFamilies)" = AF_UNIX ]'
ctl terminate s3 > /dev/null || bad "terminate s3"
systemctl disable --runtime jetsamd-metrics.socket 2>/dev/null; systemctl stop jetsamd-metrics.socket

section "12. systemctl stop: apps ended by jetsamd, no process and no cgroup left"
ctl launch s1 > /dev/null; ctl launch s2 --background > /dev/null
stop_s1=$(app_pid s1); stop_s2=$(app_pid s2)
# Every app process this test started, also those a daemon without re-adoption would have lost track of.
left=()
for p in $capped_pid $asuser_pid "${spid[@]}" $stop_s1 $stop_s2; do alive "$p" && left+=("$p"); done
info "running before stop: ${left[*]} (s1 $stop_s1, s2 $stop_s2 launched just now)"
cg=$(prop ControlGroup)
t0=$(now_ms)
systemctl stop "$UNIT"; rc=$?
t1=$(now_ms)
check "systemctl stop rc $rc in $((t1 - t0)) ms: $(prop ActiveState), Result=$(prop Result)" \
  eval '[ "$rc" = 0 ] && is_inactive && [ "$(prop Result)" = success ]'
still=""; for p in "${left[@]}"; do alive "$p" && still="$still $p"; done
check "no app process left (of ${left[*]}):${still:- none}" [ -z "$still" ]
dirs=$(device_dirs | tr '\n' ' '); unitdirs=$(ls -d /sys/fs/cgroup/*/system.slice/jetsamd.service /sys/fs/cgroup/system.slice/jetsamd.service 2>/dev/null | tr '\n' ' ')
check "no device cgroup left (${dirs:-none}), unit cgroup gone in every hierarchy (${unitdirs:-none})" eval '[ -z "$dirs" ] && [ -z "$unitdirs" ]'
recs=$(for p in $stop_s1 $stop_s2; do journal_json _SYSTEMD_UNIT=jetsamd.service JETSAM_PID="$p" | python3 -c '
import json, sys
for line in sys.stdin:
    e = json.loads(line); print(e["JETSAM_APP"] + ":" + e["JETSAM_REASON"] + ":" + e["JETSAM_STATE"], end=" ")'; done)
check "the stop's exit records are in the journal (s1 $stop_s1, s2 $stop_s2): '$recs'" \
  eval '[ -n "$stop_s1" ] && [ -n "$stop_s2" ] && grep -q "^s1:.* s2:" <<< "$recs"'
check "jetsamd.socket still listening after the stop (same inode)" \
  eval '[ "$(prop ActiveState jetsamd.socket)" = active ] && [ "$(socket_inode)" = "$sock_ino" ]'

section "13. the journals in one place (README, Running a lab fleet, step 2): systemd-journal-upload to systemd-journal-remote"
# The README's steps as written there, with this machine its own collector on 127.0.0.1 (the container's loopback
# network): a CA, a certificate for the collector and one for the uploader, made with openssl; the two .conf files
# in /etc/systemd (a writable dir that test-systemd.sh binds there); the units of the host's systemd-journal-remote
# package, enabled with --runtime only because /etc/systemd/system is a read-only bind mount here. Section 10's
# exit records are what is forwarded.
t13=$(now_ms)
export OPENSSL_CONF=/dev/null   # /usr/lib/ssl/openssl.cnf -> /etc/ssl/openssl.cnf, absent from the volatile /etc
ca=/run/jetsam-journal-ca
mkdir -p "$ca" /etc/ssl/ca /etc/ssl/certs /etc/ssl/private
# certify NAME SUBJECT-ALT-NAME: /etc/ssl/private/NAME.pem (its key) and /etc/ssl/certs/NAME.pem, signed by the CA.
certify() {
  printf '%s\n' "subjectAltName=$2" basicConstraints=CA:FALSE extendedKeyUsage=serverAuth,clientAuth > "$ca/$1.ext"
  openssl req -new -nodes -newkey ec -pkeyopt ec_paramgen_curve:P-256 -subj "/CN=${2#*:}" \
    -keyout "/etc/ssl/private/$1.pem" -out "$ca/$1.csr" 2>/dev/null \
    && openssl x509 -req -in "$ca/$1.csr" -CA /etc/ssl/ca/trusted.pem -CAkey "$ca/ca.key" -CAcreateserial -days 1 \
      -extfile "$ca/$1.ext" -out "/etc/ssl/certs/$1.pem" 2>/dev/null
}
openssl req -x509 -new -nodes -newkey ec -pkeyopt ec_paramgen_curve:P-256 -subj /CN=jetsam-lab-ca -days 1 \
  -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign \
  -keyout "$ca/ca.key" -out /etc/ssl/ca/trusted.pem 2>/dev/null || bad "openssl: the CA"
certify journal-remote IP:127.0.0.1 || bad "openssl: the collector's certificate"
certify journal-upload "DNS:$(hostname)" || bad "openssl: the uploader's certificate"
check "openssl: the collector's and the uploader's certificates verify against the CA" \
  openssl verify -CAfile /etc/ssl/ca/trusted.pem /etc/ssl/certs/journal-remote.pem /etc/ssl/certs/journal-upload.pem
# The services' users: systemd-journal-remote from the package's sysusers.d entry (applied at boot, like jetsam's);
# systemd-journal-upload is a DynamicUser= whose unit adds the group systemd-journal. Each key is readable by its
# service's account only (the README's chgrp/chmod).
check "user systemd-journal-remote (sysusers.d/systemd-remote.conf applied at boot): $(getent passwd systemd-journal-remote)" \
  getent passwd systemd-journal-remote
chgrp systemd-journal-remote /etc/ssl/private/journal-remote.pem && chmod 640 /etc/ssl/private/journal-remote.pem
chgrp systemd-journal /etc/ssl/private/journal-upload.pem && chmod 640 /etc/ssl/private/journal-upload.pem
# Debian 12 builds systemd-journal-remote without GnuTLS: it refuses --trust, ignores TrustedCertificateFile= and
# checks no client certificate ("Certificate checking disabled."), which the README says. With --help after it,
# a build with GnuTLS would answer 0 here.
check "systemd-journal-remote refuses --trust (no GnuTLS: the collector checks no client certificate)" \
  eval '! /lib/systemd/systemd-journal-remote --trust=/etc/ssl/ca/trusted.pem --help > /dev/null 2>&1'
cat > /etc/systemd/journal-remote.conf <<'CONF'
[Remote]
ServerKeyFile=/etc/ssl/private/journal-remote.pem
ServerCertificateFile=/etc/ssl/certs/journal-remote.pem
CONF
cat > /etc/systemd/journal-upload.conf <<'CONF'
[Upload]
URL=https://127.0.0.1:19532
ServerKeyFile=/etc/ssl/private/journal-upload.pem
ServerCertificateFile=/etc/ssl/certs/journal-upload.pem
TrustedCertificateFile=/etc/ssl/ca/trusted.pem
CONF
systemctl enable --runtime --now systemd-journal-remote.socket 2>/dev/null || bad "enable --now systemd-journal-remote.socket"
check "systemd-journal-remote.socket listens on $(prop Listen systemd-journal-remote.socket)" \
  eval 'is_active systemd-journal-remote.socket && grep -q ":19532 (Stream)" <<< "$(prop Listen systemd-journal-remote.socket)"'
systemctl enable --runtime --now systemd-journal-upload 2>/dev/null || bad "enable --now systemd-journal-upload"
# forwarded_records [journalctl ARGS…]: the exit records of section 10's pressure, one line each with their jetsam
# fields, MESSAGE_ID and _HOSTNAME, sorted; the local journal's and the collector's must be the same lines.
forwarded_records() {
  journal_json "$@" JETSAM_REASON=memoryPressure | python3 -c '
import json, sys
lines = []
for line in sys.stdin:
    e = json.loads(line)
    lines.append(" ".join(k + "=" + str(v) for k, v in sorted(e.items()) if k.startswith("JETSAM_") or k in ("MESSAGE_ID", "_HOSTNAME")))
print("\n".join(sorted(lines)))'
}
here=$(forwarded_records)
wait_until 10 eval '[ "$(forwarded_records -D /var/log/journal/remote)" = "$here" ]'
there=$(forwarded_records -D /var/log/journal/remote)
info "systemd-journal-remote: $(prop ActiveState systemd-journal-remote.service) as $(prop User systemd-journal-remote.service); systemd-journal-upload: $(prop ActiveState systemd-journal-upload.service) as $(prop User systemd-journal-upload.service)"
info "/var/log/journal/remote: $(stat -c '%U %a' /var/log/journal/remote 2>&1); $(cd /var/log/journal/remote 2>/dev/null && stat -c '%n %U:%G %a' -- * 2>&1 | tr '\n' ' ')"
info "the collector: $(journalctl -u systemd-journal-remote.service --no-pager -o cat | grep -i certificate | head -1)"
check "the collector holds the $(grep -c . <<< "$here") exit records with JETSAM_REASON=memoryPressure, each with its JETSAM_* fields, MESSAGE_ID and _HOSTNAME as here" \
  eval '[ -n "$here" ] && [ "$there" = "$here" ] && grep -q "MESSAGE_ID=$JETSAM_KILL_ID" <<< "$there"'
host=$(journal_json JETSAM_REASON=memoryPressure | python3 -c 'import json, sys; print(json.loads(sys.stdin.readline())["_HOSTNAME"])')
per_host=$(journalctl --no-pager -D /var/log/journal/remote "_HOSTNAME=$host" JETSAM_STATE=suspended JETSAM_REASON=memoryPressure -o json 2>/dev/null | python3 -c '
import json, sys
print(" ".join(e["JETSAM_APP"] + ":" + e["JETSAM_PID"] for e in map(json.loads, sys.stdin)))')
check "journalctl -D /var/log/journal/remote _HOSTNAME=$host JETSAM_STATE=suspended: '$per_host'" \
  [ "$per_host" = "s1:${spid[s1]} s2:${spid[s2]} s3:${spid[s3]}" ]
systemctl stop systemd-journal-upload.service systemd-journal-remote.socket systemd-journal-remote.service
rm -rf "$ca"
info "section 13 took $(($(now_ms) - t13)) ms"

# ---------------------------------------------------------------------------------------------------
section "journal of jetsamd.service"
journalctl -u jetsamd.service -u jetsamd.socket -u jetsam-spawner.service --no-pager -o short-monotonic | tail -80
journalctl -b --no-pager -o short-monotonic > "$OUT/journal.txt" 2>&1
echo
echo "RESULT: $pass passed, $fail failed"
echo "$pass $fail" > "$OUT/summary"
date +%s%N > "$OUT/check.end"
[ "$fail" = 0 ]
