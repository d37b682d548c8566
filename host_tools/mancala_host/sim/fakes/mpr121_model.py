"""Register model of the NXP MPR121 capacitive touch controller, for the virtual board.

The fake machine.I2C routes every transfer here, so the firmware's own MPR121 driver runs
unchanged. What the model holds the driver to (datasheet MPR121 rev 4):
- the register map 0x00-0x80; any other register is NAKed (OSError(EIO), as machine.I2C);
- configuration registers only take writes in stop mode (ECR ELE_EN = 0); in run mode the
  chip ignores them, and the model records a violation the tests assert on;
- touch status comes from (baseline - filtered data) against the touch and release
  thresholds the driver wrote, with the debounce counts, so wrong thresholds give wrong
  touches;
- response time follows the sampling the driver chose: a finger shows in the filtered data
  after SFI x ESI ms (64 ms at the reset default) plus the debounce samples;
- the IRQ output (`irq`, active low on the chip) is asserted when the touch status changes
  and released when the touch status registers are read.
Touches come from lines in the file named by MANCALA_SIM_TOUCH (see TouchFeed) or from the
in-process hook touch(); chips present are named by MANCALA_SIM_CHIPS (default 5a,5b,5c,5d).
"""
import os
import sys

import simclock
from touch_feed import TouchFeed

EIO = 5  # what machine.I2C raises on rp2 when a device or a byte is not acknowledged

REG_ECR = 0x5E
REG_DEBOUNCE = 0x5B
REG_CONFIG1 = 0x5C
REG_CONFIG2 = 0x5D
REG_AUTOCONFIG0 = 0x7B
REG_SOFT_RESET = 0x80
SOFT_RESET_KEY = 0x63
IDLE_COUNTS = 704  # filtered data of an untouched pad: near the autoconfig target for 3.3 V
TOUCH_COUNTS = 40  # how far a finger pulls the filtered data down
_SFI_SAMPLES = (4, 6, 10, 18)


