"""The RP2040 calibration loop shared by every bench.

A 10^6-pass `for` loop doing one integer add is taken to take 7984 ms on a Pico at 125 MHz:
the published MicroPython v1.23 time of `add_test` (docs/architecture.md §10). The loop here
runs at module level, where the loop variable and the sum are globals; inside a function the
unix port runs it about 1.6 times faster. It is not add_test itself, which the unix port runs
about 1.2 times faster than this loop (docs/architecture.md §10), so the estimates come out
about that much low.

So the loop runs through exec() with a fresh globals dict: module-level bytecode, whichever
module calls it.
"""
import time

PICO_LOOP_MS = 7984.0

_LOOP = "t = ticks_ms()\nx = 0\nfor i in range(1000000):\n    x += 1\nd = ticks_diff(ticks_ms(), t)\n"


def calibrate():
    """Milliseconds this interpreter takes for the calibration loop."""
    g = {"ticks_ms": time.ticks_ms, "ticks_diff": time.ticks_diff}
    exec(_LOOP, g)
    return g["d"]


def to_pico_ms(ms, calibration_ms):
    return ms * PICO_LOOP_MS / calibration_ms
