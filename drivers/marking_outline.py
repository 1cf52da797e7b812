"""broadside's outline of a student's tests file, read without running it (written beside the
copy as broadside_outline.py): Python's own parser finds where each test is written, so a
marking sheet names a test by its file and line, never by a name or message the test chose
when it ran.

Usage: python3 broadside_outline.py TESTS_FILE OUT_FILE STYLE

STYLE is `pytest` (test functions, and the test methods of classes) or `script` (also each
top-level statement that holds an assert: a check; and each top-level statement that calls a
required function and prints without an assert: it cannot fail). BROADSIDE_MARKING_FUNCTIONS
names the required functions. OUT_FILE gets one JSON object:
  {"tests": [{"first": decorator or def line, "line": def line, "name": the function's name,
              "mentions": required functions named in it, or in the file's own helpers it
              names}],
   "checks": [{"line": n, "mentions": [...]}], "print_only": [n, ...]}
or {"error": "SyntaxError"} when the file does not parse. A notebook (`.ipynb`) is outlined as
its code cells joined (`script_of` in broadside_notebook.py), and "cells" says where each
starts: [[line, cell number, the cell's first line], ...].
"""
import ast
import json
import os
import sys

FUNCTIONS = set(filter(None, os.environ.get("BROADSIDE_MARKING_FUNCTIONS", "").split(",")))


def names_in(node):
    """Every name a node uses: plain names and attributes (`battleships.hit`)."""
    found = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Name):
            found.add(n.id)
        elif isinstance(n, ast.Attribute):
            found.add(n.attr)
    return found


def has_assert(node):
    return any(isinstance(n, ast.Assert) for n in ast.walk(node))


def prints(node):
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "print"
               for n in ast.walk(node))


def main():
    tests_file, out_file, style = sys.argv[1], sys.argv[2], sys.argv[3]
    cells = []
    if tests_file.lower().endswith(".ipynb"):
        # A notebook's code cells, as one script (broadside_notebook.py beside this file;
        # the notebook is read, never run).
        import importlib.util
        spec = importlib.util.spec_from_file_location(
            "broadside_notebook", os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                               "broadside_notebook.py"))
        notebook = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(notebook)
        try:
            source, cells = notebook.script_of(tests_file)
        except (ValueError, OSError, AttributeError, TypeError) as e:
            with open(out_file, "w", encoding="utf-8") as f:
                json.dump({"error": type(e).__name__}, f)
            return
    else:
        with open(tests_file, "rb") as f:
            source = f.read()
    try:
        tree = ast.parse(source, tests_file)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as e:
        with open(out_file, "w", encoding="utf-8") as f:
            json.dump({"error": type(e).__name__}, f)
        return
    # The file's own helpers, by name: functions, classes and their methods, names bound at
    # top level (a lambda, a functools.partial) and functions imported under another name. A
    # test that calls a helper that calls `hit` tests `hit` too.
    helpers = {}

    def note_helpers(body):
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                if node.name not in FUNCTIONS:
                    helpers.setdefault(node.name, set()).update(names_in(node))
                if isinstance(node, ast.ClassDef):
                    note_helpers(node.body)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in targets:
                    if isinstance(t, ast.Name) and t.id not in FUNCTIONS:
                        helpers.setdefault(t.id, set()).update(names_in(node.value))
            elif isinstance(node, ast.ImportFrom):
                for alias in node.names:
                    if alias.name in FUNCTIONS and alias.asname:
                        helpers.setdefault(alias.asname, set()).add(alias.name)
            elif isinstance(node, (ast.If, ast.Try)):
                for part in ("body", "orelse", "finalbody"):
                    note_helpers(getattr(node, part, []))
                for handler in getattr(node, "handlers", []):
                    note_helpers(handler.body)

    note_helpers(tree.body)

    def mentions(node):
        seen, todo, found = set(), list(names_in(node)), set()
        while todo:
            name = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            if name in FUNCTIONS:
                found.add(name)
            todo.extend(helpers.get(name, ()))
        return sorted(found)

    tests, checks, print_only = [], [], []

    def test_function(node):
        first = min([node.lineno] + [d.lineno for d in node.decorator_list])
        tests.append({"first": first, "line": node.lineno, "name": node.name,
                      "mentions": mentions(node)})

    def find_tests(body, top):
        """Test functions where pytest finds them: at top level (also under an `if` or a
        `try`), and the test methods of classes, nested ones included."""
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if node.name.startswith("test") and node.name not in FUNCTIONS:
                    test_function(node)
            elif isinstance(node, ast.ClassDef):
                # pytest collects `Test*` classes and unittest.TestCase subclasses of any
                # name: every class's test methods are where tests may be written.
                if style == "pytest":
                    find_tests(node.body, False)
            elif isinstance(node, (ast.If, ast.Try)) and top and style == "pytest":
                for part in ("body", "orelse", "finalbody"):
                    find_tests(getattr(node, part, []), True)
                for handler in getattr(node, "handlers", []):
                    find_tests(handler.body, True)
            elif style == "script" and top:
                if has_assert(node):
                    checks.append({"line": node.lineno, "mentions": mentions(node)})
                elif prints(node) and mentions(node):
                    print_only.append(node.lineno)

    find_tests(tree.body, True)
    with open(out_file, "w", encoding="utf-8") as f:
        json.dump({"tests": tests, "checks": checks, "print_only": print_only,
                   "cells": cells}, f)


main()
