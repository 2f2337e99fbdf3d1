#!/bin/bash
# The debug build `make` makes (binaries and the test bundle), failing on any compiler warning in our sources.
#
#   scripts/build-checked.sh [--build-tests] [more swift build arguments]
#
# - Swift gets -warnings-as-errors and clang (the C targets: jetsam-testapp, the syscall shim) -Werror, so a
#   warning fails the build however incremental it is: a file compiled with a warning leaves no object behind,
#   and the next build compiles it, and fails, again. (-Xcc also reaches swiftc's clang importer; the system
#   headers Swift imports build cleanly with it.) Plain `swift build` uses other flags, so switching between
#   it and make rebuilds everything once.
# - The log is then checked for `warning:` lines located in Sources/ or Tests/ (anything a flag did not turn
#   into an error); SwiftPM's own notes about the package are not ours to fix here and pass.
# The log stays in .build/build-checked.log. Env: SWIFT [swift].
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
mkdir -p .build
log=.build/build-checked.log
"${SWIFT:-swift}" build -Xswiftc -warnings-as-errors -Xcc -Werror "$@" 2>&1 | tee "$log"
# file:line[:column]: warning: …  for a file of ours (compilers print absolute paths).
ours=$(grep -E "^$ROOT/(Sources|Tests)/[^:]+:[0-9]+(:[0-9]+)?: warning:" "$log" || true)
if [ -n "$ours" ]; then
  echo "build-checked: the build printed warnings in our sources (fix them; make test fails on any):" >&2
  echo "$ours" >&2
  exit 1
fi
