#!/usr/bin/env python3
"""Writes a pytest file equivalent to broadside's solo-10x10 suite, for benches/python/bench.sh.

    python3 benches/python/pytest_equivalent.py [--scenarios DIR] [--spec FILE]
                                                [--submission DIR] [-o OUT]

Reads the published scenarios (fixtures/scenarios/solo-10x10/*.toml, with tomllib, Python 3.11)
and the spec (specs/solo-10x10.toml: fleet, board, display, queries) and writes one pytest
test function per scenario. Each test does what broadside's Python driver
(drivers/python_driver.py, class Solo) does for that scenario, calling the student's functions
directly instead of going through the JSON-lines protocol:

- the fleet is the list of ship tuples (row, column, horizontal, length, hits) the driver
  builds from `[setup.ships]` (a ship given as a list of cells, as one cell, or as a table
  `{ at, dir }` whose length comes from the spec's fleet), in fleet order;
- fire: off the ocean -> "invalid" without a shot; a repeat -> "miss" (a shot); otherwise
  check_if_hits, then hit, is_sunk and, on a sinking, ship_type (if ship_type fails, the
  "sunk" outcome stands without its ship detail);
- place: ok_to_place_ship_at, then place_ship_at (a top-left square off the ocean is
  rejected without a call), the ship resolved from a name or a kind as broadside resolves it;
- query open-sea -> is_open_sea, fresh-hit -> check_if_hits (the function named by the spec);
- random_layouts N -> randomly_place_all_ships N times, graded like broadside (the prescribed
  fleet, every ship on the ocean, no two ships touching even diagonally, not all the same; a
  ship that already has hits is the student's error);
- state / [end]: remaining and sunk (is_sunk per ship, names as the driver gives them, in the
  spec's fleet order), won (not are_unsunk_ships_left), shots (counted by the test), board
  (drawn like the driver);
- the driver's type checks (a bool from check_if_hits, a (fleet, ship) tuple from hit, ...);
- a time limit per test (BATTLESHIPS_TIMEOUT seconds, default 10, by SIGALRM), standing in
  for broadside's timeouts, so a student's endless loop fails a test instead of hanging.

Expectations (`expect`, `state`, `[end]`) become plain asserts, with the accepted-values
lists of accept_also decisions as `in (...)`. As in broadside, a test stops at its first
divergence.

Coverage: every action, expectation and state key the solo-10x10 scenarios use (fire, place,
query, random_layouts; remaining, sunk, won, shots, board). Not supported, and generated as a
skipped test with the reason in a comment: a `[setup]` that resizes the board or replaces the
fleet (rows/cols/fleet), two-player setups, and actions solo-10x10 cannot have (probe, drone,
missile). On 2026-11-30 it covered every scenario of the suite (60 of 60); the generated
file's header states the count for the files it was generated from.

It mirrors drivers/python_driver.py as of commit 8a4739c; when the driver changes, change the
Game class below with it (bench.sh's figures stay honest only while both run the same calls).

The generated file imports the student's module `battleships` from the folder in the
environment variable BATTLESHIPS_DIR, or else from --submission (made absolute at generation
time; default fixtures/submissions/solo-10x10/correct).
"""

import argparse
import os
import re
import sys
import tomllib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


class Unsupported(Exception):
    """A scenario (or part of one) this generator does not translate."""


# ---------------------------------------------------------------------------- the spec


class Spec:
    def __init__(self, path):
        with open(path, "rb") as f:
            raw = tomllib.load(f)
        self.id = raw["id"]
        self.rows = raw["board"]["rows"]
        self.cols = raw["board"]["cols"]
        # Fleet items in fleet order: `count` copies are named kind-1, kind-2, ...
        self.items = []  # (name, kind, length)
        for entry in raw["fleet"]:
            count = entry.get("count", 1)
            for i in range(1, count + 1):
                name = entry["name"] if count == 1 else "{}-{}".format(entry["name"], i)
                self.items.append((name, entry["name"], entry["length"]))
        self.display = dict(raw["display"])
        self.display.setdefault("sunk", self.display["hit"])  # broadside's default
        self.queries = {name: q["function"] for name, q in raw.get("queries", {}).items()}
        self.random_function = raw.get("random_layout", {}).get("function")

    def item(self, name):
        for i, (n, _, _) in enumerate(self.items):
            if n == name:
                return i
        return None


