"""Fake `rp2` module for the virtual board: PIO assembler, StateMachine and DMA.

- asm_pio (pio_asm.py) assembles a program into real PIO instruction words. A small
  interpreter runs the program on a test bit pattern and records its side-set waveform in
  PIO cycles. pio_asm is loaded for that and dropped again: on a Pico the assembler is
  frozen code that costs no heap, and here the fakes share the firmware's heap.
- StateMachine keeps its shift configuration. When a program is started, its waveform at the
  machine's clock is checked against the WS2812 timing (period 1.25 us, T0H, T1H); a
  mismatch goes to `violations` and stderr.
- DMA moves data like the RP2040 channel: narrow transfers are replicated across the 32-bit
  bus, the state machine shifts `pull_thresh` bits out of each FIFO word in its shift
  direction, and the bits become the bytes on the wire. A completed transfer into a state
  machine is captured as a frame (frame_capture) for the state machine's side-set pin.
  The bytes are read when the transfer is triggered; if the source buffer changes while the
  transfer is still on the wire (simclock), that is counted in `torn_frames`, because the
  real DMA would have sent the changed bytes.
"""
import sys

violations = []  # what real hardware would do differently; tests assert this stays empty
torn_frames = 0


class PIOASMError(Exception):
    pass


_waves = []  # (program, waveform in PIO cycles or None) for each program assembled here


_asm = None  # pio_asm, loaded with this module (see the end) until its first use


def _pio_asm():
    """The assembler module for one use; afterwards nothing keeps it, so the GC frees its
    code (a later assembly loads it again)."""
    global _asm
    asm = _asm
    _asm = None
    if asm is None:
        import pio_asm as asm
    sys.modules.pop("pio_asm", None)
    return asm


def _cycles(asm, prog):
    try:
        return asm.bit_timing(prog, 1000000000)  # 1 ns per cycle: times in cycles
    except (IndexError, TypeError, ValueError):
        return None  # not a program the interpreter can run: "does not drive a pin"


def asm_pio(**kw):
    def assemble(f):
        asm = _pio_asm()
        prog = asm.asm_pio(**kw)(f)
        _waves.append((prog, _cycles(asm, prog)))
        return prog

    return assemble


def _waveform(prog):
    for p, w in _waves:
        if p is prog:
            return w
    return _cycles(_pio_asm(), prog)  # a program built by hand


def _violation(text):
    violations.append(text)
    sys.stderr.write("virtual board: rp2: %s\n" % text)


class PIO:
    OUT_LOW = 0
    OUT_HIGH = 1
    IN_LOW = 0
    IN_HIGH = 1
    SHIFT_LEFT = 0
    SHIFT_RIGHT = 1
    JOIN_NONE = 0
    JOIN_TX = 1
    JOIN_RX = 2
    IRQ_SM0 = 0x100
    IRQ_SM1 = 0x200
    IRQ_SM2 = 0x400
    IRQ_SM3 = 0x800

    def __init__(self, id):
        if id not in (0, 1):
            raise ValueError("PIO id must be 0 or 1, got %r" % (id,))
        self.id = id

    def state_machine(self, id, program=None, **kw):
        return StateMachine(self.id * 4 + id, program, **kw)

    def add_program(self, program):
        pass

    def remove_program(self, program=None):
        pass

    def irq(self, handler=None, trigger=0, hard=False):
        return None


