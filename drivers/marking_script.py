"""broadside's runner of the tests a student writes into the module itself (colab-6x6's Step 9:
"Write each test so you can compare the expected and actual results, for example with print()
or assert"), written beside the submission as broadside_script.py.

Usage: python3 broadside_script.py STUDENT_FILE WHEAT_FILE

STUDENT_FILE may be a notebook (`.ipynb`): its code cells run as one script (`script_of` in
broadside_notebook.py, written beside this file), with the interface's widgets stood in for.

The student's file is run top to bottom as the notebook runs its cells, except that its
definitions of the required functions (BROADSIDE_MARKING_FUNCTIONS) are left out: the
implementation in WHEAT_FILE (a correct one, or a buggy one) stands in for them. Each
top-level statement that holds an `assert`, and each `test_*` function it defines (called
after the file has run), is one check; a check passes when it raises nothing. One JSON line per
check goes to BROADSIDE_MARKING_OUT, in the shape the pytest plugin writes.

The checks run in this process, so they can write that file too: broadside reads it as the
checks' claims, never as a verdict. The verdict is the exit status: with
BROADSIDE_MARKING_MUST_PASS (a JSON list of check ids: `line N`, or a function's name) the
runner exits 1 when one of them fails or never runs, else 0. BROADSIDE_MARKING_SKIP lists
checks left out (they did not finish on the correct implementation).
"""
import ast
import json
import os
import random
import signal
import sys

_FUNCTIONS = set(filter(None, os.environ.get("BROADSIDE_MARKING_FUNCTIONS", "").split(",")))
_ASSUME = {}
for _a in json.loads(os.environ.get("BROADSIDE_MARKING_ASSUME", "[]")):
    _ASSUME.setdefault(_a["function"], []).append(_a["holds"])
_out = open(os.environ.pop("BROADSIDE_MARKING_OUT", "broadside-marking.jsonl"), "a",
            encoding="utf-8")
_MUST_PASS = set(json.loads(os.environ.pop("BROADSIDE_MARKING_MUST_PASS", "[]")))
_SKIP = set(json.loads(os.environ.pop("BROADSIDE_MARKING_SKIP", "[]")))
# Checks of _MUST_PASS that passed.
_held = set()
# Seconds a check may run before it fails as one that does not finish.
_CHECK_SECONDS = 10


def _too_long(signum, frame):
    raise TimeoutError("the check did not finish within {} s".format(_CHECK_SECONDS))


def write(record):
    _out.write(json.dumps(record) + "\n")
    _out.flush()


class Watch:
    """Records the required functions a check calls itself."""

    def __init__(self, wheat_file):
        self.wheat_file = wheat_file
        self.calls = set()
        self.broke = []

    def __call__(self, frame, event, arg):
        if event != "call":
            return
        code = frame.f_code
        if code.co_name not in _FUNCTIONS or code.co_filename != self.wheat_file:
            return
        caller = frame.f_back
        if caller is None or caller.f_code.co_filename == self.wheat_file:
            return
        self.calls.add(code.co_name)
        for holds in _ASSUME.get(code.co_name, ()):
            names = dict(frame.f_globals)
            names.update(frame.f_locals)
            try:
                ok = bool(eval(holds, names))
            except Exception:  # noqa: BLE001 - an argument of the wrong shape breaks it too
                ok = False
            if not ok:
                self.broke.append({"function": code.co_name, "holds": holds})


def has_assert(node):
    return any(isinstance(n, ast.Assert) for n in ast.walk(node))


def run(student_file, namespace, node, name, line, call=None):
    """Runs one statement (or calls one test function); writes its check, if it is one."""
    watch = Watch(namespace["__broadside_wheat__"])
    random.seed(1933)
    signal.signal(signal.SIGALRM, _too_long)
    signal.setitimer(signal.ITIMER_REAL, _CHECK_SECONDS)
    sys.setprofile(watch)
    outcome, message = "passed", ""
    try:
        if call is not None:
            call()
        else:
            exec(compile(ast.Module(body=[node], type_ignores=[]), student_file, "exec"),
                 namespace)
    except BaseException as e:  # noqa: BLE001 - a check that raises anything fails
        if isinstance(e, (KeyboardInterrupt,)):
            raise
        outcome = "failed"
        message = "{}: {}".format(type(e).__name__, e)[:300]
    finally:
        sys.setprofile(None)
        signal.setitimer(signal.ITIMER_REAL, 0)
    if name is not None:
        if outcome == "passed":
            _held.add(name)
        write({"test": name, "file": os.path.basename(student_file), "line": line,
               "outcome": outcome, "calls": sorted(watch.calls), "broke": watch.broke,
               "message": message})


def main():
    student_file, wheat_file = sys.argv[1], sys.argv[2]
    if student_file.lower().endswith(".ipynb"):
        # A notebook: its code cells as one script, the interface's widgets stood in for.
        import broadside_notebook
        broadside_notebook.install_stubs()
        try:
            source, _ = broadside_notebook.script_of(student_file)
        except (ValueError, OSError, AttributeError, TypeError) as e:
            write({"collect_error": "{}: the notebook cannot be read".format(type(e).__name__),
                   "file": os.path.basename(student_file)})
            return
    else:
        with open(student_file, encoding="utf-8", errors="replace") as f:
            source = f.read()
    with open(wheat_file, encoding="utf-8") as f:
        wheat = f.read()
    try:
        tree = ast.parse(source, student_file)
    except SyntaxError as e:
        write({"collect_error": "SyntaxError: {} (line {})".format(e.msg, e.lineno),
               "file": os.path.basename(student_file)})
        return
    namespace = {"__name__": "__main__", "__broadside_wheat__": wheat_file}
    exec(compile(wheat, wheat_file, "exec"), namespace)
    tests = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in _FUNCTIONS:
            continue
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test"):
            tests.append(node)
        name = None
        if has_assert(node) and not isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            name = "line {}".format(node.lineno)
            if name in _SKIP:
                continue
        run(student_file, namespace, node, name, node.lineno)
    for node in tests:
        fn = namespace.get(node.name)
        if callable(fn) and node.name not in _SKIP:
            run(student_file, namespace, node, node.name, node.lineno, call=fn)


main()
_out.flush()
# The verdict: every check that must pass did.
os._exit(0 if _MUST_PASS <= _held else 1)
