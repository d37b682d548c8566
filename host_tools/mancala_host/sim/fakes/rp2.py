"""Fake `rp2` module for the virtual board: PIO assembler, StateMachine and DMA.

- asm_pio (pio_asm.py) assembles a program into real PIO instruction words.
- StateMachine keeps its shift configuration. When a program is started, a small
  interpreter runs it on a test bit pattern and checks the side-set waveform against the
  WS2812 timing (period 1.25 us, T0H, T1H); a mismatch goes to `violations` and stderr.
- DMA moves data like the RP2040 channel: narrow transfers are replicated across the 32-bit
  bus, the state machine shifts `pull_thresh` bits out of each FIFO word in its shift
  direction, and the bits become the bytes on the wire. A completed transfer into a state
  machine is captured as a frame (frame_capture) for the state machine's side-set pin.
  The bytes are read when the transfer is triggered; if the source buffer changes while the
  transfer is still on the wire (simclock), that is counted in `torn_frames`, because the
  real DMA would have sent the changed bytes.
"""
import sys

import frame_capture
import simclock
from pio_asm import PIOASMError, asm_pio, bit_timing  # noqa: F401

violations = []  # what real hardware would do differently; tests assert this stays empty
torn_frames = 0


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
        t = bit_timing(self.program, self.freq)
        if t is None:
            _violation("state machine %d: program does not drive a side-set pin" % self.id)
            return
        high0, high1, periods = t
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


_FIELDS = (("enable", 0, 1), ("high_pri", 1, 1), ("size", 2, 2), ("inc_read", 4, 1),
           ("inc_write", 5, 1), ("ring_size", 6, 4), ("ring_sel", 10, 1), ("chain_to", 11, 4),
           ("treq_sel", 15, 6), ("irq_quiet", 21, 1), ("bswap", 22, 1), ("sniff_en", 23, 1),
           ("busy", 24, 1), ("write_err", 29, 1), ("read_err", 30, 1), ("ahb_err", 31, 1))
_claimed = [False] * 12


class DMA:
    def __init__(self):
        for ch in range(12):
            if not _claimed[ch]:
                _claimed[ch] = True
                self.channel = ch
                break
        else:
            raise OSError(16)  # EBUSY: all 12 channels claimed
        self.read = 0
        self.write = 0
        self.count = 0
        self.ctrl = self.pack_ctrl()
        self._handler = None
        self._flight = None  # (source, snapshot, start_us, duration_us)
        self._snap = None  # reused copy of the bytes of the current transfer
        self._unpacked = None
        self._closed = False

    def pack_ctrl(self, default=None, **kw):
        values = {"enable": 1, "size": 2, "inc_read": 1, "inc_write": 1,
                  "chain_to": self.channel, "treq_sel": 0x3F, "irq_quiet": 1}
        if default is not None:
            values = DMA.unpack_ctrl(default)
        for k in kw:
            if k not in values and k not in [f[0] for f in _FIELDS]:
                raise TypeError("unknown DMA control field %s" % k)
            values[k] = int(kw[k])
        ctrl = 0
        for name, shift, width in _FIELDS:
            if name in ("busy", "ahb_err"):
                continue
            ctrl |= (values.get(name, 0) & ((1 << width) - 1)) << shift
        return ctrl

    @staticmethod
    def unpack_ctrl(value):
        out = {}
        for name, shift, width in _FIELDS:
            out[name] = (value >> shift) & ((1 << width) - 1)
        return out

    def config(self, read=None, write=None, count=None, ctrl=None, trigger=False):
        self._settle()
        if read is not None:
            self.read = read
        if write is not None:
            self.write = write
        if count is not None:
            self.count = count
        if ctrl is not None:
            self.ctrl = ctrl
        if trigger:
            self._start()

    def irq(self, handler=None, hard=False):
        self._handler = handler
        return None

    def active(self, value=None):
        if value is None:
            return self._in_flight()
        if value:
            self._settle()
            self._start()

    def close(self):
        self._settle()
        if not self._closed:
            _claimed[self.channel] = False
            self._closed = True

    def _in_flight(self):
        f = self._flight
        if f is None:
            return False
        if simclock.elapsed_us(f[2]) < f[3]:
            global torn_frames
            src, snap = f[0], f[1]
            n = len(snap)
            if (src if len(src) == n else bytes(src)[:n]) != snap:
                torn_frames += 1
                self._flight = (src, bytes(src)[:n], f[2], f[3])  # count each change once
                _violation("DMA %d: source buffer changed while the frame was on the wire"
                           % self.channel)
            return True
        self._flight = None
        if self._handler is not None and not (self.ctrl >> 21) & 1:
            self._handler(self)
        return False

    def _settle(self):
        if self._flight is not None:
            self._in_flight()

    def _start(self):
        ctrl = self.ctrl
        c = self._unpacked
        if c is None or c["_value"] != ctrl:
            c = self._unpacked = DMA.unpack_ctrl(ctrl)
            c["_value"] = ctrl
        unit = 1 << c["size"]
        nbytes = self.count * unit
        src = self.read
        dst = self.write
        if len(src) < nbytes:
            _violation("DMA %d: count %d reads past the %d-byte source" %
                       (self.channel, self.count, len(src)))
            return
        snap = self._snap
        if snap is None or len(snap) != nbytes:
            snap = self._snap = bytearray(nbytes)
        snap[:] = src if len(src) == nbytes else memoryview(src)[:nbytes]
        if not isinstance(dst, StateMachine):
            memoryview(dst)[:nbytes] = snap  # memory to memory
            return
        if c["treq_sel"] != dst.dreq_tx:
            _violation("DMA %d: paced by DREQ %d, state machine %d's TX FIFO is DREQ %d"
                       % (self.channel, c["treq_sel"], dst.id, dst.dreq_tx))
            return
        if c["inc_write"]:
            _violation("DMA %d: inc_write set for a FIFO" % self.channel)
            return
        if not dst.running:
            _violation("DMA %d: state machine %d is not active" % (self.channel, dst.id))
            return
        wire = dst._wire_bytes(snap, unit, c["bswap"])
        frame_capture.emit(dst.pin, wire)
        duration = len(wire) * 8 * getattr(dst, "ns_per_bit", 1250) // 1000
        self._flight = (src, snap, simclock.now_us(), duration)
