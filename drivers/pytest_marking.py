"""broadside's pytest plugin for grading a student's own tests (written beside the tests as
broadside_pytest.py and loaded with `-p broadside_pytest`).

It writes one JSON line per event to the file named by BROADSIDE_MARKING_OUT:
- {"test": nodeid, "file": path, "line": n, "outcome": "passed" | "failed" | "skipped",
   "calls": [required functions the test called itself], "broke": [assumptions it broke]}
- {"collect_error": text} for a test file that could not be collected.
Lines are written as each test ends, so a run killed at its timeout keeps what it saw.

The tests run in this process, so they can write this file too: broadside reads it as the
tests' claims, never as a verdict. It keeps only tests written in the tests file (by the
file's outline, read without running it), shows them by file and line, and decides which
tests pass on the correct implementation and which buggy versions they catch from the exit
status of runs of exactly the tests that claimed to pass (see src/marking/pytest.rs).

BROADSIDE_MARKING_MODULE names the module under test; BROADSIDE_MARKING_FUNCTIONS the
required functions (comma-separated); BROADSIDE_MARKING_ASSUME is a JSON list of
{"function", "holds"}: an expression over the call's arguments, evaluated in the module under
test, that the handout says callers may assume (a test whose call makes it false breaks it).
"""
import json
import os
import random
import signal
import sys

import pytest

_OUT = os.environ.pop("BROADSIDE_MARKING_OUT", "broadside-marking.jsonl")
# Seconds a test may run before it fails as one that does not finish.
_TEST_SECONDS = 10
_MODULE = os.environ.get("BROADSIDE_MARKING_MODULE", "")
_FUNCTIONS = set(filter(None, os.environ.get("BROADSIDE_MARKING_FUNCTIONS", "").split(",")))
_ASSUME = {}
for _a in json.loads(os.environ.get("BROADSIDE_MARKING_ASSUME", "[]")):
    _ASSUME.setdefault(_a["function"], []).append(_a["holds"])

_out = open(_OUT, "a", encoding="utf-8")
# Random numbers drawn at collection (parametrised cases from `random`) the same in every
# run, so the runs that confirm the tests find the same test ids.
random.seed(1933)
_seen = {}


def _write(record):
    _out.write(json.dumps(record) + "\n")
    _out.flush()


def _module_file():
    module = sys.modules.get(_MODULE)
    if module is None:  # imported from a package of the student's: `from game.battleships import *`
        module = next((m for n, m in list(sys.modules.items()) if n.endswith("." + _MODULE)), None)
    return getattr(module, "__file__", None)


class _Watch:
    """Records the required functions a test calls itself, and the assumptions it breaks."""

    def __init__(self):
        self.calls = set()
        self.broke = []
        self.file = _module_file()

    def __call__(self, frame, event, arg):
        if event != "call":
            return
        if self.file is None:  # imported inside the test
            self.file = _module_file()
            if self.file is None:
                return
        code = frame.f_code
        if code.co_name not in _FUNCTIONS or code.co_filename != self.file:
            return
        caller = frame.f_back
        if caller is None or caller.f_code.co_filename == self.file:
            return
        self.calls.add(code.co_name)
        for holds in _ASSUME.get(code.co_name, ()):
            try:
                # One namespace: a generator in the expression sees the arguments too.
                names = dict(frame.f_globals)
                names.update(frame.f_locals)
                ok = bool(eval(holds, names))
            except Exception:  # noqa: BLE001 - an argument of the wrong shape breaks it too
                ok = False
            if not ok:
                self.broke.append({"function": code.co_name, "holds": holds})


class DidNotFinishError(Exception):
    pass


def _too_long(signum, frame):
    raise DidNotFinishError("the test did not finish within {} s".format(_TEST_SECONDS))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    watch = _Watch()
    # The same random numbers in every run, so a test over random fleets catches a chaff or
    # not the same way each time.
    random.seed(1933)
    old = signal.signal(signal.SIGALRM, _too_long)
    signal.setitimer(signal.ITIMER_REAL, _TEST_SECONDS)
    sys.setprofile(watch)
    try:
        yield
    finally:
        sys.setprofile(None)
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
        _seen[item.nodeid] = watch


def pytest_runtest_logreport(report):
    if report.when == "setup" and report.outcome == "passed":
        return
    if report.when == "teardown" and report.outcome != "failed":
        return
    if report.when == "setup" and report.outcome == "skipped":
        outcome = "skipped"
    elif report.when == "call":
        outcome = report.outcome
    else:
        outcome = "failed"
    watch = _seen.pop(report.nodeid, None)
    path, line = report.location[0], report.location[1]
    _write({
        "test": report.nodeid,
        "file": path,
        "line": (line or 0) + 1,
        "outcome": outcome,
        "calls": sorted(watch.calls) if watch else [],
        "broke": watch.broke if watch else [],
        "message": (str(report.longrepr).splitlines() or [""])[-1][:300]
        if outcome == "failed" else "",
    })


def pytest_collectreport(report):
    if report.failed:
        _write({"collect_error": str(report.longrepr)[-2000:], "file": report.nodeid})
