"""broadside's Python driver: adapts a student's module to broadside's JSON-lines protocol.

Run as `python3 broadside_driver.py SUBMISSION` (a .py file or a folder holding one). Protocol
version 1, documented in specs/protocol.md. The student's code never sees the protocol
streams: standard input reads as empty, and its prints are captured per request and sent back
in the `output` field. Expected outcomes never reach this process.
"""

import importlib.util
import io
import json
import os
import random
import sys
import traceback

try:
    import broadside_find
except ImportError:  # run from broadside's source tree: drivers/python_find.py beside it
    import python_find as broadside_find

# The seed of Python's `random` at every new game (reports must be reproducible).
RANDOM_SEED = 1933

PROTOCOL = 1
OUTPUT_LIMIT = 16 * 1024
PRINT_CAP = 1024 * 1024
MAIN_PID = os.getpid()

# Keep the protocol streams away from student code: fd 0 becomes /dev/null and fd 1 goes to
# stderr, so even a C-level write cannot corrupt an answer.
_proto_in = os.fdopen(os.dup(0), "r", encoding="utf-8")
_proto_out = os.fdopen(os.dup(1), "w", encoding="utf-8")
_null = os.open(os.devnull, os.O_RDONLY)
os.dup2(_null, 0)
os.dup2(2, 1)
sys.stdin = io.StringIO("")


class StudentError(Exception):
    """A failure that is the student's: an exception, a missing function, a wrong type."""

    def __init__(self, kind, message, trace=""):
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.trace = trace


class Sink(io.TextIOBase):
    """A text stream that keeps the head and the tail of what is written and counts it all."""

    def __init__(self):
        self.head = []
        self.head_len = 0
        self.tail = ""
        self.total = 0

    def writable(self):
        return True

    def write(self, text):
        text = str(text)
        written = len(text)
        self.total += written
        half = OUTPUT_LIMIT // 2
        if self.head_len < half:
            part = text[:half - self.head_len]
            self.head.append(part)
            self.head_len += len(part)
            text = text[len(part):]
        if text:
            self.tail = (self.tail + text)[-half:]
        return written


class Capture:
    """Captures what student code prints (stdout and stderr) while a request runs: the head
    and tail are kept, with a marker between, and the total is counted against a cap."""

    def __init__(self):
        self.sink = Sink()

    def __enter__(self):
        self.saved = (sys.stdout, sys.stderr)
        sys.stdout = sys.stderr = self.sink
        return self

    def __exit__(self, *exc):
        sys.stdout, sys.stderr = self.saved
        return False

    def flooded(self):
        return self.sink.total > PRINT_CAP

    def text(self):
        head = "".join(self.sink.head)
        if self.sink.total <= len(head) + len(self.sink.tail):
            return head + self.sink.tail
        cut = self.sink.total - len(head) - len(self.sink.tail)
        return head + "\n[... {} characters cut ...]\n".format(cut) + self.sink.tail


class Submission:
    """The student's module, imported once; every call goes through `call`."""

    def __init__(self, path, preferred, functions):
        self.path = path
        self.module = None
        self.error = None
        self.file, self.why = broadside_find.find(path, preferred, functions)

    def load(self):
        if self.module is not None or self.error is not None:
            return
        if self.file is None:
            self.error = StudentError("missing", self.why)
            return
        folder = os.path.dirname(os.path.abspath(self.file))
        sys.path.insert(0, folder)
        name = os.path.splitext(os.path.basename(self.file))[0]
        try:
            spec = importlib.util.spec_from_file_location(name, self.file)
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            spec.loader.exec_module(module)
            self.module = module
        except BaseException as e:  # SystemExit and KeyboardInterrupt too: the student's.
            self.error = StudentError(
                "exception",
                "importing {} raised {}".format(os.path.basename(self.file), describe(e)),
                student_trace(e, self.file))

    def call(self, function, *args):
        self.load()
        if self.error is not None:
            raise self.error
        fn = getattr(self.module, function, None)
        if not callable(fn):
            raise StudentError(
                "missing", "`{}` is not defined in {}".format(function, os.path.basename(self.file)))
        try:
            return fn(*args)
        except OSError as e:
            if e.errno == 11 and isinstance(e, BlockingIOError):  # EAGAIN from fork: processes
                raise StudentError(
                    "limit", "`{}` could not start more processes (the submission's process count "
                    "is limited)".format(function), student_trace(e, self.file))
            if e.errno == 27:  # EFBIG: the file-size limit
                raise StudentError(
                    "limit", "`{}` wrote a file larger than the submission may write".format(function),
                    student_trace(e, self.file))
            raise StudentError(
                "exception", "`{}` raised {}".format(function, describe(e)),
                student_trace(e, self.file))
        except MemoryError as e:
            raise StudentError(
                "limit", "`{}` ran out of memory (the submission's memory is limited)".format(function),
                student_trace(e, self.file))
        except BaseException as e:
            raise StudentError(
                "exception", "`{}` raised {}".format(function, describe(e)),
                student_trace(e, self.file))