# ---------------------------------------------------------------------------- cells

DIRS = {"right": (0, 1), "down": (1, 0), "left": (0, -1), "up": (-1, 0)}


def cell(value):
    """A cell in solo-10x10's notation: "(row, col)", "row, col", "row col", or [row, col]."""
    if isinstance(value, list):
        if len(value) == 2 and all(isinstance(v, int) and not isinstance(v, bool) for v in value):
            return (value[0], value[1])
        raise Unsupported("`{!r}` is not a cell".format(value))
    if isinstance(value, str):
        t = value.strip()
        if t.startswith("(") and t.endswith(")"):
            t = t[1:-1]
        parts = [p for p in re.split(r"[,\s]", t) if p]
        try:
            nums = [int(p) for p in parts]
        except ValueError:
            nums = []
        if len(nums) == 2:
            return (nums[0], nums[1])
    raise Unsupported("`{!r}` is not a cell".format(value))


def ship_cells(value, length):
    """A setup ship's cells: a list of cells, one cell, or { at, dir } (length from the fleet)."""
    if isinstance(value, list):
        return [cell(v) for v in value]
    if isinstance(value, str):
        return [cell(value)]
    if isinstance(value, dict):
        if set(value) - {"at", "dir"}:
            raise Unsupported("unknown key in a ship table")
        r, c = cell(value["at"])
        d = value.get("dir")
        if d is None and length == 1:
            d = "right"
        dr, dc = DIRS[d]
        return [(r + dr * i, c + dc * i) for i in range(length)]
    raise Unsupported("a ship must be cells or { at, dir }")


def ship_tuple(cells):
    """(row, column, horizontal, length) as the driver's new_game builds it."""
    cells = sorted(cells)
    row, col = cells[0]
    horizontal = len(cells) == 1 or all(r == row for r, _ in cells)
    return (row, col, horizontal, len(cells))


# ---------------------------------------------------------------------------- expectations


def words(expect):
    """The accepted outcome words and the `ship` detail of an `expect` value."""
    if isinstance(expect, str):
        return [expect], None
    if isinstance(expect, list) and expect and all(isinstance(w, str) for w in expect):
        return list(expect), None
    if isinstance(expect, dict):
        extra = set(expect) - {"outcome", "ship"}
        if extra:
            raise Unsupported("expectation details {} are not solo-10x10's".format(sorted(extra)))
        out, ship = expect.get("outcome"), expect.get("ship")
        ws, _ = words(out)
        return ws, ship
    raise Unsupported("`expect = {!r}` is not understood".format(expect))


def outcome_assert(var, ws, where):
    if len(ws) == 1:
        return "assert {} == {!r}, {!r}".format(var, ws[0], where)
    return "assert {} in {!r}, {!r}".format(var, tuple(ws), where)


STATE_KEYS = ("remaining", "sunk", "won", "lost", "winner", "next", "shots", "turns", "moves",
              "targeted", "board")


