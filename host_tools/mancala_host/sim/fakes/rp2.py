"""Fake `rp2` module for the virtual board: PIO assembler, StateMachine and DMA.

- asm_pio assembles a program into real PIO instruction words (pio_asm).
- StateMachine keeps its clock, side-set pin and shift configuration. When it is started,
  its program is run on a test bit pattern and the side-set waveform at the machine's clock
  is checked against the WS2812 timing (period 1.25 us, T0H, T1H); a mismatch goes to
  `violations` and stderr.
- DMA moves data like the RP2040 channel: narrow transfers are replicated across the 32-bit
  bus, the state machine shifts `pull_thresh` bits out of each FIFO word in its shift
  direction, and the bits become the bytes on the wire. A transfer into a state machine is
  captured as a frame (frame_capture) for the state machine's side-set pin when it is
  triggered. The channel keeps the CRC-32 of its source, not a copy (the bytes are the
  firmware's buffer, and a copy would cost heap that a Pico does not spend): if the source
  changes while the transfer is still on the wire (simclock), that is counted in
  `torn_frames`, because the real DMA would have sent the changed bytes.

Only what the firmware uses is here: a method the fake does not model is missing, so a
firmware that starts using it fails in the sim instead of silently doing nothing.

On a Pico all of this is C and frozen code that costs no heap; here the fakes share the
firmware's heap, so this module keeps only the frame path. What runs once or rarely (the
assembler and the timing check: pio_asm; control-register packing and the shifter for
transfers other than the WS2812 driver's bytes: rp2_dma) is loaded for the call and dropped
again (_once), so the GC frees its code.
"""
import sys
from binascii import crc32

import frame_capture
import simclock

violations = []  # what real hardware would do differently; tests assert this stays empty
torn_frames = 0
# PIOASMError is pio_asm's: a firmware cannot recover from a program that does not assemble.


def _once(name):
    """Module `name` for one use: nothing keeps it afterwards (it loads again next time)."""
    m = __import__(name)
    sys.modules.pop(name, None)
    return m


def _violation(text):
    violations.append(text)
    sys.stderr.write("virtual board: rp2: %s\n" % text)


def asm_pio(**kw):
    return _once("pio_asm").asm_pio(**kw)


class PIO:
    OUT_LOW = 0
    SHIFT_LEFT = 0
    JOIN_TX = 1

    def __init__(self, id):
        if id not in (0, 1):
            raise ValueError("PIO id must be 0 or 1, got %r" % (id,))
        self.id = id

    def remove_program(self, program=None):
        pass  # instruction memory is not modelled


class StateMachine:
    # Defaults as class attributes: an instance dict holds only what init() sets.
    program = None
    running = False
    freq = 125000000
    pin = None
    shiftctrl = 0  # the program's SHIFTCTRL with init()'s overrides (pull_thresh 32 = 0)
    ns_per_bit = 1250  # 0: started since init() without the timing check

    def __init__(self, id, program=None, *args, **kw):
        if not 0 <= id < 8:
            raise ValueError("StateMachine id must be 0..7, got %r" % (id,))
        self.id = id
        if program is not None:
            self.init(program, *args, **kw)

    def init(self, program, freq=-1, **kw):
        _once("pio_asm").configure(self, program, freq, kw)

    def active(self, value=None):
        if value is None:
            return self.running
        self.running = bool(value)
        if value and not self.ns_per_bit:
            _once("pio_asm").check_ws2812(self)

    def tx_fifo(self):
        return 0  # the DMA below hands a frame to the wire whole: nothing waits in the FIFO


_claimed = [None] * 12  # the DMA object holding each channel


class DMA:
    # Defaults as class attributes: an instance dict holds only what has been set.
    read = 0
    write = 0
    count = 0
    _src = None  # the bytes the transfer on the wire reads; None once a tear is counted
    _crc = 0  # their CRC-32 when the transfer was triggered
    _end = None  # simclock time the frame is off the wire; None = idle
    cut_frames = 0  # transfers aborted while on the wire (active(0)), for tests

    def __init__(self):
        for ch in range(12):
            if _claimed[ch] is None:
                _claimed[ch] = self
                self.channel = ch
                # pack_ctrl()'s default: enable, 32-bit, inc_read, inc_write, chain_to itself
                # (no chaining), unpaced (TREQ 0x3F), irq_quiet
                self.ctrl = 0x3F8039 | ch << 11
                return
        raise OSError(16)  # EBUSY: all 12 channels claimed

    def pack_ctrl(self, default=None, **kw):
        return _once("rp2_dma").pack_ctrl(self.channel, default, kw)

    @staticmethod
    def unpack_ctrl(value):
        return _once("rp2_dma").unpack_ctrl(value)

    def close(self):
        self.active()
        if _claimed[self.channel] is self:
            _claimed[self.channel] = None

    def active(self, value=None):
        if value:
            self.config(trigger=True)
            return
        if value is not None:
            # Abort: the frame stops (the capture keeps it whole: a cut frame's LEDs are not
            # modelled here; the emulated Pico decodes them from the pin).
            self.cut_frames += 1 if self.active() else 0
            self._end = None
            self._src = None
            return False
        if self._end is None:
            return False
        if simclock.elapsed_us(self._end) < 0:
            if self._src is not None and crc32(self._src) != self._crc:
                _once("rp2_dma").fault(self, 4)  # counted once: it clears _src
            return True
        self._end = None
        self._src = None
        return False

    def config(self, read=None, write=None, count=None, ctrl=None, trigger=False):
        self.active()  # a transfer that has ended completes first
        if read is not None:
            self.read = read
        if write is not None:
            self.write = write
        if count is not None:
            self.count = count
        if ctrl is not None:
            self.ctrl = ctrl
        if not trigger:
            return
        # Control fields read straight from the register bits: nothing allocated per frame.
        ctrl = self.ctrl
        unit = 1 << ((ctrl >> 2) & 3)
        nbytes = self.count * unit
        src = self.read
        dst = self.write
        if len(src) < nbytes:
            return _once("rp2_dma").fault(self, 0)
        if len(src) != nbytes:
            src = memoryview(src)[:nbytes]  # (not the WS2812 driver's case: allocates)
        if not isinstance(dst, StateMachine):
            memoryview(dst)[:nbytes] = src  # memory to memory (not on the LED path)
            return
        sm = dst.id
        if (ctrl >> 15) & 0x3F != (sm >> 2) << 3 | (sm & 3):  # the TX FIFO's DREQ
            return _once("rp2_dma").fault(self, 1)
        if (ctrl >> 5) & 1:
            return _once("rp2_dma").fault(self, 2)  # inc_write into a FIFO
        if not dst.running:
            return _once("rp2_dma").fault(self, 3)
        if unit == 1 and dst.shiftctrl & 0x3E080000 == 8 << 25:
            wire = src  # the WS2812 driver's case: pull_thresh 8, shifting left, bytes out
        else:
            wire = _once("rp2_dma").wire_bytes(dst, src, unit, (ctrl >> 22) & 1)
        # stable: the source stays as it is until the next transfer, or a tear is reported
        frame_capture.emit(dst.pin, wire, True)
        self._src = src
        self._crc = crc32(src)
        self._end = simclock.now_us() + len(wire) * 8 * dst.ns_per_bit // 1000
