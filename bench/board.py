"""Board firmware benchmarks, as RP2040 estimates (DESIGN.md "Budgets").

    .venv/bin/python bench/board.py [--runs N] [--no-heap]

1. Touch to first LED change on the largest profile (quad): under the MicroPython unix port,
   in one process with the sim fakes, a finger goes onto an MPR121 model; the time is measured
   from the pad poll that sees it, through the touch layer, the app, the engine and the
   display, to the first LED transfer (the `show` of a chain). Then the fixed device delays
   are added: up to one pad-poll interval (10 ms) and the MPR121's response (~5 ms as the
   driver configures it).
2. Animation frame time on quad: the time of one display tick that repaints while a sowing
   animation runs, without the time spent inside the fake LED output (on the Pico the PIO and
   DMA send the frame while the CPU goes on).
3. The smallest heap (-X heapsize) with which the firmware boots, plays a whole game, takes
   a move back and starts the next, for duo and quad, found by bisection (4 KB steps) over
   real runs of firmware/main.py with lib/ compiled to .mpy as `deploy` puts it on a Pico
   (tests/boardsim.py; the sim fakes share that heap, a Pico's machine and rp2 do not).

Times are scaled to the RP2040 with DESIGN.md's calibration: a 10^6-pass `for` loop with one
integer add takes about 7984 ms on a Pico at 125 MHz; the same loop is timed in the same run
here, and every time is multiplied by 7984 / that. Medians over --runs runs. Heap sizes on
the 64-bit unix port overstate the RP2040's by up to 2x.
"""
import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))
sys.path.insert(0, os.path.join(ROOT, "firmware", "lib"))

from boardsim import Board, BoardGone, MICROPYTHON, PROFILES, micropypath  # noqa: E402

PICO_LOOP_MS = 7984.0
POLL_MS = 10
MPR121_MS = 5
TOUCH_BUDGET_MS = 30
FRAME_BUDGET_MS = 1000.0 / 30

# Runs under MicroPython in a flash dir holding quad's profile.json; prints one JSON line.
PROBE = r"""
import gc, json, time
from time import ticks_us, ticks_diff, ticks_ms

# DESIGN.md's 7984 ms is for this loop at module level (globals): run it that way, through
# exec(), as bench/calibration.py does. Inside a function the unix port runs it ~1.6x faster,
# which made every estimate here 1.6x too pessimistic.
_LOOP = "t = ticks_us()\nx = 0\nfor i in range(1000000):\n    x += 1\nd = ticks_diff(ticks_us(), t)\n"

def calibrate():
    g = {"ticks_us": ticks_us, "ticks_diff": ticks_diff}
    exec(_LOOP, g)
    return g["d"] / 1000

import profile as profiles
from app import App
from app.commands import table
from app.hardware import build
from touch import Touch
from protocol import Protocol
import mpr121_model, frame_capture

# count LED transfers (the fake keeps only the last few frames)
shown = [0]
_emit = frame_capture.emit
def _count(*args):
    shown[0] += 1
    return _emit(*args)
frame_capture.emit = _count

prof = profiles.load("profile.json")
pads, display, wdt = build(prof)
# time the first LED transfer at the moment the display hands a chain to the LED output
first_show = [None]
in_fake = [0]  # microseconds spent in the fake LED output, which a Pico's DMA does not cost
_show = display.frame.show
def _timed_show(i):
    t = ticks_us()
    if first_show[0] is None:
        first_show[0] = t
    _show(i)
    in_fake[0] += ticks_diff(ticks_us(), t)
display.frame.show = _timed_show
touch = Touch(prof.pad_chips, prof.pad_position)
proto = Protocol(lambda s: None, {}, None)
app = App(prof, display, proto.event, "")
proto.commands = table(app)
app.boot()
app.set_config({"animation_ms": 150, "brightness": 100}, "bench")

def one_touch():
    app.new_game("bench", {"variant": "basic", "players": 4, "pits": 6}, 0)
    seat, pit = 0, 6
    addr, electrode = prof.pad[app.seating.position(seat, pit)]
    for _ in range(5):
        display.tick(None)
        touch.update(pads.poll(), ticks_ms())
    mpr121_model.touch(addr, electrode, True)
    sent = shown[0]
    gc.collect()
    gc.disable()  # the main loop collects at idle moments; keep the fakes' garbage out of it
    # poll as the main loop does; time only the pass in which the touch is first seen
    give_up = ticks_ms() + 2000
    first_show[0] = None
    while ticks_diff(give_up, ticks_ms()) > 0:
        masks = pads.poll()  # the I2C read: the fake's model cost says nothing of the chip
        t0 = ticks_us()
        events = touch.update(masks, ticks_ms())
        if events:
            for kind, pos in events:
                app.touch(kind, pos, ticks_ms())
                if shown[0] != sent:
                    break
            break
    t1 = first_show[0]
    gc.enable()
    mpr121_model.touch(addr, electrode, False)
    assert shown[0] != sent, "the touch changed no LED"
    give_up = ticks_ms() + 2000  # wait for the release, so the next run starts clean
    while ticks_diff(give_up, ticks_ms()) > 0 and touch.held():
        touch.update(pads.poll(), ticks_ms())
        display.tick(None)
    return ticks_diff(t1, t0) / 1000

def frame_times():
    app.new_game("bench", {"variant": "basic", "players": 4, "pits": 6}, 0)
    app.press(None, 6, "bench")
    out = []
    while display.busy():
        in_fake[0] = 0
        t0 = ticks_us()
        changed = display.tick(None)
        dt = (ticks_diff(ticks_us(), t0) - in_fake[0]) / 1000
        if changed:
            out.append(dt)
        if len(out) >= 40:
            break
    return out

cal = [calibrate() for _ in range(3)]
touch_ms = [one_touch() for _ in range(RUNS)]
frames = []
for _ in range(RUNS):
    frames.extend(frame_times())
cal += [calibrate() for _ in range(3)]
cal.sort()
print(json.dumps({"calibration_ms": (cal[2] + cal[3]) / 2, "touch_ms": touch_ms,
                  "frame_ms": frames}))
"""


