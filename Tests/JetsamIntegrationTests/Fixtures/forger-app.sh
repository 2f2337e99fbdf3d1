#!/bin/bash
# A misbehaving app: tries to speak for another app, then sends garbage. Every line it receives goes to $OUT.
echo 'hello version=1' >&"$JETSAM_FD"
for i in 1 2 3 4 5 6; do echo "ack event=$i app=victim" >&"$JETSAM_FD"; done
echo 'endBackgroundTask task=1 app=victim id=9' >&"$JETSAM_FD"
printf 'garbage \x01\x02 ===\nack\n%s\n' "$(head -c 9000 /dev/zero | tr '\0' x)" >&"$JETSAM_FD"
echo "stateSummary value=$(head -c 130 /dev/zero | tr '\0' 7)" >&"$JETSAM_FD"
while read -r -u "$JETSAM_FD" line; do
  echo "$line" >> "$OUT"
  set -- $line
  [ "$1" = event ] && echo "ack ${2/id=/event=}" >&"$JETSAM_FD"
done
