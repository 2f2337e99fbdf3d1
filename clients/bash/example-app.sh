#!/usr/bin/env bash
# A jetsamd app in bash (PROTOCOL.md): reads its lifecycle events from the channel in $JETSAM_FD, acknowledges
# each, saves its state at didEnterBackground, restores it after an exit, and prints one line per event.
#
# usage: example-app.sh [STATE_DIR]     (default: the working directory)
set -u
set -f # values are percent-encoded, but never glob a field anyway

if [[ -z ${JETSAM_FD-} ]]; then
  echo "example-app.sh: JETSAM_FD is not set: this program was not launched by jetsamd" >&2
  exit 69
fi
state_file="${1:-.}/example-app.state"
events=0 # the state: how many events this app has handled, over all its launches

# percent_decode VALUE: prints VALUE with every %XX turned back into its byte. Encoded values hold no
# backslashes (a backslash is sent as %5C), so printf %b only ever sees the \xHH escapes made here.
percent_decode() {
  local value=${1//\\/\\\\}
  printf '%b' "${value//%/\\x}"
}

# percent_encode VALUE: prints VALUE with every byte outside A-Za-z0-9-._~:/+,@ written %XX.
percent_encode() {
  local LC_ALL=C value=$1 out="" char i
  for ((i = 0; i < ${#value}; i++)); do
    char=${value:i:1}
    case $char in
      [A-Za-z0-9._~:/+,@-]) out+=$char ;;
      *) printf -v char '%%%02X' "'$char"; out+=$char ;;
    esac
  done
  printf '%s' "$out"
}

# field KEY FIELD...: prints the decoded value of the first KEY=value among the fields.
field() {
  local key=$1 item
  shift
  for item in "$@"; do
    if [[ $item == "$key="* ]]; then
      percent_decode "${item#*=}"
      return 0
    fi
  done
  return 1
}

send() { echo "$*" >&"$JETSAM_FD"; }

# signpost NAME [begin|end|event]: marks a point, or the bounds of an interval, of the app's own work (like
# MetricKit's mxSignpost); jetsamd stamps it with the time and labs draw it on their timelines.
signpost() { send "signpost name=$(percent_encode "$1") phase=${2:-event}"; }

# digest TEXT: a short hash of the state's text, the same whether it was just saved or just restored.
digest() { printf '%s\n' "$1" | sha256sum | cut -c1-16; }

save() {
  local state="events=$events"
  signpost save begin
  echo "$state" >"$state_file.tmp" && mv -f "$state_file.tmp" "$state_file" # atomic: a kill leaves the old one
  send "stateDigest phase=saved value=$(digest "$state")"
  send "stateSummary value=$(percent_encode "$state")"
  signpost save end
}

send "hello version=1"
while IFS= read -r -u "$JETSAM_FD" line; do
  read -r -a parts <<<"$line"
  word=${parts[0]-}
  case $word in
    event) ;;
    error) echo "jetsamd refused a line: $(field code "${parts[@]}"): $(field message "${parts[@]}")" >&2; continue ;;
    *) continue ;; # hello, replies
  esac
  id=$(field id "${parts[@]}")
  name=$(field name "${parts[@]}")
  events=$((events + 1))
  case $name in
    didFinishLaunching)
      if [[ $(field reason "${parts[@]}") == afterExit ]]; then
        # Restore what was saved (nothing, if nothing was), and report the digest of what was restored.
        restored=$(cat "$state_file" 2>/dev/null)
        send "stateDigest phase=restored value=$(digest "$restored")"
        saved_events=${restored#events=}
        [[ $saved_events =~ ^[0-9]+$ ]] && events=$((saved_events + 1))
        echo "didFinishLaunching afterExit previousReason=$(field previousReason "${parts[@]}")" \
          "summary=$(field summary "${parts[@]}") restored events=$events"
      else
        echo "didFinishLaunching fresh"
      fi
      ;;
    didEnterBackground)
      save
      echo "didEnterBackground saved events=$events"
      ;;
    willTerminate)
      save
      echo "willTerminate saved events=$events"
      ;;
    memoryWarning) echo "memoryWarning level=$(field level "${parts[@]}")" ;;
    backgroundTaskWillExpire) echo "backgroundTaskWillExpire task=$(field task "${parts[@]}")" ;;
    *) echo "$name" ;;
  esac
  case $name in
    memoryWarning | backgroundTaskWillExpire) ;; # not acknowledged
    *) send "ack event=$id" ;;
  esac
  [[ $name == willTerminate ]] && exit 0
done
