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

Started with `--serve` before the submission, it is a game server (see `serve_games`): one
interpreter, started once, that forks a process for each game from a state that holds none
of the submission, so every game but the first costs a fork and the student's own import.

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
try:
    import broadside_notebook
except ImportError:  # run from broadside's source tree
    import python_notebook as broadside_notebook


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


def serve_games():
    """The game server (`--serve`), speaking broadside's game-server protocol
    (specs/protocol.md, "Game servers"): one line per game on standard input,
    `game<TAB>IN<TAB>OUT<TAB>ERR` and, when the game has one, `<TAB>` its environment as a JSON object; IN, OUT and ERR
    are FIFOs broadside made for the game. For each game it forks; the fork opens the three
    FIFOs as its descriptors 0, 1 and 2, says `started`, and returns to play the game exactly
    as a launcher of its own would (this interpreter has read nothing through sys.stdin and
    written nothing through sys.stdout or sys.stderr, so those objects, now on the game's
    descriptors, are as fresh as a new interpreter's; nothing of the submission was ever
    imported here). The server waits for the game's process and says `end CODE`. A game
    killed by a signal ends the server by that signal, as it would have ended a process of
    its own. A game that leaves a process running (this server is their subreaper, so they
    stay its children) is told `end CODE taint`, and the server ends: broadside lists what
    was left as the game's leak and starts another server for the next game.

    A game that leaves files in `/dev/shm`, or changes how many System V message queues,
    semaphore sets or shared memory segments there are (asked of the kernel; the server's
    own, as its namespaces are), is told `end CODE spent`, and the server ends: each game starts with
    `/dev/shm` and System V IPC as an interpreter of its own would find them (in a fresh IPC
    namespace, where broadside has namespaces).

    Returns only in a game's process, with the game's environment applied."""
    control_in = os.dup(0)
    control_out = os.dup(1)
    loaded = set(sys.modules)
    ctypes = libc = None
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER: a game's orphans stay here
        libc.prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE 0: no game reaches into this process
    except (OSError, AttributeError):
        pass
    # A game imports what the one-shot launcher had not imported afresh: a submission's own
    # struct.py is its `struct`, not the one ctypes loaded here.
    for name in set(sys.modules) - loaded:
        del sys.modules[name]
    pending = b""
    while True:
        while b"\n" not in pending:
            chunk = os.read(control_in, 4096)
            if not chunk:
                sys.exit(0)
            pending += chunk
        line, pending = pending.split(b"\n", 1)
        fields = line.decode("utf-8", "replace").split("\t")
        if len(fields) < 4 or fields[0] != "game":
            continue
        shm = shared_memory(), system_v_ipc(ctypes, libc)
        pid = os.fork()
        if pid == 0:
            for fd, (path, flags) in enumerate([(fields[1], os.O_RDONLY), (fields[2], os.O_WRONLY),
                                                (fields[3], os.O_WRONLY)]):
                opened = os.open(path, flags)
                os.dup2(opened, fd)
                os.close(opened)
            os.write(control_out, b"started\n")
            os.close(control_in)
            os.close(control_out)
            if len(fields) > 4 and fields[4]:
                os.environ.update(json.loads(fields[4]))
            return
        _, status = os.waitpid(pid, 0)
        if os.WIFSIGNALED(status):
            import signal
            sig = os.WTERMSIG(status)
            try:
                signal.signal(sig, signal.SIG_DFL)
            except (OSError, ValueError):  # SIGKILL and SIGSTOP keep their default
                pass
            os.kill(os.getpid(), sig)
            os._exit(128 + sig)
        tainted = False
        while True:
            try:
                left, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if left == 0:
                tainted = True
                break
        code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1
        spent = (shared_memory(), system_v_ipc(ctypes, libc)) != shm
        ending = " taint" if tainted else " spent" if spent else ""
        os.write(control_out, "end {}{}\n".format(code, ending).encode())
        if ending:
            sys.exit(0)


def shared_memory():
    """What `/dev/shm` holds (names), or None where it cannot be listed."""
    try:
        return sorted(os.listdir("/dev/shm"))
    except OSError:
        return None


def system_v_ipc(ctypes, libc):
    """How many System V message queues (and messages), semaphore sets and shared memory
    segments this process's IPC namespace holds, asked of the kernel (msgctl MSG_INFO,
    semctl SEM_INFO, shmctl SHM_INFO: no /proc needed, which a jail may not have); None
    where it cannot be asked. `ctypes` and `libc` are the server's, loaded before it forgot
    what it imported (a game imports its own)."""
    if libc is None:
        return None
    counts = []
    for call, args in ((libc.msgctl, (0, 12)), (libc.semctl, (0, 0, 19)), (libc.shmctl, (0, 14))):
        info = (ctypes.c_int * 32)()
        counts.append(tuple(info) if call(*args, ctypes.byref(info)) >= 0 else None)
    return counts


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--serve":
        del sys.argv[1]
        serve_games()
    else:
        wait_for_the_game()
    announce_reads()
    file = find(sys.argv[1])
    seed_the_dice(os.path.dirname(os.path.abspath(file)))
    name = os.path.splitext(os.path.basename(file))[0]
    broadside_notebook.install_stubs()
    try:
        ran = None
        if broadside_notebook.is_notebook(file) or broadside_notebook.is_colab_export(file):
            sys.path.insert(0, os.path.dirname(os.path.abspath(file)))
            ran = broadside_notebook.load(file, name)
        if ran is not None:  # a notebook or Colab's export: its cells run one by one
            module = ran[0]
            sys.excepthook = broadside_notebook.excepthook
        else:
            module = broadside_find.load(sys.argv[1], file, importlib.util, sys)
    except ModuleNotFoundError as e:
        missing = broadside_find.missing_package(e, sys.argv[1])
        if missing:  # Python's trace of the student's frames, ending with the finding
            import traceback
            sys.stderr.write("Traceback (most recent call last):\n")
            for f in traceback.extract_tb(e.__traceback__):
                if not os.path.basename(f.filename).startswith("broadside_") \
                        and not f.filename.startswith("<frozen"):
                    sys.stderr.write('  File "{}", line {}, in {}\n    {}\n'.format(
                        os.path.relpath(f.filename, os.path.dirname(os.path.abspath(file))),
                        f.lineno, f.name, (f.line or "").strip()))
            sys.stderr.write("{} {}\n".format(os.path.basename(file), missing))
            sys.exit(1)
        raise
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


def seed_the_dice(folder):
    """Seeds Python's `random` with the game's seed (BROADSIDE_SEED), before the submission in
    `folder` runs: a program that places its ships or fires with `random` plays the same game,
    and gets the same verdicts, every time the scenario is played. The standard `random` is
    imported before the submission's folder is on the path, and every other module its import
    brought in is dropped again, so a student's own `bisect.py` is still theirs; a submission
    with its own `random` module is not seeded. A program that seeds `random` itself, or
    draws from elsewhere (`secrets`, `os.urandom`, numpy), is left as it is."""
    seed = os.environ.get("BROADSIDE_SEED", "")
    try:
        names = os.listdir(folder)
    except OSError:
        names = []
    if not seed.isdigit() or "random.py" in names or "random" in names:
        return
    before = set(sys.modules)
    import random
    random.seed(int(seed))
    for name in set(sys.modules) - before - {"random"}:
        del sys.modules[name]


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
