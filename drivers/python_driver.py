"""broadside's Python driver: adapts a student's module to broadside's JSON-lines protocol.

Run as `python3 broadside_driver.py SUBMISSION` (a .py file or a folder holding one). Protocol
version 1, documented in specs/protocol.md. The student's module is imported in an executor
process forked from this one (see `Remote`): it never holds the protocol streams, standard
input reads as empty, and its prints are captured per call and sent back in the `output`
field. Every judgement stays in this process, out of the student's code's reach. Expected
outcomes never reach either process.
"""

import importlib.util
import io
import json
import os
import random
import signal
import sys
import traceback

try:
    import broadside_find
except ImportError:  # run from broadside's source tree: drivers/python_find.py beside it
    import python_find as broadside_find
try:
    import broadside_notebook
except ImportError:  # run from broadside's source tree
    import python_notebook as broadside_notebook

# The seed of Python's `random` at every new game (reports must be reproducible).
RANDOM_SEED = 1933

PROTOCOL = 1
OUTPUT_LIMIT = 16 * 1024
PRINT_CAP = 1024 * 1024
MAIN_PID = os.getpid()
# The longest line the executor may answer, and the most objects one value it sends may hold.
REPLY_LIMIT = 64 * 1024 * 1024
ENCODE_LIMIT = 200000
# The captures open in this process, innermost last (the executor's prints join the request's).
CAPTURE = []
# The types a value crosses between the processes as itself. The encoders and decoders test an
# element's type against these inline before recursing (a function call per board cell and
# ship field was half of what an exchange cost); exact types only, so a subclass of int or str
# still takes the full path.
PLAIN = frozenset((type(None), bool, int, float, str))

# Keep the protocol streams away from student code: fd 0 becomes /dev/null and fd 1 goes to
# stderr, so even a C-level write cannot corrupt an answer.
_proto_in = os.fdopen(os.dup(0), "r", encoding="utf-8")
_proto_out = os.fdopen(os.dup(1), "w", encoding="utf-8")
_null = os.open(os.devnull, os.O_RDONLY)
os.dup2(_null, 0)
os.dup2(2, 1)
sys.stdin = io.StringIO("")


class Changed(Exception):
    """A function that only looks (the spec's `[looks_only]`) changed what it was given:
    that call's check fails alone, with why (see `Remote.looking`)."""

    def __init__(self, message):
        super().__init__(message)
        self.message = message


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

    def add(self, text, printed):
        """What the executor printed in one call: its kept text, and how much it printed."""
        self.write(text)
        self.total += max(0, printed - len(text))


class Capture:
    """Captures what student code prints (stdout and stderr) while a request runs: the head
    and tail are kept, with a marker between, and the total is counted against a cap."""

    def __init__(self):
        self.sink = Sink()

    def __enter__(self):
        self.saved = (sys.stdout, sys.stderr)
        sys.stdout = sys.stderr = self.sink
        CAPTURE.append(self)
        return self

    def __exit__(self, *exc):
        sys.stdout, sys.stderr = self.saved
        CAPTURE.pop()
        return False

    def flooded(self):
        return self.sink.total > PRINT_CAP

    def text(self):
        head = "".join(self.sink.head)
        if self.sink.total <= len(head) + len(self.sink.tail):
            return head + self.sink.tail
        cut = self.sink.total - len(head) - len(self.sink.tail)
        return head + "\n[... {} characters cut ...]\n".format(cut) + self.sink.tail


