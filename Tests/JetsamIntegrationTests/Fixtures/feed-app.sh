#!/usr/bin/env bash
# A test app in bash that shows a news feed current for VALID_FOR whole seconds (feed_app.py's twin): it
# reports the feed's digest as saved, with that validity, at didEnterBackground; on a return after longer than
# that it fetches again, unless given --stale-on-resume; at the didBecomeActive of a return it reports what it
# shows.
#
# usage: feed-app.sh VALID_FOR [--stale-on-resume]
set -u
valid_for=$1
refresh=yes
[[ ${2-} == --stale-on-resume ]] && refresh=no
generation=1
returning=no

send() { echo "$*" >&"$JETSAM_FD"; }

# field KEY FIELD...: the raw value of the first KEY=value (the fields used here need no decoding).
field() {
  local key=$1 item
  shift
  for item in "$@"; do
    [[ $item == "$key="* ]] && { printf '%s' "${item#*=}"; return 0; }
  done
  return 1
}

send "hello version=1"
while IFS= read -r -u "$JETSAM_FD" line; do
  read -r -a parts <<<"$line"
  [[ ${parts[0]-} == event ]] || continue
  id=$(field id "${parts[@]}")
  name=$(field name "${parts[@]}")
  case $name in
    didEnterBackground) send "stateDigest phase=saved value=feed-$generation validFor=$valid_for" ;;
    willEnterForeground)
      returning=yes
      away=$(field backgroundFor "${parts[@]}")
      # Whole seconds are enough here: away=12.045 is past a validity of 12.
      if ((${away%.*} >= valid_for)) && [[ $refresh == yes ]]; then generation=$((generation + 1)); fi
      echo "willEnterForeground away=$away suspended=$(field suspendedFor "${parts[@]}") shows=feed-$generation"
      ;;
    didBecomeActive)
      [[ $returning == yes ]] && send "stateDigest phase=resumed value=feed-$generation"
      returning=no
      ;;
  esac
  case $name in
    memoryWarning | backgroundTaskWillExpire) ;;
    *) send "ack event=$id" ;;
  esac
  [[ $name == willTerminate ]] && exit 0
done
