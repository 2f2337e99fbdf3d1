#!/bin/bash
# Installs the Debian packages jetsam needs that this machine lacks (apt-get update first, once).
# Usage: scripts/install-deps.sh build|test|bench|demo
# build: compile jetsam (libdw-dev: call stacks); test: + the cgroup v2 VM (qemu, busybox), JSON Schema checks, tmux (`top`), chromium (lab reports), strace (a debugger attached to an app), redis-server and redis-tools (a real server checked through --ready and --digest), binutils (readelf: the crash reporter's dependencies), postgresql (a durable database restored through WAL recovery; in the machines' image already), promtool, prometheus and node_exporter (metrics), openssh-server (labs across hosts: the tests run /usr/sbin/sshd themselves, on loopback ports); bench: + earlyoom.
set -euo pipefail
want=(pkg-config libcgroup-dev libsystemd-dev libdw-dev)
case "${1:-build}" in
  test) want+=(qemu-system-x86 busybox-static xz-utils time rsync python3-jsonschema tmux chromium strace redis-server redis-tools sqlite3 binutils postgresql openssh-server) ;;
  bench) want+=(earlyoom) ;;
esac
# promtool (`promtool check metrics`), the Prometheus server (a real scraper of jetsamd's /metrics) and
# node_exporter are taken out of Debian's prometheus and prometheus-node-exporter packages into .build/tools
# rather than installed: installing the packages would start a Prometheus server and an exporter on the host.
# fetch_tool PACKAGE PATH-IN-PACKAGE:NAME...
fetch_tool() {
  local root work package=$1 want=() item
  root=$(cd "$(dirname "$0")/.." && pwd)
  shift
  for item in "$@"; do [ -x "$root/.build/tools/${item#*:}" ] || want+=("$item"); done
  [ ${#want[@]} -eq 0 ] && return 0
  work=$(mktemp -d)
  if ! (cd "$work" && apt-get download "$package" >/dev/null 2>&1); then
    apt-get update -qq
    (cd "$work" && apt-get download "$package" >/dev/null 2>"$work/err") || { cat "$work/err" >&2; rm -rf "$work"; exit 1; }
  fi
  mkdir -p "$root/.build/tools"
  for item in "${want[@]}"; do
    (cd "$work" && dpkg-deb --fsys-tarfile "$package"_*.deb | tar -x ".${item%%:*}")
    mv "$work${item%%:*}" "$root/.build/tools/${item#*:}"
    echo "${item#*:}: $("$root/.build/tools/${item#*:}" --version 2>&1 | head -1) in $root/.build/tools/${item#*:}"
  done
  rm -rf "$work"
}
if [ "${1:-build}" = test ] && [ "$(id -u)" = 0 ]; then
  fetch_tool prometheus /usr/bin/promtool:promtool /usr/bin/prometheus:prometheus
  fetch_tool prometheus-node-exporter /usr/bin/prometheus-node-exporter:node_exporter
fi

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
