"""broadside inside a notebook.

After ``%pip install broadside``, a cell with::

    import broadside
    broadside.check("colab-6x6")

grades the functions the notebook defines now (the cells run so far, as IPython recorded
them) against the assignment's published scenarios and shows the report below the cell: the
score, the first failure first with the handout's words and the board, then every scenario.
The grading is the command line's (``broadside run --assignment ...``), in a child process
under the same containment; nothing runs inside the notebook's own kernel but this module.

Outside a notebook, ``broadside.check("solo-10x10", path="battleships.py")`` grades a file.
"""

import html
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile

__all__ = ["check", "Report"]


def _binary():
    """The ``broadside`` the wheel installed beside this module, else the one on PATH."""
    name = "broadside.exe" if os.name == "nt" else "broadside"
    for scripts in (sysconfig.get_path("scripts"), os.path.dirname(sys.executable)):
        exe = os.path.join(scripts or "", name)
        if os.path.isfile(exe) and os.access(exe, os.X_OK):
            return exe
    found = shutil.which("broadside")
    if found:
        return found
    raise RuntimeError(
        "no `broadside` program was found beside this module or on PATH; "
        "reinstall it with `%pip install broadside`"
    )


_OURS = re.compile(r"^\s*(import broadside\b|from broadside\b|broadside\.|[%!]\s*pip install .*\bbroadside\b)")


def _without_broadside(source):
    """A cell without its lines that install, import or call broadside: the self-check must
    not grade itself, and the child that grades has no broadside to import."""
    return "\n".join(line for line in source.splitlines() if not _OURS.match(line))


def _notebook_cells():
    """The code cells the running notebook has run, as typed (magics included)."""
    try:
        from IPython import get_ipython
    except ImportError:
        get_ipython = None
    shell = get_ipython() if get_ipython else None
    if shell is None:
        raise RuntimeError(
            "broadside.check() grades the running notebook; outside one, give a file: "
            'broadside.check("colab-6x6", path="battleship.py")'
        )
    raw = list(getattr(shell.history_manager, "input_hist_raw", None) or [])
    cells = (_without_broadside(c) for c in raw[1:])
    return [c for c in cells if c.strip()]


def _as_notebook(cells, folder):
    """Writes ``cells`` as a notebook broadside grades the way a notebook is run."""
    nb = {
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {},
        "cells": [
            {
                "cell_type": "code",
                "execution_count": None,
                "metadata": {},
                "outputs": [],
                "source": source,
            }
            for source in cells
        ],
    }
    path = os.path.join(folder, "notebook.ipynb")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(nb, f)
    return path


def check(assignment, path=None, timeout=600):
    """Grades the running notebook (or ``path``) against ``assignment``'s published
    scenarios; returns a :class:`Report`, which a notebook shows as HTML."""
    exe = _binary()
    with tempfile.TemporaryDirectory(prefix="broadside-check-") as folder:
        target = os.path.abspath(path) if path else _as_notebook(_notebook_cells(), folder)
        command = [
            exe, "run", "--assignment", assignment, "--format", "json",
            "--audience", "student", "--color", "never", "--target", "python:" + target,
        ]
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=timeout,
            stdin=subprocess.DEVNULL, cwd=folder,
        )
    try:
        report = json.loads(done.stdout)
    except ValueError:
        raise RuntimeError(
            "broadside could not grade this (exit %d): %s"
            % (done.returncode, done.stderr.strip() or done.stdout.strip())
        ) from None
    return Report(assignment, report)


class Report:
    """A graded report: ``.report`` is broadside's JSON; shown as HTML in a notebook and
    as plain text elsewhere."""

    def __init__(self, assignment, report):
        self.assignment = assignment
        self.report = report
        self.summary = report.get("summary", {})
        self.scenarios = report.get("scenarios", [])
        self.failures = [s for s in self.scenarios if s.get("status") != "passed"]

    @property
    def points(self):
        return self.summary.get("points", 0)

    @property
    def max_points(self):
        return self.summary.get("max_points", 0)

    def _headline(self):
        passed = self.summary.get("passed", 0)
        return "broadside %s: %s / %s points, %d of %d scenarios passed" % (
            self.assignment, _num(self.points), _num(self.max_points),
            passed, len(self.scenarios),
        )

    def _first(self):
        """The first failure's lines: scenario, function, the handout's words, expected
        and got, then its board."""
        if not self.failures:
            return [], []
        s = self.failures[0]
        d = s.get("divergence") or {}
        lines = ["First failure: %s (%s)" % (s.get("title", ""), s.get("published", ""))]
        if d.get("function"):
            lines.append("function: %s" % d["function"])
        if d.get("clause"):
            lines.append("the handout: %s" % d["clause"])
        if d.get("action"):
            lines.append("at: %s" % d["action"])
        if "expected" in d:
            lines.append("expected: %s" % d.get("expected"))
            lines.append("got:      %s" % d.get("actual"))
        fault = s.get("fault") or {}
        if fault.get("message"):
            lines.append("%s: %s" % (fault.get("kind", "fault"), fault["message"]))
        board = list(d.get("board") or [])
        if board and d.get("legend"):
            board.append(d["legend"])
        return lines, board

    def __str__(self):
        out = [self._headline()]
        first, board = self._first()
        out += [""] + first + ["  " + b for b in board] if first else []
        out.append("")
        for s in self.scenarios:
            out.append("%-6s %s (%s/%s)" % (
                "PASS" if s.get("status") == "passed" else s.get("status", "").upper(),
                s.get("title", ""), _num(s.get("points", 0)), _num(s.get("max_points", 0)),
            ))
        return "\n".join(out)

    __repr__ = __str__

    def _repr_html_(self):
        e = html.escape
        ok = not self.failures
        parts = ['<div class="broadside-check">', "<h3 style=\"color:%s\">%s</h3>" % (
            "#1a7f37" if ok else "#b35900", e(self._headline()))]
        first, board = self._first()
        if first:
            parts.append("<p><b>%s</b></p><ul>" % e(first[0]))
            parts += ["<li>%s</li>" % e(line) for line in first[1:]]
            parts.append("</ul>")
            if board:
                parts.append("<pre>%s</pre>" % e("\n".join(board)))
        parts.append("<table><tr><th>scenario</th><th>result</th><th>points</th></tr>")
        for s in self.scenarios:
            parts.append("<tr><td>%s</td><td>%s</td><td>%s / %s</td></tr>" % (
                e(s.get("title", "")), e(s.get("status", "")),
                _num(s.get("points", 0)), _num(s.get("max_points", 0))))
        parts.append("</table></div>")
        return "".join(parts)


def _num(x):
    return ("%g" % x) if isinstance(x, (int, float)) else str(x)
