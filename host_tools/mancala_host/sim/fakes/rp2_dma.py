"""The parts of the fake rp2 DMA (rp2.py) that run once or rarely: control-register packing
(DMA.pack_ctrl / unpack_ctrl, the RP2040's field layout), the bus and shifter model for
transfers other than the WS2812 driver's bytes, and the report of a transfer the real DMA
would get wrong. rp2 loads this module for each such call and drops it again (rp2._once), so
it keeps no heap between calls.
"""
import rp2

# Control-register fields as name:shift:width in one string.
_FIELDS = ("enable:0:1 high_pri:1:1 size:2:2 inc_read:4:1 inc_write:5:1 ring_size:6:4 "
           "ring_sel:10:1 chain_to:11:4 treq_sel:15:6 irq_quiet:21:1 bswap:22:1 sniff_en:23:1 "
           "busy:24:1 write_err:29:1 read_err:30:1 ahb_err:31:1")


def _fields():
    out = []
    for f in _FIELDS.split():
        name, shift, width = f.split(":")
        out.append((name, int(shift), int(width)))
    return out


def unpack_ctrl(value):
    out = {}
    for name, shift, width in _fields():
        out[name] = (value >> shift) & ((1 << width) - 1)
    return out


def pack_ctrl(channel, default, kw):
    """DMA.pack_ctrl(default=None, **kw) of the channel numbered `channel`."""
    if default is None:  # enable, 32-bit, inc_read, inc_write, no chaining, unpaced, quiet
        default = 0x3F8039 | channel << 11
    values = unpack_ctrl(default)
    fields = _fields()
    for k in kw:
        if k not in [f[0] for f in fields]:
            raise TypeError("unknown DMA control field %s" % k)
        values[k] = int(kw[k])
    ctrl = 0
    for name, shift, width in fields:
        if name in ("busy", "ahb_err"):
            continue
        ctrl |= (values.get(name, 0) & ((1 << width) - 1)) << shift
    return ctrl


def wire_bytes(sm, snap, unit, bswap):
    """The bytes that leave state machine sm's pin when snap passes through its FIFO in
    transfers of `unit` bytes. Narrow transfers are replicated across the 32-bit bus; each
    FIFO word gives pull_thresh bits in the shift direction. Written into a buffer the state
    machine keeps, so repeated frames do not eat the firmware's heap."""
    n = (sm.shiftctrl >> 25) & 31 or 32
    left = not (sm.shiftctrl >> 19) & 1
    size = len(snap) // unit * n // 8
    out = getattr(sm, "_wire", None)
    if out is None or len(out) != size:
        out = sm._wire = bytearray(size)
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


def fault(dma, n):
    """Report what the real hardware would do differently with dma's transfer (n: which)."""
    ch = dma.channel
    if n == 0:
        text = "count %d reads past the %d-byte source" % (dma.count, len(dma.read))
    elif n == 1:
        sm = dma.write.id
        text = "paced by DREQ %d, state machine %d's TX FIFO is DREQ %d" % (
            (dma.ctrl >> 15) & 0x3F, sm, (sm >> 2) << 3 | (sm & 3))
    elif n == 2:
        text = "inc_write set for a FIFO"
    elif n == 3:
        text = "state machine %d is not active" % dma.write.id
    else:
        text = "source buffer changed while the frame was on the wire"
        rp2.torn_frames += 1
        dma._src = None  # one count per frame
    rp2._violation("DMA %d: %s" % (ch, text))