class StateMachine:
    def __init__(self, id, program=None, **kw):
        if not 0 <= id < 8:
            raise ValueError("StateMachine id must be 0..7, got %r" % (id,))
        self.id = id
        self.program = None
        self.running = False
        self.freq = 125000000
        self.pin = None
        self.ns_per_bit = 1250
        self.dreq_tx = (id >> 2) << 3 | (id & 3)  # DREQ number of this machine's TX FIFO
        if program is not None:
            self.init(program, **kw)

    def init(self, program, freq=-1, *, in_base=None, out_base=None, set_base=None,
             jmp_pin=None, sideset_base=None, in_shiftdir=None, out_shiftdir=None,
             push_thresh=None, pull_thresh=None):
        self.program = program
        shiftctrl = program[4]
        self.pull_thresh = (shiftctrl >> 25) & 31 or 32
        self.out_shiftdir = (shiftctrl >> 19) & 1
        self.autopull = (shiftctrl >> 17) & 1
        if pull_thresh is not None:
            self.pull_thresh = pull_thresh
        if out_shiftdir is not None:
            self.out_shiftdir = out_shiftdir
        if freq > 0:
            self.freq = freq
        if sideset_base is not None:
            self.pin = getattr(sideset_base, "_id", sideset_base)
        self.checked = False

    def _check_ws2812(self):
        self.checked = True
        t = _waveform(self.program)
        if t is None:
            _violation("state machine %d: program does not drive a side-set pin" % self.id)
            return
        ns = 1000000000 // self.freq
        high0 = [c * ns for c in t[0]]
        high1 = [c * ns for c in t[1]]
        periods = [c * ns for c in t[2]]
        if not self.autopull:
            _violation("state machine %d: ws2812 program needs autopull" % self.id)
        if not all(200 <= h <= 550 for h in high0) or not all(650 <= h <= 1000 for h in high1):
            _violation("state machine %d: T0H %s / T1H %s ns out of WS2812 range"
                       % (self.id, high0[:1], high1[:1]))
        if not all(1100 <= p <= 1400 for p in periods):
            _violation("state machine %d: bit period %s ns, WS2812 needs 1250 +- 150"
                       % (self.id, periods[:1]))
        self.ns_per_bit = sum(periods) // len(periods) if periods else 1250

    def active(self, value=None):
        if value is None:
            return self.running
        self.running = bool(value)
        if self.running and self.program is not None and not self.checked:
            self._check_ws2812()

    def restart(self):
        pass

    def exec(self, instr):
        pass

    def put(self, value, shift=0):
        pass  # frames are captured per DMA transfer

    def tx_fifo(self):
        return 0

    def rx_fifo(self):
        return 0

    def irq(self, handler=None, trigger=0, hard=False):
        return None

    def _wire_bytes(self, snap, unit, bswap):
        """The bytes that leave the pin when snap passes through the FIFO in transfers of
        `unit` bytes. Narrow transfers are replicated across the 32-bit bus; each FIFO word
        gives pull_thresh bits in the shift direction. Written into a reused buffer so the
        fake does not eat the firmware's heap."""
        n = self.pull_thresh
        left = self.out_shiftdir == PIO.SHIFT_LEFT
        if unit == 1 and n == 8 and left:
            return snap  # the WS2812 driver's case: each byte goes out as it is
        size = len(snap) // unit * n // 8
        out = getattr(self, "_wire", None)
        if out is None or len(out) != size:
            out = self._wire = bytearray(size)
        acc = count = pos = 0
        for i in range(0, len(snap) - unit + 1, unit):
            v = 0
            for j in range(unit):
                byte = snap[i + unit - 1 - j] if bswap else snap[i + j]
                v |= byte << (8 * j)
            w = v * 0x01010101 if unit == 1 else v * 0x00010001 if unit == 2 else v
            for k in range(n):
                acc = acc << 1 | ((w >> (31 - k)) & 1 if left else (w >> k) & 1)
                count += 1
                if count == 8:
                    if pos < size:
                        out[pos] = acc
                    pos += 1
                    acc = count = 0
        return out


from rp2_dma import DMA  # noqa: E402,F401  (split only to keep each compile small)

# Loaded now rather than at the firmware's first asm_pio: compiling a module from source
# needs several times its size in transient heap, and this is early in the boot, where the
# heap is still empty (machine.py imports this module for the same reason).
import pio_asm as _asm  # noqa: E402
