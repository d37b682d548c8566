"""The heap on the emulated Pico, both ways a board is made: the firmware image (make firmware,
modules frozen into flash) and the stock MicroPython image with deploy's files (.mpy in /lib).

    .venv/bin/python bench/image_heap.py [human|cpu ...] [--ways image,deploy]

Each figure is `diag memory` over the serial line of `mancala-board sim --target rp2040
--profile quad` (with `--image build/firmware/mancala-board-<version>.uf2` for the image):

- human: free after boot, then a whole Kalah game on quad, every move a `press` of a seeded
  random legal pit 4 s after the last (so each sowing animation runs to its end); min_free
  at the end (the low-water mark since boot);
- cpu: a 4-player Basic game on quad, seats 1-3 the level-5 CPU, seat 0 pressing a seeded
  random legal pit over serial, animations off; min_free at the end, and the CPU moves'
  longest think_ms.

The CPU's search is bounded by emulated time, and the two ways run the same code at different
speeds (bytecode from flash or from RAM), so their CPU games may differ in length. A CPU game
takes about half an hour of host time.
"""
import argparse
import json
import os
import queue
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "host_tools"))

from mancala_host.flashing import imagebuild  # noqa: E402


class Board:
    """The emulated Pico over --stdio: requests answered by id, events kept."""

    def __init__(self, way, flash, profile="quad"):
        argv = [sys.executable, "-m", "mancala_host.commands.cli", "sim", "--target", "rp2040", "--stdio",
                "--flash", flash, "--profile", profile]
        if way == "image":
            argv += ["--image", imagebuild.image_path(ROOT, imagebuild.project_version(ROOT))]
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, cwd=ROOT, bufsize=0)
        self.lines = queue.Queue()
        self.events = []
        self.id = 0
        threading.Thread(target=self._read, daemon=True).start()
        self.event("boot")

    def _read(self):
        for raw in iter(self.proc.stdout.readline, b""):
            self.lines.put(raw)
        self.lines.put(None)

    def _next(self):
        raw = self.lines.get(timeout=3600)
        if raw is None:
            raise SystemExit("the emulated Pico ended")
        return json.loads(raw)

    def event(self, name):
        while self.events:
            msg = self.events.pop(0)
            if msg.get("event") == name:
                return msg
        while True:
            msg = self._next()
            if msg.get("event") == name:
                return msg

    def ok(self, cmd, **args):
        self.id += 1
        self.proc.stdin.write(json.dumps(dict(args, id=self.id, cmd=cmd)).encode() + b"\n")
        while True:
            msg = self._next()
            if msg.get("id") == self.id:
                if not msg.get("ok"):
                    raise SystemExit("the board refused %s: %s" % (cmd, msg))
                return msg
            if "event" in msg:
                self.events.append(msg)

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


def _legal(state, seat):
    return [i + 1 for i, n in enumerate(state["pits"][seat]) if n]


def human_game(b, seed=7):
    rng = random.Random(seed)
    booted = b.ok("diag", action="memory")
    state = b.ok("new_game", rules={"variant": "kalah"}, first=0)["state"]
    moves = 0
    while not state["over"]:
        time.sleep(4)
        state = b.ok("press", pit=rng.choice(_legal(state, state["turn"])))["state"]
        moves += 1
    time.sleep(4)
    return {"after boot": booted["free"], "min_free": b.ok("diag", action="memory")["min_free"],
            "moves": moves}


def cpu_game(b, seed=9):
    rng = random.Random(seed)
    cpu = {"kind": "cpu", "level": 5}
    b.ok("set_config", config={"seats": [{"kind": "human"}, cpu, cpu, cpu], "animation_ms": 0})
    state = b.ok("new_game", rules={"variant": "basic", "players": 4}, first=0)["state"]
    moves, thinks = 0, []
    while not state["over"]:
        if state["turn"] == 0:
            b.events = []
            state = b.ok("press", pit=rng.choice(_legal(state, 0)))["state"]
        else:
            move = b.event("move")
            if move.get("think_ms") is not None:
                thinks.append(move["think_ms"])
            state = move["state"]
        moves += 1
    return {"min_free": b.ok("diag", action="memory")["min_free"], "moves": moves,
            "longest think_ms": max(thinks) if thinks else None}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("games", nargs="*", default=["human", "cpu"], choices=["human", "cpu"])
    ap.add_argument("--ways", default="image,deploy", help="image, deploy or both (default)")
    args = ap.parse_args(argv)
    for way in args.ways.split(","):
        for game in args.games:
            flash = tempfile.mkdtemp(prefix="mancala-heap-")
            b = Board(way, flash)
            try:
                figures = (human_game if game == "human" else cpu_game)(b)
            finally:
                b.close()
                shutil.rmtree(flash, ignore_errors=True)
            print("%-6s %-5s %s" % (way, game, json.dumps(figures)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