class Remote:
    """The student's module, imported in a process of its own (the executor), forked from
    this one before the import. Everything that decides an answer (the type checks, the
    probes' verdicts, which function is at fault) runs here, in a process the student's code
    cannot reach: it is not dumpable (no ptrace, no /proc/PID/mem), and the executor holds
    none of the protocol's streams. The executor only calls functions and sends back the
    raw values they returned, encoded as plain data (see `encode`); a module that patches
    the driver at import patches the executor's copy, which judges nothing.

    Values cross by value (lists, tuples, sets, dicts, scalars); each container the
    executor saw keeps a number, so passing back a value this process received (or sent)
    hands the student's function the very object it made, as if both ran in one process.
    `fresh` reads objects again after a call may have changed them."""

    def __init__(self, path, preferred, functions):
        self.path = path
        self.error = None
        self.pid = None
        # How many exchanges ran the student's code or read what it made (see `ask`).
        self.ran = 0
        # The functions that only look, each with its clause (the spec's `[looks_only]`,
        # sent in `new_game`'s rules): every call of one is checked (see `looking`).
        self.looks_only = {}
        self.origin = {}
        # A new game's seed, sent with the next request (see `reset`).
        self.seed = None
        self.file, self.why = broadside_find.find(path, preferred, functions)

    def load(self):
        if self.pid is not None or self.error is not None:
            return
        if self.file is None:
            self.error = StudentError("missing", self.why)
            return
        down_r, down_w = os.pipe()
        up_r, up_w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(down_w)
            os.close(up_r)
            os.close(_proto_in.fileno())
            os.close(_proto_out.fileno())
            try:
                Executor(self.file, down_r, up_w, self.path).serve()
            finally:
                os._exit(0)
        os.close(down_r)
        os.close(up_w)
        self.pid = pid
        self.tx = os.fdopen(down_w, "w", encoding="utf-8")
        self.rx = os.fdopen(up_r, "r", encoding="utf-8")
        no_dumps()
        reply = self.ask({"op": "load"})
        if not reply.get("ok"):
            self.error = self.student_error(reply)
        notes = reply.get("notes")
        # A notebook's account of its cells: the executor's claim, shown as a note only.
        if isinstance(notes, list) and all(isinstance(n, str) for n in notes) and notes:
            self.why = "; ".join([self.why] + notes)[:4000]

    def gradable(self, functions):
        """Refuses the submission at `hello` (a `setup` error: nothing of it can be graded)
        when its module does not import, or imports but defines none of the handout's
        functions (a file left as `# TODO`). Every check then fails with that reason, and
        no check earns credit answered by the driver alone (an off-board call, a counter)."""
        if self.error is not None and self.error.kind in ("exception", "limit"):
            raise StudentError("setup", "the module does not import: " + self.error.message,
                               self.error.trace)
        if self.error is None and self.file is not None:
            reply = self.ask({"op": "defines", "fns": list(functions) + ["main"]})
            if reply.get("ok") and reply.get("value") == []:
                raise StudentError("setup", "{} defines none of the handout's functions ({})".format(
                    os.path.basename(self.file), ", ".join(functions)))

    def reset(self, seed):
        """A new game: the executor forgets the objects it numbered and seeds `random`,
        before the next request it is sent (a new game costs no exchange of its own)."""
        self.load()
        self.origin = {}
        if self.error is None:
            self.seed = seed

    def looking(self, function, arglists):
        """`function` called once per argument list, when it is a function that only looks
        (`looks_only`): in one plan, the arguments read, the calls made, the arguments read
        again. A call that changed what it was given raises `Changed`, quoting the handout's
        clause: the check it answers fails alone and the game goes on. Returns the values,
        or None when `function` is not one that only looks."""
        clause = self.looks_only.get(function)
        if clause is None or not arglists:
            return None
        seen, watched = set(), []
        for args in arglists:
            for a in args:
                if isinstance(a, (list, dict, set, tuple)) and id(a) not in seen:
                    seen.add(id(a))
                    watched.append(a)
        reads = [((FETCH, a), None) for a in watched]
        got = self.plan(reads + [((function,) + tuple(args), None) for args in arglists] + reads)
        n = len(watched)
        before, values, after = got[:n], got[n:n + len(arglists)], got[n + len(arglists):]
        for v in before + values + after:
            if isinstance(v, StudentError):
                raise v
        for was, now in zip(before, after):
            if plain(was) != plain(now):
                raise Changed("`{}` changed what it was given: {} before the call, {} after "
                              "it. The handout: {}".format(function, shown(was), shown(now), clause))
        return values

    def call(self, function, *args):
        self.load()
        if self.error is not None:
            raise self.error
        looked = self.looking(function, [args])
        if looked is not None:
            return looked[0]
        made = Made()
        payload = [self.send(a, made) for a in args]
        reply = self.ask({"op": "call", "fn": function, "args": payload})
        self.adopt(made, reply.get("made"))
        if not reply.get("ok"):
            raise self.student_error(reply)
        return self.decode(reply.get("value"), {})

    def call_many(self, function, arglists):
        """`function` called once per argument list, in order, in one exchange with the
        executor (a board's worth of questions costs one round trip, not a hundred). The
        first call that fails raises, as it would have called one by one."""
        self.load()
        if self.error is not None:
            raise self.error
        if not arglists:
            return []
        looked = self.looking(function, arglists)
        if looked is not None:
            return looked
        made = Made()
        payload = [[self.send(a, made) for a in args] for args in arglists]
        reply = self.ask({"op": "many", "fn": function, "args": payload})
        self.adopt(made, reply.get("made"))
        if not reply.get("ok"):
            raise self.student_error(reply)
        values = reply.get("value")
        if not isinstance(values, list) or len(values) > len(arglists):
            self.broken("a batch of calls answered {!r}".format(values)[:200])
        out = [self.decode(v, {}) for v in values]
        if len(out) < len(arglists):
            raise self.student_error(reply.get("failed") or {})
        return out

    def plan(self, steps):
        """Several calls in one exchange, later ones on the raw results of earlier ones:
        each step is `(function, arg, ...)` or `(FETCH, obj)`, an argument may be `Step(i,
        index...)` (step i's result, indexed), and `when` conditions (see `Executor.plan`)
        skip a step the judging would not ask for. Returns, per step, its decoded value, a
        StudentError, or SKIPPED; nothing here decides anything."""
        self.load()
        if self.error is not None:
            raise self.error
        made = Made()
        payload = []
        for step, when in steps:
            fn, args = step[0], step[1:]
            payload.append({"fn": fn, "when": when,
                            "args": [a.wire() if isinstance(a, Step) else self.send(a, made)
                                     for a in args]})
        reply = self.ask({"op": "plan", "steps": payload})
        self.adopt(made, reply.get("made"))
        got = reply.get("value")
        if not reply.get("ok") or not isinstance(got, list) or len(got) != len(steps):
            self.broken("a plan answered {!r}".format(got)[:200])
        out = []
        for one in got:
            if not isinstance(one, dict):
                self.broken("a plan's step is {!r}".format(one)[:200])
            if one.get("skipped"):
                out.append(SKIPPED)
            elif one.get("ok"):
                out.append(self.decode(one.get("value"), {}))
            else:
                out.append(self.student_error(one))
        return out

    def fresh(self, *objs):
        """The objects again as the executor holds them now (one read: objects shared among
        them come back shared). An object this process never exchanged is itself."""
        refs = [self.origin.get(id(o), (None, None)) for o in objs]
        cids = [cid if o is obj else None for (o, cid), obj in zip(refs, objs)]
        if self.error is not None or all(c is None for c in cids):
            return objs[0] if len(objs) == 1 else objs
        reply = self.ask({"op": "fetch", "refs": cids})
        if not reply.get("ok"):
            raise self.student_error(reply)
        memo = {}
        got = reply.get("value")
        if not isinstance(got, list) or len(got) != len(objs):
            self.broken("a fetch answered {!r}".format(got)[:200])
        out = tuple(obj if c is None else self.decode(v, memo) for obj, c, v in zip(objs, cids, got))
        return out[0] if len(out) == 1 else out

    def send(self, v, made):
        known = self.origin.get(id(v))
        if known is not None and known[0] is v:
            return {"r": known[1]}
        if v is None or type(v) in (bool, int, float, str):
            return v
        if isinstance(v, Opaque):
            raise StudentError("type", "a value the submission made ({!r}) is no longer "
                               "available".format(v))
        k = made.seen.get(id(v))
        if k is not None:  # sent earlier in this message: the same object there
            return {"m": k}
        k = len(made)
        made.append(v)
        made.seen[id(v)] = k
        if isinstance(v, Derived):
            return {"k": k, "u": [self.send(v.base, made),
                                  [[self.send(a, made), self.send(b, made)] for a, b in v.items()]]}
        tag = SENT_AS.get(type(v))
        if tag is not None:
            send = self.send
            return {"k": k, tag: [x if type(x) in PLAIN else send(x, made) for x in v]}
        if type(v) is dict:
            return {"k": k, "d": [[self.send(a, made), self.send(b, made)] for a, b in v.items()]}
        raise TypeError("cannot send {!r}".format(v))

    def adopt(self, made, cids):
        if not isinstance(cids, dict):
            return
        for k, cid in cids.items():
            try:
                obj = made[int(k)]
            except (ValueError, IndexError):
                self.broken("it numbered an object it was not sent")
            if not isinstance(cid, int):
                self.broken("it numbered an object {!r}".format(cid)[:200])
            self.origin[id(obj)] = (obj, cid)

    def decode(self, node, memo):
        """A value from the executor's encoding, as plain Python values; containers are
        remembered with their numbers."""
        if node is None or type(node) in (bool, int, float, str):
            return node
        if not isinstance(node, dict):
            self.broken("a value is {!r}".format(node)[:200])
        if "r" in node:
            got = memo.get(node["r"])
            return got if got is not None else Opaque("object", "<the value itself>")
        cid = node.get("c")
        if not isinstance(cid, int):
            self.broken("a value is {!r}".format(node)[:200])
        decode = self.decode
        try:
            if "l" in node:
                obj = memo[cid] = []
                obj.extend(x if type(x) in PLAIN else decode(x, memo) for x in node["l"])
            elif "d" in node:
                obj = memo[cid] = {}
                for a, b in node["d"]:
                    obj[self.decode(a, memo)] = self.decode(b, memo)
            elif "t" in node:
                obj = memo[cid] = tuple([x if type(x) in PLAIN else decode(x, memo)
                                         for x in node["t"]])
            elif "s" in node:
                obj = memo[cid] = {x if type(x) in PLAIN else decode(x, memo) for x in node["s"]}
            elif "z" in node:
                obj = memo[cid] = frozenset([x if type(x) in PLAIN else decode(x, memo)
                                             for x in node["z"]])
            elif "o" in node:
                obj = memo[cid] = Opaque(str(node["o"]), str(node.get("repr", "")))
            else:
                self.broken("a value is {!r}".format(node)[:200])
        except (TypeError, ValueError):
            self.broken("a value is {!r}".format(node)[:200])
        self.origin[id(obj)] = (obj, cid)
        return obj

    def student_error(self, reply):
        e = reply.get("error")
        if isinstance(e, dict) and e.get("kind") == "driver":
            raise RuntimeError("in the executor: {}\n{}".format(e.get("message"), e.get("traceback")))
        if not isinstance(e, dict) or e.get("kind") not in ("missing", "exception", "limit", "type"):
            self.broken("an error is {!r}".format(e)[:200])
        return StudentError(e["kind"], str(e.get("message", "")), str(e.get("traceback", "")))

    def ask(self, request):
        if request.get("op") in ("call", "many", "plan", "fetch"):
            self.ran += 1
        if self.seed is not None:
            request["reset"], self.seed = self.seed, None
        try:
            self.tx.write(json.dumps(request) + "\n")
            self.tx.flush()
        except (BrokenPipeError, OSError):
            self.died()
        line = self.rx.readline(REPLY_LIMIT)
        if not line:
            self.died()
        if not line.endswith("\n"):
            self.broken("it answered a line over {} MiB".format(REPLY_LIMIT >> 20))
        try:
            reply = json.loads(line)
        except ValueError:
            self.broken("it answered {!r}".format(line[:200]))
        if not isinstance(reply, dict):
            self.broken("it answered {!r}".format(line[:200]))
        output, printed = reply.get("output", ""), reply.get("printed", 0)
        if isinstance(output, str) and isinstance(printed, int) and CAPTURE:
            CAPTURE[-1].sink.add(output, printed)
        return reply

    def died(self):
        """The executor ended mid-call: end this process the same way, so broadside reports
        the crash (signal or status) as it would have ended a single process."""
        _, status = os.waitpid(self.pid, 0)
        if os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            try:
                signal.signal(sig, signal.SIG_DFL)
            except (OSError, ValueError):
                pass
            os.kill(os.getpid(), sig)
        os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)

    def broken(self, what, how="broke the driver's channel to it"):
        """The executor broke its side of the channel (the submission's code wrote to it or
        replaced it) or did not do as told. The driver ends as a crash, with why on its
        error output."""
        os.kill(self.pid, signal.SIGKILL)
        # fd 2 itself: sys.stderr is the request's capture now.
        os.write(2, "broadside: the submission's process {}: {}\n".format(how, what).encode(
            "utf-8", "replace"))
        os._exit(1)


