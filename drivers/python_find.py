"""Finds the student's module in a Python submission (used by broadside's driver and by its
launcher of main(); written beside them as broadside_find.py).

A submission is a .py file, or a folder. In a folder the module is, in order:
1. a file with the handout's name, in any case (`Battleships.py` for `battleships.py`), at
   the top or one folder down (a zip that unpacks into a folder of its own);
2. the only .py file there, at the top or one folder down;
3. of several, the one that defines the most of the handout's functions (`def fire(`).
A notebook (`.ipynb`) is the module when no .py has the handout's name (see `_notebook`).
Test files (`test_*.py`, `*_test.py`, `conftest.py`), `setup.py` and broadside's own files are
never the module. The module's folder goes first on the import path, so helper modules beside
it import as they do on the student's machine.
"""
import os
import re

SKIP = {"__pycache__", "__MACOSX", "venv", ".venv", "env", "node_modules"}


def _is_module(name):
    return (name.endswith(".py") and not name.startswith(("test_", "broadside_", "."))
            and not name.endswith("_test.py") and name not in ("setup.py", "conftest.py"))


def candidates(path):
    """The submission's .py files, top level and one folder down, as relative paths."""
    out = []
    for entry in sorted(os.listdir(path)):
        full = os.path.join(path, entry)
        if os.path.isdir(full):
            if entry in SKIP or entry.startswith("."):
                continue
            try:
                inner = sorted(os.listdir(full))
            except OSError:
                continue
            out.extend(os.path.join(entry, n) for n in inner
                       if _is_module(n) and os.path.isfile(os.path.join(full, n)))
        elif _is_module(entry):
            out.append(entry)
    return out


def _defines(file, functions):
    try:
        with open(file, encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError:
        return 0
    if file.lower().endswith(".ipynb"):
        text = _notebook_text(text)
    return sum(1 for fn in functions
               if re.search(r"^\s*def\s+" + re.escape(fn) + r"\s*\(", text, re.M))


def _notebook_text(text):
    """A notebook's code cells as one text (for `_defines`); '' when it is not JSON."""
    import json
    try:
        cells = json.loads(text).get("cells", [])
        return "\n".join("".join(c.get("source", "")) for c in cells
                         if isinstance(c, dict) and c.get("cell_type") == "code")
    except (ValueError, AttributeError, TypeError):
        return ""


def notebooks(path):
    """The submission's notebooks (`*.ipynb`, checkpoints left out), top level and one folder
    down, as relative paths."""
    out = []
    for entry in sorted(os.listdir(path)):
        full = os.path.join(path, entry)
        if os.path.isdir(full) and entry not in SKIP and not entry.startswith("."):
            try:
                inner = sorted(os.listdir(full))
            except OSError:
                continue
            out.extend(os.path.join(entry, n) for n in inner if n.lower().endswith(".ipynb")
                       and not n.startswith(".") and os.path.isfile(os.path.join(full, n)))
        elif entry.lower().endswith(".ipynb") and not entry.startswith("."):
            out.append(entry)
    return out


def find(path, preferred, functions):
    """(the module's path, why it was chosen), or (None, what was looked for and found).
    Notebooks count after .py files: a folder with the handout's .py is graded on it, one
    with only a notebook (and perhaps helper modules) on the notebook (see `_notebook`)."""
    if os.path.isfile(path):
        return path, "the file given"
    chosen = _notebook(path, preferred, functions)
    if chosen is not None:
        return chosen
    names = candidates(path)
    # Top level first, then by name.
    names.sort(key=lambda n: (os.sep in n, n.lower()))
    for want in preferred:
        hits = [n for n in names if os.path.basename(n).lower() == want.lower()]
        if hits:
            return os.path.join(path, hits[0]), "{}: the handout's file name".format(hits[0])
    if len(names) == 1:
        return os.path.join(path, names[0]), "{}: the only .py file".format(names[0])
    looked = "a module named {} (any case), or one .py file, in the submission or one folder down".format(
        " or ".join(preferred))
    if not names:
        return None, "no Python module found: looked for {}; found no .py file (test files are not graded)".format(looked)
    scored = [(_defines(os.path.join(path, n), functions), n) for n in names]
    best = max(k for k, _ in scored)
    if best == 0:
        return None, "no Python module found: looked for {}, or one defining the handout's functions ({}); none of {} defines any".format(
            looked, ", ".join(functions), ", ".join(names))
    chosen = next(n for k, n in scored if k == best)
    return os.path.join(path, chosen), "{}: of {}, the one that defines the most of the handout's functions ({} of {})".format(
        chosen, ", ".join(names), best, len(functions))


def _notebook(path, preferred, functions):
    """A folder's notebook, when no .py has the handout's name: the one named as the handout
    names the module (`Battleship.ipynb`), else the only one, else the one defining the most
    of the handout's functions. None when there is none, or a .py has the handout's name."""
    nbs = notebooks(path)
    if not nbs:
        return None
    stems = {os.path.splitext(w)[0].lower() for w in preferred}
    if any(os.path.splitext(os.path.basename(n))[0].lower() in stems for n in candidates(path)):
        return None
    nbs.sort(key=lambda n: (os.sep in n, n.lower()))
    named = [n for n in nbs if os.path.splitext(os.path.basename(n))[0].lower() in stems]
    if named:
        return os.path.join(path, named[0]), "{}: the notebook with the handout's name".format(named[0])
    if len(nbs) == 1:
        return os.path.join(path, nbs[0]), "{}: the only notebook".format(nbs[0])
    scored = [(_defines(os.path.join(path, n), functions), n) for n in nbs]
    best = max(k for k, _ in scored)
    chosen = next(n for k, n in scored if k == best)
    return os.path.join(path, chosen), "{}: of the notebooks {}, the one that defines the most of the handout's functions ({} of {})".format(
        chosen, ", ".join(nbs), best, len(functions))
