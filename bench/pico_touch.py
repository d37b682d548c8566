"""Touch to first LED on the emulated Pico, from its trace (docs/performance.md).

    .venv/bin/python bench/pico_touch.py [--touches N] [--profiles duo quad] [--seed S]

The firmware runs on the emulated Pico (`sim --target rp2040`: the stock MicroPython image,
rp2040js, the MPR121 register models on the emulated clock). Fingers land at timed moments
(`+D` touch lines: D µs after the models read the line), spaced by a seeded random gap, so
they fall at every phase of the firmware's loop. For each touch the trace gives the moment
the finger lands (`pad`, on) and every LED frame (`frame`, the end of its last bit); the
figure is the time from the finger to the first frame that starts after it and changes that
pit's ring, measured to the moment the ring's first WS2812 word leaves the PIO (the frame's
end less the LEDs after the ring's start, 30 µs each) and to the frame's end. That path holds
the MPR121's response at the driver's settings (the models follow the sampling registers),
the wait until the firmware notices, its own work and the chain's wire time up to the ring.

Touches land on random pits while a game of Kalah (duo) or 4-player Basic (quad) runs: a legal
pit goes dark, any other blinks red. Animations run at 60 ms a stone and the touches come at
least 2.5 s apart, so none lands in a sowing (a touch there only skips it). A second set lands
while the CPU thinks: a serial `hint` (a level-5 search of 1 s) runs, and the other seat's pits
are touched during it (refused: they blink).

Emulated time is deterministic for the same inputs; here the moment the models read each
batch of lines depends on the host, so the phases vary from run to run (the seed fixes the
pits and gaps). Prints one line per profile and case: touches, median and maximum in ms.
"""
import argparse
import inspect
import json
import os
import random
import statistics
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))
sys.path.insert(0, os.path.join(ROOT, "firmware", "lib"))

from boardsim import Board, PROFILES  # noqa: E402
from mancala_fw import profile as profiles  # noqa: E402

US_PER_LED = 30          # 24 bits at 1.25 µs
HOLD_US = 80000          # a tap: longer than the touch layer's debounce
GAP_US = (2500000, 2600000)
THINK_GAP_US = (380000, 460000)
TARGETS_MS = (15.0, 30.0)  # touch to first LED, worst case: the board's aim and its budget


def mpr121_ms():
    """The MPR121's response at the driver's settings (drivers/mpr121.py, registers 0x5B and
    0x5D): SFI samples x ESI, plus the touch debounce samples, in ms."""
    from drivers import mpr121
    debounce, _, config2 = mpr121._SAMPLING
    esi = 1 << (config2 & 7)
    sfi = (4, 6, 10, 18)[(config2 >> 3) & 3]
    return sfi * esi + (debounce & 7) * esi


def trace_lines(path):
    out = []
    with open(path) as f:
        for line in f:
            try:
                out.append(json.loads(line))
            except ValueError:
                pass  # a line cut by a power cut: not ours
    out.sort(key=lambda e: e["t_us"])
    return out


def latencies(prof, trace):
    """[(touch t_us, µs to the ring's first word, µs to the frame's end, pos)] for every
    finger that landed on a pit, in order. A frame cut short (the driver stops an idle frame
    for a touch's) reaches only the LEDs it got to: the others keep the frame before."""
    by_pad = {}
    for pid in prof.positions:
        by_pad[prof.pad[pid]] = pid
    last = {}      # pin -> what the chain's LEDs show
    pending = []   # (t, pos, pin, start, end, before)
    out = []
    for e in trace:
        if e["kind"] == "pad" and e["on"]:
            pid = by_pad.get((int(e["chip"], 16), e["electrode"]))
            if pid is None or pid.endswith("S"):
                continue
            chain, start, leds = prof.ring[pid]
            pin, chain_leds = prof.chains[chain]
            before = last.get(pin)
            ring = None if before is None else before[3 * start:3 * (start + leds)]
            pending.append([e["t_us"], pid, pin, start, leds, chain_leds, ring])
        elif e["kind"] == "frame":
            grb = bytes.fromhex(e["grb"])
            pin = e["pin"]
            n = len(grb) // 3
            keep = []
            for p in pending:
                t, pid, ppin, start, leds, chain_leds, ring = p
                frame_start = e["t_us"] - n * US_PER_LED
                if ppin != pin or frame_start < t or n < start + leds:
                    keep.append(p)
                    continue
                if grb[3 * start:3 * (start + leds)] == ring:
                    keep.append(p)
                    continue
                first = e["t_us"] - (n - start) * US_PER_LED
                out.append((t, first - t, e["t_us"] - t, pid))
            pending = keep
            before = last.get(pin, b"")
            last[pin] = grb + before[len(grb):]
    return out


def _touch_lines(prof, pids, gaps):
    text = []
    at = 0
    for pid, gap in zip(pids, gaps):
        addr, electrode = prof.pad[pid]
        at += gap
        text.append("+%d %x %d 1\n+%d %x %d 0\n" % (at, addr, electrode, at + HOLD_US, addr,
                                                      electrode))
    return "".join(text)


