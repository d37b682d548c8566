"""How a ring shows a count: which LED of the ring gets which kind of light.

People read a ring like coins: each ONE light (the seat's colour) is one stone, each TEN
light (white) is ten. So 37 is three white lights and seven coloured ones. The ones start
at the top of the ring (LED 0) and go clockwise; the tens start at the opposite side, with a
dark LED between the groups where there is room. An empty pit is a dark ring.

Small rings cannot hold every count that way (49 needs 4 + 9 = 13 LEDs on a 12-LED ring), so
two rarer marks stand in, only when the plain form does not fit:
- FIFTY (violet) replaces five TENs;
- if it still does not fit, FIVE (pink) replaces five ONEs.
Every kind has its own colour, so a ring decodes by adding up its lights, whatever their order.

MARK is a dim light worth nothing (the last move's pit, places at the end). Its level is so
far below every count light that a frame reader can tell it apart (reader.classify).
WARN is a magenta light worth nothing: the move timer's countdown on a store. Its hue is far
from every count light's, so a reader tells it apart by colour.
"""
from mpcompat import const

OFF = const(0)
ONE = const(1)
TEN = const(2)
FIFTY = const(3)
FIVE = const(4)
MARK = const(5)
WARN = const(6)
KINDS = 7
# What each kind is worth, indexed by kind.
VALUES = (0, 1, 10, 50, 5, 0, 0)
NAMES = ("off", "one", "ten", "fifty", "five", "mark", "warn")

try:
    from .native import fill as _fill
except (ImportError, SyntaxError):  # CPython; CircuitPython has no viper
    def _fill(out, start, n, kind):
        for i in range(start, start + n):
            out[i] = kind


def runs(count, leds):
    """(fifties, tens, fives, ones) for count on a ring of leds LEDs: the plain form when it
    fits, else FIFTY, else FIFTY and FIVE. Raises ValueError when nothing fits."""
    if not isinstance(count, int) or count < 0:
        raise ValueError("a count must be a whole number 0 or more, got %r" % (count,))
    tens, ones = divmod(count, 10)
    fifties = fives = 0
    if tens + ones > leds:
        fifties, tens = divmod(tens, 5)
        if fifties + tens + ones > leds:
            fives, ones = divmod(ones, 5)
            if fifties + tens + fives + ones > leds:
                raise ValueError("%d stones do not fit on a ring of %d LEDs" % (count, leds))
    return fifties, tens, fives, ones


def encode(count, leds, out=None):
    """Write the kinds for count into out[0:leds] (a bytearray, allocated if None); return out.

    Ones run clockwise from LED 0 (FIVE first); tens (FIFTY first) start at the opposite
    side, pulled back so a dark LED stays before the top when there is room.
    """
    if out is None:
        out = bytearray(leds)
    # runs() inlined without tuples: encode runs on every repaint and must not allocate.
    if not isinstance(count, int) or count < 0:
        runs(count, leds)  # raises the one-sentence error
    tens = count // 10
    ones = count % 10
    fifties = fives = 0
    if tens + ones > leds:
        fifties = tens // 5
        tens = tens % 5
        if fifties + tens + ones > leds:
            fives = ones // 5
            ones = ones % 5
            if fifties + tens + fives + ones > leds:
                runs(count, leds)  # raises
    _fill(out, 0, leds, OFF)
    _fill(out, 0, fives, FIVE)
    _fill(out, fives, ones, ONE)
    olen = fives + ones
    tlen = fifties + tens
    if tlen:
        s = leds // 2
        if s < olen + 1:
            s = olen + 1            # a dark LED after the ones
        if s + tlen > leds - 1:
            s = leds - 1 - tlen     # a dark LED before the top
        if s < olen:
            s = olen                # no room for gaps: the colours still tell them apart
        _fill(out, s, fifties, FIFTY)
        _fill(out, s + fifties, tens, TEN)
    return out


def add_mark(out, leds):
    """Put one MARK on a dark LED, preferring the one just before the top; False if full."""
    i = leds - 1
    while i >= 0:
        if out[i] == OFF:
            out[i] = MARK
            return True
        i -= 1
    return False


def add_warn(out, leds, n):
    """Put up to n WARN lights on dark LEDs, from the one before the top backwards (a bar
    that ends at the top and shrinks towards it); returns how many fitted."""
    i = leds - 1
    put = 0
    while i >= 0 and put < n:
        if out[i] == OFF:
            out[i] = WARN
            put += 1
        i -= 1
    return put


def decode(pattern, leds=None):
    """The count a pattern of kinds shows: the sum of its lights' values."""
    if leds is None:
        leds = len(pattern)
    total = 0
    for i in range(leds):
        total += VALUES[pattern[i]]
    return total


def text(pattern, leds=None):
    """One character per LED, for tests and docs: . o T L V m w (off one ten fifty five mark
    warn)."""
    if leds is None:
        leds = len(pattern)
    return "".join(".oTLVmw"[pattern[i]] for i in range(leds))
