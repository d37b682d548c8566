"""DMA channel model for the fake rp2 module (see rp2.py): control-register packing, byte
replication on the bus, pacing and FIFO checks, frame capture, torn-frame detection."""
import frame_capture
import simclock
from rp2 import StateMachine, _violation


# Control-register fields as name:shift:width in one string (a table of tuples would keep
# ~1 KB of heap for a few calls at start-up).
_FIELDS = ("enable:0:1 high_pri:1:1 size:2:2 inc_read:4:1 inc_write:5:1 ring_size:6:4 "
           "ring_sel:10:1 chain_to:11:4 treq_sel:15:6 irq_quiet:21:1 bswap:22:1 sniff_en:23:1 "
           "busy:24:1 write_err:29:1 read_err:30:1 ahb_err:31:1")


def _fields():
    out = []
    for f in _FIELDS.split():
        name, shift, width = f.split(":")
        out.append((name, int(shift), int(width)))
    return out


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
        self._src = None  # the buffer the transfer on the wire reads from
        self._snap = None  # reused copy of the bytes of the current transfer
        self._end = None  # simclock time the frame is off the wire; None = idle
        self._torn = False
        self._closed = False

    def pack_ctrl(self, default=None, **kw):
        values = {"enable": 1, "size": 2, "inc_read": 1, "inc_write": 1,
                  "chain_to": self.channel, "treq_sel": 0x3F, "irq_quiet": 1}
        if default is not None:
            values = DMA.unpack_ctrl(default)
        fields = _fields()
        for k in kw:
            if k not in values and k not in [f[0] for f in fields]:
                raise TypeError("unknown DMA control field %s" % k)
            values[k] = int(kw[k])
        ctrl = 0
        for name, shift, width in fields:
            if name in ("busy", "ahb_err"):
                continue
            ctrl |= (values.get(name, 0) & ((1 << width) - 1)) << shift
        return ctrl

    @staticmethod
    def unpack_ctrl(value):
        out = {}
        for name, shift, width in _fields():
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
        if self._end is None:
            return False
        if simclock.elapsed_us(self._end) < 0:
            if not self._torn:
                src = self._src
                snap = self._snap
                if len(src) == len(snap):
                    changed = src != snap
                else:  # a loop, not any(...): a closure would allocate cells on every call
                    changed = False
                    for i in range(len(snap)):
                        if src[i] != snap[i]:
                            changed = True
                            break
                if changed:
                    import rp2

                    self._torn = True  # one count per frame
                    rp2.torn_frames += 1
                    _violation("DMA %d: source buffer changed while the frame was on the wire"
                               % self.channel)
            return True
        self._end = None
        self._src = None
        if self._handler is not None and not (self.ctrl >> 21) & 1:
            self._handler(self)
        return False

    def _settle(self):
        if self._end is not None:
            self._in_flight()

    def _start(self):
        # Control fields read straight from the register bits: nothing allocated per frame.
        ctrl = self.ctrl
        unit = 1 << ((ctrl >> 2) & 3)
        nbytes = self.count * unit
        src = self.read
        dst = self.write
        if len(src) < nbytes:
            _violation("DMA %d: count %d reads past the %d-byte source" %
                       (self.channel, self.count, len(src)))
            return
        snap = self._snap
        if snap is None or len(snap) != nbytes:
            snap = self._snap = bytearray(nbytes)  # once per transfer size, then reused
        if len(src) == nbytes:
            snap[:] = src
        else:
            for i in range(nbytes):
                snap[i] = src[i]
        if not isinstance(dst, StateMachine):
            memoryview(dst)[:nbytes] = snap  # memory to memory (not on the LED path)
            return
        treq = (ctrl >> 15) & 0x3F
        if treq != dst.dreq_tx:
            _violation("DMA %d: paced by DREQ %d, state machine %d's TX FIFO is DREQ %d"
                       % (self.channel, treq, dst.id, dst.dreq_tx))
            return
        if (ctrl >> 5) & 1:
            _violation("DMA %d: inc_write set for a FIFO" % self.channel)
            return
        if not dst.running:
            _violation("DMA %d: state machine %d is not active" % (self.channel, dst.id))
            return
        wire = dst._wire_bytes(snap, unit, (ctrl >> 22) & 1)
        frame_capture.emit(dst.pin, wire, True)
        self._src = src
        self._torn = False
        self._end = simclock.now_us() + len(wire) * 8 * dst.ns_per_bit // 1000
