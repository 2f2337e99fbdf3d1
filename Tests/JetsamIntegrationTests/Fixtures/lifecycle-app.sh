#!/bin/bash
# A test app speaking the jetsam protocol from bash. Behaviour from the environment:
#   EVENTS_FILE  append "NAME [fields]" for every event received (and "launch REASON" at start)
#   HANG_IN      never acknowledge this event (the handler "hangs")
#   SLOW_IN      EVENT:SECONDS: spend that long in this event's handler (nothing else is read meanwhile)
#   TASK         begin a background task with this name at didEnterBackground
#   END_TASK     "never", or seconds after which the task ends (default 0.2)
#   SILENT       never write anything (a program that does not speak the protocol)
set -u
SLOW_IN=${SLOW_IN:-}
log() { [ -n "${EVENTS_FILE:-}" ] && echo "$*" >> "$EVENTS_FILE"; }
send() { [ -z "${SILENT:-}" ] && echo "$*" >&"$JETSAM_FD"; }
log "launch $JETSAM_LAUNCH_REASON ${JETSAM_PREVIOUS_EXIT:-} summary=${JETSAM_STATE_SUMMARY:-}"
send "hello version=1"
task=
while read -r -u "$JETSAM_FD" line; do
  set -- $line
  case "$1" in
    event)
      id=${2#id=}; name=${3#name=}; shift 3
      log "$name $*"
      if [ "$name" = didEnterBackground ]; then
        send "stateSummary value=seen%20$id"
        if [ -n "${TASK:-}" ]; then
          send "beginBackgroundTask id=100 name=$TASK"
        fi
      fi
      if [ "$name" = backgroundTaskWillExpire ]; then log "expiring $*"; fi
      [ "${HANG_IN:-}" = "$name" ] && continue
      [ "${SLOW_IN%%:*}" = "$name" ] && sleep "${SLOW_IN#*:}"
      send "ack event=$id"
      ;;
    reply)
      if [ "${2:-}" = id=100 ]; then
        task=${3#task=}
        log "task $task"
        if [ "${END_TASK:-0.2}" != never ]; then
          ( sleep "${END_TASK:-0.2}"; send "endBackgroundTask task=$task"; ) &
        fi
      fi
      ;;
    hello) ;;
    *) log "other $line" ;;
  esac
done
