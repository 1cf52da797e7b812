"""broadside's launcher for a Python submission's main() (solo-10x10's dialogue scenarios).

Usage: python3 -u broadside_main.py SUBMISSION (a .py file, or a folder with battleships.py).
Imports the student's module as a program would (its name, not "__main__", so a guarded
`main()` call at the bottom does not run twice), hands main() the fleet in BROADSIDE_FLEET
(JSON: [[row, column, horizontal, length], ...]) by replacing randomly_place_all_ships(),
and calls main(). Whatever main() prints, and any traceback, reaches broadside unchanged:
a traceback is exactly what the dialogue checks for (handout 001: "the program must never
crash (i.e., no termination with Python error messages)").

Started with BROADSIDE_START_AHEAD=1, it first reads one line, the game's environment as a
JSON object (BROADSIDE_FLEET among it), before it finds or imports anything: broadside starts
the next game's interpreter while a game plays.

When BROADSIDE_READ_FD names a descriptor, standard input is wrapped so that each read that
would wait (nothing in the pipe) first flushes standard output and error and writes one byte
there: broadside then knows the program asks for a line instead of guessing from the kernel.
The wrapper is a TextIOWrapper like the one Python makes, so input(), sys.stdin.readline(),
iteration and sys.stdin.buffer all behave as before.
"""
import importlib.util
import json
import os
import sys

try:
    import broadside_find
except ImportError:  # run from broadside's source tree: drivers/python_find.py beside it
    import python_find as broadside_find


def announce_reads():
    fd = os.environ.pop("BROADSIDE_READ_FD", None)
    if not fd:
        return
    import array
    import fcntl
    import io
    import termios
    fd = int(fd)

    class Announced(io.RawIOBase):
        def readable(self):
            return True

        def fileno(self):
            return 0

        def readinto(self, b):
            pending = array.array("i", [0])
            try:
                fcntl.ioctl(0, termios.FIONREAD, pending, True)
            except OSError:
                pending[0] = 0
            if pending[0] == 0:
                for stream in (sys.stdout, sys.stderr):
                    try:
                        stream.flush()
                    except Exception:
                        pass
                try:
                    os.write(fd, b"r")
                except OSError:
                    pass
            data = os.read(0, len(b))
            b[:len(data)] = data
            return len(data)

    global _ANNOUNCED
    old = sys.stdin
    # Kept here as Python keeps sys.__stdin__: a program that wraps sys.stdin.buffer anew
    # must not see the buffer closed when the first wrapper is collected.
    _ANNOUNCED = sys.stdin = io.TextIOWrapper(io.BufferedReader(Announced()),
                                              encoding=old.encoding, errors=old.errors)


def find(path):
    file, why = broadside_find.find(
        path, ["battleships.py", "battleship.py"],
        ("main", "is_sunk", "ship_type", "is_open_sea", "ok_to_place_ship_at", "place_ship_at",
         "randomly_place_all_ships", "check_if_hits", "hit", "are_unsunk_ships_left"))
    if file is None:
        sys.stderr.write("broadside: {}\n".format(why))
        sys.exit(3)
    return file


def wait_for_the_game():
    """Started ahead of its game (BROADSIDE_START_AHEAD=1): reads the game's first line, its
    environment as a JSON object, byte by byte so nothing after it is taken from the pipe."""
    if os.environ.pop("BROADSIDE_START_AHEAD", None) != "1":
        return
    line = b""
    while not line.endswith(b"\n"):
        byte = os.read(0, 1)
        if not byte:
            sys.exit(0)  # broadside stopped it before its game
        line += byte
    os.environ.update(json.loads(line.decode("utf-8")))


def main():
    wait_for_the_game()
    announce_reads()
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
    if os.environ.get("BROADSIDE_RUN") == "extension":
        run_extension(file)
        return
    if not hasattr(module, "main"):
        sys.stderr.write("broadside: the module defines no main()\n")
        sys.exit(3)
    module.main()


def run_extension(module_file):
    """solo-10x10's visualisation (BROADSIDE_RUN=extension): runs extension.py, found beside
    the module in any case, as `python3 extension.py` would (handout 001: "The game with
    visualisation must be startable by executing extension.py"), with the module already
    imported and its randomly_place_all_ships() replaced, so the extension plays the fleet
    broadside knows."""
    import runpy
    folder = os.path.dirname(os.path.abspath(module_file))
    names = [n for n in os.listdir(folder) if n.lower() == "extension.py"]
    if not names:
        sys.stderr.write("broadside: no extension.py beside the module\n")
        sys.exit(3)
    path = os.path.join(folder, names[0])
    sys.argv = [path]
    runpy.run_path(path, run_name="__main__")


main()
