"""Fake `machine` module for the virtual board (MicroPython unix port, also imports on CPython).

Put first on MICROPYPATH by the sim launcher. It models the rp2 port's machine module where
the firmware touches hardware:
- I2C / SoftI2C: one virtual bus carrying MPR121 register models (mpr121_model) at the
  addresses in MANCALA_SIM_CHIPS; an absent or unplugged chip raises OSError(EIO) exactly
  where machine.I2C on rp2 does;
- Pin: a GPIO with a level, no electrical effect;
- WDT: the rp2 limits (timeout up to 8388 ms); a late feed() is recorded in wdt_starved
  and reported on stderr, because a real board would have reset there;
- reset(), soft_reset(), unique_id(), freq(), reset_cause(), idle(), lightsleep(), ...
Everything the unix port's own machine module has is re-exported first.
"""
import sys

import mpr121_model
import simclock

try:
    from umachine import *  # noqa: F401,F403  the unix port's built-in machine (mem8, Signal, ...)
except ImportError:  # CPython
    pass

PWRON_RESET = 1
WDT_RESET = 3

_freq = 125000000
_irq_state = 1
wdt_starved = 0  # how many times the watchdog would have reset the board


class Pin:
    IN = 0
    OUT = 1
    OPEN_DRAIN = 2
    ALT = 3
    PULL_UP = 1
    PULL_DOWN = 2
    IRQ_FALLING = 4
    IRQ_RISING = 8

    def __init__(self, id, mode=-1, pull=-1, *, value=None, alt=-1):
        if not isinstance(id, (int, str)):
            raise TypeError("Pin id must be an int or a name")
        self._id = id
        self._mode = self.IN
        self._pull = None
        self._value = 0
        self._irq = None
        self.init(mode, pull, value=value)

    def init(self, mode=-1, pull=-1, *, value=None, alt=-1):
        if mode != -1:
            self._mode = mode
        if pull != -1:
            self._pull = pull
        if value is not None:
            self._value = 1 if value else 0
        elif pull == self.PULL_UP and self._mode == self.IN:
            self._value = 1

    def value(self, x=None):
        if x is None:
            return self._value
        self._value = 1 if x else 0

    def __call__(self, x=None):
        return self.value(x)

    def on(self):
        self._value = 1

    def off(self):
        self._value = 0

    high = on
    low = off

    def toggle(self):
        self._value ^= 1

    def irq(self, handler=None, trigger=IRQ_FALLING | IRQ_RISING, hard=False):
        self._irq = handler
        return None

    def __repr__(self):
        return "Pin(%r)" % (self._id,)


class I2C:
    """machine.I2C on the virtual bus. The id, pins and freq are accepted and kept."""

    def __init__(self, id=0, *, scl=None, sda=None, freq=400000, timeout=50000):
        self.id = id
        self.scl = scl
        self.sda = sda
        self.freq = freq
        self._bus = mpr121_model.bus()

    def init(self, *, scl=None, sda=None, freq=400000, timeout=50000):
        self.freq = freq

    def scan(self):
        self._bus.poll_feed()
        return self._bus.scan()

    def readfrom_mem_into(self, addr, memaddr, buf, *, addrsize=8):
        self._bus.poll_feed()
        self._bus.chip(addr).read_into(memaddr, buf)

    def readfrom_mem(self, addr, memaddr, nbytes, *, addrsize=8):
        buf = bytearray(nbytes)
        self.readfrom_mem_into(addr, memaddr, buf, addrsize=addrsize)
        return bytes(buf)

    def writeto_mem(self, addr, memaddr, buf, *, addrsize=8):
        self._bus.chip(addr).write(memaddr, buf)

    def writeto(self, addr, buf, stop=True):
        """First byte is the register pointer, the rest are data; returns the ACK count."""
        chip = self._bus.chip(addr)
        if len(buf) == 0:
            return 0
        if len(buf) == 1:
            chip.pointer = buf[0]
        else:
            chip.write(buf[0], memoryview(buf)[1:])
        return len(buf)

    def writevto(self, addr, vector, stop=True):
        data = bytearray()
        for b in vector:
            data.extend(b)
        return self.writeto(addr, data, stop)

    def readfrom_into(self, addr, buf, stop=True):
        self._bus.poll_feed()
        chip = self._bus.chip(addr)
        chip.read_into(chip.pointer, buf)

    def readfrom(self, addr, nbytes, stop=True):
        buf = bytearray(nbytes)
        self.readfrom_into(addr, buf, stop)
        return bytes(buf)


class SoftI2C(I2C):
    def __init__(self, scl=None, sda=None, *, freq=400000, timeout=50000):
        I2C.__init__(self, -1, scl=scl, sda=sda, freq=freq, timeout=timeout)


class WDT:
    MAX_MS = 8388  # the RP2040 watchdog counter limit

    def __init__(self, id=0, timeout=5000):
        if not 1 <= timeout <= self.MAX_MS:
            raise ValueError("WDT timeout must be 1..%d ms, got %r" % (self.MAX_MS, timeout))
        self.timeout = timeout
        self._fed = simclock.now_us()

    def feed(self):
        global wdt_starved
        late = simclock.elapsed_us(self._fed) // 1000
        if late > self.timeout:
            wdt_starved += 1
            sys.stderr.write(
                "virtual board: WDT not fed for %d ms (timeout %d ms); a real board would "
                "have reset\n" % (late, self.timeout)
            )
        self._fed = simclock.now_us()


def reset():
    """A hard reset ends the virtual board's process; the launcher may start it again."""
    sys.exit(0)


def reset_cause():
    return PWRON_RESET


def unique_id():
    return b"\xe6\x61\x38\x52\x83\x2f\x4d\x2a"  # 8 bytes like the RP2040's flash id


def freq(hz=None):
    global _freq
    if hz is None:
        return _freq
    _freq = hz


def idle():
    pass


def lightsleep(ms=None):
    import time

    if ms:
        time.sleep(ms / 1000)


deepsleep = lightsleep


def disable_irq():
    global _irq_state
    s = _irq_state
    _irq_state = 0
    return s


def enable_irq(state=1):
    global _irq_state
    _irq_state = state


def bootloader():
    sys.exit(0)


try:
    soft_reset  # noqa: B018  from umachine on the unix port
except NameError:

    def soft_reset():
        sys.exit(0)


# The LED fakes are loaded with the first hardware import, early in the boot while the heap
# is still empty, rather than in the middle of the firmware's own imports: compiling them from
# source needs far more transient heap than they keep (see docs/drivers.md, "Heap").
import rp2  # noqa: E402,F401
