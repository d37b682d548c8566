"""Fake `machine` module for the virtual board (MicroPython unix port, also imports on CPython).

Put first on MICROPYPATH by the sim launcher. It models the rp2 port's machine module where
the firmware touches hardware, and no more: every def and class here costs the firmware's
heap, which on a Pico `machine` (C code) does not.
- I2C: the virtual bus. Its MPR121 register models (mpr121_model) live in the device process
  (sim/devices.py) when MANCALA_SIM_BUS names the two pipe fds to it, as the chips sit outside
  a Pico; otherwise (in-process tests) in this process. An absent or unplugged chip, or a
  device process that is gone, raises OSError(EIO) exactly where machine.I2C on rp2 does.
- Pin: a GPIO with a level (high with a pull-up), no electrical effect; except the pin MANCALA_SIM_IRQ names (the
  launcher sets it from the profile's i2c.irq): its level is the MPR121 models' shared IRQ
  line, sampled whenever the firmware reads it, and a falling edge seen there calls the
  handler given to irq(), as the pin's interrupt would.
- WDT: the rp2 limits (timeout up to 8388 ms); a late feed() is recorded in wdt_starved
  and reported on stderr, because a real board would have reset there.
- unique_id(): the chip's 8 bytes, as the rp2 port's (the flash chip's id). Each virtual
  flash folder is one board: its id is drawn once and kept in the folder's .unique_id, beside
  the firmware's files, so it survives power cuts and whatever the firmware saves or removes.
- reset(); the unix port's own machine module (idle, mem8, Signal, soft_reset, ...) is
  re-exported first.
"""
import os
import sys

import simclock

try:
    from umachine import *  # noqa: F401,F403  the unix port's built-in machine
except ImportError:  # CPython
    pass

EIO = 5
wdt_starved = 0  # how many times the watchdog would have reset the board
_bus = None


_IRQ_PIN = int(os.getenv("MANCALA_SIM_IRQ") or -1)


class Pin:
    IN = 0
    OUT = 1
    OPEN_DRAIN = 2
    PULL_UP = 1
    PULL_DOWN = 2
    IRQ_FALLING = 4
    IRQ_RISING = 8

    def __init__(self, id, mode=-1, pull=-1, *, value=None):
        self._id = id
        # An input with a pull-up reads high until something pulls it low.
        self._value = 1 if value or pull == 1 or id == _IRQ_PIN else 0
        self._handler = None

    def value(self, x=None):
        if x is None:
            if self._id == _IRQ_PIN:
                was = self._value
                try:
                    self._value = 0 if _the_bus().irq_line() else 1
                except OSError:  # the chips' power is gone: the pull-up holds the line high
                    self._value = 1
                if was and not self._value and self._handler is not None:
                    self._handler(self)
            return self._value
        self._value = 1 if x else 0

    def irq(self, handler=None, trigger=IRQ_FALLING, hard=False):
        self._handler = handler


class _Wire:
    """The bus as pipes to the device process: a 4-byte request (op, address, register,
    count), the data of a write, then a status byte (0 or an errno) and the data of a read.
    All buffers are made once: the firmware polls a chip every few milliseconds."""

    def __init__(self, spec):
        rx, tx = spec.split(",")
        self.rx = open(int(rx), "rb", 0)
        self.tx = open(int(tx), "wb", 0)  # unbuffered: each request leaves at once
        self.head = bytearray(4)
        self.one = bytearray(1)
        self.line = bytearray(1)
        self.broken = False

    def _call(self, op, addr, reg, data, buf):
        n = len(buf if data is None else data)
        if n > 255 or self.broken:
            raise OSError(EIO)  # past any register map; or the line is out of step
        h = self.head
        h[0] = op
        h[1] = addr
        h[2] = reg
        h[3] = n
        self.broken = True  # until the whole answer is in: an exception between leaves
        try:  # the line out of step (its answer unread), and later transfers fail cleanly
            self.tx.write(h)
            if data:
                self.tx.write(data)
            if self.rx.readinto(self.one) != 1:
                raise OSError(EIO)
            if self.one[0] == 0 and buf is not None and self.rx.readinto(buf) != len(buf):
                raise OSError(EIO)  # pipe reads of a few bytes come whole; short = cut
        except OSError:
            raise OSError(EIO)  # the device process is gone: nothing acknowledges
        self.broken = False
        if self.one[0]:
            raise OSError(self.one[0])

    def read(self, addr, reg, buf):
        self._call(114, addr, reg, None, buf)  # "r"

    def write(self, addr, reg, data):
        self._call(119, addr, reg, data, None)  # "w"

    def irq_line(self):
        self._call(105, 0, 0, None, self.line)  # "i": 1 while a chip pulls the line low
        return self.line[0] == 1

    def scan(self):
        found = bytearray(8)
        self._call(115, 0, 0, None, found)  # "s": eight slots, 0 = empty
        return [a for a in found if a]


def _the_bus():
    global _bus
    if _bus is None:
        spec = os.getenv("MANCALA_SIM_BUS")
        if not spec:
            import mpr121_model

            return mpr121_model.bus()  # asked each time: a test may build a fresh bus
        _bus = _Wire(spec)
    return _bus


class I2C:
    """machine.I2C on the virtual bus: the transfers the firmware makes. The id, pins and
    freq are accepted, as on rp2."""

    def __init__(self, id=0, *, scl=None, sda=None, freq=400000, timeout=50000):
        bus = _the_bus()
        # The bus's own methods rather than wrappers: every def here is the board's heap.
        self.readfrom_mem_into = bus.read
        self.writeto_mem = bus.write
        self.scan = bus.scan

    def readfrom_mem(self, addr, memaddr, nbytes):
        buf = bytearray(nbytes)
        self.readfrom_mem_into(addr, memaddr, buf)
        return bytes(buf)


class WDT:
    def __init__(self, id=0, timeout=5000):
        if not 1 <= timeout <= 8388:  # the RP2040 watchdog counter limit
            raise ValueError("WDT timeout must be 1..8388 ms, got %r" % (timeout,))
        self.timeout = timeout
        self._fed = simclock.now_us()

    def feed(self):
        global wdt_starved
        late = simclock.elapsed_us(self._fed) // 1000
        if late > self.timeout:
            wdt_starved += 1
            sys.stderr.write("virtual board: WDT not fed for %d ms (timeout %d ms); a real "
                             "board would have reset\n" % (late, self.timeout))
        self._fed = simclock.now_us()


UNIQUE_ID_FILE = ".unique_id"  # in the flash folder (the board's working directory)


def unique_id():
    try:
        with open(UNIQUE_ID_FILE, "rb") as f:
            uid = f.read()
        if len(uid) == 8:
            return uid
    except OSError:
        pass
    uid = os.urandom(8)  # a new board: a chip of its own
    with open(UNIQUE_ID_FILE + ".tmp", "wb") as f:
        f.write(uid)
    os.rename(UNIQUE_ID_FILE + ".tmp", UNIQUE_ID_FILE)
    return uid


def reset():
    """A hard reset ends the virtual board's process; the launcher may start it again."""
    sys.exit(0)


# The LED fakes are loaded with the first hardware import, early in the boot while the heap
# is still empty, rather than in the middle of the firmware's own imports: compiling them from
# source needs far more transient heap than they keep (see docs/drivers.md, "Heap").
import rp2  # noqa: E402,F401