def describe(e):
    text = str(e)
    return "{}: {}".format(type(e).__name__, text) if text else type(e).__name__


def student_trace(e, file):
    """The traceback frames in the student's files, at most the last eight."""
    frames = [f for f in traceback.extract_tb(e.__traceback__)
              if not os.path.basename(f.filename).startswith("broadside_")
              and not f.filename.startswith("<frozen")]
    frames = frames[-8:]
    lines = []
    for f in frames:
        lines.append('  File "{}", line {}, in {}'.format(os.path.basename(f.filename), f.lineno, f.name))
        if f.line:
            lines.append("    " + f.line.strip())
    return "\n".join(lines)


def want(function, value, check, expected):
    """Checks a returned value's type; a wrong one is the student's fault."""
    if not check(value):
        shown = repr(value)
        if len(shown) > 200:
            shown = shown[:200] + "..."
        raise StudentError("type", "`{}` returned {} ({}); expected {}".format(
            function, shown, type(value).__name__, expected))
    return value


def is_bool(v):
    return isinstance(v, bool)


def want_bool(function, value):
    return want(function, value, is_bool, "True or False")


class Colab:
    """colab-6x6: functions over a game dict {"size", "ships", "shots"}."""

    MODULES = ["battleship.py", "battleships.py", "main.py"]
    FUNCTIONS = ("create_game", "is_valid_position", "was_targeted", "ship_at", "is_sunk",
                 "fire", "remaining_ships", "has_won")
    WORDS = ("invalid", "repeated", "miss", "hit", "sunk")

    def __init__(self, sub):
        self.sub = sub

    def new_game(self, rules, setup):
        self.rules = rules
        self.size = rules["rows"]
        self.names = [s["name"] for s in setup["ships"]]
        self.cells = {s["name"]: [tuple(c) for c in s["cells"]] for s in setup["ships"]}
        self.game = self.create()
        return {}

    def take(self, given):
        """Plays on the reference's game from now on: the handout's dict (Step 1: "size",
        "ships", "shots") with the reference's shots. Keys of the student's own beyond those
        three stay as its own game left them."""
        game = dict(self.game) if isinstance(self.game, dict) else {}
        game["size"] = self.size
        game["ships"] = {s["name"]: [tuple(c) for c in s["cells"]] for s in given["ships"]}
        game["shots"] = {tuple(c) for c in given["shots"]}
        self.game = game

    def saved(self):
        return self.game

    def restore(self, saved):
        self.game = saved

    def create(self):
        ships = {n: list(c) for n, c in self.cells.items()}
        game = self.sub.call("create_game", self.size, ships)
        want("create_game", game,
             lambda g: isinstance(g, dict) and {"size", "ships", "shots"} <= g.keys(),
             'a dict with "size", "ships" and "shots"')
        return game

    def fire(self, req):
        pos = tuple(req["at"])
        word = self.sub.call("fire", self.game, pos)
        want("fire", word, lambda w: w in self.WORDS, "one of " + ", ".join(map(repr, self.WORDS)))
        answer = {"outcome": word}
        by = self.blame(word, pos)
        if by:
            answer["by"] = by
        if word == "sunk":
            detail(answer, "ship", lambda: want("ship_at", self.sub.call("ship_at", self.game, pos),
                                                lambda n: isinstance(n, str), "a ship name"))
        return answer

    def blame(self, word, pos):
        """The helper fire() followed, when its answer is that helper's: "invalid" where the
        student's is_valid_position says the position is off the board, "hit" on a ship
        whose shot fire() recorded but the student's is_sunk calls afloat. None otherwise
        (fire itself decided); a helper that fails here blames nobody."""
        try:
            if word == "invalid":
                if self.sub.call("is_valid_position", self.game, pos) is False:
                    return "is_valid_position"
            elif word == "hit":
                shots = self.game.get("shots")
                name = self.sub.call("ship_at", self.game, pos)
                if (isinstance(shots, set) and pos in shots and isinstance(name, str)
                        and self.sub.call("is_sunk", self.game, name) is False):
                    return "is_sunk"
        except StudentError:
            pass
        return None

    def sunk(self, name):
        return want_bool("is_sunk", self.sub.call("is_sunk", self.game, name))

    def targeted(self, pos):
        return want_bool("was_targeted", self.sub.call("was_targeted", self.game, pos))

    def ship_at(self, pos):
        return want("ship_at", self.sub.call("ship_at", self.game, pos),
                    lambda n: n is None or isinstance(n, str), "a ship name or None")

    def observe(self, key):
        if key == "remaining":
            return want("remaining_ships", self.sub.call("remaining_ships", self.game),
                        lambda v: isinstance(v, list) and all(isinstance(n, str) for n in v),
                        "a list of ship names")
        if key == "sunk":
            return [n for n in self.names if self.sunk(n)]
        if key == "won":
            return want_bool("has_won", self.sub.call("has_won", self.game))
        if key == "shots":
            shots = self.game.get("shots")
            want("create_game", shots, lambda s: isinstance(s, set), 'a set in game["shots"]')
            return len(shots)
        if key == "targeted":
            return [[r, c] for r in range(self.size) for c in range(self.size) if self.targeted((r, c))]
        if key == "board":
            d = self.rules["display"]
            rows = []
            for r in range(self.size):
                row = []
                for c in range(self.size):
                    name = self.ship_at((r, c))
                    if not self.targeted((r, c)):
                        row.append(d["untried"])
                    elif name is None:
                        row.append(d["miss"])
                    elif self.sunk(name):
                        row.append(d["sunk"])
                    else:
                        row.append(d["hit"])
                rows.append(d["separator"].join(row))
            return rows
        raise StudentError("unsupported", "colab-6x6 has no `{}`".format(key))

    def query(self, req):
        pos = tuple(req["at"])
        q = req["query"]
        if q == "valid":
            return {"outcome": "ok", "value": want_bool(
                "is_valid_position", self.sub.call("is_valid_position", self.game, pos))}
        if q == "targeted":
            return {"outcome": "ok", "value": self.targeted(pos)}
        if q == "ship-at":
            return {"outcome": "ok", "value": self.ship_at(pos)}
        raise StudentError("unsupported", "colab-6x6 has no query `{}`".format(q))

    def probe(self, req):
        name = req["probe"]
        if name == "new-game-shape":
            game = self.create()
            problems = []
            if game["size"] != self.size:
                problems.append('game["size"] is {!r}, not {}'.format(game["size"], self.size))
            ships = game["ships"]
            if not isinstance(ships, dict) or {n: list(c) for n, c in ships.items()} != self.cells:
                problems.append('game["ships"] is {!r}, not the fleet it was given'.format(ships))
            if not isinstance(game["shots"], set) or game["shots"]:
                problems.append('game["shots"] is {!r}, not an empty set'.format(game["shots"]))
            return verdict(problems)
        if name == "independent-games":
            ships = {n: list(c) for n, c in self.cells.items()}
            first = self.sub.call("create_game", self.size, ships)
            second = self.sub.call("create_game", self.size, ships)
            # A ship's first cell, or (0, 0) when the fleet is empty.
            target = ships[self.names[0]][0] if self.names else (0, 0)
            self.sub.call("fire", first, target)
            problems = []
            if first["shots"] is second["shots"]:
                problems.append("both games share one set of shots")
            if second["shots"]:
                problems.append("a shot at the first game shows in the second: {!r}".format(second["shots"]))
            for n in self.names:
                if first["ships"][n] is ships[n] or first["ships"][n] is second["ships"][n]:
                    problems.append("the {} list is shared, not copied".format(n))
                    break
            if {n: list(c) for n, c in ships.items()} != self.cells:
                problems.append("the ships dictionary passed in was changed")
            return verdict(problems)
        if name == "questions-change-nothing":
            game = self.create()
            self.sub.call("fire", game, tuple(self.cells[self.names[0]][0]) if self.names else (0, 0))
            before = snapshot(game)
            for r in range(-1, self.size + 1):
                for c in range(-1, self.size + 1):
                    self.sub.call("is_valid_position", game, (r, c))
                    self.sub.call("was_targeted", game, (r, c))
                    self.sub.call("ship_at", game, (r, c))
            for n in self.names:
                self.sub.call("is_sunk", game, n)
            self.sub.call("remaining_ships", game)
            self.sub.call("has_won", game)
            after = snapshot(game)
            return verdict([] if before == after else [
                "asking questions changed the game: before {!r}, after {!r}".format(before, after)])
        raise StudentError("unsupported", "colab-6x6 has no probe `{}`".format(name))


