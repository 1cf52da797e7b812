#!/usr/bin/env bash
# Every speed figure the README quotes, in one run, as ratios against the same floors:
#
#   bash benches/ratios.sh            # from the repository root
#
# Rows (each command a fresh process; the commands of a row timed side by side, round-robin,
# REPS rounds, medians; wall clock by time.perf_counter around subprocess.run):
#   solo-10x10 whole suite (60 step scenarios and 4 dialogues) on the correct sample
#     ÷ `python3 -c "import battleships"` in the sample's folder (the floor)
#   the 60 step scenarios alone ÷ the same floor
#   an 82-check pytest file (benches/python/pytest_equivalent.py) on the same submission
#     ÷ broadside's time per submission in `grade --jobs 2` over GRADE_COPIES copies
#   `grade --jobs 2` over GRADE_COPIES copies, whole suite: submissions per minute
#   `grade --marking` ÷ `grade`, MARK_COPIES copies of a solo-10x10 sample with its own tests
#     and extension (fixtures/marking/solo-10x10/with-extension), `--jobs 2`; and marking's
#     extra time ÷ its floor: the student's pytest file run alone (one run, timed) once per
#     run marking makes (the wheat, its confirmation, each reading and chaff of
#     specs/marking/solo-10x10.tests.toml), two at a time
#   battleboats dialogue suite (9 dialogues, javac included) on the correct sample
#     ÷ (javac of the same sources + one bare JVM start, `java -version`)
#   engine: colab-6x6 shots per second on one core (`cargo bench --bench engine`)
#   fuzz against the reference, colab-6x6 and solo-10x10, and against the Python correct
#     sample, solo-10x10: cases per second, `--jobs 2` (broadside's own count)
# The load average is printed before and after: a busy machine shows there.
#
# Environment: REPS (rounds per timed row, default 15), GRADE_REPS (rounds of the grade and
# marking rows, default 3), GRADE_COPIES (default 100), MARK_COPIES (default 4), FUZZ_CASES (default 20000; 2000 for the Python
# target), CARGO_TARGET_DIR (honoured). As root, children run as `nobody`, who cannot reach
# an interpreter under /root (pyenv): then the floor's import and broadside's children both
# use /usr/bin/python3.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$(pwd)
REPS=${REPS:-15}
GRADE_REPS=${GRADE_REPS:-3}
GRADE_COPIES=${GRADE_COPIES:-100}
MARK_COPIES=${MARK_COPIES:-4}
FUZZ_CASES=${FUZZ_CASES:-20000}
PYTHON=$(python3 -c 'import sys; print(sys.executable)')
CHILD_PYTHON=$PYTHON
if [ "$(id -u)" = 0 ] && [[ "$(readlink -f "$PYTHON")" == /root/* ]] && [ -x /usr/bin/python3 ]; then
    CHILD_PYTHON=/usr/bin/python3
fi
export BROADSIDE_PYTHON="$CHILD_PYTHON"
# Every row compiles what it grades, as a first grading does: no build kept from a round before.
export BROADSIDE_BUILD_CACHE=off

echo "== building broadside (release)" >&2
cargo build --release -q >&2
BIN="${CARGO_TARGET_DIR:-$ROOT/target}/release/broadside"
[ -x "$BIN" ] || { echo "ratios.sh: no binary at $BIN" >&2; exit 2; }
if ! "$PYTHON" -c 'import pytest' 2>/dev/null; then
    echo "== installing pytest" >&2
    "$PYTHON" -m pip install --quiet pytest >&2
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/broadside-ratios.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
chmod 711 "$WORK"
export PYTHONDONTWRITEBYTECODE=1
SOLO=fixtures/submissions/solo-10x10/correct
export BATTLESHIPS_DIR="$ROOT/$SOLO"
"$PYTHON" benches/python/pytest_equivalent.py --scenarios fixtures/scenarios/solo-10x10 \
    --submission "$SOLO" -o "$WORK/test_solo_equivalent.py" >/dev/null 2>&1
mkdir -p "$WORK/class"
for i in $(seq -w 1 "$GRADE_COPIES"); do
    mkdir -p "$WORK/class/student-$i"
    cp "$SOLO"/*.py "$WORK/class/student-$i/"
done
MARKED=fixtures/marking/solo-10x10/with-extension
for i in $(seq -w 1 "$MARK_COPIES"); do
    mkdir -p "$WORK/marking-class/student-$i"
    cp "$MARKED"/*.py "$WORK/marking-class/student-$i/"
done
mkdir -p "$WORK/pytest-alone"
cp "$MARKED"/*.py "$WORK/pytest-alone/"
mkdir -p "$WORK/javac"
cp fixtures/submissions/battleboats/correct/*.java "$WORK/javac/"

echo "== engine (cargo bench --bench engine)" >&2
ENGINE=$(cargo bench -q --bench engine 2>/dev/null)

"$PYTHON" - "$BIN" "$WORK" "$REPS" "$GRADE_REPS" "$GRADE_COPIES" "$FUZZ_CASES" \
    "$ENGINE" "$MARK_COPIES" <<'PYEOF'
import glob, os, re, statistics, subprocess, sys, time, tomllib

binary, work, reps, grade_reps, copies, fuzz_cases, engine, mark_copies = sys.argv[1:9]
reps, grade_reps, copies, fuzz_cases = int(reps), int(grade_reps), int(copies), int(fuzz_cases)
mark_copies = int(mark_copies)
child_python = os.environ["BROADSIDE_PYTHON"]
solo = "fixtures/submissions/solo-10x10/correct"
steps = sorted(glob.glob("fixtures/scenarios/solo-10x10/*.toml"))


def run(argv, cwd=".", must_pass=True):
    t = time.perf_counter()
    p = subprocess.run(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    ms = (time.perf_counter() - t) * 1000
    if must_pass and p.returncode != 0:
        sys.exit("ratios.sh: not all passed: {} (exit {})".format(" ".join(argv), p.returncode))
    return ms


def side_by_side(commands, rounds):
    """Medians in ms of each (name, argv, cwd), timed round-robin after one warm-up."""
    times = {name: [] for name, _, _ in commands}
    for name, argv, cwd in commands:
        run(argv, cwd)
    for _ in range(rounds):
        for name, argv, cwd in commands:
            times[name].append(run(argv, cwd))
    return {name: statistics.median(t) for name, t in times.items()}


def load():
    return " ".join("{:.2f}".format(x) for x in os.getloadavg())


print("date       ", time.strftime("%Y-%m-%d %H:%M %Z"))
print("machine    ", os.cpu_count(), "cores;", subprocess.run(
    [child_python, "--version"], capture_output=True, text=True).stdout.strip(), "for children")
print("load avg    {} (before)".format(load()))
print("rounds      {} per row ({} for grade), medians".format(reps, grade_reps))
print()
rows = []


def row(what, value, goal, met, detail):
    rows.append((what, value, goal, "" if goal == "floor" else "met" if met else "NOT met", detail))


m = side_by_side([
    ("import", [child_python, "-c", "import battleships"], solo),
    ("suite", [binary, "run", "fixtures/scenarios/solo-10x10", "--target", "python:" + solo], "."),
    ("steps", [binary, "run", *steps, "--target", "python:" + solo], "."),
], reps)
r = m["suite"] / m["import"]
row("solo-10x10 whole suite ÷ import", "{:.1f}×".format(r), "≤ 4×", r <= 4,
    "{:.0f} ms ÷ {:.1f} ms".format(m["suite"], m["import"]))
r = m["steps"] / m["import"]
row("60 step scenarios ÷ import", "{:.1f}×".format(r), "≤ 2×", r <= 2,
    "{:.0f} ms ÷ {:.1f} ms".format(m["steps"], m["import"]))

g = side_by_side([
    ("pytest", [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                os.path.join(work, "test_solo_equivalent.py")], work),
    ("grade", [binary, "grade", "--suite", "fixtures/scenarios/solo-10x10", "--submissions",
               os.path.join(work, "class"), "--out", os.path.join(work, "out"), "--jobs", "2"],
     "."),
], grade_reps)
per = g["grade"] / copies
r = g["pytest"] / per
row("pytest file ÷ broadside per submission in grade", "{:.1f}×".format(r), "≥ 10×", r >= 10,
    "{:.0f} ms ÷ {:.1f} ms".format(g["pytest"], per))
rate = copies / (g["grade"] / 1000) * 60
row("grade --jobs 2, {} copies".format(copies), "{:.0f}/min".format(rate), "≥ 1,000/min",
    rate >= 1000, "{:.1f} s".format(g["grade"] / 1000))

with open("specs/marking/solo-10x10.tests.toml", "rb") as f:
    tests = tomllib.load(f)
runs = 2 + len(tests.get("reading", [])) + len(tests.get("chaff", []))
grade_argv = [binary, "grade", "--suite", "fixtures/scenarios/solo-10x10", "--submissions",
              os.path.join(work, "marking-class"), "--jobs", "2"]
k = side_by_side([
    ("grade", grade_argv + ["--out", os.path.join(work, "out-plain")], "."),
    ("marking", grade_argv + ["--out", os.path.join(work, "out-marked"), "--marking"], "."),
    ("pytest", [child_python, "-B", "-m", "pytest", "-q", "-p", "no:cacheprovider",
                "test_battleships.py"], os.path.join(work, "pytest-alone")),
], grade_reps)
r = k["marking"] / k["grade"]
row("grade --marking ÷ grade, {} copies".format(mark_copies), "{:.1f}×".format(r), "≤ 2×",
    r <= 2, "{:.1f} s ÷ {:.1f} s".format(k["marking"] / 1000, k["grade"] / 1000))
extra = k["marking"] - k["grade"]
floor = mark_copies * runs * k["pytest"] / 2
r = extra / floor
row("marking's extra ÷ its pytest runs alone", "{:.1f}×".format(r), "floor", True,
    "{:.1f} s ÷ ({} × {} runs × {:.0f} ms ÷ 2 cores)".format(
        extra / 1000, mark_copies, runs, k["pytest"]))

javac = os.path.join(work, "javac")
sources = sorted(glob.glob(os.path.join(javac, "*.java")))
floor = "javac -d classes {} && java -version".format(" ".join(os.path.basename(s) for s in sources))
j = side_by_side([
    ("floor", ["sh", "-c", floor], javac),
    ("suite", [binary, "run", "fixtures/scenarios/battleboats/dialogue", "--target",
               "java:fixtures/submissions/battleboats/correct"], "."),
], reps)
r = j["suite"] / j["floor"]
row("battleboats dialogues ÷ (javac + JVM start)", "{:.1f}×".format(r), "≤ 2×", r <= 2,
    "{:.0f} ms ÷ {:.0f} ms".format(j["suite"], j["floor"]))

shots = re.search(r"^shots colab-6x6\s+(\d+)", engine, re.M)
shots = int(shots.group(1)) if shots else 0
row("engine, colab-6x6 shots/s, one core", "{:.1f} M".format(shots / 1e6), "≥ 100 M",
    shots >= 100e6, "Game::shoot, a board's cells twice over")


def fuzz(assignment, target, cases):
    p = subprocess.run([binary, "fuzz", "--assignment", assignment, "--target", target,
                        "--cases", str(cases), "--seed", "1", "--jobs", "2"],
                       capture_output=True, text=True)
    found = re.search(r"(\d+) cases/s", p.stderr)
    if p.returncode != 0 or not found:
        sys.exit("ratios.sh: fuzz failed: " + p.stderr)
    return int(found.group(1))


for assignment, target, cases, goal in [
    ("colab-6x6", "reference", fuzz_cases, 17000),
    ("solo-10x10", "reference", fuzz_cases, 10000),
    ("solo-10x10", "python:" + solo, fuzz_cases // 10, 2500),
]:
    rate = statistics.median(fuzz(assignment, target, cases) for _ in range(3))
    row("fuzz {} vs {}".format(assignment, target.split("/")[-1].replace("python:", "")),
        "{:,.0f}/s".format(rate), "≥ {:,}/s".format(goal), rate >= goal,
        "{} cases, --jobs 2, median of 3".format(cases))

width = max(len(r[0]) for r in rows)
print("{:<{w}}  {:>12}  {:>12}  {:<8}  {}".format("what", "now", "goal", "", "detail", w=width))
for what, value, goal, met, detail in rows:
    print("{:<{w}}  {:>12}  {:>12}  {:<8}  {}".format(what, value, goal, met, detail, w=width))
print()
print("load avg    {} (after)".format(load()))
PYEOF
