#!/usr/bin/env bash
# Grades every hostile submission in fixtures/submissions/hostile/ on the handout example and
# prints, for each, the fault broadside reported and how long it took; then the whole
# corpus's wall time, and the process count and available memory before and after, to show
# nothing was left behind. Run from the repository root:
#
#   bash benches/hostile.sh
#
# Meant for a Linux machine where broadside runs as root (children then run as `nobody` with
# no network); the README's "Reliability" figures come from this script.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
cargo build --release -q
BIN=${CARGO_TARGET_DIR:-target}/release/broadside
SCENARIO=fixtures/scenarios/colab-6x6/01-handout-example.toml
sub() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.2f}')" "$1" "$2"; }
# User processes (kernel threads have an empty command line and come and go on their own).
procs() {
  python3 -c 'import glob
n = 0
for c in glob.glob("/proc/[0-9]*/cmdline"):
    try:
        n += bool(open(c, "rb").read())
    except OSError:
        pass
print(n)'
}
avail() { awk '/MemAvailable/ {print int($2/1024)}' /proc/meminfo; }
P0=$(procs); M0=$(avail); T0=$(date +%s.%N)
printf '%-28s %-10s %8s\n' "submission" "fault" "seconds"
for f in fixtures/submissions/hostile/*.py; do
  name=$(basename "$f")
  [ "$name" = fake_driver.py ] && continue
  t=2; [ "$name" = read_scenarios.py ] && t=8   # it searches the disk for 5 s, then plays
  extra=()
  # The CPU budget below the timeout, so it is the CPU limit that stops it.
  [ "$name" = burn_cpu.py ] && { t=10; extra=(--cpu-secs 1); }
  s=$(date +%s.%N)
  json=$("$BIN" run "$SCENARIO" --target "python:$f" --timeout "$t" --scenario-timeout 12 "${extra[@]}" --format json 2>/dev/null || true)
  e=$(date +%s.%N)
  kind=$(printf '%s' "$json" | python3 -c '
import json, sys
r = json.load(sys.stdin)
s = r["scenarios"][0]
kinds = [f["kind"] for f in r.get("faults", [])]
print(s["fault"]["kind"] if "fault" in s else (kinds[0] if kinds else s["status"]))')
  printf '%-28s %-10s %8s\n' "$name" "$kind" "$(sub "$s" "$e")"
done
for mode in hang garble wrong-id exit crash flood slow; do
  s=$(date +%s.%N)
  json=$("$BIN" run "$SCENARIO" --target "cmd:python3 fixtures/submissions/hostile/fake_driver.py $mode" --timeout 2 --scenario-timeout 8 --format json 2>/dev/null || true)
  e=$(date +%s.%N)
  kind=$(printf '%s' "$json" | python3 -c 'import json,sys; s=json.load(sys.stdin)["scenarios"][0]; print(s["fault"]["kind"] if "fault" in s else s["status"])')
  printf '%-28s %-10s %8s\n' "fake_driver $mode" "$kind" "$(sub "$s" "$e")"
done
T1=$(date +%s.%N); sleep 1; P1=$(procs); M1=$(avail)
echo
printf 'whole corpus: %s s; processes before %d, after %d; MiB available before %d, after %d\n' \
  "$(sub "$T0" "$T1")" "$P0" "$P1" "$M0" "$M1"
