#!/usr/bin/env bash
# Times `broadside run` per target kind (median of N runs, default 5), each run starting
# from the submission's sources, so a compiled target pays its build every time:
#   colab-6x6 (28 scenarios): the reference, the correct Python sample, the correct C sample
#   (built with make), the correct Rust sample (built with cargo);
#   move-limit-10x10: the correct Haskell sample against one scenario (mostly the GHC
#   compile) and against all 22 (the difference is grading after the compile);
#   whole programs: the correct Java samples against their dialogue scenarios (battleboats 9,
#   grenades-8x8 5; javac included), battleboats again with BROADSIDE_QUIET_INPUT=1 (the
#   fallback where system calls cannot be seen), and solo-10x10's main() against its 4.
# Run from the repository root:
#
#   bash benches/targets.sh [N]
#
# The README's native, Haskell and whole-program timings come from this script.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
N=${1:-5}
cargo build --release -q
BIN=${CARGO_TARGET_DIR:-target}/release/broadside
median() {
  local times=()
  for _ in $(seq "$N"); do
    local t0 t1
    t0=$(date +%s.%N)
    # Every scenario must pass, or the timing means nothing.
    "$BIN" run "$@" >/dev/null 2>&1 || { echo "not all passed: broadside run $*" >&2; exit 1; }
    t1=$(date +%s.%N)
    times+=("$(python3 -c "import sys; print(float(sys.argv[2]) - float(sys.argv[1]))" "$t0" "$t1")")
  done
  python3 -c 'import statistics, sys; print(f"{statistics.median(map(float, sys.argv[1:])) * 1000:8.0f} ms")' "${times[@]}"
}
C=fixtures/scenarios/colab-6x6
M=fixtures/scenarios/move-limit-10x10
printf '%-44s %s\n' "target" "median"
printf '%-44s %s\n' "colab-6x6: reference" "$(median "$C")"
printf '%-44s %s\n' "colab-6x6: python correct" "$(median "$C" --target python:fixtures/submissions/colab-6x6/correct)"
printf '%-44s %s\n' "colab-6x6: native C (make)" "$(median "$C" --target native:fixtures/submissions/colab-6x6-native/correct-c)"
printf '%-44s %s\n' "colab-6x6: native Rust (cargo)" "$(median "$C" --target native:fixtures/submissions/colab-6x6-native/correct-rust)"
printf '%-44s %s\n' "move-limit-10x10: haskell, 1 scenario" "$(median "$M/02-hit-costs-nothing.toml" --target haskell:fixtures/submissions/move-limit-10x10/correct)"
printf '%-44s %s\n' "move-limit-10x10: haskell, 22 scenarios" "$(median "$M" --target haskell:fixtures/submissions/move-limit-10x10/correct)"
B=fixtures/scenarios/battleboats/dialogue
G=fixtures/scenarios/grenades-8x8/dialogue
S=fixtures/scenarios/solo-10x10/dialogue
printf '%-44s %s\n' "battleboats: java, 9 dialogues" "$(median "$B" --target java:fixtures/submissions/battleboats/correct)"
printf '%-44s %s\n' "battleboats: the same, quiet-spell fallback" "$(BROADSIDE_QUIET_INPUT=1 median "$B" --target java:fixtures/submissions/battleboats/correct)"
printf '%-44s %s\n' "grenades-8x8: java, 5 dialogues" "$(median "$G" --target java:fixtures/submissions/grenades-8x8/correct)"
printf '%-44s %s\n' "solo-10x10: python main(), 4 dialogues" "$(median "$S" --target python:fixtures/submissions/solo-10x10/correct)"
