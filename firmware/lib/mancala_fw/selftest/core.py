"""The self-test proper: I2C scan, LED walk, live pad readout, calibration sampling.

Imported only when the self-test is first used (selftest.Bringup builds it), so a board that
is just playing keeps this heap. Knows the board only through its profile; Mancala's rules
play no part.

    st = SelfTest(profile, pads, leds, on_stop=redraw)  # pads: MPR121Group, leds: WS2812
    st.scan()        -> [sentence per missing chip]  ("pad controller 0x5B not found: ...")
    st.start(now)    -> self-test mode with the walk stepping by itself
    st.step(now)     -> walks the rings / samples the calibration; never blocks
    st.show_step(n)  -> lights walk step n at once (the host drives the walk this way)
    st.readout()     -> (filtered, baseline) lists per position, refilled in place
    st.stop()        -> LEDs dark, self-test mode off, on_stop() so the app repaints

docs/hardware.md describes the walk pattern and the diag command.
"""
from mpcompat import ticks_diff, ticks_add

from mancala_fw.selftest import walk
from mancala_fw.selftest.calibration import Calibration

ADDR_PIN = {0x5A: "GND", 0x5B: "3.3V (VCC)", 0x5C: "SDA", 0x5D: "SCL"}
SAMPLE_MS = 20  # readout period while calibrating: faster than a finger, slower than the chip


def missing_sentence(addr, sda, scl, found):
    text = ("pad controller 0x%02X not found: check its ADDR wiring (ADDR to %s) and SDA/SCL "
            "(GP%d/GP%d)" % (addr, ADDR_PIN.get(addr, "?"), sda, scl))
    if found:
        text += "; the bus has %s" % ", ".join("0x%02X" % a for a in found)
    return text


class SelfTest:
    def __init__(self, profile, pads, leds, i2c=None, calibration_path="calibration.json",
                 on_stop=None):
        # on_stop(): called when the self-test ends, so the app repaints its display.
        self.profile = profile
        self.on_stop = on_stop
        self.pads = pads
        self.leds = leds
        self.i2c = i2c if i2c is not None else pads.i2c
        self.calibration_path = calibration_path
        self.order = walk.walk_order(profile)
        self.level = walk.level_for(profile, self.order)
        n = len(profile.positions)
        self.filtered = [None] * n
        self.baseline = [None] * n
        self.touched = [False] * n
        # position index -> (chip index, electrode), so readout() does no lookups by id
        self._where = []
        for pid in profile.positions:
            addr, e = profile.pad[pid]
            self._where.append((profile.pad_chips.index(addr), e))
        self._ok = [False] * len(profile.pad_chips)
        self._mask = [0] * len(profile.pad_chips)
        self.cal = Calibration(n)
        self.active = False
        self.auto = False      # the walk advances by itself (board-alone mode)
        self.period_ms = 1500
        self.step_index = -1   # the walk step shown, -1 = none
        self._next = 0
        self._cal_end = 0
        self._cal_next = 0

    # -- scan ----------------------------------------------------------------------------
    def scan(self):
        """One sentence per pad controller of the profile that does not answer on the bus."""
        p = self.profile
        try:
            found = self.i2c.scan()
        except OSError:
            found = []
        missing = []
        for addr in p.pad_chips:
            if addr not in found:
                missing.append(missing_sentence(addr, p.sda, p.scl, found))
        return missing

    def found(self):
        try:
            return self.i2c.scan()
        except OSError:
            return []

    # -- readout -------------------------------------------------------------------------
    def readout(self):
        """Fills and returns (filtered, baseline), per position in loop order, in counts;
        None where the pad's chip does not answer. Also fills self.touched."""
        pads = self.pads
        chips = pads.chips
        ok = self._ok
        mask = self._mask
        for i in range(len(chips)):
            ok[i] = False
            chip = chips[i]
            if chip is None or not pads.up[i]:
                continue
            try:
                chip.read_data()
                mask[i] = chip.touched()
                ok[i] = True
            except OSError:
                pass
        filtered = self.filtered
        baseline = self.baseline
        touched = self.touched
        where = self._where
        for k in range(len(where)):
            ci, e = where[k]
            if not ok[ci]:
                filtered[k] = None
                baseline[k] = None
                touched[k] = False
                continue
            chip = chips[ci]
            d = chip.data
            filtered[k] = (d[2 * e] | d[2 * e + 1] << 8) & 0x3FF
            baseline[k] = chip.base[e] << 2
            touched[k] = bool(mask[ci] & (1 << e))
        return filtered, baseline

    # -- LEDs ----------------------------------------------------------------------------
    def _clear(self):
        leds = self.leds
        for c in range(len(self.profile.chains)):
            buf = leds.buffer(c)
            for i in range(len(buf)):
                buf[i] = 0

    def _show(self):
        for c in range(len(self.profile.chains)):
            self.leds.show(c)

    def show_step(self, n):
        """Light walk step n (0 .. steps-1) and nothing else; returns its description dict."""
        if not 0 <= n < len(self.order):
            raise ValueError("walk step must be 0-%d, got %s" % (len(self.order) - 1, n))
        self.active = True
        self.step_index = n
        self._clear()
        buffers = [self.leds.buffer(c) for c in range(len(self.profile.chains))]
        walk.paint_step(buffers, self.order[n], self.level)
        self._show()
        return self.step_info(n)

    def step_info(self, n):
        entry = self.order[n]
        pid, chain, k, start, leds = entry
        pin = self.profile.chains[chain][0]
        return {"step": n, "steps": len(self.order), "pad": pid, "chain": chain, "pin": pin,
                "index": k, "start": start, "leds": leds, "shows": walk.lit_count(k, leds),
                "colour": walk.CHAIN_NAMES[chain % len(walk.CHAIN_NAMES)],
                "see": walk.describe(entry, pin)}

    def dark(self):
        self._clear()
        self._show()

    # -- modes ---------------------------------------------------------------------------
    def start(self, now, period_ms=None):
        """Self-test mode with the walk advancing by itself (board alone, or the host's
        "walk" without a step)."""
        if period_ms:
            self.period_ms = period_ms
        self.active = True
        self.auto = True
        self.show_step(0)
        self._next = ticks_add(now, self.period_ms)

    def stop(self):
        self.auto = False
        self.cal.phase = None
        self.step_index = -1
        self.dark()
        self.active = False
        if self.on_stop is not None:
            self.on_stop()

    def calibrate(self, phase, now, ms):
        """Start collecting a calibration phase ("idle" or a position index) for ms."""
        self.active = True
        self.auto = False
        self.cal.phase = phase
        self._cal_end = ticks_add(now, ms)
        self._cal_next = now

    def collecting(self):
        return self.cal.phase is not None

    def step(self, now):
        """Call from the main loop while self.active; returns True when something changed."""
        changed = False
        if self.cal.phase is not None and ticks_diff(now, self._cal_next) >= 0:
            self._cal_next = ticks_add(now, SAMPLE_MS)
            f, b = self.readout()
            self.cal.sample(f, b)
            if ticks_diff(now, self._cal_end) >= 0:
                self.cal.phase = None
                changed = True
        if self.auto and ticks_diff(now, self._next) >= 0:
            self._next = ticks_add(now, self.period_ms)
            self.show_step((self.step_index + 1) % len(self.order))
            changed = True
        return changed