def detail(answer, key, compute):
    """Adds a detail to an answer; if the function behind it fails, the answer goes without it
    and says why, so one broken helper does not fault every shot that uses it."""
    try:
        answer[key] = compute()
    except StudentError as e:
        answer["reason"] = "{} could not be read: {}".format(key, e.message)
    return answer


def snapshot(game):
    ships = game.get("ships")
    shots = game.get("shots")
    return (game.get("size"),
            {n: list(c) for n, c in ships.items()} if isinstance(ships, dict) else repr(ships),
            sorted(shots) if isinstance(shots, set) else repr(shots))


def verdict(problems):
    if problems:
        return {"outcome": "rejected", "reason": "; ".join(problems)}
    return {"outcome": "ok"}


class Solo:
    """solo-10x10: functions over ship tuples (row, column, horizontal, length, hits)."""

    MODULES = ["battleships.py", "battleship.py"]
    FUNCTIONS = ("is_sunk", "ship_type", "is_open_sea", "ok_to_place_ship_at", "place_ship_at",
                 "randomly_place_all_ships", "check_if_hits", "hit", "are_unsunk_ships_left")
    TYPES = ("battleship", "cruiser", "destroyer", "submarine")

    def __init__(self, sub):
        self.sub = sub

    def new_game(self, rules, setup):
        self.rules = rules
        self.size = rules["rows"]
        self.fleet = []
        self.names = {}
        for s in setup["ships"]:
            cells = sorted(tuple(c) for c in s["cells"])
            row, col = cells[0]
            horizontal = len(cells) == 1 or all(r == row for r, _ in cells)
            key = (row, col, horizontal, len(cells))
            self.names[key] = s["name"]
            self.fleet.append((row, col, horizontal, len(cells), set()))
        self.shots = 0
        self.called = set()
        return {}

    def take(self, given):
        """Plays on the reference's fleet from now on: the handout's list of ship tuples
        (row, column, horizontal, length, hits), hits the set of squares of it hit."""
        fleet = []
        for s in given["ships"]:
            cells = sorted(tuple(c) for c in s["cells"])
            row, col = cells[0]
            horizontal = len(cells) == 1 or all(r == row for r, _ in cells)
            self.names[(row, col, horizontal, len(cells))] = s["name"]
            fleet.append((row, col, horizontal, len(cells), {tuple(h) for h in s["hits"]}))
        self.fleet = fleet
        self.called = {tuple(c) for c in given["shots"]}

    def saved(self):
        return (self.fleet, set(self.called))

    def restore(self, saved):
        self.fleet, self.called = saved

    def name_of(self, ship):
        want("hit", ship, lambda s: isinstance(s, tuple) and len(s) == 5,
             "a ship tuple (row, column, horizontal, length, hits)")
        return self.names.get(tuple(ship[:4]), "ship at {}".format(ship[:4]))

    def ships(self):
        want("the fleet", self.fleet, lambda f: isinstance(f, list), "a list of ship tuples")
        return self.fleet

    def sunk(self, ship):
        return want_bool("is_sunk", self.sub.call("is_sunk", ship))

    def kind(self, ship):
        return want("ship_type", self.sub.call("ship_type", ship),
                    lambda t: t in self.TYPES, "one of " + ", ".join(map(repr, self.TYPES)))

    def fire(self, req):
        r, c = req["at"]
        if not (0 <= r < self.size and 0 <= c < self.size):
            return {"outcome": "invalid"}
        self.shots += 1
        if (r, c) in self.called:
            # main() answers a repeated call as a miss (decision check-if-hits-repeat).
            return {"outcome": "miss"}
        self.called.add((r, c))
        if not want_bool("check_if_hits", self.sub.call("check_if_hits", r, c, self.ships())):
            return {"outcome": "miss"}
        result = self.sub.call("hit", r, c, self.ships())
        want("hit", result,
             lambda v: isinstance(v, tuple) and len(v) == 2 and isinstance(v[0], list)
             and isinstance(v[1], tuple),
             "a tuple (fleet, ship)")
        self.fleet, ship = result
        self.name_of(ship)
        try:
            recorded = (r, c) in ship[4]
        except TypeError:  # hits kept otherwise than as a set: is_sunk decides
            recorded = True
        # A ship returned without this hit in its hits: hit() decided the answer, whatever
        # is_sunk says of it (decision hit-returns-hit-ship).
        by = {} if recorded else {"by": "hit"}
        if self.sunk(ship):
            return detail(dict(outcome="sunk", **by), "ship", lambda: self.kind(ship))
        return dict(outcome="hit", **by)

    def observe(self, key):
        if key in ("remaining", "sunk"):
            # Read ship by ship, reported in the spec's fleet order (decision fleet-order-lists),
            # whatever order the student's list keeps.
            order = {f["name"]: i for i, f in enumerate(self.rules["fleet"])}
            names = [self.name_of(s) for s in self.ships() if self.sunk(s) == (key == "sunk")]
            return sorted(names, key=lambda n: order.get(n, len(order)))
        if key == "won":
            return not want_bool("are_unsunk_ships_left",
                                 self.sub.call("are_unsunk_ships_left", self.ships()))
        if key == "shots":
            return self.shots
        if key == "board":
            d = self.rules["display"]
            owner = {}
            for s in self.ships():
                self.name_of(s)
                row, col, horizontal, length, hits = s
                for i in range(length):
                    owner[(row, col + i) if horizontal else (row + i, col)] = s
            rows = []
            for r in range(self.size):
                line = []
                for c in range(self.size):
                    s = owner.get((r, c))
                    if s is not None and (r, c) in s[4]:
                        if self.sunk(s):
                            line.append(d["sunk_by_kind"].get(self.kind(s), d["sunk"]))
                        else:
                            line.append(d["hit"])
                    elif (r, c) in self.called:
                        line.append(d["miss"])
                    else:
                        line.append(d["untried"])
                rows.append(d["separator"].join(line))
            return rows
        raise StudentError("unsupported", "solo-10x10 has no `{}`".format(key))

    def place(self, req):
        r, c = req["at"]
        length = req["length"]
        d = req["dir"]
        row, col = (r, c - length + 1) if d == "left" else (r - length + 1, c) if d == "up" else (r, c)
        horizontal = d in ("left", "right") or length == 1
        if not (0 <= row < self.size and 0 <= col < self.size):
            return {"outcome": "rejected", "reason": "the top-left square is off the ocean"}
        ok = want_bool("ok_to_place_ship_at",
                       self.sub.call("ok_to_place_ship_at", row, col, horizontal, length, self.ships()))
        # ok_to_place_ship_at decides the answer; place_ship_at's fleet is judged by the
        # checks after it.
        if not ok:
            return {"outcome": "rejected", "by": "ok_to_place_ship_at"}
        fleet = self.sub.call("place_ship_at", row, col, horizontal, length, self.ships())
        want("place_ship_at", fleet, lambda f: isinstance(f, list), "a list of ship tuples")
        self.fleet = fleet
        self.names[(row, col, horizontal, length)] = req["ship"]
        return {"outcome": "ok", "by": "ok_to_place_ship_at"}

    def query(self, req):
        r, c = req["at"]
        fn = {"open-sea": "is_open_sea", "fresh-hit": "check_if_hits"}.get(req["query"])
        if fn is None:
            raise StudentError("unsupported", "solo-10x10 has no query `{}`".format(req["query"]))
        return {"outcome": "ok", "value": want_bool(fn, self.sub.call(fn, r, c, self.ships()))}

    def random_layouts(self, req):
        layouts = []
        for _ in range(req["count"]):
            fleet = self.sub.call("randomly_place_all_ships")
            want("randomly_place_all_ships", fleet,
                 lambda f: isinstance(f, list) and all(isinstance(s, tuple) and len(s) == 5 for s in f),
                 "a list of ship tuples")
            ships = []
            for row, col, horizontal, length, hits in fleet:
                if hits:
                    raise StudentError("type", "`randomly_place_all_ships` returned a ship with hits "
                                       "{!r}; a new fleet has none".format(hits))
                ships.append([[row, col + i] if horizontal else [row + i, col] for i in range(length)])
            layouts.append(ships)
        return {"outcome": "ok", "layouts": layouts}


