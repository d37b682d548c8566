"""The PIO side of the fake rp2 module that runs once per program or state machine: the
assembler (real instruction words), a state machine's configuration, and the WS2812 timing
check, with a tiny interpreter that measures the side-set waveform a program produces.

rp2 loads this module for each of those calls and drops it again (rp2._once): on a Pico it is
C and frozen code that costs no heap, and here the fakes share the firmware's heap.

asm_pio uses the same decorator mechanics as MicroPython's rp2: the PIO names are put into
the decorated function's globals while it runs twice (labels, then code).
"""
from array import array

from rp2 import _violation


class PIOASMError(Exception):
    pass


# The tables below are strings split when used, not dicts or tuples of names: each name in
# this module's code becomes a qstr, which stays in the heap after the module is dropped.

# asm_pio's keyword arguments that go into SHIFTCTRL (name:bit), the pin inits, all of them
_SHIFTCTRL = ("fifo_join:30 pull_thresh:25 push_thresh:20 out_shiftdir:19 in_shiftdir:18 "
              "autopull:17 autopush:16")
_PIN_INITS = "out_init set_init sideset_init"
_ASM_ARGS = "side_pindir " + _PIN_INITS + " " + _SHIFTCTRL.replace(":", " ")

# The names a PIO program uses (name:value), and the modifiers that set a bit (name:bit)
_NAMES = ("gpio:0 pins:0 x:1 y:2 null:3 pindirs:4 pc:5 status:5 isr:6 osr:7 exec:8 not_x:1 "
          "x_dec:2 not_y:3 y_dec:4 x_not_y:5 pin:6 not_osre:7 noblock:1 block:33 iffull:64 "
          "ifempty:64 clear:64")
_MODIFIERS = "invert:8 reverse:16 rel:16"
_OPS = "wrap_target wrap label word nop jmp wait in_ out push pull mov irq set"


# Program list layout, as MicroPython's: [words, offset pio0, offset pio1, execctrl,
# shiftctrl, out_init, set_init, sideset_init]
class _Emitter:
    def __init__(self, kw):
        for k in kw:
            if k not in _ASM_ARGS.split():
                raise TypeError("unexpected keyword argument '%s'" % k)
        shiftctrl = 0  # thresholds of 32 are 0 in the register
        for f in _SHIFTCTRL.split():
            name, shift = f.split(":")
            shiftctrl |= (int(kw.get(name, 0)) & 31) << int(shift)
        out_init, set_init, sideset_init = [kw.get(k) for k in _PIN_INITS.split()]
        self.prog = [array("H"), -1, -1, int(kw.get("side_pindir", 0)) << 29, shiftctrl,
                     out_init, set_init, sideset_init]
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


def _modifier(bit):
    return lambda v: v | bit


def asm_pio(**kw):
    emit = _Emitter(kw)

    def assemble(f):
        g = f.__globals__
        saved = g.copy()
        g.clear()
        for f2 in _NAMES.split():
            name, v = f2.split(":")
            g[name] = int(v)
        for f2 in _MODIFIERS.split():
            name, v = f2.split(":")
            g[name] = _modifier(int(v))
        for name in _OPS.split():
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


_INIT_ARGS = ("in_base out_base set_base jmp_pin sideset_base in_shiftdir out_shiftdir "
              "push_thresh pull_thresh").split()


def configure(sm, program, freq, kw):
    """StateMachine.init(program, freq, **kw): what the fake needs of it."""
    for k in kw:
        if k not in _INIT_ARGS:
            raise TypeError("unexpected keyword argument '%s'" % k)
    shiftctrl = program[4]
    if kw.get("pull_thresh") is not None:
        shiftctrl = shiftctrl & ~(31 << 25) | (kw["pull_thresh"] & 31) << 25
    if kw.get("out_shiftdir") is not None:
        shiftctrl = shiftctrl & ~(1 << 19) | (kw["out_shiftdir"] & 1) << 19
    sm.program = program
    sm.shiftctrl = shiftctrl
    if freq > 0:
        sm.freq = freq
    pin = kw.get("sideset_base")
    if pin is not None:
        sm.pin = getattr(pin, "_id", pin)
    sm.ns_per_bit = 0  # checked when started


def check_ws2812(sm):
    """The program's waveform at the state machine's clock against the WS2812 timing."""
    sm.ns_per_bit = 1250
    try:
        t = bit_timing(sm.program, sm.freq)
    except (IndexError, TypeError, ValueError):
        t = None  # not a program the interpreter can run
    if t is None:
        _violation("state machine %d: program does not drive a side-set pin" % sm.id)
        return
    high0, high1, periods = t
    if not (sm.shiftctrl >> 17) & 1:
        _violation("state machine %d: ws2812 program needs autopull" % sm.id)
    if not all(200 <= h <= 550 for h in high0) or not all(650 <= h <= 1000 for h in high1):
        _violation("state machine %d: T0H %s / T1H %s ns out of WS2812 range"
                   % (sm.id, high0[:1], high1[:1]))
    if not all(1100 <= p <= 1400 for p in periods):
        _violation("state machine %d: bit period %s ns, WS2812 needs 1250 +- 150"
                   % (sm.id, periods[:1]))
    if periods:
        sm.ns_per_bit = sum(periods) // len(periods)
