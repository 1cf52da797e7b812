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
or {"error": "SyntaxError"} when the file does not parse.
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
    with open(tests_file, "rb") as f:
        source = f.read()
    try:
        tree = ast.parse(source, tests_file)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as e:
        with open(out_file, "w", encoding="utf-8") as f:
            json.dump({"error": type(e).__name__}, f)
        return
    # The file's own helpers (functions and classes it defines at top level), by name: a test
    # that calls a helper that calls `hit` tests `hit` too.
    helpers = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if node.name not in FUNCTIONS:
                helpers[node.name] = names_in(node)

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

    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if node.name.startswith("test") and node.name not in FUNCTIONS:
                test_function(node)
        elif isinstance(node, ast.ClassDef):
            # pytest collects `Test*` classes and unittest.TestCase subclasses of any name:
            # every class's test methods are where tests may be written.
            if style == "pytest":
                for item in node.body:
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                            and item.name.startswith("test"):
                        test_function(item)
        elif style == "script":
            if has_assert(node):
                checks.append({"line": node.lineno, "mentions": mentions(node)})
            elif prints(node) and mentions(node):
                print_only.append(node.lineno)
    with open(out_file, "w", encoding="utf-8") as f:
        json.dump({"tests": tests, "checks": checks, "print_only": print_only}, f)


main()