def _wait_touches(b, trace, n, timeout):
    # The models write a pad line per finger change: wait until the last release is in, then
    # ask for the state (answered after that touch's frames). Nothing is sent before: a
    # serial request's work would delay a touch that lands meanwhile.
    end = time.time() + timeout
    while time.time() < end:
        if os.path.exists(trace):
            offs = sum(1 for e in trace_lines(trace) if e["kind"] == "pad" and not e["on"])
            if offs >= n:
                b.ok("state")
                return
        time.sleep(0.5)
    raise SystemExit("the emulated Pico did not take all %d touches in %d s" % (n, timeout))


def run(name, touches, rng, keep=None):
    prof = profiles.load(os.path.join(PROFILES, name + ".json"))
    tmp = tempfile.mkdtemp(prefix="mancala-pico-touch-")
    trace = os.path.join(keep or tmp, "trace-%s.jsonl" % name)
    if os.path.exists(trace):
        os.remove(trace)
    rules = {"variant": "kalah"} if prof.sides == 2 else {"variant": "basic", "players": 4}
    with Board(name, target="rp2040", touch=True, trace=trace) as b:
        b.ok("set_config", config={"animation_ms": 60})
        state = b.ok("new_game", rules=rules, first=0)["state"]
        seating = profiles.seating(prof, state["rules"]["players"], state["rules"]["pits"])
        pits = [seating.position(s, p) for s in range(state["rules"]["players"])
                for p in range(1, state["rules"]["pits"] + 1)]
        # Idle: random pits of a game going on.
        pids = [rng.choice(pits) for _ in range(touches)]
        gaps = [rng.randrange(*GAP_US) for _ in range(touches)]
        with open(b.touch_path, "a") as f:
            f.write(_touch_lines(prof, pids, gaps))
        _wait_touches(b, trace, touches, 1200)
        idle_end = trace_lines(trace)[-1]["t_us"]
        # While the CPU thinks: a new game (seat 0 to move), a hint, the other seats' pits.
        b.ok("new_game", rules=rules, first=0)
        others = [seating.position(s, p) for s in range(1, state["rules"]["players"])
                  for p in range(1, state["rules"]["pits"] + 1)]
        thinking = []
        for _ in range(max(2, touches // 10)):
            n = 2
            b.send({"cmd": "hint", "id": 99})
            pids = [rng.choice(others) for _ in range(n)]
            gaps = [rng.randrange(*THINK_GAP_US) for _ in range(n)]
            with open(b.touch_path, "a") as f:
                f.write(_touch_lines(prof, pids, gaps))
            while b.next_line().get("id") != 99:
                pass  # the hint's answer (or its drop) ends the think
            thinking.append(None)
        _wait_touches(b, trace, touches + 2 * len(thinking), 600)
    lines = trace_lines(trace)
    thinks = []  # (start, end) of each hint on the emulated clock
    start = None
    for e in lines:
        if e["kind"] not in ("serial_in", "serial_out"):
            continue
        try:
            msg = json.loads(e["line"])
        except ValueError:
            continue
        if not isinstance(msg, dict) or msg.get("id") != 99:
            continue
        if e["kind"] == "serial_in":
            start = e["t_us"]
        elif start is not None:
            thinks.append((start, e["t_us"]))
            start = None
    found = latencies(prof, lines)
    idle = [x for x in found if x[0] < idle_end]
    busy = [x for x in found if any(a <= x[0] <= z for a, z in thinks)]
    return idle, busy, touches, 2 * len(thinking)


def _ms(xs):
    return statistics.median(xs) / 1000, max(xs) / 1000


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--touches", type=int, default=30)
    ap.add_argument("--profiles", nargs="+", default=["duo", "quad"])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--quick", action="store_true", help="10 touches a profile")
    ap.add_argument("--keep", metavar="DIR", help="keep each profile's trace in DIR")
    args = ap.parse_args(argv)
    if args.quick:
        args.touches = 10
    if "target" not in inspect.signature(Board).parameters:
        print("bench/pico_touch.py: tests/boardsim.py cannot start the emulated Pico here "
              "(no Board(target='rp2040')); nothing measured")
        return
    rng = random.Random(args.seed)
    worst = 0.0
    print("MPR121 response at the driver's settings: %d ms, inside every figure" % mpr121_ms())
    for name in args.profiles:
        idle, busy, sent, sent_busy = run(name, args.touches, rng, args.keep)
        for case, got, n in (("idle", idle, sent), ("CPU thinking", busy, sent_busy)):
            if not got:
                print("%-4s %-13s no touch measured of %d sent" % (name, case, n))
                continue
            ring_med, ring_max = _ms([x[1] for x in got])
            end_med, end_max = _ms([x[2] for x in got])
            worst = max(worst, ring_max)
            print("%-4s %-13s %2d of %2d touches: to the ring's first word median %.1f ms, "
                  "max %.1f ms; to the frame's end median %.1f, max %.1f ms"
                  % (name, case, len(got), n, ring_med, ring_max, end_med, end_max))
    for target in TARGETS_MS:
        print("touch to first LED, worst case: %.1f ms (target <= %.0f ms): %s"
              % (worst, target, "MET" if worst <= target else "MISSED"))


if __name__ == "__main__":
    main()
