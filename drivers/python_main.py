"""broadside's launcher for a Python submission's main() (solo-10x10's dialogue scenarios).

Usage: python3 -u broadside_main.py SUBMISSION (a .py file, or a folder with battleships.py).
Imports the student's module as a program would (its name, not "__main__", so a guarded
`main()` call at the bottom does not run twice), hands main() the fleet in BROADSIDE_FLEET
(JSON: [[row, column, horizontal, length], ...]) by replacing randomly_place_all_ships(),
and calls main(). Whatever main() prints, and any traceback, reaches broadside unchanged:
a traceback is exactly what the dialogue checks for (handout 001: "the program must never
crash (i.e., no termination with Python error messages)").
"""
import importlib.util
import json
import os
import sys

try:
    import broadside_find
except ImportError:  # run from broadside's source tree: drivers/python_find.py beside it
    import python_find as broadside_find


def find(path):
    file, why = broadside_find.find(
        path, ["battleships.py", "battleship.py"],
        ("main", "is_sunk", "ship_type", "is_open_sea", "ok_to_place_ship_at", "place_ship_at",
         "randomly_place_all_ships", "check_if_hits", "hit", "are_unsunk_ships_left"))
    if file is None:
        sys.stderr.write("broadside: {}\n".format(why))
        sys.exit(3)
    return file


def main():
    file = find(sys.argv[1])
    sys.path.insert(0, os.path.dirname(os.path.abspath(file)))
    name = os.path.splitext(os.path.basename(file))[0]
    spec = importlib.util.spec_from_file_location(name, file)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    fleet = os.environ.get("BROADSIDE_FLEET")
    if fleet:
        ships = [(r, c, bool(h), n, set()) for r, c, h, n in json.loads(fleet)]
        module.randomly_place_all_ships = lambda: list(ships)
    if not hasattr(module, "main"):
        sys.stderr.write("broadside: the module defines no main()\n")
        sys.exit(3)
    module.main()


main()