class MPR121Model:
    """One MPR121 at one I2C address: registers, electrodes and a finger on each pad."""

    def __init__(self, address):
        self.address = address
        self.present = True
        self.regs = bytearray(0x80)
        self.violations = []  # human-readable notes of what a real chip would ignore
        self.finger = [False] * 12  # the physical state of each pad
        self.seen = [False] * 12  # the state the filters had settled on before the change
        self.delta = [TOUCH_COUNTS] * 12
        self.changed_us = [None] * 12  # when the finger last changed; None = long settled
        self.queue = []  # (electrode, on, delta) waiting for the previous change to settle
        self.pointer = 0  # register pointer for bare writeto/readfrom transfers
        self.listener = None  # listener(address, electrode, on, t_us) at each finger change
        self.irq = False  # the IRQ output asserted (the pin low)
        self.power_on_reset()

    # -- chip state ---------------------------------------------------------------------
    def power_on_reset(self):
        regs = self.regs
        for i in range(len(regs)):
            regs[i] = 0
        regs[REG_CONFIG1] = 0x10  # FFI 6 samples, CDC 16 uA
        regs[REG_CONFIG2] = 0x24  # CDT 0.5 us, SFI 4 samples, ESI 16 ms
        self.pointer = 0
        self.irq = False
        for e in range(12):
            self.seen[e] = self.finger[e]
            self.changed_us[e] = None

    def running(self):
        return self.regs[REG_ECR] & 0x3F != 0

    def _timing_ms(self):
        cfg2 = self.regs[REG_CONFIG2]
        esi = 1 << (cfg2 & 7)
        settle = _SFI_SAMPLES[(cfg2 >> 3) & 3] * esi
        deb = self.regs[REG_DEBOUNCE]
        return esi, settle, (deb & 7) * esi, ((deb >> 4) & 7) * esi

    def set_finger(self, electrode, on, delta=None, at_us=None):
        """Queue a finger change; it is applied once the previous change on that pad has been
        seen by a status read, so a quick tap written to the touch file is never lost.
        at_us: when the finger changed (a timed touch line that came due); default now."""
        if not 0 <= electrode < 12:
            raise ValueError("electrode must be 0..11, got %r" % (electrode,))
        self.queue.append((electrode, bool(on), TOUCH_COUNTS if delta is None else delta,
                           at_us))
        if not self.running():
            self._apply_queue(simclock.now_us(), True)

    def _apply_queue(self, now, all_now=False):
        if not self.queue:
            return
        _, settle, dt, dr = self._timing_ms() if not all_now else (0, 0, 0, 0)
        wait_ms = settle + (dt if dt > dr else dr)
        keep = []
        blocked = 0
        for item in self.queue:
            e = item[0]
            bit = 1 << e
            t = self.changed_us[e]
            if blocked & bit or (t is not None and simclock.elapsed_us(t) < wait_ms * 1000):
                blocked |= bit
                keep.append(item)
                continue
            # A timed line's finger landed when it came due, between two bus reads: the
            # filters start responding then (unless the pad's previous change had not settled
            # by that time, when it counts from now).
            when = item[3]
            if when is None or (t is not None and when - t < wait_ms * 1000):
                when = now
            self.seen[e] = self.finger[e]
            self.finger[e] = item[1]
            self.delta[e] = item[2]
            self.changed_us[e] = when
            blocked |= bit  # one change per pad per read
            if self.listener is not None:
                self.listener(self.address, e, item[1], when)
        self.queue = keep

    def _start_run(self):
        """Stop -> run: load the baseline as the CL bits say, run autoconfig if enabled."""
        regs = self.regs
        cl = regs[REG_ECR] >> 6
        for e in range(13):
            data = self._data(e, True)
            if cl == 2:
                regs[0x1E + e] = (data & 0x3E0) >> 2  # five high bits of the first sample
            elif cl == 3:
                regs[0x1E + e] = data >> 2
            regs[0x04 + 2 * e] = data & 0xFF
            regs[0x05 + 2 * e] = data >> 8
        for e in range(12):
            self.seen[e] = self.finger[e]
            self.changed_us[e] = None
        if regs[REG_AUTOCONFIG0] & 1:  # ACE: pick charge current and time per electrode
            for e in range(13):
                regs[0x5F + e] = 0x21
            for i in range(0x6C, 0x73):
                regs[i] = 0x22
            regs[0x02] = 0
            regs[0x03] = 0

    def _data(self, e, settled):
        if e >= 12:
            return IDLE_COUNTS  # ELEPROX
        f = self.finger[e] if settled else self.seen[e]
        return IDLE_COUNTS - (self.delta[e] if f else 0)

    def sample(self):
        """Bring status, filtered data and baseline registers up to the clock."""
        now = simclock.now_us()
        if not self.running():
            self._apply_queue(now, True)
            return
        regs = self.regs
        esi, settle, dt, dr = self._timing_ms()
        enabled = regs[REG_ECR] & 0x0F
        if enabled > 12:
            enabled = 12
        tracking = (regs[REG_ECR] >> 6) != 1
        status = regs[0] | (regs[1] & 0x0F) << 8
        for e in range(enabled):
            t = self.changed_us[e]
            ms = 1 << 20 if t is None else simclock.elapsed_us(t) // 1000
            data = self._data(e, ms >= settle)
            bit = 1 << e
            if tracking and not status & bit and data == IDLE_COUNTS:
                regs[0x1E + e] = data >> 2  # noise-free pad: the baseline follows exactly
            diff = (regs[0x1E + e] << 2) - data
            if not status & bit:
                if diff > regs[0x41 + 2 * e] and ms >= settle + dt:
                    status |= bit
            elif diff < regs[0x42 + 2 * e] and ms >= settle + dr:
                status &= ~bit
            regs[0x04 + 2 * e] = data & 0xFF
            regs[0x05 + 2 * e] = data >> 8
        status &= (1 << enabled) - 1
        if status != regs[0] | (regs[1] & 0x0F) << 8:
            self.irq = True
        regs[0] = status & 0xFF
        regs[1] = (regs[1] & 0xF0) | (status >> 8)
        # Only now the next queued change: this read has seen the previous one settle.
        self._apply_queue(now)

    # -- I2C side ------------------------------------------------------------------------
    def read_into(self, reg, buf):
        n = len(buf)
        if reg + n > 0x80:
            raise OSError(EIO)  # past the map (0x80 is write-only): NAK
        if reg < 0x2B:
            self.sample()
            if reg < 2:
                self.irq = False  # reading the touch status releases IRQ
        regs = self.regs
        for i in range(n):
            buf[i] = regs[reg + i]
        self.pointer = reg + n

    def write(self, reg, data):
        regs = self.regs
        for i in range(len(data)):
            r = reg + i
            b = data[i]
            if r > REG_SOFT_RESET:
                raise OSError(EIO)
            if r == REG_SOFT_RESET:
                if b == SOFT_RESET_KEY:
                    self.power_on_reset()
                    return
                continue
            if r == REG_ECR:
                was = self.running()
                regs[r] = b
                if b & 0x3F and not was:
                    self._start_run()
            elif 0x73 <= r <= 0x7A:
                regs[r] = b  # GPIO/LED registers may be written in any mode
            elif r < 0x1E:
                if r == 0x01:
                    regs[r] &= ~(b & 0x80)  # writing 1 clears the over-current flag
                else:
                    self.violations.append("write to read-only register 0x%02X" % r)
            elif self.running():
                self.violations.append("write to 0x%02X in run mode ignored" % r)
            else:
                regs[r] = b
        self.pointer = reg + len(data)

    def thresholds(self, e):
        return self.regs[0x41 + 2 * e], self.regs[0x42 + 2 * e]


