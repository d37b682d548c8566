"""Sowing animation frames on the emulated Pico: compute time per frame on quad, the wire apart.

    .venv/bin/python bench/pico_frames.py

Runs itself as main.py on the emulated Pico (`sim --target rp2040 --main`, the stock
MicroPython image, quad's profile and the firmware's lib as deploy puts them; real PIO, DMA
and WS2812 driver). On the board it builds the display as the app does and plays sowing moves
of 4-player Basic: the opening move (4 stones) and a move of a pit holding 48 stones (every
ring of the board changes count). The animation runs at 16 ms a stone, so every display tick
of the sowing repaints. A tick is timed with ticks_us; the time show() spends waiting for the
chain's previous frame to leave the wire is timed apart and taken off, so "compute" is the
CPU's own work per frame (stepping the animation, painting the changed rings, the power
limiter, copying each changed chain for its DMA), and "wire" is what the 4 chains' frames take
on their pins (120 LEDs x 30 µs each, sent in parallel). Also the heap each frame allocates.
Prints median and maximum per case; the target is compute <= 16 ms (60 fps).
"""
import sys

TARGET_MS = 16.0
MS_PER_STONE = 16


def _probe():
    import gc
    import time
    from mancala import Game, Rules
    from mancala_fw import profile as profiles
    from mancala_fw.display import Display
    from drivers.ws2812 import WS2812

    class Timed(WS2812):
        # show() as the driver's, with the wait for the previous frame timed apart.
        waited = 0
        shows = 0

        def show(self, i):
            t = time.ticks_us()
            while self.busy(i):
                pass
            Timed.waited += time.ticks_diff(time.ticks_us(), t)
            Timed.shows += 1
            WS2812.show(self, i)

    p = profiles.load_board("profile.json")
    leds = Timed([pin for pin, _ in p.chains], [n for _, n in p.chains])
    d = Display(p, leds)
    d.set_speed(MS_PER_STONE)
    seating = profiles.seating(p, 4, 6)
    rules = Game(Rules.from_dict({"variant": "basic", "players": 4, "pits": 6,
                                  "seeds": 4})).to_dict()["rules"]
    opening = {"rules": rules,
               "pits": [[4] * 6 for _ in range(4)], "stores": [0] * 4, "turn": 0,
               "active": [0, 1, 2, 3], "places": [None] * 4, "over": False}
    heap = {"rules": opening["rules"], "pits": [[0, 0, 0, 0, 0, 48], [2] * 6, [2] * 6, [2] * 6],
            "stores": [0, 4, 4, 4], "turn": 0, "active": [0, 1, 2, 3],
            "places": [None] * 4, "over": False}
    for name, state, pit in (("4 stones", opening, 6), ("48 stones in one pit", heap, 6)):
        g = Game.from_dict(state)
        d.set_game(seating, g.to_dict())
        now = time.ticks_ms()
        d.tick(now)
        record = g.play(pit)
        d.play(record, g.to_dict(), now=now)
        compute = [0] * 400  # made before the count starts: the probe allocates nothing
        wire = [0] * 400
        frames = 0
        gc.collect()
        alloc0 = gc.mem_alloc()
        while d.busy() and frames < 400:
            now = time.ticks_add(now, MS_PER_STONE)
            while time.ticks_diff(now, time.ticks_ms()) > 0:
                pass  # the frame's moment on the board's clock, as the loop waits for it
            Timed.waited = 0
            t = time.ticks_us()
            shown = d.tick(now)
            spent = time.ticks_diff(time.ticks_us(), t)
            if shown:
                compute[frames] = spent - Timed.waited
                wire[frames] = Timed.waited
                frames += 1
        alloc = gc.mem_alloc() - alloc0
        compute = sorted(compute[:frames])
        wire = wire[:frames]
        t0 = time.ticks_us()
        while any(leds.busy(i) for i in range(len(leds))):
            pass
        last_wire = time.ticks_diff(time.ticks_us(), t0)
        print("RESULT %s|%d|%d|%d|%d|%d|%d" % (
            name, frames, compute[len(compute) // 2], compute[-1], max(wire), alloc,
            last_wire))
    print("DONE")


def _outer():
    import argparse
    import os
    import subprocess
    import tempfile
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="no effect: one run is short")
    ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ)
    env.setdefault("MANCALA_RP2_MIRROR", os.path.join(root, "build", "rp2"))
    flash = tempfile.mkdtemp(prefix="mancala-pico-frames-")
    cmd = [os.path.join(root, ".venv", "bin", "mancala-board"), "sim", "--target", "rp2040",
           "--stdio", "--profile", "quad", "--flash", flash, "--main",
           os.path.abspath(__file__)]
    proc = subprocess.Popen(cmd, env=env, cwd=root, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    results = []
    failed = []
    try:
        for raw in proc.stdout:
            line = raw.decode("utf-8", "replace").strip()
            if line.startswith("RESULT "):
                results.append(line[7:].split("|"))
            elif line == "DONE":
                break
            elif line.startswith("Traceback"):
                failed = [line]
            elif failed:
                if line.startswith("MicroPython") or line.startswith(">>>"):
                    print("the probe failed on the emulated Pico:\n" + "\n".join(failed))
                    return 1
                failed.append(line)
    finally:
        proc.kill()
        proc.wait()
    if not results:
        print("the emulated Pico gave no result: %s"
              % proc.stderr.read().decode("utf-8", "replace")[-500:])
        return 1
    worst = 0.0
    for name, frames, med, top, wire, alloc, last in results:
        worst = max(worst, int(top) / 1000)
        print("quad %-21s %3s frames: compute median %.1f ms, max %.1f ms; waited for the "
              "wire at most %.1f ms; last frame on the wire %.1f ms; heap %s bytes in all"
              % (name, frames, int(med) / 1000, int(top) / 1000, int(wire) / 1000,
                 int(last) / 1000, alloc))
    print("animation compute per frame, worst: %.1f ms (target <= %.0f ms, 60 fps): %s"
          % (worst, TARGET_MS, "MET" if worst <= TARGET_MS else "MISSED"))
    return 0


if __name__ == "__main__":
    if sys.implementation.name == "micropython":
        _probe()
    else:
        sys.exit(_outer())
