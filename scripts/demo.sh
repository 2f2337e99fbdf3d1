#!/bin/bash
# The jetsam demo lab: a 1 GiB emulated phone, five apps a user switches between, memory squeezed until
# jetsam kills the longest-suspended apps in order, one killed app relaunched; then labs/restoration.json5 run by
# jetsam-lab, whose reports it leaves in jetsam-lab-reports/demo-restoration (DEMO_LAB_OUTPUT). Runs in under a
# minute and leaves no process or cgroup behind.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${JETSAM_BIN_DIR:-$(pwd)/.build/debug}
[ "$(id -u)" = 0 ] || { echo "make demo needs root (it creates cgroups): sudo make demo" >&2; exit 1; }

WORK=$(mktemp -d /tmp/jetsam-demo.XXXXXX)
export JETSAM_SOCKET=$WORK/run/jetsamd.sock
DAEMON=
cleanup() {
  if [ -n "$DAEMON" ] && kill -0 "$DAEMON" 2>/dev/null; then
    kill -TERM "$DAEMON"
    for _ in $(seq 1 200); do kill -0 "$DAEMON" 2>/dev/null || break; sleep 0.05; done
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT

cat > "$WORK/jetsamd.json5" <<JSON5
{
  // A small phone: 1 GiB of RAM; jetsam starts killing below 250M available and stops above 320M.
  device: { ram: "1G", cgroupName: "jetsam-demo-$$", thresholds: {
    warning: { enter: "400M", clear: "450M" },
    urgent: { enter: "250M", clear: "320M" },
    critical: { enter: "60M", clear: "100M" } } },
  suspend: { backgroundGrace: "1s" },   // apps are suspended one second after leaving the foreground
  stateDirectory: "$WORK/state", runtimeDirectory: "$WORK/run", controlGroup: null,
  apps: {
    mail:     { command: ["$BIN/jetsam-testapp", "alloc", "90", "--hold"] },
    maps:     { command: ["$BIN/jetsam-testapp", "alloc", "120", "--hold"] },
    music:    { command: ["$BIN/jetsam-testapp", "alloc", "60", "--hold"], band: "audio" },
    news:     { command: ["$BIN/jetsam-testapp", "alloc", "100", "--hold"] },
    camera:   { command: ["$BIN/jetsam-testapp", "alloc", "520", "--rate", "300", "--hold"] },
  },
}
JSON5

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
ctl() { echo "\$ jetsamctl $*"; "$BIN/jetsamctl" "$@"; }
settle() { sleep "${1:-1.3}"; }

say "starting jetsamd on a 1 GiB emulated phone"
"$BIN/jetsamd" --config "$WORK/jetsamd.json5" --foreground > "$WORK/jetsamd.log" 2>&1 &
DAEMON=$!
for _ in $(seq 1 100); do "$BIN/jetsamctl" status >/dev/null 2>&1 && break; sleep 0.1; done
ctl status

say "the user opens mail, then maps, then music (an audio app: its band keeps it above background apps), then news"
for app in mail maps music news; do ctl launch "$app" >/dev/null; settle 0.6; done
ctl ps

say "a second later the apps left behind are suspended (state T), news stays in the foreground"
settle
ctl ps
for app in mail maps; do pid=$("$BIN/jetsamctl" --json ps | python3 -c "import json,sys; print([a['pid'] for a in json.load(sys.stdin) if a['name']=='$app'][0])"); echo "  /proc/$pid/stat state of $app: $(awk '{print $3}' /proc/$pid/stat)"; done
ctl pressure

say "the user opens the camera, which grows to 520M: memory runs short"
ctl launch camera >/dev/null
settle 3
ctl pressure
ctl ps

say "jetsam killed the longest-suspended apps first, one by one, until pressure cleared"
ctl exits
echo "the jetsam snapshot taken at the first kill (like XNU's):"
python3 - "$WORK/state/exits.jsonl" <<'PY'
import json, sys
first = json.loads(open(sys.argv[1]).readline())
for e in first["snapshot"]:
    print(f"  {e['name']:8} pid {e['pid']:<7} band {e['band']:<11} {e['state']:<11} {e['memoryBytes'] >> 20:>4}M  {e['secondsInBand']:.1f}s in band")
PY

say "the user goes back to mail: it was killed while suspended, so it cold-starts (launch #2)"
ctl activate mail
settle 0.5
ctl ps

say "reproduce any exit on demand: kill music (its audio band kept it safe from jetsam) as a watchdog timeout"
ctl kill music --reason appWatchdog
settle 0.5
ctl exits --app music

say "stopping jetsamd: apps end gracefully, cgroups are removed"
kill -TERM "$DAEMON"
for _ in $(seq 1 300); do kill -0 "$DAEMON" 2>/dev/null || break; sleep 0.05; done
DAEMON=
tail -3 "$WORK/jetsamd.log"
left=$(find /sys/fs/cgroup -maxdepth 6 -name "jetsam-demo-$$" 2>/dev/null | wc -l)
echo "cgroups left behind: $left"
[ "$left" = 0 ]

say "the same story as a lab: a scenario with expectations, checked, with reports to look at (LABS.md)"
LAB_OUT=${DEMO_LAB_OUTPUT:-$(pwd)/jetsam-lab-reports/demo-restoration}
echo "\$ jetsam-lab run labs/restoration.json5 --output $LAB_OUT"
"$BIN/jetsam-lab" run labs/restoration.json5 --output "$LAB_OUT"
echo "open $LAB_OUT/report.html in a browser (or trace.json in https://ui.perfetto.dev)"
say "demo finished"