# The containers sent element by element, and each one's tag on the wire.
SENT_AS = {list: "l", tuple: "t", set: "s", frozenset: "z"}


class Made(list):
    """The objects one message sends by value, in order (a number each), and where each is.
    The list keeps them alive, so an `id` stays theirs while the message is built."""

    __slots__ = ("seen",)

    def __init__(self):
        super().__init__()
        self.seen = {}


class Derived(dict):
    """A game built from another in the executor: a copy of `base` (the student's own game
    dict, or {} if it is not one) with these keys replaced. Read here, it holds only the keys
    replaced; sent, the executor builds it from its own copy of `base`, no read needed."""

    __slots__ = ("base",)

    def __init__(self, base, **keys):
        super().__init__(**keys)
        self.base = base


class Step:
    """An argument of a plan's step: the raw result of an earlier step, indexed."""

    def __init__(self, step, *index):
        self.step = step
        self.index = list(index)

    def wire(self):
        return {"$": self.step, "at": self.index}


SKIPPED = object()
FETCH = "$fetch"
# A plan's step `(POKE, container, marker, add)`: the executor adds the marker to a list or a
# set (or takes it out again), through the base type's own method, and answers None; any
# other value it leaves alone. The judge tells sharing apart by where a marker then shows.
POKE = "$poke"


