#!/usr/bin/env bash
# Grading one Python submission against the whole solo-10x10 suite: broadside (one `batch` per
# scenario to one driver process) vs the interpreter's start-up plus the student's import, and vs
# an equivalent pytest file (benches/python/pytest_equivalent.py) over the same checks.
#
#   bash benches/python/bench.sh            # from the repository root
#
# Environment: REPS (timed runs of each command, default 20), WARMUP (untimed runs of each
# first, default 2), PYTHON (the interpreter, default the one `python3` resolves to, as
# sys.executable, so a version manager's shim script is not timed; broadside's python: target
# runs it too, through BROADSIDE_PYTHON), CACHE (warm or cold, below), CARGO_TARGET_DIR
# (honoured by the build and when finding the binary).
#
# What is timed, each command as a fresh process, round-robin over REPS rounds so drift hits all
# three alike, wall clock by time.perf_counter around subprocess.run (output to /dev/null):
#   import     $PYTHON -c "import battleships"        in fixtures/submissions/solo-10x10/correct
#   broadside  broadside run fixtures/scenarios/solo-10x10
#                --target python:fixtures/submissions/solo-10x10/correct --format json
#   pytest     $PYTHON -m pytest -q -p no:cacheprovider <generated file>
# Bytecode, the same for all three, and nothing is ever written into the repository:
#   CACHE=warm (default): PYTHONPYCACHEPREFIX is a private folder (removed at the end) and
#     writing is allowed, so the warm-up runs compile everything once (stdlib, pytest, the
#     student's module, pytest's rewritten test file) and the timed runs read it all back.
#     broadside's child runs `python -u -B`: it reads that cache and writes nothing.
#   CACHE=cold: PYTHONDONTWRITEBYTECODE=1 and no prefix: the standard library comes from the
#     installation's own caches, but the student's module (and pytest's rewrite of the test
#     file) is compiled on every run, as for a fresh submission.
# Either way broadside's driver script, like any __main__, is compiled on every run.
# Reported: the median (and min) in milliseconds and the ratio to `import`; the issue's goals
# are broadside <= 2x import and pytest >= 10x broadside.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
ROOT=$(pwd)
PYTHON=${PYTHON:-$(python3 -c 'import sys; print(sys.executable)')}
CACHE=${CACHE:-warm}
REPS=${REPS:-20}
WARMUP=${WARMUP:-2}
SCENARIOS=fixtures/scenarios/solo-10x10
SUBMISSION=fixtures/submissions/solo-10x10/correct

echo "== building broadside (release)" >&2
cargo build --release >&2
TARGET_DIR=$(cargo metadata --format-version 1 --no-deps 2>/dev/null \
    | "$PYTHON" -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])' \
    || echo "${CARGO_TARGET_DIR:-$ROOT/target}")
BIN="$TARGET_DIR/release/broadside"
[ -x "$BIN" ] || { echo "bench.sh: no binary at $BIN" >&2; exit 2; }

if ! "$PYTHON" -c 'import pytest' 2>/dev/null; then
    echo "== installing pytest" >&2
    "$PYTHON" -m pip install --quiet pytest >&2
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/broadside-pybench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
case "$CACHE" in
    warm) unset PYTHONDONTWRITEBYTECODE; export PYTHONPYCACHEPREFIX="$WORK/pycache" ;;
    cold) export PYTHONDONTWRITEBYTECODE=1; unset PYTHONPYCACHEPREFIX ;;
    *) echo "bench.sh: CACHE must be warm or cold, not $CACHE" >&2; exit 2 ;;
