"""Finds the student's module in a Python submission (used by broadside's driver and by its
launcher of main(); written beside them as broadside_find.py).

A submission is a .py file, or a folder. In a folder the module is, in order:
0. the module the student's own tests import (`from game.battleships import *` in a
   `test_*.py`), at any depth: a TA runs the student's tests and grades what they test
   (solo-10x10: "test_battleships.py contains unit tests for all testable functions from the
   set of required functions"), so an old copy left at the top (`battleships.py` beside
   `game/battleships.py`) is not graded, and the note names it;
1. a file with the handout's name, in any case (`Battleships.py` for `battleships.py`), at
   the top or one folder down (a zip that unpacks into a folder of its own); the top first;
2. the only .py file there, at the top or one folder down;
3. of several, the one that defines the most of the handout's functions (`def fire(`).
A notebook (`.ipynb`) is the module when no .py has the handout's name (see `_notebook`).
Test files (`test_*.py`, `*_test.py`, `conftest.py`), `setup.py` and broadside's own files are
never the module. The module's folder goes first on the import path, then the folder its
package hangs from and the submission's root (see `load`), so helper modules beside it, a
package's relative imports (`from .board import draw`) and absolute ones from the root
(`from game.board import draw`) import as they do on the student's machine.
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
    tested = tested_module(path, preferred)
    found, why = _by_name(path, preferred, functions)
    if tested is None or (found is not None and os.path.samefile(found, tested[0])):
        return found, why
    if found is not None:
        return tested[0], "{}; not {}".format(tested[1], os.path.relpath(found, path))
    return tested


def _by_name(path, preferred, functions):
    """Rules 1-3 of the module's docstring; a notebook when no .py has the handout's name."""
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


_IMPORT = re.compile(r"^\s*(?:from\s+([\w.]+)\s+import\b|import\s+([\w.]+))", re.M)


def _test_files(path, depth=3):
    """The submission's test files (`test_*.py`, `*_test.py`), up to `depth` folders down."""
    out = []
    for folder, dirs, files in os.walk(path):
        rel = os.path.relpath(folder, path)
        level = 0 if rel == "." else rel.count(os.sep) + 1
        dirs[:] = sorted(d for d in dirs if d not in SKIP and not d.startswith(".")
                         and level < depth)
        out.extend(os.path.join(folder, f) for f in sorted(files)
                   if f.endswith(".py") and (f.startswith("test_") or f.endswith("_test.py")))
    return out


def tested_module(path, preferred):
    """(the module's path, why): see `_tested`."""
    found = _tested(path, preferred)
    return found and found[:2]


def _tested(path, preferred):
    """(the module's path, why, its dotted name, the folder that name resolves from) when the student's own tests import a module with the
    handout's name (`battleships`, or `game.battleships`, any case of the last part) that is
    a file of the submission, looked up from the tests' folder, then from the submission's
    root (as pytest and `python -m pytest` put them on the path); else None."""
    stems = {os.path.splitext(p)[0].lower() for p in preferred}
    for test in _test_files(path):
        try:
            with open(test, encoding="utf-8", errors="replace") as f:
                text = f.read()
        except OSError:
            continue
        for m in _IMPORT.finditer(text):
            dotted = m.group(1) or m.group(2)
            if dotted.split(".")[-1].lower() not in stems:
                continue
            for base in (os.path.dirname(test), path):
                file = os.path.join(base, *dotted.split(".")) + ".py"
                if os.path.isfile(file):
                    rel = os.path.relpath(file, path)
                    return (file, "{}: the module the student's own tests import ({} in {})".format(
                        rel, m.group(0).strip(), os.path.relpath(test, path)), dotted, base)
    return None


def import_name(root, file):
    """(the module's dotted name, the folder that name is imported from). A module in a
    package (its folder holds `__init__.py`) is `package.module`, imported from the folder the
    package hangs from, so its relative imports work; a module the student's tests import as
    `game.battleships` is that name, from the folder it resolves from (a folder without
    `__init__.py` is a namespace package: Python 3 imports it the same)."""
    file = os.path.abspath(file)
    root = os.path.abspath(root) if os.path.isdir(root) else os.path.dirname(os.path.abspath(root))
    stem = os.path.splitext(os.path.basename(file))[0]
    parts = [stem]
    folder = os.path.dirname(file)
    # A folder whose name Python cannot import (`Battleship-main`) is no package, whatever
    # it holds: the module is imported from inside it, as before.
    while (os.path.isfile(os.path.join(folder, "__init__.py"))
           and os.path.basename(folder).isidentifier()
           and folder != root and folder.startswith(root + os.sep)):
        parts.insert(0, os.path.basename(folder))
        folder = os.path.dirname(folder)
    if len(parts) == 1 and folder != root and folder.startswith(root + os.sep):
        # A namespace package the tests name (no __init__.py): imported from the root.
        found = _tested(root, [os.path.basename(file)])
        if (found is not None and os.path.abspath(found[0]) == file and "." in found[2]
                and all(p.isidentifier() for p in found[2].split("."))):
            return found[2], os.path.abspath(found[3])
    return ".".join(parts), folder


def load(root, file, importlib_util, sys_module):
    """Imports the student's module at `file` from the submission at `root` and returns it.
    The import path gets the module's folder first, then the folder its package hangs from,
    then the submission's root; a module in a package imports its package first (its
    `__init__.py` runs, as it does when the student's tests import it). Raises what the
    student's code raises."""
    name, base = import_name(root, file)
    top = os.path.abspath(root) if os.path.isdir(root) else os.path.dirname(os.path.abspath(root))
    for folder in reversed([os.path.dirname(os.path.abspath(file)), base, top]):
        if folder in sys_module.path:
            sys_module.path.remove(folder)
        sys_module.path.insert(0, folder)
    if "." in name:
        import importlib
        return importlib.import_module(name)
    spec = importlib_util.spec_from_file_location(name, file)
    module = importlib_util.module_from_spec(spec)
    sys_module.modules[name] = module
    spec.loader.exec_module(module)
    return module


def missing_package(e, root):
    """The finding for a `ModuleNotFoundError` naming a package that is not the submission's
    own (`numpy`), or None. The course's allowed packages are BROADSIDE_PYTHON_PACKAGES
    (comma-separated, from suite.toml's `python_packages`); broadside provides those, so one
    missing here is one the course does not allow."""
    if not isinstance(e, ModuleNotFoundError) or not getattr(e, "name", None):
        return None
    top = e.name.split(".")[0]
    base = os.path.abspath(root) if os.path.isdir(root) else os.path.dirname(os.path.abspath(root))
    for folder, dirs, files in os.walk(base):
        dirs[:] = [d for d in dirs if d not in SKIP and not d.startswith(".")]
        if top + ".py" in files or top in dirs:
            return None  # the student's own module, misnamed or misplaced: not a package
    allowed = [p for p in os.environ.get("BROADSIDE_PYTHON_PACKAGES", "").split(",") if p]
    said = ("suite.toml's python_packages lists only {}".format(", ".join(allowed)) if allowed
            else "suite.toml's python_packages lists none")
    if top.lower() in {a.lower().replace("-", "_") for a in allowed}:
        return ("imports `{}`, a package the course allows ({}), but the grader's copy of it "
                "did not import: {}".format(top, said, e))
    # Short: the text report shows a line of a trace up to 160 characters.
    return "imports `{}`, a package the course does not allow ({})".format(top, said)


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
