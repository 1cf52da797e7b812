"""The toy course's driver: broadside's protocol (specs/protocol.md) on one side, the
student's toy.py on the other. broadside runs it as `cmd:python3 driver.py SUBMISSION`,
one process per scenario; it reads requests on stdin and writes one answer per line.
A course writes one like it for an assignment broadside does not bundle."""

import importlib.util
import json
import os
import sys
import traceback

FUNCTIONS = ["new_game", "fire", "remaining"]


class Fault(Exception):
    def __init__(self, kind, message):
        super().__init__(message)
        self.kind = kind
        self.message = message


def load(folder):
    path = os.path.join(folder, "toy.py")
    if not os.path.exists(path):
        raise Fault("setup", "no toy.py in the submission")
    spec = importlib.util.spec_from_file_location("toy", path)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as e:
        raise Fault("setup", "the module does not import: {}: {}".format(type(e).__name__, e))
    return module


class Driver:
    def __init__(self, folder):
        self.folder = folder
        self.module = None
        self.game = None

    def call(self, name, *args):
        function = getattr(self.module, name, None)
        if function is None:
            raise Fault("missing", "toy.py defines no `{}`".format(name))
        try:
            return function(*args)
        except Exception as e:
            raise Fault("exception", "`{}` raised {}: {}".format(name, type(e).__name__, e))

    def handle(self, req):
        op = req.get("op")
        if op == "hello":
            self.module = load(self.folder)
            return {"protocol": 1, "driver": "toy-course/1"}
        if op == "new_game":
            ships = {s["name"]: [tuple(c) for c in s["cells"]] for s in req["setup"]["ships"]}
            self.game = self.call("new_game", ships)
            return {}
        if op == "fire":
            row, col = req["at"]
            outcome = self.call("fire", self.game, row, col)
            if not isinstance(outcome, str):
                raise Fault("type", "`fire` returned {!r}, not a word".format(outcome))
            return {"outcome": outcome}
        if op == "observe":
            names = self.call("remaining", self.game)
            if not isinstance(names, list):
                raise Fault("type", "`remaining` returned {!r}, not a list".format(names))
            state = {"remaining": names, "won": names == []}
            return {"state": {k: state[k] for k in req["keys"]}}
        raise Fault("unsupported", "toy-4x4 has no `{}`".format(op))

    def answer(self, req):
        if req.get("op") == "batch":
            responses = []
            for one in req["requests"]:
                responses.append(self.answer(one))
                if not responses[-1]["ok"]:
                    break
            return {"id": req["id"], "ok": True, "responses": responses}
        try:
            return dict({"id": req["id"], "ok": True}, **self.handle(req))
        except Fault as f:
            return {"id": req["id"], "ok": False,
                    "error": {"kind": f.kind, "message": f.message, "traceback": ""}}
        except Exception as e:
            return {"id": req.get("id"), "ok": False, "error": {
                "kind": "protocol", "message": "driver error: {}".format(e),
                "traceback": traceback.format_exc()}}


def main():
    driver = Driver(sys.argv[1])
    # The student's prints must not reach the protocol's channel.
    out, sys.stdout = sys.stdout, sys.stderr
    for line in sys.stdin:
        out.write(json.dumps(driver.answer(json.loads(line))) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
