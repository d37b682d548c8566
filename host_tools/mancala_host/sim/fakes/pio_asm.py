"""PIO assembler for the fake rp2 module: real instruction words, and a tiny interpreter
that measures the side-set waveform a program produces (for the WS2812 timing check).

asm_pio uses the same decorator mechanics as MicroPython's rp2: the PIO names are put into
the decorated function's globals while it runs twice (labels, then code).
"""
from array import array

from rp2 import PIOASMError


# Program list layout, as MicroPython's: [words, offset pio0, offset pio1, execctrl,
# shiftctrl, out_init, set_init, sideset_init]
class _Emitter:
    def __init__(self, out_init=None, set_init=None, sideset_init=None, side_pindir=False,
                 in_shiftdir=0, out_shiftdir=0, autopush=False, autopull=False,
                 push_thresh=32, pull_thresh=32, fifo_join=0):
        shiftctrl = (fifo_join << 30 | (pull_thresh & 31) << 25 | (push_thresh & 31) << 20
                     | out_shiftdir << 19 | in_shiftdir << 18 | autopull << 17 | autopush << 16)
        self.prog = [array("H"), -1, -1, side_pindir << 29, shiftctrl, out_init, set_init,
                     sideset_init]
        if sideset_init is None:
            self.side_bits = 0
        elif isinstance(sideset_init, int):
            self.side_bits = 1
        else:
            self.side_bits = len(sideset_init)
        self.labels = {}
        self.wrapped = False

    def begin(self, pass_):
        if pass_ == 1:
            if not self.wrapped and self.count:
                self.wrap()
            self.side_opt = self.side_bits and self.sided != self.count
            if self.side_opt:
                self.prog[3] |= 1 << 30
            self.delay_max = 31 >> (self.side_bits + (1 if self.side_opt else 0))
        self.pass_ = pass_
        self.count = 0
        self.sided = 0

    def word(self, bits, label=None):
        self.count += 1
        if self.pass_:
            if label is not None:
                if label not in self.labels:
                    raise PIOASMError("unknown label %s" % label)
                bits |= self.labels[label]
            self.prog[0].append(bits)
        return self

    def side(self, value):
        self.sided += 1
        if self.pass_:
            if not self.side_bits:
                raise PIOASMError("side() without sideset_init")
            if value >= 1 << self.side_bits:
                raise PIOASMError("sideset value too large")
            n = self.side_bits + (1 if self.side_opt else 0)
            self.prog[0][-1] |= (1 if self.side_opt else 0) << 12 | value << (13 - n)
        return self

    def __getitem__(self, delay):
        if self.pass_:
            if delay > self.delay_max:
                raise PIOASMError("delay too large")
            self.prog[0][-1] |= delay << 8
        return self

    def label(self, name):
        if self.pass_ == 0:
            if name in self.labels:
                raise PIOASMError("duplicate label %s" % name)
            self.labels[name] = self.count

    def wrap_target(self):
        self.prog[3] |= self.count << 7

    def wrap(self):
        self.prog[3] |= (self.count - 1) << 12
        self.wrapped = True

    def nop(self):
        return self.word(0xA042)  # mov y, y

    def jmp(self, cond, label=None):
        if label is None:
            return self.word(0x0000, cond)
        return self.word(cond << 5, label)

    def wait(self, polarity, src, index):
        return self.word(0x2000 | polarity << 7 | (1 if src == 6 else 2 if src else 0) << 5
                         | index)

    def in_(self, src, bits):
        return self.word(0x4000 | src << 5 | bits & 31)

    def out(self, dest, bits):
        if not 0 < bits <= 32:
            raise PIOASMError("invalid bit count %r" % bits)
        return self.word(0x6000 | (7 if dest == 8 else dest) << 5 | bits & 31)

    def push(self, a=0, b=0):
        v = a | b
        return self.word(0x8000 | ((v | 0x20) if not v & 1 else v) & 0x60)

    def pull(self, a=0, b=0):
        v = a | b
        return self.word(0x8080 | ((v | 0x20) if not v & 1 else v) & 0x60)

    def mov(self, dest, src):
        return self.word(0xA000 | (4 if dest == 8 else dest) << 5 | src)

    def irq(self, mod, index=None):
        if index is None:
            return self.word(0xC000 | mod)
        return self.word(0xC000 | mod & 0x60 | index)

    def set(self, dest, data):
        return self.word(0xE000 | dest << 5 | data)


_NAMES = {"gpio": 0, "pins": 0, "x": 1, "y": 2, "null": 3, "pindirs": 4, "pc": 5,
          "status": 5, "isr": 6, "osr": 7, "exec": 8, "not_x": 1, "x_dec": 2, "not_y": 3,
          "y_dec": 4, "x_not_y": 5, "pin": 6, "not_osre": 7, "noblock": 0x01,
          "block": 0x21, "iffull": 0x40, "ifempty": 0x40, "clear": 0x40,
          "invert": lambda v: v | 0x08, "reverse": lambda v: v | 0x10,
          "rel": lambda v: v | 0x10}
_OPS = ("wrap_target", "wrap", "label", "word", "nop", "jmp", "wait", "in_", "out", "push",
        "pull", "mov", "irq", "set")


def asm_pio(**kw):
    emit = _Emitter(**kw)

    def assemble(f):
        g = f.__globals__
        saved = g.copy()
        g.clear()
        g.update(_NAMES)
        for name in _OPS:
            g[name] = getattr(emit, name)
        try:
            emit.begin(0)
            f()
            emit.begin(1)
            f()
        finally:
            g.clear()
            g.update(saved)
        return emit.prog

    return assemble


def bit_timing(prog, freq):
    """Run a one-pin side-set program on the bits 0,1,0,0,1,1,0,1 and return the high times
    of 0-bits and 1-bits and the bit periods, in ns; None if it never toggles the pin."""
    words = prog[0]
    execctrl = prog[3]
    bottom = (execctrl >> 7) & 31
    top = (execctrl >> 12) & 31
    opt = (execctrl >> 30) & 1
    side_bits = 1 + opt
    bits = [0, 1, 0, 0, 1, 1, 0, 1] * 2
    pos = 0
    x = 0
    pc = bottom
    level = 0
    trace = []  # pin level per cycle
    outs = []  # cycle index of each `out` (which bit it consumed)
    for _ in range(400):
        w = words[pc]
        side_field = (w >> 8) & 31
        delay = side_field & (31 >> side_bits)
        if not opt or side_field & 16:
            level = (side_field >> (5 - side_bits)) & 1
        op = w >> 13
        nxt = top + 1 if pc == top else pc + 1
        if op == 3:  # out
            if pos >= len(bits):
                break
            outs.append(len(trace))
            x = bits[pos]
            pos += 1
        elif op == 0:  # jmp
            cond = (w >> 5) & 7
            if cond == 0 or (cond == 1 and x == 0) or (cond == 2 and x != 0):
                nxt = w & 31
        if nxt == top + 1:
            nxt = bottom
        trace.extend([level] * (1 + delay))
        pc = nxt
    rises = [i for i in range(1, len(trace)) if trace[i] and not trace[i - 1]]
    if len(rises) < 3:
        return None
    ns = 1000000000 // freq
    high0, high1, periods = [], [], []
    for k in range(len(rises) - 1):
        r = rises[k]
        f = r
        while f < len(trace) and trace[f]:
            f += 1
        taken = [i for i in range(len(outs)) if outs[i] <= r]
        if not taken:
            continue
        (high1 if bits[len(taken) - 1] else high0).append((f - r) * ns)
        periods.append((rises[k + 1] - r) * ns)
    return high0, high1, periods
