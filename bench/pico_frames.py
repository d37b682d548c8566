"""Sowing animation frames on the emulated Pico: compute time per frame on quad, the wire apart.

    .venv/bin/python bench/pico_frames.py

Runs itself as main.py on the emulated Pico (bench/pico_run.py: the stock MicroPython image,
quad's profile and the firmware's lib as deploy puts them; real PIO, DMA and WS2812 driver),
with bench/frames_probe.py beside it: the display built as the app does it and the two
sowing moves of 4-player Basic, the opening move (4 stones) and a move of a pit holding 48
stones, at 16 ms a stone, so that every display tick of the sowing repaints. A tick is timed
with ticks_us; the time show() spends waiting for the chain's previous frame to leave the
wire is timed apart and taken off, so "compute" is the CPU's own work per frame (stepping
the animation, painting the changed rings, the power limiter, copying each changed chain
for its DMA), and "wire" is what the 4 chains' frames take on their pins (120 LEDs x 30 µs
each, sent in parallel). Also the heap each frame allocates. Prints median and maximum per
case; the target is compute <= 16 ms (60 fps).
"""
import sys

TARGET_MS = 16.0


def _probe():
    import gc
    import time
    from drivers.ws2812 import WS2812
    import frames_probe as sowing

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

    d, leds, seating = sowing.display(Timed)
    for name, now in sowing.sowings(d, seating):
        compute = [0] * sowing.MOST  # made before the count starts: the probe allocates nothing
        wire = [0] * sowing.MOST
        frames = 0
        moments = sowing.ticks(d, now)
        gc.collect()
        alloc0 = gc.mem_alloc()
        for now in moments:
            Timed.waited = 0
            t = time.ticks_us()
            shown = d.tick(now)
            spent = time.ticks_diff(time.ticks_us(), t)
            if shown:
                compute[frames] = spent - Timed.waited
                wire[frames] = Timed.waited
                frames += 1
                if frames == sowing.MOST:
                    break
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
    print("END")


def verdict(worst_ms):
    """The benches' last line: the worst frame's compute against the target."""
    return ("animation compute per frame, worst: %.1f ms (target <= %.0f ms, 60 fps): %s"
            % (worst_ms, TARGET_MS, "MET" if worst_ms <= TARGET_MS else "MISSED"))


def board_lines(script, circuitpython=False):
    """The lines the bench script (a file) prints on the emulated Pico (bench/pico_run.py,
    quad's profile, frames_probe.py beside it, CircuitPython if circuitpython), or None once
    it has said why it could not run there."""
    import os
    import pico_run
    why = pico_run.available(circuitpython)
    if why:
        print("the emulated Pico cannot run here: %s" % why)
        return None
    with open(script) as f:
        text = f.read()
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "frames_probe.py"),
              "rb") as f:
        files = {"frames_probe.py": f.read()}
    try:
        return list(pico_run.run_script(text, "quad", circuitpython, files))
    except RuntimeError as e:
        print(e)
        return None


def _outer():
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="no effect: one run is short")
    ap.parse_args()
    lines = board_lines(__file__)
    if lines is None:
        return 1
    results = [line[7:].split("|") for line in lines if line.startswith("RESULT ")]
    worst = 0.0
    for name, frames, med, top, wire, alloc, last in results:
        worst = max(worst, int(top) / 1000)
        print("quad %-21s %3s frames: compute median %.1f ms, max %.1f ms; waited for the "
              "wire at most %.1f ms; last frame on the wire %.1f ms; heap %s bytes in all"
              % (name, frames, int(med) / 1000, int(top) / 1000, int(wire) / 1000,
                 int(last) / 1000, alloc))
    print(verdict(worst))
    return 0


if __name__ == "__main__":
    if sys.implementation.name == "micropython":
        _probe()
    else:
        sys.exit(_outer())