def poke(container, marker, add):
    """The executor's side of a POKE step (see `Colab.independent`)."""
    if isinstance(container, list):
        if add:
            list.append(container, marker)
        else:
            try:
                list.remove(container, marker)
            except Exception:  # not there, or an element's == raised: nothing to take out
                pass
    elif isinstance(container, set):
        (set.add if add else set.discard)(container, marker)
    return None


def outcome(item):
    """A plan's step result: its value, or its error raised."""
    if isinstance(item, StudentError):
        raise item
    if item is SKIPPED:
        raise RuntimeError("a step the judge needs was skipped")
    return item


class Opaque:
    """A value of a type the handout's functions do not return (an instance of the student's
    own class, a function): its type's name and its repr, equal only to itself."""

    def __init__(self, type_name, shown):
        self.type_name = type_name
        self.shown = shown

    def __repr__(self):
        return self.shown


def type_name(value):
    return value.type_name if isinstance(value, Opaque) else type(value).__name__


def no_dumps():
    """Makes this process non-dumpable: a process of the same user (the executor, or one it
    starts) can then neither ptrace it nor read or write its memory through /proc."""
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE, 0
    except (OSError, AttributeError):
        pass


# A container's tag on the wire and how the executor builds it, in the order they are looked for.
BUILT_AS = (("l", list), ("t", tuple), ("s", set), ("z", frozenset), ("d", dict))


