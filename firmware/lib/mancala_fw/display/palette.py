"""The colours and brightness levels of the board's lights.

Seat colours come from the Okabe-Ito palette, which stays distinguishable for the common
red-green colour blindnesses: sky blue, vermillion, bluish green and yellow. Seats 0 and 1
(every 2-player game) get blue against vermillion, the pair that differs most in hue and in
lightness for every kind of colour vision. docs/display.md shows the choice and
tests/test_display_palette.py checks it under simulated protanopia, deuteranopia and
tritanopia. A seat is also told by where it sits, so colour is never the only cue.

Each colour is given twice: as sRGB (what a screen shows: docs, terminal view, the host's
colours) and as the bytes sent to an LED. WS2812 light output is linear in the byte, so the
LED bytes are the sRGB colour linearised and scaled so its strongest channel is 255:
    led = round(255 * lin(c) / max(lin(r), lin(g), lin(b)))
Every LED colour therefore has one channel at 255, which frame readers rely on.

The levels say how bright a ring is drawn, and how the breathing store and the hinted pit
pulse. display.reader.classify() reads an LED of a captured frame back to its count kind.
"""
from mpcompat import const

from . import counts

# --------------------------------------------------------------- colours
SEAT_NAMES = ("sky blue", "vermillion", "bluish green", "yellow")
SEAT_SRGB = ((86, 180, 233), (213, 94, 0), (0, 158, 115), (240, 228, 66))
SEAT_LED = ((29, 143, 255), (255, 43, 0), (0, 255, 128), (255, 227, 16))

# Neutral lights: not any seat's.
WHITE_SRGB = (255, 255, 255)      # TEN, capture flash, MARK (dim)
WHITE_LED = (255, 255, 255)
VIOLET_SRGB = (170, 0, 255)       # FIFTY
VIOLET_LED = (103, 0, 255)
PINK_SRGB = (204, 121, 167)       # FIVE (Okabe-Ito reddish purple)
PINK_LED = (255, 81, 163)
RED_SRGB = (255, 0, 0)            # refused touch: a brief blink, so its timing is the cue
RED_LED = (255, 0, 0)
# WARN (the move timer's countdown): magenta, the colour farthest from every seat colour,
# white, violet and pink under every simulated colour vision (tests/test_display_palette.py);
# red would be lost beside vermillion for red-green colour-blind players.
WARN_SRGB = (255, 0, 255)
WARN_LED = (255, 0, 255)

# --------------------------------------------------------------- levels
# Levels (0..255) a ring is drawn at; the global brightness and the power limiter scale
# them further. Every count light stays at >= BREATH_LOW and MARK far below it, so a reader
# separates them with one threshold (MARK_SHARE) relative to the brightest LED.
FULL = const(255)         # the legal pits of the seat to move; the sowing hand
REST = const(160)         # every other ring
BREATH_LOW = const(112)   # bottom of the breathing of the seat-to-move's store
MARK_LEVEL = const(24)    # MARK lights
MARK_SHARE = const(4)     # a light under 1/MARK_SHARE of the brightest one is a MARK


def _breath(steps, low, high):
    # One breath: up and down along a squared triangle, so it lingers near the bottom
    # the way a sleeping LED does. Integer maths only; built once at import.
    half = steps // 2
    ramp = bytearray(steps)
    for i in range(steps):
        x = i if i < half else steps - i      # 0..half..1
        ramp[i] = low + (high - low) * x * x // (half * half)
    return ramp


BREATH = _breath(32, BREATH_LOW, FULL)   # 32-entry table; one entry per BREATH_STEP_MS
BREATH_STEP_MS = const(60)               # ~1.9 s per breath
# The hinted pit pulses three times as fast as the store breathes, so the two never look
# alike; it stays at count-light levels, so the pit still reads as its count.
HINT = _breath(16, BREATH_LOW, FULL)     # 16-entry table; one entry per HINT_STEP_MS
HINT_STEP_MS = const(40)                 # ~0.64 s per pulse


# --------------------------------------------------------------- count kinds
def _kind(kind, seat, seats, white, violet, pink, warn):
    if kind == counts.ONE:
        return seats[seat]
    if kind == counts.TEN or kind == counts.MARK:
        return white
    if kind == counts.FIFTY:
        return violet
    if kind == counts.FIVE:
        return pink
    if kind == counts.WARN:
        return warn
    return (0, 0, 0)


def kind_led(kind, seat):
    """The LED colour (r, g, b) of a count kind on a seat's ring."""
    return _kind(kind, seat, SEAT_LED, WHITE_LED, VIOLET_LED, PINK_LED, WARN_LED)


def kind_srgb(kind, seat):
    """The screen colour of a count kind on a seat's ring (docs, terminal)."""
    return _kind(kind, seat, SEAT_SRGB, WHITE_SRGB, VIOLET_SRGB, PINK_SRGB, WARN_SRGB)
