"""Reads counts back from captured LED frames: the inverse of the display, for the tests
and the terminal view of the virtual board. It needs only the chain bytes and where each
ring sits, not the display's state: brightness and the power limiter scale every channel
of an LED alike, so each LED's hue gives its kind (palette.classify) and a ring's kinds add
up to its count (counts.decode).
"""
from . import counts
from .palette import classify


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
