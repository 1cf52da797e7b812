"""broadside's probe of colab-6x6's optional stretch goals (handout 000, "Stretch goals
(optional)"), written beside the submission as broadside_stretch.py.

Usage: python3 broadside_stretch.py MODULE_FILE (a .py, or a notebook whose code cells run as
"Restart and run all" runs them)

Imports the student's module (what it prints is dropped), looks for each goal by the names a
student would give it, and where one is found, plays four shots on the handout's fleet
(a hit, a miss, the sinking shot, a miss) and checks it:
- accuracy: a function of the game returning the percentage of recorded shots that hit
  (50, or 0.5 read as a fraction);
- shot history: each new shot and its result, as tuples in a list, in order, kept in the game
  or returned by a function of the game;
- limited ammunition and manual placement: found by name only (their interface is the
  student's own design), for the marker to try.
Prints one line: "@@broadside-stretch@@" and a JSON list of {goal, found, ok, detail}.
"""
import ast
import contextlib
import importlib.util
import io
import json
import sys

SHIPS = {"Submarine": [(1, 1), (1, 2)], "Destroyer": [(3, 2), (4, 2), (5, 2)],
         "Cruiser": [(0, 3), (0, 4), (0, 5)]}
SHOTS = [((1, 1), "hit"), ((2, 5), "miss"), ((1, 2), "sunk"), ((5, 5), "miss")]


def names_in(tree):
    out = set()
    for n in ast.walk(tree):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out.add(n.name)
        elif (isinstance(n, ast.Constant) and isinstance(n.value, str)
              and len(n.value) <= 30 and " " not in n.value):
            out.add(n.value)  # a key such as "history"
        elif isinstance(n, ast.Name):
            out.add(n.id)
    return out


def matching(names, words):
    return sorted(n for n in names if any(w in n.lower() for w in words))


def played(module):
    game = module.create_game(6, {k: list(v) for k, v in SHIPS.items()})
    for position, _ in SHOTS:
        module.fire(game, position)
    return game


def main():
    file = sys.argv[1]
    notebook = None
    if file.lower().endswith(".ipynb"):
        # A notebook: its code cells (broadside_notebook.py, written beside this probe).
        import broadside_notebook as notebook
        source = notebook.script_of(file)[0]
    else:
        with open(file, encoding="utf-8", errors="replace") as f:
            source = f.read()
    tree = ast.parse(source, file)
    names = names_in(tree)
    functions = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    with contextlib.redirect_stdout(io.StringIO()):
        if notebook is not None:
            module = notebook.run_notebook(file, "battleship")[0]
        else:
            spec = importlib.util.spec_from_file_location("battleship", file)
            module = importlib.util.module_from_spec(spec)
            try:
                spec.loader.exec_module(module)
            except BaseException:  # noqa: BLE001 - a cell that fails does not hide the goals
                pass
    goals = []

    acc = [n for n in matching(functions, ("accuracy", "percent", "hit_rate", "hitrate"))]
    entry = {"goal": "accuracy", "found": bool(acc), "ok": False, "detail": ""}
    if acc:
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                value = getattr(module, acc[0])(played(module))
            entry["ok"] = value in (50, 50.0, 0.5)
            entry["detail"] = "{}(game) after 2 hits in 4 shots gave {!r}".format(acc[0], value)
        except Exception as e:  # noqa: BLE001
            entry["detail"] = "{}(game) raised {}: {}".format(acc[0], type(e).__name__, e)
    goals.append(entry)

    want = [(p, r) for p, r in SHOTS]
    entry = {"goal": "shot history", "found": False, "ok": False, "detail": ""}
    hist = matching(names, ("history", "log"))
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            game = played(module)
        kept = [(k, v) for k, v in game.items()
                if k not in ("size", "ships", "shots") and isinstance(v, list)]
        for k, v in kept:
            if [tuple(x) if isinstance(x, list) else x for x in v] == want:
                entry.update(found=True, ok=True, detail="game[{!r}] holds each shot and its result, in order".format(k))
                break
        else:
            for name in matching(functions, ("history",)):
                got = getattr(module, name)(game)
                entry.update(found=True, ok=list(got) == want,
                             detail="{}(game) gave {!r}".format(name, got)[:200])
                break
            else:
                if kept or hist:
                    entry.update(found=True, detail="found ({}) but not as a list of (position, result) tuples in shot order".format(", ".join(str(k) for k, _ in kept) or ", ".join(hist)))
    except Exception as e:  # noqa: BLE001
        entry["detail"] = "playing four shots raised {}: {}".format(type(e).__name__, e)
    goals.append(entry)

    for goal, words in (("limited ammunition", ("ammo", "ammunition", "shots_left", "max_shots")),
                        ("manual placement", ("place",))):
        found = matching(names, words)
        goals.append({"goal": goal, "found": bool(found), "ok": None,
                      "detail": ", ".join(found[:5])})
    print("@@broadside-stretch@@" + json.dumps(goals))


main()