ASSIGNMENTS = {"colab-6x6": Colab, "solo-10x10": Solo}


class Driver:
    def __init__(self, path):
        self.path = path
        self.game = None

    def handle(self, req):
        op = req.get("op")
        if op == "hello":
            kind = ASSIGNMENTS.get(req.get("assignment"))
            if kind is None:
                raise StudentError("unsupported", "the Python driver does not grade {}".format(
                    req.get("assignment")))
            self.game = kind(Submission(self.path, kind.MODULES, kind.FUNCTIONS))
            self.game.sub.load()
            return {"protocol": PROTOCOL, "driver": "broadside-python/1",
                    "module": self.game.sub.why, "given": True}
        if self.game is None:
            raise StudentError("protocol", "`hello` must come first")
        if op == "new_game":
            # The same inputs give the same report: the student's `random` starts every game
            # from the same seed (random placements, a random shot order).
            random.seed(RANDOM_SEED)
            return self.game.new_game(req["rules"], req["setup"])
        given = req.get("given")
        if op == "observe":
            on_given = set(req.get("given_keys", [])) if given is not None else set()
            return {"state": {k: self.on_given(given, k) if k in on_given else self.game.observe(k)
                              for k in req["keys"]}}
        method = getattr(self.game, op, None)
        if method is None or op.startswith("_") or op in ("take", "saved", "restore"):
            raise StudentError("unsupported", "this assignment has no `{}`".format(op))
        if given is not None:
            self.game.take(given)
        return method(req)

    def on_given(self, given, key):
        """Asks `key` of the reference's state, then goes back to the game as it was."""
        saved = self.game.saved()
        try:
            self.game.take(given)
            return self.game.observe(key)
        finally:
            self.game.restore(saved)

    def answer(self, req):
        rid = req.get("id")
        if req.get("op") == "batch":
            responses = []
            for r in req.get("requests", []):
                one = self.answer(r)
                responses.append(one)
                # A value of the wrong type is one wrong answer: the student's code ran, and
                # the game goes on. Any other error ends the batch.
                if not one["ok"] and one["error"]["kind"] != "type":
                    break
            return {"id": rid, "ok": True, "responses": responses}
        with Capture() as cap:
            try:
                body = self.handle(req)
                reply = {"id": rid, "ok": True}
                reply.update(body)
            except StudentError as e:
                reply = {"id": rid, "ok": False,
                         "error": {"kind": e.kind, "message": e.message, "traceback": e.trace}}
            except Exception as e:  # a bug in this driver, reported as such
                reply = {"id": rid, "ok": False, "error": {
                    "kind": "protocol", "message": "driver error: " + describe(e),
                    "traceback": traceback.format_exc()}}
        if os.getpid() != MAIN_PID:
            # A process the student forked returned into the driver: it must never speak.
            os._exit(0)
        if cap.flooded() and reply.get("ok"):
            reply = {"id": rid, "ok": False, "error": {
                "kind": "limit", "message": "the submission printed {} characters in one call; "
                "at most {} are allowed".format(cap.sink.total, PRINT_CAP), "traceback": ""}}
        reply["output"] = cap.text()
        return reply


def main():
    driver = Driver(sys.argv[1])
    for line in _proto_in:
        try:
            req = json.loads(line)
        except ValueError:
            req = {"id": None, "op": "garbled"}
        reply = driver.answer(req)
        _proto_out.write(json.dumps(reply) + "\n")
        _proto_out.flush()


if __name__ == "__main__":
    main()
