#!/usr/bin/env bash
# Grades a class of N copies (default 100) of the correct solo-10x10 Python sample against
# the published solo-10x10 suite (60 scenarios), with --jobs 2 and --jobs 1, and prints the
# wall time and submissions graded per minute of each. Run from the repository root:
#
#   bash benches/grade.sh [N]
#
# The README's "Grading a class" figures come from this script.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
N=${1:-100}
cargo build --release -q
BIN=${CARGO_TARGET_DIR:-target}/release/broadside
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
for i in $(seq -w 1 "$N"); do
  mkdir -p "$WORK/class/student-$i"
  cp fixtures/submissions/solo-10x10/correct/* "$WORK/class/student-$i/"
done
printf '%-8s %10s %22s\n' "jobs" "seconds" "submissions/minute"
for jobs in 2 1; do
  T0=$(date +%s.%N)
  "$BIN" grade --suite fixtures/scenarios/solo-10x10 --submissions "$WORK/class" \
    --out "$WORK/out-$jobs" --jobs "$jobs" 2>/dev/null
  T1=$(date +%s.%N)
  python3 - "$T0" "$T1" "$N" "$jobs" <<'PY'
import sys
t0, t1, n, jobs = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
print(f"{jobs:<8} {t1 - t0:10.1f} {n / (t1 - t0) * 60:22.0f}")
PY
  # Every copy must have full marks, or the timing means nothing.
  python3 - "$WORK/out-$jobs/summary.json" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))["submissions"]
bad = [r["id"] for r in rows if r["score"] != r["max_score"]]
assert not bad, f"not full marks: {bad}"
PY
done
