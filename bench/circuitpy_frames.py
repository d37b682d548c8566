"""Sowing animation frames on the emulated Pico running CircuitPython: compute time per frame
on quad, the wire apart (bench/pico_frames.py's measurement, on the CircuitPython edition).

    .venv/bin/python bench/circuitpy_frames.py

Runs itself as code.py on the emulated Pico (`sim --target rp2040 --image <CircuitPython
9.2.9> --main`, the drive filled as deploy --circuitpython fills it). On the board it builds
the display on the CircuitPython hardware layer's LED output (Adafruit's NeoPixel, one per
chain) and plays the sowing moves bench/pico_frames.py plays (4-player Basic: the opening
move, and a pit of 48 stones). A display tick is timed with time.monotonic_ns(); the time
the NeoPixel library spends putting a frame on its pin (its transmit, which returns when the
frame has left) is timed apart and taken off, so "compute" is the CPU's own work per frame:
stepping the animation, painting the changed rings, the power limiter and handing each
changed chain's bytes to its NeoPixel. Prints the compute's median and
maximum per case (the maximum holds a garbage collection: CircuitPython has no
gc.threshold(), so the collector runs inside whichever frame finds the heap full), and the
whole tick's median with the transmit in; the target is compute <= 16 ms (60 fps).
"""
import sys

TARGET_MS = 16.0
MS_PER_STONE = 16


def _probe():
    import gc
    import json
    import time
    import neopixel
    from mancala import Game, Rules
    from mancala_fw import profile as profiles
    from mancala_fw.display import Display
    from mancala_fw.app.circuitpython import NeoPixelChains
    from drivers.compat import ticks_ms, ticks_add, ticks_diff

    clock = time.monotonic_ns
    wire = [0]
    transmit = neopixel.NeoPixel._transmit

    def timed(self, buffer):
        t = clock()
        transmit(self, buffer)
        wire[0] += clock() - t

    neopixel.NeoPixel._transmit = timed  # the bench's stopwatch around the library's output

    p = profiles.load_board("profile.json")
    leds = NeoPixelChains([pin for pin, _ in p.chains], [n for _, n in p.chains])
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
    results = []
    for name, state, pit in (("4 stones", opening, 6), ("48 stones in one pit", heap, 6)):
        g = Game.from_dict(state)
        d.set_game(seating, g.to_dict())
        now = ticks_ms()
        d.tick(now)
        record = g.play(pit)
        d.play(record, g.to_dict(), now=now)
        compute = [0] * 400  # made before the count starts
        whole = [0] * 400
        sent = [0] * 400
        frames = 0
        gc.collect()
        while d.busy() and frames < 400:
            now = ticks_add(now, MS_PER_STONE)
            while ticks_diff(now, ticks_ms()) > 0:
                pass  # the frame's moment on the board's clock, as the loop waits for it
            wire[0] = 0
            t = clock()
            shown = d.tick(now)
            spent = clock() - t
            if shown:
                compute[frames] = (spent - wire[0]) // 1000
                whole[frames] = spent // 1000
                sent[frames] = wire[0] // 1000
                frames += 1
        compute = sorted(compute[:frames])
        whole = sorted(whole[:frames])
        results.append({"case": name, "frames": frames, "median_us": compute[frames // 2],
                        "max_us": compute[-1], "wire_max_us": max(sent[:frames]),
                        "tick_median_us": whole[frames // 2]})
    print(json.dumps({"event": "frames_probe", "results": results}))


def _outer():
    import argparse
    import json
    import os
    import subprocess
    import tempfile
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="no effect: one run is short")
    ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    sys.path.insert(0, os.path.join(root, "host_tools"))
    from mancala_host.sim import rp2040
    image = os.path.join(rp2040.mirror(root), "circuitpython-9.2.9-raspberry_pi_pico.uf2")
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, "-m", "mancala_host", "sim", "--target", "rp2040", "--stdio",
               "--pace", "free", "--profile", "quad", "--flash", os.path.join(tmp, "flash"),
               "--image", image, "--main", os.path.abspath(__file__)]
        proc = subprocess.Popen(cmd, cwd=root, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL)
        got = None
        other = []
        try:
            for raw in proc.stdout:
                at = raw.find(b"{")  # CircuitPython's console title may precede the line
                if at >= 0:
                    try:
                        obj = json.loads(raw[at:])
                    except ValueError:
                        obj = None
                    if obj and obj.get("event") == "frames_probe":
                        got = obj
                        break
                other.append(raw.decode("utf-8", "replace").rstrip())
                if raw.startswith(b"Code done running"):
                    break
        finally:
            proc.kill()
            proc.wait()
    if got is None:
        print("the probe gave no result on the emulated Pico:\n" + "\n".join(other[-12:]))
        return 1
    worst = 0.0
    for r in got["results"]:
        worst = max(worst, r["max_us"] / 1000)
        print("CircuitPython quad %-21s %3d frames: compute median %.1f ms, max %.1f ms; the "
              "NeoPixel transmit at most %.1f ms; the whole tick, median %.1f ms"
              % (r["case"], r["frames"], r["median_us"] / 1000, r["max_us"] / 1000,
                 r["wire_max_us"] / 1000, r["tick_median_us"] / 1000))
    print("animation compute per frame, worst: %.1f ms (target <= %.0f ms, 60 fps): %s"
          % (worst, TARGET_MS, "met" if worst <= TARGET_MS else "MISSED"))
    return 0


if __name__ == "__main__":
    if sys.implementation.name == "circuitpython":
        _probe()
    else:
        sys.exit(_outer())