class Executor:
    """The executor's side: imports the student's module and answers `load`, `call`,
    `many`, `plan` and `fetch` on its pipes (any of them may carry a new game's `reset`
    seed). What it sends is raw values; it decides nothing."""

    def __init__(self, file, rfd, wfd, root=None):
        self.file = file
        self.root = root or file
        self.rx = os.fdopen(rfd, "r", encoding="utf-8")
        self.tx = os.fdopen(wfd, "w", encoding="utf-8")
        self.pid = os.getpid()
        self.module = None
        self.error = None
        # What a notebook's run says of its cells (see broadside_notebook).
        self.notes = []
        self.held = {}
        self.numbers = {}

    def serve(self):
        for line in self.rx:
            req = None
            with Capture() as cap:
                try:
                    req = json.loads(line)
                    reply = self.handle(req)
                except StudentError as e:
                    reply = {"ok": False, "error": {"kind": e.kind, "message": e.message,
                                                    "traceback": e.trace}}
                except Exception as e:  # a bug in this driver
                    reply = {"ok": False, "error": {"kind": "driver", "message": describe(e),
                                                    "traceback": traceback.format_exc()}}
            if os.getpid() != self.pid:
                # A process the student forked returned into the executor: it must never speak.
                os._exit(0)
            reply["output"] = cap.text()
            reply["printed"] = cap.sink.total
            try:
                text = json.dumps(reply)
            except ValueError as e:  # an int too long for json, say: the student's value
                fn = req.get("fn") if isinstance(req, dict) else None
                who = "`{}`".format(fn) if isinstance(fn, str) else "the submission"
                text = json.dumps({"ok": False, "made": reply.get("made", {}), "error": {
                    "kind": "type", "message": "{} returned a value broadside cannot read "
                    "({})".format(who, describe(e)), "traceback": ""}, "output": reply["output"],
                    "printed": reply["printed"]})
            self.tx.write(text + "\n")
            self.tx.flush()

    def handle(self, req):
        op = req["op"]
        if "reset" in req:  # a new game begins with this request
            self.held, self.numbers = {}, {}
            random.seed(req["reset"])
        if op == "load":
            self.load()
            if self.error is not None:
                raise self.error
            return {"ok": True, "notes": self.notes}
        if op == "defines":
            self.load()
            return {"ok": True, "value": [f for f in req["fns"]
                                          if callable(getattr(self.module, f, None))]}
        if op == "fetch":
            memo = set()
            return {"ok": True, "value": [None if c is None else self.encode(
                self.held[c], memo, [ENCODE_LIMIT], 0) for c in req["refs"]]}
        made = {}
        if op == "plan":
            return {"ok": True, "made": made, "value": self.plan(req["steps"], made)}
        if op == "many":
            values = []
            for one in req["args"]:
                try:
                    values.append(self.encoded(req["fn"], [self.receive(a, made) for a in one]))
                except StudentError as e:
                    return {"ok": True, "made": made, "value": values, "failed": {"error": {
                        "kind": e.kind, "message": e.message, "traceback": e.trace}}}
            return {"ok": True, "made": made, "value": values}
        args = [self.receive(a, made) for a in req["args"]]
        try:
            encoded = self.encoded(req["fn"], args)
        except StudentError as e:
            return {"ok": False, "made": made, "error": {
                "kind": e.kind, "message": e.message, "traceback": e.trace}}
        return {"ok": True, "made": made, "value": encoded}

    def plan(self, steps, made):
        """Runs a plan's steps in order. A step is skipped when a `when` condition fails
        ([i, "in", [values]]: step i returned one of the strings or booleans; [i, "type",
        name]: step i returned a str, tuple, ...) or an argument names a step that failed or
        was skipped (or cannot be indexed as asked)."""
        raw, out = [], []
        types = {"str": str, "tuple": tuple}
        for step in steps:
            ok = True
            for i, how, what in step.get("when") or []:
                v = raw[i]
                if v is SKIPPED:
                    ok = False
                elif how == "in":
                    ok = ok and (type(v) in (str, bool)) and v in what
                else:
                    ok = ok and isinstance(v, types[what])
            args = []
            if ok:
                for a in step["args"]:
                    if isinstance(a, dict) and "$" in a:
                        v = raw[a["$"]]
                        try:
                            for k in a["at"]:
                                v = v[k] if v is not SKIPPED else v
                        except Exception:
                            v = SKIPPED
                        if v is SKIPPED:
                            ok = False
                        args.append(v)
                    else:
                        args.append(self.receive(a, made))
            if not ok:
                raw.append(SKIPPED)
                out.append({"skipped": True})
                continue
            try:
                if step["fn"] == FETCH:
                    value = args[0]
                elif step["fn"] == POKE:
                    value = poke(*args)
                else:
                    value = self.call(step["fn"], *args)
                raw.append(value)
                try:
                    out.append({"ok": True, "value": self.encode(value, set(), [ENCODE_LIMIT], 0)})
                except Exception as e:
                    raise StudentError("type", "`{}` returned a value broadside cannot read "
                                       "({})".format(step["fn"], describe(e)))
            except StudentError as e:
                raw[len(out):] = [SKIPPED]
                out.append({"ok": False, "error": {"kind": e.kind, "message": e.message,
                                                   "traceback": e.trace}})
        return out

    def encoded(self, function, args):
        """`function(*args)`, its value encoded."""
        value = self.call(function, *args)
        try:
            return self.encode(value, set(), [ENCODE_LIMIT], 0)
        except Exception as e:  # too large, or a repr that raised: the student's value
            raise StudentError("type", "`{}` returned a value broadside cannot read ({})".format(
                function, describe(e)))

    def number(self, obj):
        n = self.numbers.get(id(obj))
        if n is None:
            n = self.numbers[id(obj)] = len(self.numbers) + 1
            self.held[n] = obj
        return n

    def receive(self, node, made):
        if not isinstance(node, dict):
            return node
        if "r" in node:
            return self.held[node["r"]]
        if "m" in node:
            return self.held[made[node["m"]]]
        if "u" in node:
            base, pairs = node["u"]
            base = self.receive(base, made)
            obj = dict(base) if isinstance(base, dict) else {}
            obj.update((self.receive(a, made), self.receive(b, made)) for a, b in pairs)
            made[node["k"]] = self.number(obj)
            return obj
        receive = self.receive
        for tag, build in BUILT_AS:
            items = node.get(tag)
            if items is not None:
                break
        if tag == "d":
            obj = {receive(a, made): receive(b, made) for a, b in items}
        else:
            obj = build([x if type(x) is not dict else receive(x, made) for x in items])
        made[node["k"]] = self.number(obj)
        return obj

    def encode(self, v, memo, budget, depth):
        if v is None or v is True or v is False or type(v) in (int, str, float):
            return v
        if isinstance(v, str):
            return str.__str__(v)
        if isinstance(v, int):
            return int.__index__(v)
        if isinstance(v, float):
            return float.__float__(v)
        n = self.number(v)
        if n in memo:
            return {"r": n}
        memo.add(n)
        budget[0] -= 1
        if budget[0] < 0:
            raise ValueError("over {} objects".format(ENCODE_LIMIT))
        if depth > 64:
            return {"c": n, "o": type(v).__name__, "repr": "<nested too deep>"}
        d = depth + 1
        encode = self.encode
        if isinstance(v, list):
            return {"c": n, "l": [x if type(x) in PLAIN else encode(x, memo, budget, d)
                                  for x in list(v)]}
        if isinstance(v, tuple):
            return {"c": n, "t": [x if type(x) in PLAIN else encode(x, memo, budget, d)
                                  for x in tuple(v)]}
        if isinstance(v, (set, frozenset)):
            return {"c": n, "s" if isinstance(v, set) else "z": [
                x if type(x) in PLAIN else encode(x, memo, budget, d) for x in list(v)]}
        if isinstance(v, dict):
            return {"c": n, "d": [[self.encode(a, memo, budget, d), self.encode(b, memo, budget, d)]
                                  for a, b in list(v.items())]}
        try:
            shown = repr(v)
        except Exception:
            shown = "<{}>".format(type(v).__name__)
        return {"c": n, "o": type(v).__name__, "repr": shown[:200]}

    def load(self):
        if self.module is not None or self.error is not None:
            return
        folder = os.path.dirname(os.path.abspath(self.file))
        name = os.path.splitext(os.path.basename(self.file))[0]
        broadside_notebook.install_stubs()
        try:
            if broadside_notebook.is_notebook(self.file) or broadside_notebook.is_colab_export(self.file):
                sys.path.insert(0, folder)
                ran = broadside_notebook.load(self.file, name)
                if ran is not None:  # a notebook, or Colab's export: its cells run one by one
                    self.module, self.notes = ran
                    return
            self.module = broadside_find.load(self.root, self.file, importlib.util, sys)
        except broadside_notebook.NotNotebook as e:
            self.error = StudentError("exception", str(e))
        except BaseException as e:  # SystemExit and KeyboardInterrupt too: the student's.
            missing = broadside_find.missing_package(e, self.root)
            self.error = StudentError(
                "exception",
                "{} {}".format(os.path.basename(self.file), missing) if missing else
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
            missing = broadside_find.missing_package(e, self.root)
            raise StudentError(
                "exception", "`{}` {}".format(function, missing) if missing else
                "`{}` raised {}".format(function, describe(e)),
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
        cell = broadside_notebook.where(f.filename)
        if cell is not None:  # a notebook's cell, as the student sees it
            lines.append('  {}, line {}, in {}'.format(cell, f.lineno, f.name))
        else:
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
            function, shown, type_name(value), expected))
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
        self.sub.looks_only = rules.get("looks_only") or {}
        self.size = rules["rows"]
        self.names = [s["name"] for s in setup["ships"]]
        self.cells = {s["name"]: [tuple(c) for c in s["cells"]] for s in setup["ships"]}
        self.game = self.create()
        return {}

    def take(self, given):
        """Plays on the reference's game from now on: the handout's dict (Step 1: "size",
        "ships", "shots") with the reference's shots. Keys of the student's own beyond those
        three stay as its own game left them."""
        self.game = Derived(self.game, size=self.size,
                            ships={s["name"]: [tuple(c) for c in s["cells"]] for s in given["ships"]},
                            shots={tuple(c) for c in given["shots"]})

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
        g = self.game
        # One exchange: fire, and the helpers its answer may be read with (each asked only
        # when that answer needs it, as the judging below reads them).
        steps = self.sub.plan([
            (("fire", g, pos), None),
            (("is_valid_position", g, pos), [[0, "in", ["invalid"]]]),
            ((FETCH, g), [[0, "in", ["hit"]]]),
            (("ship_at", g, pos), [[0, "in", ["hit", "sunk"]]]),
            (("is_sunk", g, Step(3)), [[0, "in", ["hit"]], [3, "type", "str"]]),
        ])
        word = outcome(steps[0])
        want("fire", word, lambda w: w in self.WORDS, "one of " + ", ".join(map(repr, self.WORDS)))
        answer = {"outcome": word}
        by = self.blame(word, pos, steps)
        if by:
            answer["by"] = by
        if word == "sunk":
            detail(answer, "ship", lambda: want("ship_at", outcome(steps[3]),
                                                lambda n: isinstance(n, str), "a ship name"))
        return answer

    def blame(self, word, pos, steps):
        """The helper fire() followed, when its answer is that helper's: "invalid" where the
        student's is_valid_position says the position is off the board, "hit" on a ship
        whose shot fire() recorded but the student's is_sunk calls afloat. None otherwise
        (fire itself decided); a helper that fails here blames nobody."""
        try:
            if word == "invalid":
                if outcome(steps[1]) is False:
                    return "is_valid_position"
            elif word == "hit":
                shots = outcome(steps[2]).get("shots")
                name = outcome(steps[3])
                if (isinstance(shots, set) and pos in shots and isinstance(name, str)
                        and outcome(steps[4]) is False):
                    return "is_sunk"
        except (StudentError, AttributeError):
            pass
        return None

    def targeted(self, pos):
        return want_bool("was_targeted", self.sub.call("was_targeted", self.game, pos))

    def ship_at(self, pos):
        return want("ship_at", self.sub.call("ship_at", self.game, pos),
                    lambda n: n is None or isinstance(n, str), "a ship name or None")

    # The same questions over many cells or ships, each in one exchange with the executor.
    def all_sunk(self, names):
        return [want_bool("is_sunk", v) for v in self.sub.call_many(
            "is_sunk", [(self.game, n) for n in names])]

    def all_targeted(self, cells):
        return [want_bool("was_targeted", v) for v in self.sub.call_many(
            "was_targeted", [(self.game, p) for p in cells])]

    def all_ship_at(self, cells):
        return [want("ship_at", v, lambda n: n is None or isinstance(n, str), "a ship name or None")
                for v in self.sub.call_many("ship_at", [(self.game, p) for p in cells])]

    def observe(self, key):
        if key == "remaining":
            return want("remaining_ships", self.sub.call("remaining_ships", self.game),
                        lambda v: isinstance(v, list) and all(isinstance(n, str) for n in v),
                        "a list of ship names")
        if key == "sunk":
            return [n for n, sunk in zip(self.names, self.all_sunk(self.names)) if sunk]
        if key == "won":
            return want_bool("has_won", self.sub.call("has_won", self.game))
        if key == "shots":
            shots = self.sub.fresh(self.game).get("shots")
            want("create_game", shots, lambda s: isinstance(s, set), 'a set in game["shots"]')
            return len(shots)
        cells = [(r, c) for r in range(self.size) for c in range(self.size)]
        if key == "targeted":
            return [[r, c] for (r, c), t in zip(cells, self.all_targeted(cells)) if t]
        if key == "board":
            d = self.rules["display"]
            names = self.all_ship_at(cells)
            tried = self.all_targeted(cells)
            hit = sorted({n for n, t in zip(names, tried) if t and n is not None})
            sunk = dict(zip(hit, self.all_sunk(hit)))
            marks = []
            for name, t in zip(names, tried):
                if not t:
                    marks.append(d["untried"])
                elif name is None:
                    marks.append(d["miss"])
                else:
                    marks.append(d["sunk"] if sunk[name] else d["hit"])
            n = self.size
            return [d["separator"].join(marks[r * n:(r + 1) * n]) for r in range(n)]
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

    # Off-board cells the independent-games probe adds, one object each, to see where they
    # show: the first game's set of shots, the caller's lists, the first game's lists.
    MARKERS = ((-1, -1), (-2, -2), (-3, -3))

    def independent(self):
        """Two games from one ships dictionary and a shot at the first: the second game's
        shots and the dictionary passed in must be unchanged, and no list or set shared.

        Sharing is judged by value, never by what the executor says is one object (the
        executor is the student's process and may say anything). The executor is told, in
        one plan, to read the games and the dictionary, to add a marker to the first game's
        shots, to each list of the dictionary and to each list of the first game, to read
        them again, and to take the markers out. A marker that shows where it was not added
        is sharing; one missing where it was added (the object was a list or a set when read)
        is an executor that did not do as told, which ends the submission's process (a
        crash), never a pass."""
        ships = {n: list(c) for n, c in self.cells.items()}
        first = self.sub.call("create_game", self.size, ships)
        second = self.sub.call("create_game", self.size, ships)
        # A ship's first cell, or (0, 0) when the fleet is empty.
        target = ships[self.names[0]][0] if self.names else (0, 0)
        self.sub.call("fire", first, target)
        shots_marker, callers_marker, firsts_marker = self.MARKERS
        read = [((FETCH, first), None), ((FETCH, second), None), ((FETCH, ships), None)]
        pokes = ([(Step(0, "shots"), shots_marker)]
                 + [(Step(2, n), callers_marker) for n in self.names]
                 + [(Step(0, "ships", n), firsts_marker) for n in self.names])
        got = self.sub.plan(read + [((POKE, at, m, True), None) for at, m in pokes] + read
                            + [((POKE, at, m, False), None) for at, m in pokes])
        before = [outcome(v) for v in got[:3]]
        after = [outcome(v) for v in got[3 + len(pokes):6 + len(pokes)]]
        first, second, passed = before
        # Read as a game is read everywhere: one that is not a dict fails here.
        first["shots"], second["shots"]
        for at, marker in pokes:
            was, now = reach(before[at.step], at.index), reach(after[at.step], at.index)
            if isinstance(was, (list, set)) and not (type(now) is type(was) and marker in now):
                where = ("the first game", None, "the ships passed in")[at.step] + "".join(
                    "[{!r}]".format(k) for k in at.index)
                self.sub.broken("told to add {} to {}, it answered {!r}".format(
                    marker, where, now)[:300], "did not do as the driver's judge told it")
        problems = []
        if holds(reach(after[1], ["shots"]), shots_marker):
            problems.append("both games share one set of shots")
        if second["shots"]:
            problems.append("a shot at the first game shows in the second: {!r}".format(second["shots"]))
        for n in self.names:
            mine, theirs = reach(after[0], ["ships", n]), reach(after[1], ["ships", n])
            if (holds(mine, callers_marker) or holds(theirs, callers_marker)
                    or holds(theirs, firsts_marker)):
                problems.append("the {} list is shared, not copied".format(n))
                break
        if {n: list(c) for n, c in passed.items()} != self.cells:
            problems.append("the ships dictionary passed in was changed")
        return verdict(problems)

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
            return self.independent()
        if name == "questions-change-nothing":
            game = self.create()
            self.sub.call("fire", game, tuple(self.cells[self.names[0]][0]) if self.names else (0, 0))
            before = snapshot(self.sub.fresh(game))
            around = [(game, (r, c)) for r in range(-1, self.size + 1) for c in range(-1, self.size + 1)]
            for fn in ("is_valid_position", "was_targeted", "ship_at"):
                self.sub.call_many(fn, around)
            self.sub.call_many("is_sunk", [(game, n) for n in self.names])
            self.sub.call("remaining_ships", game)
            self.sub.call("has_won", game)
            after = snapshot(self.sub.fresh(game))
            return verdict([] if before == after else [
                "asking questions changed the game: before {!r}, after {!r}".format(before, after)])
        raise StudentError("unsupported", "colab-6x6 has no probe `{}`".format(name))