def state_asserts(table, where):
    """Asserts for a `state = {...}` or `[end]` table, in broadside's check order."""
    lines = []
    unknown = set(table) - set(STATE_KEYS) - {"decision"}
    if unknown:
        raise Unsupported("unknown state keys {}".format(sorted(unknown)))
    for key in STATE_KEYS:
        if key not in table:
            continue
        v = table[key]
        w = "{}: {}".format(where, key)
        if key in ("remaining", "sunk"):
            method = "remaining" if key == "remaining" else "sunk_names"
            lines.append("assert g.{}() == {!r}, {!r}".format(method, list(v), w))
        elif key == "won":
            lines.append("assert g.won() is {!r}, {!r}".format(bool(v), w))
        elif key == "shots":
            if isinstance(v, list):
                lines.append("assert g.shots in {!r}, {!r}".format(tuple(v), w))
            else:
                lines.append("assert g.shots == {!r}, {!r}".format(v, w))
        elif key == "board":
            rows = [r.rstrip() for r in v.splitlines()]
            lines.append("assert g.board() == [")
            lines.extend("    {!r},".format(r) for r in rows)
            lines.append("], {!r}".format(w))
        else:
            raise Unsupported("solo-10x10 cannot observe `{}`".format(key))
    return lines


# ---------------------------------------------------------------------------- one scenario


def test_name(path):
    stem = os.path.splitext(os.path.basename(path))[0]
    return "test_" + re.sub(r"\W+", "_", stem).strip("_")


def translate(path, spec):
    """The body of one test function (a list of lines), or raises Unsupported."""
    with open(path, "rb") as f:
        sc = tomllib.load(f)
    if sc.get("assignment") != spec.id:
        raise Unsupported("assignment {!r} is not {}".format(sc.get("assignment"), spec.id))
    setup = sc.get("setup", {})
    for k in ("rows", "cols", "fleet"):
        if k in setup:
            raise Unsupported("[setup] {} (a resized board or replaced fleet)".format(k))
    if "players" in setup or "first" in setup:
        raise Unsupported("a two-player setup")
    # The setup fleet, in fleet order (broadside sorts setup items by fleet index).
    placed_items = []
    for name, value in setup.get("ships", {}).items():
        i = spec.item(name)
        if i is None:
            raise Unsupported("no ship {!r} in the fleet".format(name))
        placed_items.append((i, ship_tuple(ship_cells(value, spec.items[i][2]))))
    placed_items.sort()
    body = ["g = Game(["]
    for i, t in placed_items:
        body.append("    ({!r}, {!r}),".format(spec.items[i][0], t))
    body.append("])" if placed_items else "])  # an empty ocean")
    placed = {i for i, _ in placed_items}

    lines = open(path, encoding="utf-8").read().splitlines()
    step_lines = [n + 1 for n, l in enumerate(lines) if l.strip() == "[[steps]]"]

    for number, step in enumerate(sc.get("steps", []), 1):
        line = step_lines[number - 1] if number <= len(step_lines) else 0
        where = "step {} (line {})".format(number, line)
        actions = [k for k in ("fire", "drone", "missile", "place", "query", "probe",
                               "random_layouts") if k in step]
        if len(actions) != 1:
            raise Unsupported("a step with actions {}".format(actions))
        act = actions[0]
        expect = step.get("expect")
        body.append("# {}: {}".format(where, act))
        if act == "fire":
            r, c = cell(step["fire"])
            if expect is None:
                body.append("g.fire({}, {})".format(r, c))
            else:
                ws, ship = words(expect)
                body.append("outcome, ship = g.fire({}, {})".format(r, c))
                body.append(outcome_assert("outcome", ws, where))
                if ship is not None:
                    body.append("assert ship == {!r}, {!r}".format(ship, where))
        elif act == "place":
            p = step["place"]
            if not isinstance(p, dict) or set(p) - {"ship", "at", "dir"}:
                raise Unsupported("a `place` of another shape")
            want = p["ship"]
            item = spec.item(want)
            if item is None:
                item = next((i for i, it in enumerate(spec.items)
                             if it[1] == want and i not in placed), None)
            if item is None:
                raise Unsupported("no ship {!r} left to place".format(want))
            name, _, length = spec.items[item]
            r, c = cell(p["at"])
            d = p.get("dir", "right" if length == 1 else None)
            if d not in DIRS:
                raise Unsupported("a placement without a direction")
            ws = words(expect)[0] if expect is not None else None
            if not (ws and all(w == "rejected" for w in ws)):
                placed.add(item)
            call = "g.place({!r}, {}, {}, {}, {!r})".format(name, r, c, length, d)
            if ws is None:
                body.append(call)
            else:
                body.append(outcome_assert(call, ws, where))
        elif act == "query":
            fn = spec.queries.get(step["query"])
            if fn is None:
                raise Unsupported("no query {!r}".format(step["query"]))
            r, c = cell(step["at"])
            call = "g.query({!r}, {}, {})".format(fn, r, c)
            if expect is None:
                body.append(call)
            elif isinstance(expect, bool):
                body.append("assert {} is {!r}, {!r}".format(call, expect, where))
            elif isinstance(expect, list) and sorted(expect) == [False, True]:
                body.append("{}  # either answer (decision {})".format(call, step.get("decision")))
            else:
                raise Unsupported("query expectation {!r}".format(expect))
        elif act == "random_layouts":
            if spec.random_function is None:
                raise Unsupported("no random layout function")
            call = "g.random_layouts({})".format(int(step["random_layouts"]))
            if expect is None:
                body.append(call)
            else:
                body.append(outcome_assert(call, words(expect)[0], where))
        else:
            raise Unsupported("a `{}` step (solo-10x10 has none)".format(act))
        if "state" in step:
            body.extend(state_asserts(step["state"], where))
    if "end" in sc:
        body.append("# [end]")
        body.extend(state_asserts(sc["end"], "[end]"))
    return sc.get("title", ""), body