class Bus:
    """The virtual I2C bus: MPR121 models by address plus the touch command feed."""

    def __init__(self, addresses, touch_path=None):
        self.chips = {}
        for a in addresses:
            self.chips[a] = MPR121Model(a)
        self.feed = TouchFeed(touch_path) if touch_path else None
        self.bad_lines = 0
        self.timed = []  # [due µs, line words] of timed lines not yet due, in file order

    def listen(self, listener):
        """Call listener(address, electrode, on, t_us) at each finger change a chip applies."""
        for c in self.chips.values():
            c.listener = listener

    def chip(self, addr):
        c = self.chips.get(addr)
        if c is None or not c.present:
            raise OSError(EIO)
        return c

    # The three bus transfers machine.I2C makes, here or in the device process (devices.py).
    # Reads and scans apply the touch commands written since the last one first, so a chip
    # unplugged in the touch file is gone from the very next scan.
    def scan(self):
        self.poll_feed()
        return sorted(a for a in self.chips if self.chips[a].present)

    def read(self, addr, reg, buf):
        """Read len(buf) bytes from register reg on."""
        self.poll_feed()
        self.chip(addr).read_into(reg, buf)

    def write(self, addr, reg, data):
        """Write data from register reg on; no data only sets the register pointer."""
        self.chip(addr).write(reg, data)

    def irq_line(self):
        """The chips' IRQ outputs wired together (open drain): True while any pulls it low.
        Brings each chip up to the clock first, as a chip samples on its own."""
        self.poll_feed()
        low = False
        for c in self.chips.values():
            if c.present:
                c.sample()
                low = low or c.irq
        return low

    def poll_feed(self):
        if self.feed is not None:
            lines = self.feed.read_lines()
            if lines:
                for line in lines:
                    self.command(line)
        if self.timed:
            self._due()

    def _due(self):
        # Timed lines apply in file order, each once its time has come; a line waits for the
        # ones before it, so "at" and "+" lines keep the order they were written in.
        timed = self.timed
        while timed and (timed[0][0] is None or simclock.elapsed_us(timed[0][0]) >= 0):
            due, words = timed.pop(0)
            self._apply(words, due)

    def command(self, line):
        """Apply one touch command line (str or bytes); a bad line is reported, not raised.
        A line may start with a time: "at T" (T µs on the models' clock: the emulated
        Pico's time since power-up) or "+D" (D µs after the line is read); it then waits
        until that time, and a finger it moves lands at that time."""
        try:
            if isinstance(line, bytes):
                line = line.decode()
            words = line.split()
            if not words or words[0].startswith("#"):
                return
            due = None
            if words[0] == "at" and len(words) > 1:
                due = int(words[1])
                words = words[2:]
            elif words[0].startswith("+"):
                due = simclock.now_us() + int(words[0][1:])
                words = words[1:]
            if due is not None or self.timed:
                if not self._valid(words):
                    raise ValueError(line)
                self.timed.append((due, words))  # an untimed line lands when applied
                self._due()
                return
            if self._apply(words, None):
                return
        except (KeyError, ValueError):  # UnicodeError is a ValueError
            pass
        self.bad_lines += 1
        sys.stderr.write("virtual board: ignored touch command %r\n" % line)

    def _valid(self, words):
        if len(words) != 3:
            return False
        if words[0] == "chip":
            return words[2] in ("on", "off") and int(words[1], 16) in self.chips
        return words[2] in ("0", "1") and int(words[0], 16) in self.chips and \
            0 <= int(words[1]) < 12

    def _apply(self, words, at_us):
        """Apply one untimed command's words; False if they are not a command."""
        if len(words) == 3:
            if words[0] == "chip" and words[2] in ("on", "off"):
                c = self.chips[int(words[1], 16)]
                if words[2] == "off":
                    c.present = False
                elif not c.present:
                    c.present = True
                    c.power_on_reset()  # a replugged chip comes back with reset registers
                return True
            if words[2] in ("0", "1"):
                self.chips[int(words[0], 16)].set_finger(int(words[1]), words[2] == "1",
                                                         at_us=at_us)
                return True
        return False


def _env_addresses():
    spec = os.getenv("MANCALA_SIM_CHIPS")
    if spec is None:
        spec = "5a,5b,5c,5d"
    out = []
    for part in spec.split(","):
        part = part.strip()
        if part:
            out.append(int(part, 16))
    return out


_bus = None


def bus():
    """The one virtual I2C bus of this process, built from the environment on first use."""
    global _bus
    if _bus is None:
        _bus = Bus(_env_addresses(), os.getenv("MANCALA_SIM_TOUCH"))
    return _bus


def reset_bus(addresses=None, touch_path=None):
    """For tests: a fresh bus with these chips (default: from the environment)."""
    global _bus
    _bus = Bus(_env_addresses() if addresses is None else addresses, touch_path)
    return _bus


def touch(addr, electrode, on=True, delta=None):
    """In-process hook for tests: put a finger on (or take it off) a pad.
    delta = how many counts the finger pulls the filtered data down (default TOUCH_COUNTS)."""
    bus().chips[addr].set_finger(electrode, on, delta)


def command(line):
    """In-process hook for tests: one line in the MANCALA_SIM_TOUCH format."""
    bus().command(line)
