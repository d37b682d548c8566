"""The RP2040 calibration loop shared by every bench.

DESIGN.md: a 10^6-pass `for` loop doing one integer add takes about 7984 ms on a Pico at
125 MHz (MicroPython v1.23). That figure is for the loop at module level, where the loop
variable and the sum are globals: run that way, the unix port here is 70-100 times faster
than a Pico, as DESIGN.md says. (Inside a function the same loop runs about 1.6 times faster
on the unix port, which would make every estimate that much too pessimistic.)

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