# ---------------------------------------------------------------------------- the file

PRELUDE = '''\
import os
import signal
import sys

import pytest

SUBMISSION = os.environ.get("BATTLESHIPS_DIR", {submission!r})
sys.path.insert(0, os.path.abspath(SUBMISSION))

import battleships as student  # noqa: E402

ROWS, COLS = {rows}, {cols}
TYPES = ("battleship", "cruiser", "destroyer", "submarine")
DISPLAY = {display!r}
SUNK_BY_KIND = {sunk_by_kind!r}
FLEET_LENGTHS = {lengths!r}
FLEET_ORDER = {{name: i for i, name in enumerate({names!r})}}


# broadside stops a submission that does not answer (5 s a request, about 10 s a scenario);
# here a test that runs longer than BATTLESHIPS_TIMEOUT seconds fails.
TIMEOUT = int(os.environ.get("BATTLESHIPS_TIMEOUT", "10"))


def _too_slow(signum, frame):
    raise TimeoutError("no answer within {{}} s".format(TIMEOUT))


@pytest.fixture(autouse=True)
def time_limit():
    if not hasattr(signal, "SIGALRM") or TIMEOUT <= 0:
        yield
        return
    old = signal.signal(signal.SIGALRM, _too_slow)
    signal.alarm(TIMEOUT)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def is_ship(s):
    return isinstance(s, tuple) and len(s) == 5


class Game:
    """One game as broadside's Python driver plays it (drivers/python_driver.py, Solo)."""

    def __init__(self, ships):
        self.fleet = []
        self.names = {{}}
        for name, (row, col, horizontal, length) in ships:
            self.names[(row, col, horizontal, length)] = name
            self.fleet.append((row, col, horizontal, length, set()))
        self.shots = 0
        self.called = set()

    def name_of(self, ship):
        assert is_ship(ship), "hit returned {{!r}}, not a ship tuple".format(ship)
        return self.names.get(tuple(ship[:4]), "ship at {{}}".format(ship[:4]))

    def ships(self):
        assert isinstance(self.fleet, list), "the fleet is not a list"
        return self.fleet

    def sunk(self, ship):
        v = student.is_sunk(ship)
        assert isinstance(v, bool), "is_sunk returned {{!r}}".format(v)
        return v

    def kind(self, ship):
        t = student.ship_type(ship)
        assert t in TYPES, "ship_type returned {{!r}}".format(t)
        return t

    def fire(self, r, c):
        """(outcome, ship type or None)."""
        if not (0 <= r < ROWS and 0 <= c < COLS):
            return "invalid", None
        self.shots += 1
        if (r, c) in self.called:
            return "miss", None
        self.called.add((r, c))
        hits = student.check_if_hits(r, c, self.ships())
        assert isinstance(hits, bool), "check_if_hits returned {{!r}}".format(hits)
        if not hits:
            return "miss", None
        result = student.hit(r, c, self.ships())
        assert (isinstance(result, tuple) and len(result) == 2 and isinstance(result[0], list)
                and isinstance(result[1], tuple)), "hit returned {{!r}}".format(result)
        self.fleet, ship = result
        self.name_of(ship)
        if self.sunk(ship):
            # The driver keeps the outcome when ship_type fails and sends no ship detail.
            try:
                return "sunk", self.kind(ship)
            except Exception:
                return "sunk", None
        return "hit", None

    def place(self, name, r, c, length, d):
        row, col = (r, c - length + 1) if d == "left" else (r - length + 1, c) if d == "up" else (r, c)
        horizontal = d in ("left", "right") or length == 1
        if not (0 <= row < ROWS and 0 <= col < COLS):
            return "rejected"
        ok = student.ok_to_place_ship_at(row, col, horizontal, length, self.ships())
        assert isinstance(ok, bool), "ok_to_place_ship_at returned {{!r}}".format(ok)
        if not ok:
            return "rejected"
        fleet = student.place_ship_at(row, col, horizontal, length, self.ships())
        assert isinstance(fleet, list), "place_ship_at returned {{!r}}".format(fleet)
        self.fleet = fleet
        self.names[(row, col, horizontal, length)] = name
        return "ok"

    def query(self, function, r, c):
        v = getattr(student, function)(r, c, self.ships())
        assert isinstance(v, bool), "{{}} returned {{!r}}".format(function, v)
        return v

    def random_layouts(self, count):
        layouts = []
        for _ in range(count):
            fleet = student.randomly_place_all_ships()
            assert isinstance(fleet, list) and all(is_ship(s) for s in fleet), \\
                "randomly_place_all_ships returned {{!r}}".format(fleet)
            assert not any(s[4] for s in fleet), \
                "randomly_place_all_ships returned a ship with hits; a new fleet has none"
            layouts.append([[(row, col + i) if horizontal else (row + i, col) for i in range(length)]
                            for row, col, horizontal, length, _hits in fleet])
        return grade_layouts(layouts)

    def names_where(self, sunk):
        """Read ship by ship with is_sunk, reported in the spec's fleet order."""
        names = [self.name_of(s) for s in self.ships() if self.sunk(s) == sunk]
        return sorted(names, key=lambda n: FLEET_ORDER.get(n, len(FLEET_ORDER)))

    def remaining(self):
        return self.names_where(False)

    def sunk_names(self):
        return self.names_where(True)

    def won(self):
        left = student.are_unsunk_ships_left(self.ships())
        assert isinstance(left, bool), "are_unsunk_ships_left returned {{!r}}".format(left)
        return not left

    def board(self):
        owner = {{}}
        for s in self.ships():
            self.name_of(s)
            row, col, horizontal, length, hits = s
            for i in range(length):
                owner[(row, col + i) if horizontal else (row + i, col)] = s
        rows = []
        for r in range(ROWS):
            line = []
            for c in range(COLS):
                s = owner.get((r, c))
                if s is not None and (r, c) in s[4]:
                    if self.sunk(s):
                        line.append(SUNK_BY_KIND.get(self.kind(s), DISPLAY["sunk"]))
                    else:
                        line.append(DISPLAY["hit"])
                elif (r, c) in self.called:
                    line.append(DISPLAY["miss"])
                else:
                    line.append(DISPLAY["untried"])
            rows.append(DISPLAY["separator"].join(line).rstrip())
        return rows


def grade_layouts(layouts):
    """broadside's random_layouts grading: "ok", or "rejected" for a wrong or repeated fleet."""
    seen = set()
    for ships in layouts:
        cells = [c for s in ships for c in s]
        if any(not (0 <= r < ROWS and 0 <= c < COLS) for r, c in cells):
            return "rejected"
        if sorted(len(s) for s in ships) != sorted(FLEET_LENGTHS):
            return "rejected"
        for i, s in enumerate(ships):
            others = [c for j, t in enumerate(ships) if j != i for c in t]
            if any(abs(r - r2) <= 1 and abs(c - c2) <= 1 for r, c in s for r2, c2 in others):
                return "rejected"
        seen.add(tuple(sorted(tuple(sorted(s)) for s in ships)))
    if len(seen) == 1 and len(layouts) > 1:
        return "rejected"
    return "ok"
'''


