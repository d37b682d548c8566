"""Reads counts back from captured LED frames: the inverse of the display, for the tests
and the terminal view of the virtual board. It needs only the chain bytes and where each
ring sits, not the display's state: brightness and the power limiter scale every channel
of an LED alike, so each LED's hue gives its kind (classify) and a ring's kinds add up to
its count (counts.decode). The board itself never loads this module.
"""
from . import counts
from .palette import MARK_SHARE, PINK_LED, SEAT_LED, VIOLET_LED, WARN_LED, WHITE_LED

# Candidates for classify(): (kind, r, g, b); every seat colour reads as ONE.
_CANDIDATES = ((counts.TEN,) + WHITE_LED, (counts.FIFTY,) + VIOLET_LED,
               (counts.FIVE,) + PINK_LED, (counts.WARN,) + WARN_LED) + \
    tuple((counts.ONE,) + c for c in SEAT_LED)


def classify(r, g, b, frame_max):
    """The count kind of one LED read back from a frame, given the largest channel value
    anywhere in the frame. Hue decides, because brightness, breathing and the power limiter
    scale every channel of an LED alike."""
    m = r if r > g else g
    if b > m:
        m = b
    if m == 0:
        return counts.OFF
    if m * MARK_SHARE < frame_max:
        return counts.MARK
    best = counts.OFF
    best_d = 1 << 30
    for cand in _CANDIDATES:
        # Compare with the candidate scaled to this LED's strongest channel.
        d = (abs(r * 255 - cand[1] * m) + abs(g * 255 - cand[2] * m)
             + abs(b * 255 - cand[3] * m))
        if d < best_d:
            best_d = d
            best = cand[0]
    return best


def frame_max(chains):
    """The largest channel value anywhere in the frame."""
    m = 0
    for buf in chains:
        if len(buf):
            v = max(buf)
            if v > m:
                m = v
    return m


def read_ring(chain, start, leds, top, out=None):
    """The kinds of one ring (bytearray of leds) from its chain buffer (GRB); top is
    frame_max() of the whole frame."""
    if out is None:
        out = bytearray(leds)
    o = start * 3
    for i in range(leds):
        out[i] = classify(chain[o + 1], chain[o], chain[o + 2], top)
        o += 3
    return out


def read_counts(chains, rings):
    """The count every ring shows: rings is the list of (chain, start, leds)."""
    top = frame_max(chains)
    result = []
    for chain, start, leds in rings:
        result.append(counts.decode(read_ring(chains[chain], start, leds, top)))
    return result
