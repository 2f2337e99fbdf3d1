#!/usr/bin/env bash
# Runs every libFuzzer target (Sources/JetsamFuzzing) for FUZZ_SECONDS each, with address sanitizer.
#
#   scripts/fuzz.sh [TARGET...]        all targets when none is named
#   FUZZ_SECONDS=300 (per target)
#
# The working corpus grows in .build/fuzz-corpus/TARGET (seeded from Tests/JetsamFuzzingTests/Inputs/TARGET, which
# it never writes); a crasher is written to .build/fuzz-artifacts/TARGET/ and fails the run. Keep every crasher as a
# regression test: fix the bug, then copy the file into Tests/JetsamFuzzingTests/Inputs/TARGET/ (the unit run replays
# it). Reproduce one without the sanitizers: .build/debug/jetsam-fuzz TARGET FILE.
set -euo pipefail
# A trap must reach libFuzzer as a deadly signal with its stack: Swift's own backtracer, run first, trips the
# address sanitizer inside its crash handler and hides the real fault.
export SWIFT_BACKTRACE=enable=no
cd "$(dirname "$0")/.."

SWIFT=${SWIFT:-swift}
SECONDS_PER_TARGET=${FUZZ_SECONDS:-300}
SCRATCH=.build/fuzz
INPUTS=Tests/JetsamFuzzingTests/Inputs
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then targets=(control-request app-line config scenario sizes http-request crash-line); fi

echo "fuzz: building jetsam-fuzz with -sanitize=fuzzer,address (in $SCRATCH)"
# ld.gold warns about every sanitizer symbol it cannot export; those lines say nothing about our code.
# SwiftPM gives library modules only the address sanitizer: -Xswiftc -sanitize=fuzzer adds the coverage that
# guides libFuzzer to every module (without it, only the driver is instrumented).
"$SWIFT" build -c release --product jetsam-fuzz --sanitize=fuzzer --sanitize=address -Xswiftc -sanitize=fuzzer -Xswiftc -DJETSAM_FUZZ \
  --scratch-path "$SCRATCH" 2>&1 | { grep -v "ld.gold: warning: Cannot export" || true; }
binary="$SCRATCH/release/jetsam-fuzz"

failed=0
for target in "${targets[@]}"; do
  corpus=.build/fuzz-corpus/$target
  artifacts=.build/fuzz-artifacts/$target
  mkdir -p "$corpus" "$artifacts"
  log=.build/fuzz-artifacts/$target.log
  # -max_len: app lines are at most 4 KiB and a control request 64 KiB; 8 KiB reaches every limit but the
  # request's, which the parser meets before any allocation of that size.
  if JETSAM_FUZZ_TARGET=$target "$binary" -max_total_time="$SECONDS_PER_TARGET" -max_len=8192 \
    -print_final_stats=1 -artifact_prefix="$artifacts/" "$corpus" "$INPUTS/$target" >"$log" 2>&1; then
    runs=$(awk '/stat::number_of_executed_units/ {sum += $2} END {print sum + 0}' "$log")
    corpus_size=$(find "$corpus" -type f | wc -l)
    echo "fuzz: $target: $runs executions in ${SECONDS_PER_TARGET}s, no crash (corpus: $corpus_size inputs)"
  else
    failed=1
    echo "fuzz: $target: FAILED — crasher(s) in $artifacts/, log $log:"
    grep -E "ERROR|Fatal error|SUMMARY|^ +#[0-9]+ " "$log" | head -40 || tail -40 "$log"
  fi
done
exit $failed
