#!/usr/bin/env bash
# Fuzzing throughput: cases per second of `broadside fuzz` (release build) against the
# reference alone and against the correct Python samples, for colab-6x6 and solo-10x10.
#
#   bash benches/fuzz.sh            # from anywhere in the repository
#
# Environment: CASES (cases per run, default 5000), SEED (default 1), CARGO_TARGET_DIR
# (honoured by the build and when finding the binary). Each run plays the same CASES cases
# (same seed) and prints broadside's own count: cases / wall-clock seconds spent generating
# and playing them (start-up of the Python child included, no shrinking: nothing diverges).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
CASES=${CASES:-5000}
SEED=${SEED:-1}

echo "== building broadside (release)" >&2
cargo build --release >&2
BIN="${CARGO_TARGET_DIR:-target}/release/broadside"
[ -x "$BIN" ] || { echo "fuzz.sh: no binary at $BIN" >&2; exit 2; }

printf '| %-12s | %-46s | %6s | %8s |\n' assignment target cases "cases/s"
printf '|%s|%s|%s|%s|\n' -------------- ------------------------------------------------ -------- ----------
for assignment in colab-6x6 solo-10x10; do
    for target in reference "python:fixtures/submissions/$assignment/correct"; do
        line=$("$BIN" fuzz --assignment "$assignment" --target "$target" \
            --cases "$CASES" --seed "$SEED" 2>&1 >/dev/null | tail -1)
        rate=$(sed -n 's/.* \([0-9][0-9]*\) cases\/s.*/\1/p' <<<"$line")
        [ -n "$rate" ] || { echo "fuzz.sh: unexpected output: $line" >&2; exit 1; }
        printf '| %-12s | %-46s | %6s | %8s |\n' "$assignment" "$target" "$CASES" "$rate"
    done
done
