"""Sowing animation frames on the emulated Pico running CircuitPython: compute time per frame
on quad, the wire apart (bench/pico_frames.py's measurement, on the CircuitPython edition).

    .venv/bin/python bench/circuitpy_frames.py

Runs itself as code.py on the emulated Pico (bench/pico_run.py: stock CircuitPython 9.2.9,
the drive filled as deploy --circuitpython fills it), with bench/frames_probe.py beside it,
which builds the display on the CircuitPython hardware layer's LED output (Adafruit's
NeoPixel, one per chain) and plays the sowing moves bench/pico_frames.py plays (4-player
Basic: the opening move, and a pit of 48 stones). A display tick is timed with
time.monotonic_ns(); the time the NeoPixel library spends putting a frame on its pin (its
transmit, which returns when the frame has left) is timed apart and taken off, so "compute"
is the CPU's own work per frame: stepping the animation, painting the changed rings, the
power limiter and handing each changed chain's bytes to its NeoPixel. Prints the compute's
median and maximum per case, and the whole tick's median with the transmit in; the target is
compute <= 16 ms (60 fps). CircuitPython has no gc.threshold(), so the collector runs inside
whichever frame finds the heap full, and that frame is the maximum: the 48-stone sowing
leaves about 58 KB of garbage over its 49 frames, about as much as is free when it starts
(54-60 KB), so whether a collection falls inside it depends on what else the heap holds.
"""
import sys


def _probe():
    import gc
    import json
    import time
    import neopixel
    from mancala_fw.app.circuitpython import NeoPixelChains
    import frames_probe as sowing

    clock = time.monotonic_ns
    wire = [0]
    transmit = neopixel.NeoPixel._transmit

    def timed(self, buffer):
        t = clock()
        transmit(self, buffer)
        wire[0] += clock() - t

    neopixel.NeoPixel._transmit = timed  # the bench's stopwatch around the library's output

    d, leds, seating = sowing.display(NeoPixelChains)
    results = []
    for name, now in sowing.sowings(d, seating):
        compute = [0] * sowing.MOST  # made before the count starts
        whole = [0] * sowing.MOST
        sent = [0] * sowing.MOST
        frames = 0
        moments = sowing.ticks(d, now)
        gc.collect()
        for now in moments:
            wire[0] = 0
            t = clock()
            shown = d.tick(now)
            spent = clock() - t
            if shown:
                compute[frames] = (spent - wire[0]) // 1000
                whole[frames] = spent // 1000
                sent[frames] = wire[0] // 1000
                frames += 1
                if frames == sowing.MOST:
                    break
        compute = sorted(compute[:frames])
        whole = sorted(whole[:frames])
        results.append({"case": name, "frames": frames, "median_us": compute[frames // 2],
                        "max_us": compute[-1], "wire_max_us": max(sent[:frames]),
                        "tick_median_us": whole[frames // 2]})
    print(json.dumps({"event": "frames_probe", "results": results}))
    print("END")


def _outer():
    import argparse
    import json
    from pico_frames import board_lines, verdict
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="no effect: one run is short")
    ap.parse_args()
    lines = board_lines(__file__, circuitpython=True)
    if lines is None:
        return 1
    found = [json.loads(line)["results"] for line in lines if line.startswith("{")]
    if not found:
        print("the probe printed no result on the emulated Pico:\n" + "\n".join(lines[-12:]))
        return 1
    results = found[-1]
    worst = 0.0
    for r in results:
        worst = max(worst, r["max_us"] / 1000)
        print("CircuitPython quad %-21s %3d frames: compute median %.1f ms, max %.1f ms; the "
              "NeoPixel transmit at most %.1f ms; the whole tick, median %.1f ms"
              % (r["case"], r["frames"], r["median_us"] / 1000, r["max_us"] / 1000,
                 r["wire_max_us"] / 1000, r["tick_median_us"] / 1000))
    print(verdict(worst))
    return 0


if __name__ == "__main__":
    if sys.implementation.name == "circuitpython":
        _probe()
    else:
        sys.exit(_outer())
