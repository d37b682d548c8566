"""MPR121 capacitive touch controller on machine.I2C (12 electrodes per chip).

MPR121 configures one chip for fast response (about 4 ms from finger to status bit instead
of the reset default of about 64 ms), with touch/release thresholds, baseline tracking and
autoconfiguration; docs/drivers.md explains every register value. Bus errors surface as
OSError, like machine.I2C. MPR121Group polls several chips, turns a bus error into "chip
unavailable" (mask None) and re-initialises the chip about once a second until it answers.
drivers.irqline.IrqLine watches the chips' shared IRQ output, so a loop can read them the
moment a pad changes instead of polling.

    i2c = machine.I2C(0, scl=machine.Pin(5), sda=machine.Pin(4), freq=400000)
    pads = MPR121Group(i2c, (0x5A, 0x5B))
    masks = pads.poll()          # [mask or None, ...], 12-bit masks, bit e = electrode e
"""
from mpcompat import const, ticks_ms, ticks_diff, ticks_add

_TOUCH_STATUS = const(0x00)
_FILTERED = const(0x04)  # 13 x (LSB, MSB), 10-bit
_BASELINE = const(0x1E)  # 13 x 8-bit, the upper 8 of 10 bits
_BASELINE_FILTER = const(0x2B)  # MHD/NHD/NCL/FDL rising, falling; NHD/NCL/FDL touched
_THRESHOLDS = const(0x41)  # (touch, release) x 12
_DEBOUNCE = const(0x5B)
_CONFIG1 = const(0x5C)
_CONFIG2 = const(0x5D)
_ECR = const(0x5E)
_AUTOCONFIG0 = const(0x7B)
_SOFT_RESET = const(0x80)

_CONFIG2_RESET = const(0x24)  # what 0x5D reads after a soft reset: proves it is an MPR121
_ENODEV = const(19)

# Rising: follow quickly; falling: very slowly, so an approaching hand is not learnt into the
# baseline; touched: never. Registers 0x2B..0x35 in order.
_FILTER_SETTINGS = b"\x01\x01\x00\x00\x01\x01\xff\x02\x00\x00\x00"
# 0x5B debounce DR=1 DT=0; 0x5C FFI=6 samples, CDC=16 uA; 0x5D CDT=0.5 us, SFI=4, ESI=1 ms.
_SAMPLING = b"\x10\x10\x20"
# 0x7B: FFI=6 (as 0x5C), RETRY off, BVA=10 (as ECR CL), ARE=1, ACE=1; 0x7C: no out-of-range
# or autoconfig interrupts (IRQ then falls only when the touch status changes);
# 0x7D..0x7F USL, LSL, TL for VDD = 3.3 V (AN3889: USL=(VDD-0.7)/VDD*256, LSL=.65, TL=.9).
_AUTOCONFIG = b"\x0b\x00\xc9\x83\xb5"


