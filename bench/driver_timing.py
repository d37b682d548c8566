"""Driver cost as RP2040 estimates: one MPR121 touched() poll and one WS2812 show() of 120 LEDs.

Run with CPython (make bench): it re-runs itself under the MicroPython unix port from .venv
with the virtual-board fakes on MICROPYPATH. Method (docs/architecture.md §10): time the driver
code here, time bench/calibration.py's add_test (the published benchmark function: 7984 ms
on a Pico at 125 MHz), scale by the ratio. Hardware time the CPU waits for (the I2C transfer) is computed
from the bus clock, not measured; the DMA's wire time does not hold the CPU at all.
Nothing here asserts a time.
"""
import os
import sys

PICO_LOOP_MS = 7984
LEDS = 120

if sys.implementation.name != "micropython":
    import subprocess

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ)
    env["MICROPYPATH"] = os.pathsep.join([
        os.path.join(root, "host_tools", "mancala_host", "sim", "fakes"),
        os.path.join(root, "firmware", "lib")])
    sys.exit(subprocess.call([os.path.join(root, ".venv", "bin", "micropython"),
                              os.path.abspath(__file__)], env=env))

_bench = __file__.rsplit("/", 1)[0] if "/" in __file__ else "."

import time  # noqa: E402

import machine  # noqa: E402  the fake: virtual bus with MPR121 models
from drivers.mpr121 import MPR121, MPR121Group  # noqa: E402
from drivers.ws2812 import WS2812  # noqa: E402


def calibration_ms():
    # bench/calibration.py's add_test (the published benchmark function), fastest of three
    ns = {}
    with open(_bench + "/calibration.py") as f:
        exec(f.read(), ns)
    return min(ns["calibrate"]() for _ in range(3))


def per_call_us(fn, n):
    best = None
    for _ in range(3):
        t = time.ticks_us()
        for i in range(n):
            fn()
        d = time.ticks_diff(time.ticks_us(), t) / n
        best = d if best is None or d < best else best
    return best


class WireI2C:
    """Stands in for the C machine.I2C so only the driver's own Python is timed; the wire
    time is added from the bus clock."""

    def readfrom_mem_into(self, addr, reg, buf):
        pass

    def writeto_mem(self, addr, reg, buf):
        pass


class IdleDMA:
    """Stands in for rp2.DMA (C on the board): configuring a channel is a few register writes."""

    def active(self, v=None):
        return False

    def config(self, read=None, write=None, count=None, ctrl=None, trigger=False):
        pass


def main():
    cal = calibration_ms()
    scale = PICO_LOOP_MS / cal
    print("calibration: add_test %.1f ms here, %d ms on a Pico -> x%.0f"
          % (cal, PICO_LOOP_MS, scale))

    # --- MPR121 ------------------------------------------------------------------------
    chip = MPR121(machine.I2C(0), 0x5A)
    sim_us = per_call_us(chip.touched, 2000)
    chip.i2c = WireI2C()
    drv_us = per_call_us(chip.touched, 5000) * scale
    # S addr+W reg Sr addr+R d0 d1 P: 5 bytes of 9 clocks plus start/stop, at 400 kHz
    bus_us = (5 * 9 + 3) / 400000 * 1e6
    print("MPR121.touched(): driver %.0f us + I2C transfer %.0f us (400 kHz) = %.2f ms "
          "per chip on an RP2040" % (drv_us, bus_us, (drv_us + bus_us) / 1000))
    group = MPR121Group(machine.I2C(0), (0x5A, 0x5B, 0x5C, 0x5D))
    for c in group.chips:
        c.i2c = WireI2C()
    grp_us = per_call_us(group.poll, 2000) * scale
    print("MPR121Group.poll() of 4 chips: driver %.0f us + I2C %.0f us = %.2f ms on an RP2040"
          % (grp_us, 4 * bus_us, (grp_us + 4 * bus_us) / 1000))
    print("  (virtual board only: fake I2C + register model cost %.0f us per touched() here)"
          % sim_us)

    # --- WS2812 --------------------------------------------------------------------------
    leds = WS2812(2, LEDS)
    leds.deinit()
    leds.pio = True
    leds._dma = [IdleDMA()]
    leds._sm = [None]
    leds._until = [time.ticks_add(time.ticks_ms(), -1000)]
    leds._wire_ms = [-1000]  # never busy: time only the CPU side of show()
    show_us = per_call_us(lambda: leds.show(0), 5000) * scale
    wire_ms = LEDS * 0.030 + 0.28
    print("WS2812.show() of %d LEDs (PIO + DMA): %.0f us of CPU on an RP2040; then %.1f ms "
          "on the wire with the CPU free" % (LEDS, show_us, wire_ms))
    print("  (neopixel fallback instead holds the CPU, interrupts off, for the %.1f ms)"
          % wire_ms)
    print("touched() + show() of %d LEDs: %.2f ms of CPU on an RP2040"
          % (LEDS, (drv_us + bus_us + show_us) / 1000))


main()