esac
# As root, broadside's children run as `nobody`, who cannot reach an interpreter under a
# private home (pyenv under /root here): then the child, and the import it is compared with,
# use the system's python3 instead.
CHILD_PYTHON=$PYTHON
if [ "$(id -u)" = 0 ] && [[ "$(readlink -f "$PYTHON")" == /root/* ]] && [ -x /usr/bin/python3 ]; then
    CHILD_PYTHON=/usr/bin/python3
fi
export BROADSIDE_PYTHON="$CHILD_PYTHON"
chmod 711 "$WORK"
mkdir -p "$WORK/pycache" && chmod 1777 "$WORK/pycache"
export BATTLESHIPS_DIR="$ROOT/$SUBMISSION"
TEST_FILE="$WORK/test_solo_10x10_equivalent.py"

echo "== generating the pytest equivalent" >&2
COVERAGE=$("$PYTHON" benches/python/pytest_equivalent.py --scenarios "$SCENARIOS" \
    --submission "$SUBMISSION" -o "$TEST_FILE" 2>&1)

"$PYTHON" - "$REPS" "$WARMUP" "$COVERAGE" "$BIN" "$PYTHON" "$SCENARIOS" "$SUBMISSION" \
    "$WORK" "$TEST_FILE" "$CACHE" <<'PYEOF'
import json, os, platform, re, statistics, subprocess, sys, time

reps, warmup, coverage, binary = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
python, scenarios, submission, work, test_file, cache = sys.argv[5:11]
root = os.getcwd()
commands = [  # (name, working folder, argv)
    ("import", submission, [os.environ["BROADSIDE_PYTHON"], "-c", "import battleships"]),
    ("broadside", ".", [binary, "run", scenarios, "--target", "python:" + submission,
                        "--format", "json"]),
    ("pytest", work, [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", test_file]),
]


def run(cwd, argv):
    t = time.perf_counter()
    p = subprocess.run(argv, cwd=os.path.join(root, cwd), stdin=subprocess.DEVNULL,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return (time.perf_counter() - t) * 1000, p.returncode


times = {name: [] for name, _, _ in commands}
codes = {}
for _ in range(warmup):
    for name, cwd, argv in commands:
        codes[name] = run(cwd, argv)[1]
for _ in range(reps):
    for name, cwd, argv in commands:
        ms, code = run(cwd, argv)
        times[name].append(ms)
        codes[name] = code

version = lambda argv: subprocess.run(argv, capture_output=True, text=True).stdout.strip()
# Both must reach the same verdict on every scenario; read their counts once more, untimed.
bs_out = subprocess.run(commands[1][2], cwd=root, capture_output=True, text=True).stdout
summary = json.loads(bs_out)["summary"]
pt_out = subprocess.run(commands[2][2] + ["-rN"], cwd=os.path.join(root, work),
                        capture_output=True, text=True).stdout
count = lambda word: sum(int(n) for n in re.findall(r"(\d+) " + word, pt_out.splitlines()[-1]))
print("date      ", time.strftime("%Y-%m-%d %H:%M:%S %Z"))
print("machine   ", platform.machine(), platform.processor() or "", "nproc", os.cpu_count(),
      "(nproc:", version(["nproc"]) + ")")
print("python    ", version([python, "--version"]), "| pytest",
      version([python, "-c", "import pytest; print(pytest.__version__)"]))
print("broadside ", binary)
print("suite     ", coverage)
print("verdicts   broadside {} of {} scenarios passed; pytest {} of {} tests passed".format(
    summary["passed"], summary["scenarios"], count("passed"),
    count("passed") + count("failed") + count("error") + count("skipped")))
print("runs       {} timed per command (round-robin) after {} warm-up; bytecode cache {}".format(
    reps, warmup, cache))
print("load avg  ", " ".join("{:.2f}".format(x) for x in os.getloadavg()))
print()
base = statistics.median(times["import"])
print("{:<10} {:>10} {:>10} {:>10} {:>6}".format("name", "median ms", "min ms", "x import", "exit"))
for name, cwd, argv in commands:
    med = statistics.median(times[name])
    print("{:<10} {:>10.1f} {:>10.1f} {:>10.2f} {:>6}".format(
        name, med, min(times[name]), med / base, codes[name]))
print()
bs, pt = statistics.median(times["broadside"]), statistics.median(times["pytest"])
print("goal: broadside at most 2x import:          {:.2f}x  {}".format(
    bs / base, "met" if bs <= 2 * base else "NOT met"))
print("goal: broadside at least 10x faster than pytest: {:.1f}x  {}".format(
    pt / bs, "met" if pt >= 10 * bs else "NOT met"))
PYEOF
