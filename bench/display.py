"""Display benchmark: RP2040 estimates of the frame time for the largest profile (quad,
480 LEDs), of one animation frame and of the touch -> first LED change.

Run by `make bench` under CPython, which re-runs this file under the MicroPython unix port
(.venv/bin/micropython) where the timing happens. Each time is scaled to a Pico by a
calibration loop timed in the same run (DESIGN.md: a 10^6-pass for loop with one integer
add takes about 7984 ms on a Pico at 125 MHz):
    rp2040_ms = unix_ms * 7984 / calibration_ms
Medians of several runs are printed. The viper kernels (painting, limiter) are native code
on both machines, so their share scales less exactly than bytecode does.
"""
import sys

PICO_CALIBRATION_MS = 7984
RUNS = 7


def _outer():
    import os
    import subprocess
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ)
    env["MICROPYPATH"] = os.path.join(root, "firmware", "lib")
    mp = os.path.join(root, ".venv", "bin", "micropython")
    proc = subprocess.run([mp, "-X", "heapsize=4M", os.path.abspath(__file__), root],
                          env=env, cwd=root)
    return proc.returncode


def _median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2]


# DESIGN.md's 7984 ms Pico figure is for this loop at module level (globals), so run it
# through exec(): inside a function the unix port runs it ~1.6x faster (bench/calibration.py).
def _calibration_ms():
    import time
    g = {"T": time.ticks_us, "D": time.ticks_diff}
    exec("t = T()\nx = 0\nfor i in range(1000000):\n    x += 1\nd = D(T(), t)\n", g)
    return g["d"] / 1000


class _Leds:
    # The WS2812 interface: buffers stay the same objects; show() costs nothing here (on
    # the board the DMA sends while the CPU goes on).
    def __init__(self, lengths):
        self.bufs = [bytearray(3 * n) for n in lengths]

    def __len__(self):
        return len(self.bufs)

    def buffer(self, i):
        return self.bufs[i]

    def show(self, i):
        pass


def _inner(root):
    import gc
    import time
    import profile
    from mancala import Rules, Game
    from display import Display
    from display import power

    p = profile.load(root + "/hardware/profiles/quad.json")
    leds = _Leds([n for pin, n in p.chains])
    d = Display(p, leds)
    seating = profile.seating(p, 4, 6)

    def fresh():
        g = Game(Rules.from_dict({"variant": "basic", "players": 4, "pits": 6, "seeds": 4}))
        d.set_game(seating, g.to_dict())
        d.set_speed(33)
        d.tick(0)
        return g

    cal = []
    full = []
    step = []
    touch = []
    engine = []
    alloc = []
    for run in range(RUNS):
        gc.collect()
        g = fresh()
        # Full frame: every ring repainted (brightness changed), limited, copied.
        t0 = time.ticks_us()
        n = 20
        for i in range(n):
            d.set_brightness(255 - (i & 1))   # forces every ring to repaint
            d.tick(1000 + i)
        full.append(time.ticks_diff(time.ticks_us(), t0) / 1000 / n)
        # Touch -> first LED change: the engine's move, the display's play() and its tick.
        t0 = time.ticks_us()
        record = g.play(6)
        state = g.to_dict()
        t1 = time.ticks_us()
        d.play(record, state, now=2000)
        d.tick(2000)
        t2 = time.ticks_us()
        engine.append(time.ticks_diff(t1, t0) / 1000)
        touch.append(time.ticks_diff(t2, t0) / 1000)
        # Animation frames: one tick per 33 ms frame until the sowing ends.
        times = []
        now = 2000
        while d.busy():
            now += 33
            t0 = time.ticks_us()
            d.tick(now)
            times.append(time.ticks_diff(time.ticks_us(), t0) / 1000)
        step.append(_median(times))
        # The same sowing again, untimed, to count what tick() allocates.
        record = g.play(g.legal_moves()[0])
        d.play(record, g.to_dict(), now=now)
        frames = 0
        gc.collect()
        before = gc.mem_alloc()
        while d.busy():
            now += 33
            d.tick(now)
            frames += 1
        alloc.append((gc.mem_alloc() - before) // max(frames, 1))
        cal.append(_calibration_ms())
    # Each run's times are scaled by that run's own calibration, so a busy host machine
    # slows both alike; the medians over the runs are printed.
    c = _median(cal)

    def line(what, times, budget):
        ms = _median(times)
        est = _median([times[i] * PICO_CALIBRATION_MS / cal[i] for i in range(len(cal))])
        print("%-44s unix %7.3f ms   RP2040 est %6.1f ms   %s" % (what, ms, est, budget(est)))

    print("calibration loop (10^6 adds): unix %.1f ms (median), Pico %d ms -> x%.0f" % (
        c, PICO_CALIBRATION_MS, PICO_CALIBRATION_MS / c))
    line("full frame, quad %d LEDs (build + limit)" % p.total_leds, full,
         lambda e: "(%.0f fps)" % (1000 / e))
    line("animation frame (median of a sowing)", step,
         lambda e: "ok >= 30 fps" if e <= 33.3 else "TOO SLOW for 30 fps")
    line("touch -> first LED change (engine + display)", touch,
         lambda e: "ok <= 30 ms" if e <= 30 else "OVER the 30 ms budget")
    line("  of which the engine (play + to_dict)", engine, lambda e: "")
    print("heap allocated per animation tick: %d bytes (median of runs)" % _median(alloc))
    lim = d.limiter
    print("power: budget %d mA, frame now %d mA (limiter scale %d/256)" % (
        lim.budget_ma, lim.estimate_ma(power.channel_sum(leds.bufs)), d.frame.scale))


if __name__ == "__main__":
    if sys.implementation.name == "micropython":
        # This file is called display.py too: keep its folder off the path so that
        # `import display` finds the firmware package.
        here = __file__.rsplit("/", 1)[0] if "/" in __file__ else ""
        for entry in list(sys.path):
            if entry in (here, "", ".") or entry.endswith("/bench"):
                sys.path.remove(entry)
        _inner(sys.argv[1] if len(sys.argv) > 1 else ".")
    else:
        sys.exit(_outer())
