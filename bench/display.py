"""Display benchmark: RP2040 estimates of the frame time for the largest profile (quad,
480 LEDs), of one animation frame and of the touch -> first LED change.

Run by `make bench` under CPython, which re-runs this file under the MicroPython unix port
(.venv/bin/micropython) where the timing happens. Each time is scaled to a Pico by the
calibration of bench/calibration.py (docs/architecture.md §10: the published add_test, 7984 ms
on a Pico at 125 MHz with MicroPython v1.23), timed in the same run:
    rp2040_ms = unix_ms * 7984 / calibration_ms
"pad touch -> first show" runs from display.lift() (which the app calls for a legal pit before
the engine plays it) to the moment the display hands the first chain to the LED output
(show(i)); "move -> first show" (a serial or CPU move) from the engine's play() to that
moment. On the board the DMA sends the chain from there. bench/board.py times the whole way
from the pad poll, through the real app and drivers on the virtual board.
Medians of several runs are printed, each run scaled by its own calibration. The viper
kernels (painting, limiter) are native code on both machines, so their share scales less
exactly than bytecode does.
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


def _calibration_ms(root):
    # bench/calibration.py's add_test, the published benchmark function
    ns = {}
    with open(root + "/bench/calibration.py") as f:
        exec(f.read(), ns)
    return ns["calibrate"]()


class _Leds:
    # The WS2812 interface: buffers stay the same objects; show() costs nothing here (on
    # the board the DMA sends while the CPU goes on).
    def __init__(self, lengths):
        self.bufs = [bytearray(3 * n) for n in lengths]
        self.first = None      # ticks_us of the first show() since reset
        self.clock = None

    def __len__(self):
        return len(self.bufs)

    def buffer(self, i):
        return self.bufs[i]

    def show(self, i):
        if self.first is None and self.clock is not None:
            self.first = self.clock()


def _inner(root):
    import gc
    import time
    from mancala_fw import profile
    from mancala import Rules, Game
    from mancala_fw.display import Display
    from mancala_fw.display import power

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
    rest = []
    engine = []
    alloc = []
    lift = []
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
        # Touch -> first LED change: the engine's move, the display's play() and its tick,
        # up to the first show(). Then the tick that shows the rest of the move's first frame.
        leds.clock = time.ticks_us
        leds.first = None
        t0 = time.ticks_us()
        record = g.play(6)
        state = g.to_dict()
        t1 = time.ticks_us()
        d.play(record, state, now=2000)
        d.tick(2000)
        engine.append(time.ticks_diff(t1, t0) / 1000)
        touch.append(time.ticks_diff(leds.first, t0) / 1000)
        leds.clock = None
        t0 = time.ticks_us()
        d.tick(2001)
        rest.append(time.ticks_diff(time.ticks_us(), t0) / 1000)
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
        # A pad touch on a legal pit: the app lifts it (display.lift) before the engine
        # plays the move, so its first LED change holds no engine work.
        g = fresh()
        pos = p.positions[d.ring(0, 6)]
        leds.clock = time.ticks_us
        leds.first = None
        t0 = time.ticks_us()
        d.lift(pos, 3000)
        lift.append(time.ticks_diff(leds.first, t0) / 1000)
        leds.clock = None
        cal.append(_calibration_ms(root))
    # Each run's times are scaled by that run's own calibration, so a busy host machine
    # slows both alike; the medians over the runs are printed.
    c = _median(cal)

    def line(what, times, budget):
        ms = _median(times)
        est = _median([times[i] * PICO_CALIBRATION_MS / cal[i] for i in range(len(cal))])
        print("%-44s unix %7.3f ms   RP2040 est %6.1f ms   %s" % (what, ms, est, budget(est)))

    print("calibration (add_test): unix %.1f ms (median of %d), "
          "Pico %d ms -> x%.0f" % (c, len(cal), PICO_CALIBRATION_MS, PICO_CALIBRATION_MS / c))
    line("full frame, quad %d LEDs (build + limit)" % p.total_leds, full,
         lambda e: "(%.0f fps)" % (1000 / e))
    line("animation frame (median of a sowing)", step,
         lambda e: "ok >= 30 fps" if e <= 33.3 else "TOO SLOW for 30 fps")
    line("pad touch -> first show (lift, then engine)", lift,
         lambda e: "ok <= 30 ms" if e <= 30 else "OVER the 30 ms budget")
    line("move -> first show (engine + display)", touch,
         lambda e: "ok <= 30 ms" if e <= 30 else "OVER the 30 ms budget")
    line("  of which the engine (play + to_dict)", engine, lambda e: "")
    line("next tick: the rest of the move's first frame", rest,
         lambda e: "ok >= 30 fps" if e <= 33.3 else "TOO SLOW for 30 fps")
    print("heap allocated per animation tick: %d bytes (median of runs)" % _median(alloc))
    lim = d.limiter
    print("power: budget %d mA, frame now %d mA (limiter scale %d/256)" % (
        lim.budget_ma, lim.estimate_ma(power.channel_sum(leds.bufs)), d.frame.scale))


if __name__ == "__main__":
    if sys.implementation.name == "micropython":
        _inner(sys.argv[1] if len(sys.argv) > 1 else ".")
    else:
        sys.exit(_outer())
