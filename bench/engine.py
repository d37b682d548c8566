"""Engine speed: every variant, in moves per second.

    .venv/bin/python bench/engine.py [--quick]

Three paths: random playouts through the public one (legal_moves() + play(), with move
records) and through Game.push() (the engine's lean path, which still copies the board per
move), and the CPU's search loop (negamax.run) making every move of every line 6 plies deep
from the start, as the perft test counts them (tests/mp/perft.py): its own inlined sowing, a
preallocated snapshot per ply and a static evaluation per leaf. Each runs under CPython and
under the MicroPython unix port; the RP2040 figure scales the MicroPython one by
bench/calibration.py's add_test, timed in the same MicroPython run (7984 ms on a Pico at
125 MHz, MicroPython v1.23). Every figure is the median of several runs.
"""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIB = os.path.join(ROOT, "firmware", "lib")
TESTS_MP = os.path.join(ROOT, "tests", "mp")  # perft.py
MICROPYTHON = os.path.join(ROOT, ".venv", "bin", "micropython")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import calibration  # noqa: E402

PICO_CAL_MS = calibration.PICO_MS
TARGET = 1500  # Kalah(6,4) random playouts, moves per second on the RP2040

# Runs unchanged under CPython and MicroPython; prints "RATE <variant> <path> <moves/s>".
PLAYOUT_SCRIPT = r"""
import sys
from mpcompat import ticks_ms, ticks_diff
from mancala import Game, Rules
from mancala.cpu import Rng
import perft

VARIANTS = [("kalah(6,4)", {"variant": "kalah"}),
            ("kalah-empty-capture", {"preset": "kalah-empty-capture"}),
            ("basic-2p-6", {"variant": "basic"}),
            ("basic-2p-7", {"variant": "basic", "pits": 7}),
            ("basic-3p-6", {"variant": "basic", "players": 3}),
            ("basic-4p-4", {"variant": "basic", "players": 4, "pits": 4}),
            ("basic-4p-6", {"variant": "basic", "players": 4})]

# calibrate() is bench/calibration.py's (the published add_test), put before this script.
def cal():
    return calibrate() if ticks_us is not None else 0

def playouts(rules, rng, ms, lean_push):
    # Random playouts through the public play() or the lean push(), for ms milliseconds.
    moves = 0
    t = ticks_ms()
    while ticks_diff(ticks_ms(), t) < ms:
        g = Game(rules)
        step = g.push if lean_push else g.play
        while not g.over:
            legal = g.legal_moves()
            step(legal[rng.below(len(legal))])
            moves += 1
    return moves * 1000 // ticks_diff(ticks_ms(), t)

def public(rules, rng, ms):
    return playouts(rules, rng, ms, False)

def push(rules, rng, ms):
    return playouts(rules, rng, ms, True)

def search(rules, rng, ms):
    # Every line 6 plies deep, again until ms milliseconds have passed.
    moves = 0
    t = ticks_ms()
    while ticks_diff(ticks_ms(), t) < ms:
        moves += perft.search_nodes(Game(rules), 6)
    return moves * 1000 // ticks_diff(ticks_ms(), t)

runs = int(sys.argv[-1]) if sys.argv[-1].isdigit() else 5
ms = 300
print("CAL", min(cal() for _ in range(3)))
for name, d in VARIANTS:
    rules = Rules.from_dict(d)
    for label, fn in (("public", public), ("push", push), ("search", search)):
        rates = sorted(fn(rules, Rng(11), ms) for _ in range(runs))
        print("RATE", name, label, rates[len(rates) // 2])
print("CAL", min(cal() for _ in range(3)))
"""


def micropython_run(script, args=(), heap="2M"):
    """Runs script text under the MicroPython unix port with firmware/lib on the path, after
    bench/calibration.py's text (so the script can call calibrate())."""
    script = calibration.source() + script
    env = dict(os.environ, MICROPYPATH=os.pathsep.join([LIB, TESTS_MP]))
    proc = subprocess.run([MICROPYTHON, "-X", "heapsize=" + heap, "-c", script] + list(args),
                          env=env, capture_output=True, text=True, timeout=3600)
    if proc.returncode:
        raise SystemExit("MicroPython failed:\n" + proc.stdout[-2000:] + proc.stderr[-2000:])
    return proc.stdout


def cpython_run(script, args=()):
    script = calibration.source() + script
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([LIB, TESTS_MP]))
    proc = subprocess.run([sys.executable, "-c", script] + list(args), env=env,
                          capture_output=True, text=True, timeout=3600)
    if proc.returncode:
        raise SystemExit("CPython failed:\n" + proc.stderr[-2000:])
    return proc.stdout


def _parse(out):
    rates = {}
    cals = []
    for line in out.splitlines():
        f = line.split()
        if f and f[0] == "RATE":
            rates[(f[1], f[2])] = int(f[3])
        elif f and f[0] == "CAL":
            cals.append(float(f[1]))
    return rates, cals


def main(argv):
    runs = "3" if "--quick" in argv else "5"
    print("random playouts: %s runs of 300 ms per figure, medians" % runs, flush=True)
    cp, _ = _parse(cpython_run(PLAYOUT_SCRIPT, [runs]))
    mp, cals = _parse(micropython_run(PLAYOUT_SCRIPT, [runs]))
    # The calibration loop is timed before and after; the mean stands for the whole run.
    cal = sum(cals) / len(cals)
    scale = cal / PICO_CAL_MS
    print("calibration (add_test) under MicroPython: %s ms (Pico: %d ms) -> RP2040 = unix / %.0f"
          % (["%.0f" % c for c in cals], PICO_CAL_MS, 1 / scale))
    print("%-20s %-7s %12s %14s %14s" % ("variant", "path", "CPython", "MicroPython",
                                         "RP2040 est."))
    verdict = {}
    for (name, path) in sorted(mp):
        est = mp[(name, path)] * scale
        print("%-20s %-7s %12d %14d %14d" % (name, path, cp.get((name, path), 0),
                                             mp[(name, path)], est))
        if name == "kalah(6,4)":
            verdict[path] = est
    print("\n== engine summary: Kalah(6,4) moves per second on the RP2040 estimate "
          "(target >= %d moves/s)" % TARGET)
    for path in ("public", "push", "search"):
        print("  %-7s %6d moves/s  %s" % (path, verdict[path],
                                          "meets" if verdict[path] >= TARGET else "MISSES"))


if __name__ == "__main__":
    main(sys.argv[1:])