class MPR121:
    """One MPR121. Configures the chip on construction (raises OSError if it does not
    answer). touch/release: thresholds in counts for every electrode; electrodes: how many
    of ELE0..ELE11 to scan; autoconfig: let the chip pick charge current and time."""

    def __init__(self, i2c, address=0x5A, *, touch=12, release=6, electrodes=12,
                 autoconfig=True):
        if not 1 <= electrodes <= 12:
            raise ValueError("electrodes must be 1..12, got %r" % (electrodes,))
        self.i2c = i2c
        self.address = address
        self.autoconfig = autoconfig
        self._ecr = 0x80 | electrodes  # CL=10: baseline starts from the first sample
        self._one = bytearray(1)
        self._status = bytearray(2)
        self._pair = bytearray(2)
        self._thresholds = bytearray(24)
        self.data = bytearray(26)  # filled by read_data(): filtered data, LSB first
        self.base = bytearray(13)  # filled by read_data(): baseline >> 2
        self._fill_thresholds(touch, release, None)
        self.reset()

    # -- registers --------------------------------------------------------------------
    def _write(self, reg, value):
        self._one[0] = value
        self.i2c.writeto_mem(self.address, reg, self._one)

    def _read(self, reg):
        self.i2c.readfrom_mem_into(self.address, reg, self._one)
        return self._one[0]

    def _stop(self):
        # Every register except ECR and GPIO is written in stop mode only; the chip
        # ignores writes while it runs.
        self._write(_ECR, 0x00)

    def _run(self):
        self._write(_ECR, self._ecr)

    # -- set-up -------------------------------------------------------------------------
    def reset(self):
        """Soft reset, then the full configuration, ending in run mode."""
        i2c = self.i2c
        addr = self.address
        self._write(_SOFT_RESET, 0x63)
        if self._read(_CONFIG2) != _CONFIG2_RESET:
            raise OSError(_ENODEV)  # something answers here, but not an MPR121 after reset
        self._stop()
        i2c.writeto_mem(addr, _BASELINE_FILTER, _FILTER_SETTINGS)
        i2c.writeto_mem(addr, _THRESHOLDS, self._thresholds)
        i2c.writeto_mem(addr, _DEBOUNCE, _SAMPLING)
        if self.autoconfig:
            i2c.writeto_mem(addr, _AUTOCONFIG0, _AUTOCONFIG)
        self._run()

    def configured(self):
        """True while the chip is still in our run mode (a brown-out resets it to stop)."""
        return self._read(_ECR) == self._ecr

    def deinit(self):
        self._stop()

    # -- thresholds -----------------------------------------------------------------------
    def _fill_thresholds(self, touch, release, electrode):
        if not (0 <= release < touch <= 255):
            raise ValueError(
                "thresholds need 0 <= release < touch <= 255, got touch=%r release=%r"
                % (touch, release))
        t = self._thresholds
        for e in range(12) if electrode is None else (electrode,):
            t[2 * e] = touch
            t[2 * e + 1] = release

    def set_thresholds(self, touch, release, electrode=None):
        """Set touch/release thresholds (counts) for one electrode or, by default, all."""
        if electrode is not None and not 0 <= electrode < 12:
            raise ValueError("electrode must be 0..11, got %r" % (electrode,))
        self._fill_thresholds(touch, release, electrode)
        self._stop()
        self.i2c.writeto_mem(self.address, _THRESHOLDS, self._thresholds)
        self._run()

    def load_thresholds(self, pairs):
        """Set all 12 electrodes at once from ((touch, release), ...): one stop/write/run."""
        if len(pairs) != 12:
            raise ValueError("need 12 (touch, release) pairs, got %d" % len(pairs))
        for e in range(12):
            self._fill_thresholds(pairs[e][0], pairs[e][1], e)
        self._stop()
        self.i2c.writeto_mem(self.address, _THRESHOLDS, self._thresholds)
        self._run()

    def thresholds(self, electrode):
        """(touch, release) as last written for this electrode."""
        t = self._thresholds
        return t[2 * electrode], t[2 * electrode + 1]

    # -- reading ----------------------------------------------------------------------------
    def touched(self):
        """12-bit mask of touched electrodes (bit e = ELEe)."""
        s = self._status
        self.i2c.readfrom_mem_into(self.address, _TOUCH_STATUS, s)
        return (s[0] | s[1] << 8) & 0x0FFF

    def filtered(self, electrode):
        """Filtered data of one electrode, 10-bit counts (lower when touched)."""
        p = self._pair
        self.i2c.readfrom_mem_into(self.address, _FILTERED + 2 * electrode, p)
        return (p[0] | p[1] << 8) & 0x3FF

    def baseline(self, electrode):
        """Baseline of one electrode in the same 10-bit counts as filtered()."""
        return self._read(_BASELINE + electrode) << 2

    def read_data(self):
        """Bulk read for a diagnostic readout: fills self.data (13 x LSB,MSB filtered) and
        self.base (13 baselines >> 2) in two transfers."""
        self.i2c.readfrom_mem_into(self.address, _FILTERED, self.data)
        self.i2c.readfrom_mem_into(self.address, _BASELINE, self.base)


class MPR121Group:
    """Polls several MPR121s; a chip that fails is reported as None and retried.

    poll() returns the same list every time (no allocation): mask per chip, or None while
    that chip is unavailable. A failed chip is re-initialised every retry_ms; a working one
    is checked every check_ms for a silent reset (brown-out) and re-initialised if needed,
    one chip per poll in turn (a chip due while another is checked waits for a next poll).
    irq: the chips' IrqLine, or None where IRQ is not wired (then only polling finds a
    touch); poll() marks it taken. Extra keyword arguments go to MPR121()."""

    def __init__(self, i2c, addresses, *, retry_ms=1000, check_ms=1000, irq=None, **options):
        self.irq = irq
        self.i2c = i2c
        self.addresses = tuple(addresses)
        self.retry_ms = retry_ms
        self.check_ms = check_ms
        self.options = options
        n = len(self.addresses)
        self.chips = [None] * n  # type: list  # MPR121 objects, kept across failures (buffers stay)
        self.masks = [None] * n
        self.up = [False] * n
        self.failures = [0] * n  # bus errors seen per chip, for diagnostics
        now = ticks_ms()
        self._due = [now] * n  # next retry (when down) or next check (when up)
        self._turn = 0  # the chip whose check comes first when several are due
        for i in range(n):
            self._start(i, now)

    def _start(self, i, now):
        try:
            chip = self.chips[i]
            if chip is None:
                self.chips[i] = MPR121(self.i2c, self.addresses[i], **self.options)
            else:
                chip.reset()
            self.up[i] = True
            self._due[i] = ticks_add(now, self.check_ms)
        except OSError:
            self._fail(i, now)

    def _fail(self, i, now):
        self.up[i] = False
        self.masks[i] = None
        self.failures[i] += 1
        self._due[i] = ticks_add(now, self.retry_ms)

    def available(self, i):
        return self.up[i]

    def poll(self):
        now = ticks_ms()
        if self.irq is not None:
            self.irq.taken(now)  # before the reads: a change during them is a new edge
        masks = self.masks
        up = self.up
        due = self._due
        n = len(masks)
        # One working chip at most is checked per poll, taking turns: the chips' check
        # times start together, and each extra read delays the touches this poll reports.
        check = -1
        for k in range(n):
            i = (self._turn + k) % n
            if up[i] and ticks_diff(now, due[i]) >= 0:
                check = i
                self._turn = i + 1
                break
        for i in range(n):
            if not up[i]:
                if ticks_diff(now, due[i]) < 0:
                    continue
                self._start(i, now)
                if not up[i]:
                    continue
            chip = self.chips[i]
            try:
                if i == check:
                    due[i] = ticks_add(now, self.check_ms)
                    if not chip.configured():
                        chip.reset()
                masks[i] = chip.touched()
            except OSError:
                self._fail(i, now)
        return masks
