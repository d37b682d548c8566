"""Builds the board's devices from its profile: the pad chips, the LED output, the display and
the watchdog. Hardware modules are imported here, inside build(), so the rest of the app
imports on a PC; the firmware never asks which board it runs on, only the profile.
"""

import sys


class NullDisplay:
    """The display calls the app makes, doing nothing: for tests of the game flow alone and
    as the reference of that interface."""

    def set_game(self, seating, state):
        pass  # a new seating (players x pits) and its state

    def set_state(self, state):
        pass  # show state at once (undo, menu values)

    def play(self, record, state):
        pass  # animate a move record, ending in state

    def refuse(self, pos):
        pass  # flash a position id briefly as refused

    def lift(self, pos):
        pass  # a touched legal pit goes dark before the engine plays it

    def finish(self):
        pass  # skip to the end of any animation

    def busy(self):
        return False  # an animation is showing

    def tick(self, now):
        pass  # advance animations and send a frame when due

    def settings(self, brightness, power_limit_ma, animation_ms):
        pass

    def countdown(self, seat, seconds_left):
        pass  # the move timer's last seconds on seat's store; None clears it

    def hint(self, pos):
        pass  # pulse a suggested pit until the next move; None clears it


def build(profile):
    """Returns (pads, display, wdt) for profile. pads.poll() gives a mask per chip in
    profile.pad_chips order; pads.irq is their IRQ line (drivers.irqline.IrqLine) when the
    profile wires one, else None; wdt is None where no watchdog should run."""
    import gc
    import machine
    gc.collect()
    from drivers.mpr121 import MPR121Group
    gc.collect()
    i2c = machine.I2C(profile.i2c_id, scl=machine.Pin(profile.scl),
                      sda=machine.Pin(profile.sda), freq=profile.i2c_freq)
    irq = None
    if profile.irq is not None:
        # The chips' IRQ outputs share the line; the Pico's own pull-up holds it high.
        from drivers.irqline import IrqLine
        irq = IrqLine(machine.Pin(profile.irq, machine.Pin.IN, machine.Pin.PULL_UP))
    pads = MPR121Group(i2c, profile.pad_chips, irq=irq)
    display = _display(profile)
    wdt = None
    if hasattr(machine, "WDT"):
        # 5 s: far above the longest loop pass (a flash save), far below a person's patience.
        wdt = machine.WDT(timeout=5000)
    return pads, display, wdt


# The RP2040's WATCHDOG CTRL register through its atomic bit-clear alias (+0x3000), and its
# ENABLE bit: clearing it pauses the watchdog (RP2040 datasheet, "Watchdog"; pico-sdk's
# watchdog_disable() does the same). machine.WDT has no way to stop it on rp2.
WATCHDOG_CTRL_CLEAR = 0x4005B000
WATCHDOG_ENABLE = 0x40000000


def pause_watchdog():
    """A host broke in with Ctrl-C (mpremote, to deploy or to look around): the game has
    stopped, so the watchdog it started must not reset the board under the REPL 5 s later.
    A reset (or soft reset) starts the game, and with it the watchdog, again. Only an RP2040
    has this register; elsewhere there is nothing to pause."""
    import machine
    if sys.platform == "rp2" and hasattr(machine, "mem32"):
        machine.mem32[WATCHDOG_CTRL_CLEAR] = WATCHDOG_ENABLE


def _ws2812():
    from drivers.ws2812 import WS2812
    return WS2812


def _display(profile, output=_ws2812):
    """The Display on the LED output class that output() imports (it is built from the
    profile's data pins and LED counts); a NullDisplay, said on the line, if that import
    fails. Shared by both editions' hardware layers."""
    try:
        from mancala_fw.display import Display
        leds_class = output()
    except ImportError as e:
        sys.stdout.write('{"event": "log", "level": "error", "message": "No LED display: %s."}\n'
                         % str(e).replace('"', "'"))
        return NullDisplay()
    pins = [pin for pin, _ in profile.chains]
    lengths = [leds for _, leds in profile.chains]
    leds = leds_class(pins, lengths)
    display = Display(profile, leds)
    return display