def probe(runs):
    flash = tempfile.mkdtemp(prefix="mancala-bench-")
    try:
        shutil.copy(os.path.join(PROFILES, "quad.json"), os.path.join(flash, "profile.json"))
        with open(os.path.join(flash, "probe.py"), "w") as f:
            f.write("RUNS = %d\n" % runs + PROBE)
        env = dict(os.environ, MICROPYPATH=micropypath())
        out = subprocess.run([MICROPYTHON, "-X", "heapsize=4M", "probe.py"], cwd=flash, env=env,
                             capture_output=True, text=True, timeout=600)
        for line in out.stdout.splitlines():
            if line.startswith('{"'):
                try:
                    msg = json.loads(line)
                except ValueError:
                    continue
                if "calibration_ms" in msg:
                    return msg
        raise SystemExit("the probe failed:\n" + out.stdout[-2000:] + out.stderr[-2000:])
    finally:
        shutil.rmtree(flash, ignore_errors=True)


def plays_a_game(profile, heap_k, rules):
    rng = random.Random(1)
    b = Board(profile, heapsize="%dk" % heap_k)
    try:
        b.start()
        state = b.ok("new_game", rules=rules)["state"]
        while not state["over"]:
            legal = [i + 1 for i, n in enumerate(state["pits"][state["turn"]]) if n]
            state = b.ok("press", pit=rng.choice(legal))["state"]
        b.ok("undo")
        b.ok("new_game")
        return not [e for e in b.events if e["event"] == "log" and e["level"] == "error"]
    except (BoardGone, AssertionError, KeyError):
        return False
    finally:
        b.close()


def smallest_heap(profile, rules, low=64, high=1024):
    """Bisection in 4 KB steps between a heap that fails and one that works."""
    if not plays_a_game(profile, high, rules):
        return None
    while high - low > 4:
        mid = (low + high) // 2 // 4 * 4
        if plays_a_game(profile, mid, rules):
            high = mid
        else:
            low = mid
    return high


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--no-heap", action="store_true", help="skip the heap search")
    ap.add_argument("--quick", action="store_true", help="3 runs (make bench BENCHFLAGS=--quick)")
    args = ap.parse_args(argv)
    if args.quick:
        args.runs = 3
    m = probe(args.runs)
    ratio = PICO_LOOP_MS / m["calibration_ms"]
    touch_cpu = statistics.median(m["touch_ms"]) * ratio
    frame = statistics.median(m["frame_ms"]) * ratio
    frame_worst = max(m["frame_ms"]) * ratio
    print("calibration: 10^6-pass loop %.1f ms here (median of 6) -> RP2040 factor %.0fx"
          % (m["calibration_ms"], ratio))
    print("touch -> first LED change (quad, CPU path): %.1f ms on RP2040 (median of %d)"
          % (touch_cpu, len(m["touch_ms"])))
    total = touch_cpu + POLL_MS + MPR121_MS
    print("  + up to %d ms pad poll + ~%d ms MPR121 response = %.1f ms worst case; budget %d ms"
          " -> %s" % (POLL_MS, MPR121_MS, total, TOUCH_BUDGET_MS,
                      "OK" if total <= TOUCH_BUDGET_MS else "OVER"))
    print("animation frame (quad): median %.1f ms, worst %.1f ms on RP2040 (%d frames); "
          "budget %.1f ms (30 fps) -> %s" % (frame, frame_worst, len(m["frame_ms"]),
                                            FRAME_BUDGET_MS,
                                            "OK" if frame <= FRAME_BUDGET_MS else "OVER"))
    if not args.no_heap:
        for profile, rules in (("duo", {"variant": "kalah"}),
                               ("quad", {"variant": "basic", "players": 4, "pits": 6})):
            k = smallest_heap(profile, rules)
            print("smallest heap for a whole game (%s, 64-bit unix port, .mpy as on the board, "
                  "incl. the sim fakes): %s" % (profile, "%d KB" % k if k else "more than 1 MB"))
        print("  (the RP2040's 4-byte words need less: up to about half; the Pico has ~228 KB)")


if __name__ == "__main__":
    main()
