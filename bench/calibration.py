"""The RP2040 calibration every unix-port estimate is scaled by (docs/architecture.md §10).

add_test below is the published benchmark function, exactly as it was timed on a Pico at
125 MHz with MicroPython v1.23: called as add_test([1000000, 12345678, 56781234]) it took
PICO_MS. A bench times it in the same MicroPython run as the code it measures, and scales:

    rp2040_ms = unix_ms * PICO_MS / calibrate()

The function must stay exactly as published: the loop variable and C are locals, and p's
items are read in the loop. A module-level loop, or an `x += 1` loop, is different work (the
unix port ran a module-level `x += 1` loop 1.2x slower than add_test, and the same loop in a
function about 1.7x faster), so neither can stand in for it.

This file runs under MicroPython (where the benches time things) and imports under CPython.
A bench that runs a script text under MicroPython puts source() at its top.
"""
try:
    from time import ticks_us, ticks_diff
except ImportError:  # CPython: only PICO_MS and source() are used there
    ticks_us = ticks_diff = None

PICO_MS = 7984.0  # add_test([1000000, 12345678, 56781234]), Pico @ 125 MHz, MicroPython v1.23
PASSES = 1000000


def add_test(p):
    for i in range(p[0]):
        C = p[1] + p[2]  # noqa: F841


def calibrate(passes=PASSES):
    """Milliseconds this interpreter takes for add_test, scaled to the published 10**6
    passes (a bench that calibrates often uses fewer: the time is linear in them)."""
    p = [passes, 12345678, 56781234]
    t = ticks_us()
    add_test(p)
    return ticks_diff(ticks_us(), t) * PASSES / passes / 1000


def to_pico_ms(ms, calibration_ms):
    return ms * PICO_MS / calibration_ms


def source():
    """This file's text, for a bench's MicroPython script to start with."""
    import os
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "calibration.py")) as f:
        return f.read()