def plain(value):
    """A value read from the executor as plain comparable data: sets sorted, dicts by key."""
    if isinstance(value, (set, frozenset)):
        return ("set", sorted((plain(v) for v in value), key=repr))
    if isinstance(value, dict):
        return ("dict", sorted(((plain(k), plain(v)) for k, v in value.items()), key=repr))
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [plain(v) for v in value])
    if isinstance(value, Opaque):
        return ("opaque", repr(value))
    return value


def shown(value):
    """A value read from the executor as a student reads it, cut short."""
    text = repr(value)
    return text if len(text) <= 200 else text[:200] + "..."


def reach(value, path):
    """`value[k1][k2]...` along `path`, or None where a step cannot be taken."""
    try:
        for k in path:
            value = value[k]
    except Exception:
        return None
    return value


def holds(value, marker):
    """Whether a list or set read from the executor holds `marker`."""
    return isinstance(value, (list, set)) and marker in value


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
        self.sub.looks_only = rules.get("looks_only") or {}
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

    def all_sunk(self, ships):
        return [want_bool("is_sunk", v) for v in self.sub.call_many("is_sunk", [(s,) for s in ships])]

    def all_kinds(self, ships):
        return [self.kind(v) for v in self.sub.call_many("ship_type", [(s,) for s in ships])]

    def kind(self, value):
        """ship_type's value, checked: one of the handout's four types."""
        return want("ship_type", value, lambda t: t in self.TYPES,
                    "one of " + ", ".join(map(repr, self.TYPES)))

    def fire(self, req):
        r, c = req["at"]
        if not (0 <= r < self.size and 0 <= c < self.size):
            return {"outcome": "invalid"}
        self.shots += 1
        if (r, c) in self.called:
            # main() answers a repeated call as a miss (decision check-if-hits-repeat).
            return {"outcome": "miss"}
        self.called.add((r, c))
        fleet = self.ships()
        # One exchange: the calls main() makes for a shot, each only when the judging below
        # reads it (hit() only after check_if_hits said True, as main() would call it).
        steps = self.sub.plan([
            (("check_if_hits", r, c, fleet), None),
            (("hit", r, c, fleet), [[0, "in", [True]]]),
            (("is_sunk", Step(1, 1)), [[1, "type", "tuple"]]),
            (("ship_type", Step(1, 1)), [[2, "in", [True]]]),
        ])
        if not want_bool("check_if_hits", outcome(steps[0])):
            return {"outcome": "miss"}
        result = outcome(steps[1])
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
        if want_bool("is_sunk", outcome(steps[2])):
            return detail(dict(outcome="sunk", **by), "ship", lambda: self.kind(outcome(steps[3])))
        return dict(outcome="hit", **by)

    def observe(self, key):
        if key == "shots":
            return self.shots
        # The fleet as the student's code holds it now (a call since may have changed it).
        self.fleet = self.sub.fresh(self.fleet)
        if key in ("remaining", "sunk"):
            # Read ship by ship, reported in the spec's fleet order (decision fleet-order-lists),
            # whatever order the student's list keeps.
            order = {f["name"]: i for i, f in enumerate(self.rules["fleet"])}
            fleet = self.ships()
            for s in fleet:
                self.name_of(s)
            names = [self.name_of(s) for s, sunk in zip(fleet, self.all_sunk(fleet))
                     if sunk == (key == "sunk")]
            return sorted(names, key=lambda n: order.get(n, len(order)))
        if key == "won":
            return not want_bool("are_unsunk_ships_left",
                                 self.sub.call("are_unsunk_ships_left", self.ships()))
        if key == "board":
            d = self.rules["display"]
            owner = {}
            fleet = self.ships()
            for s in fleet:
                self.name_of(s)
                row, col, horizontal, length, hits = s
                for i in range(length):
                    owner[(row, col + i) if horizontal else (row + i, col)] = s
            # Asked only of ships with a hit shown, as the board is drawn.
            with_hit = {id(o) for pos, o in owner.items() if pos in o[4]}
            shown = [s for s in fleet if id(s) in with_hit]
            sunk = [s for s, v in zip(shown, self.all_sunk(shown)) if v]
            kinds = {id(s): k for s, k in zip(sunk, self.all_kinds(sunk))}
            rows = []
            for r in range(self.size):
                line = []
                for c in range(self.size):
                    s = owner.get((r, c))
                    if s is not None and (r, c) in s[4]:
                        if id(s) in kinds:
                            line.append(d["sunk_by_kind"].get(kinds[id(s)], d["sunk"]))
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
        count = req["count"]
        # The first fleet alone (a wrong one is told at once), the rest in one exchange.
        fleets = [self.sub.call("randomly_place_all_ships")] if count > 0 else []
        for fleet in self.fleets(fleets, count):
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

    def fleets(self, first, count):
        """`first` (the first draw, if any), then the draws up to `count`, the first checked
        before the rest are drawn."""
        for fleet in first:
            yield fleet
        if count > 1:
            yield from self.sub.call_many("randomly_place_all_ships", [()] * (count - 1))