def generate(scenario_dir, spec_path, submission):
    spec = Spec(spec_path)
    paths = sorted(os.path.join(scenario_dir, n) for n in os.listdir(scenario_dir)
                   if n.endswith(".toml"))
    tests, skipped = [], []
    for path in paths:
        rel = os.path.relpath(path, ROOT)
        try:
            title, body = translate(path, spec)
        except (Unsupported, KeyError, TypeError, ValueError) as e:
            skipped.append((rel, str(e) or type(e).__name__))
            tests.append("\n\n# NOT COVERED: {} ({}).\n@pytest.mark.skip(reason={!r})\ndef {}():\n    pass\n"
                         .format(rel, e, "not translated: {}".format(e), test_name(path)))
            continue
        tests.append("\n\ndef {}():\n    {}\n{}\n".format(
            test_name(path), repr("{}: {}".format(rel, title)),
            "\n".join("    " + b if b else "" for b in body)))
    covered = len(paths) - len(skipped)
    header = [
        "# Generated by benches/python/pytest_equivalent.py; do not edit.",
        "# The pytest equivalent of broadside's {} suite: one test per scenario, the same"
        .format(spec.id),
        "# calls of the student's functions as broadside's Python driver, the same expectations.",
        "# Scenarios: {} in {}; covered: {} of {}.".format(
            len(paths), os.path.relpath(scenario_dir, ROOT), covered, len(paths)),
    ]
    for rel, why in skipped:
        header.append("#   not covered: {}: {}".format(rel, why))
    header.append("# The student's module `battleships` is imported from $BATTLESHIPS_DIR, else from")
    header.append("# the folder below.")
    lengths = [length for _, _, length in spec.items]
    prelude = PRELUDE.format(
        submission=os.path.abspath(submission), rows=spec.rows, cols=spec.cols,
        display={k: v for k, v in spec.display.items()
                 if k in ("untried", "miss", "hit", "sunk", "ship", "separator")},
        sunk_by_kind=spec.display.get("sunk_by_kind", {}), lengths=lengths,
        names=[name for name, _, _ in spec.items])
    text = "\n".join(header) + "\n\n" + prelude + "".join(tests)
    return text, covered, len(paths)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scenarios", default=os.path.join(ROOT, "fixtures/scenarios/solo-10x10"))
    ap.add_argument("--spec", default=os.path.join(ROOT, "specs/solo-10x10.toml"))
    ap.add_argument("--submission",
                    default=os.path.join(ROOT, "fixtures/submissions/solo-10x10/correct"))
    ap.add_argument("-o", "--out", help="the pytest file to write (default: standard output)")
    args = ap.parse_args()
    text, covered, total = generate(args.scenarios, args.spec, args.submission)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    print("pytest_equivalent: {} of {} scenarios covered".format(covered, total), file=sys.stderr)


if __name__ == "__main__":
    main()