ASSIGNMENTS = {"colab-6x6": Colab, "solo-10x10": Solo}


def unanswered_field(checks):
    """An answer's `unanswered`: the checks no student code answered (the driver decided
    them alone: an off-board call, solo-10x10's shot counter), which earn no credit."""
    return {"unanswered": checks} if checks else {}


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
            self.game = kind(Remote(self.path, kind.MODULES, kind.FUNCTIONS))
            self.game.sub.load()
            self.game.sub.gradable(kind.FUNCTIONS)
            return {"protocol": PROTOCOL, "driver": "broadside-python/1",
                    "module": self.game.sub.why, "given": True}
        if self.game is None:
            raise StudentError("protocol", "`hello` must come first")
        if op == "new_game":
            # The same inputs give the same report: the student's `random` starts every game
            # from the same seed (random placements, a random shot order).
            self.game.sub.reset(RANDOM_SEED)
            return self.game.new_game(req["rules"], req["setup"])
        given = req.get("given")
        sub = self.game.sub
        if op == "observe":
            on_given = set(req.get("given_keys", [])) if given is not None else set()
            state, unanswered, failed = {}, [], {}
            for k in req["keys"]:
                ran = sub.ran
                try:
                    state[k] = self.on_given(given, k) if k in on_given else self.game.observe(k)
                except Changed as e:
                    failed[k] = e.message
                if sub.ran == ran:
                    unanswered.append(k)
            answer = dict({"state": state}, **unanswered_field(unanswered))
            if failed:
                answer["failed"] = failed
            return answer
        method = getattr(self.game, op, None)
        if method is None or op.startswith("_") or op in ("take", "saved", "restore"):
            raise StudentError("unsupported", "this assignment has no `{}`".format(op))
        if given is not None:
            self.game.take(given)
        ran = sub.ran
        try:
            answer = method(req)
        except Changed as e:
            # The answer's one check fails alone: a value of the wrong kind, in effect.
            raise StudentError("type", e.message)
        return dict(answer, **unanswered_field(["outcome"] if sub.ran == ran else []))

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
    sub = getattr(driver.game, "sub", None)
    if sub is not None and sub.pid is not None:
        # The executor goes with the driver, so nothing of the submission outlives it.
        os.kill(sub.pid, signal.SIGKILL)
        os.waitpid(sub.pid, 0)


if __name__ == "__main__":
    main()
