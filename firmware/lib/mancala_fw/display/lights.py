"""The bytes the board's LEDs are sent, and the levels rings are drawn at: all the display
needs of the palette while it runs. palette.py explains the colours and adds what screens
and frame readers need (sRGB, names, classify()); it is not loaded on the board.
"""
from drivers.compat import const

SEAT_LED = ((29, 143, 255), (255, 43, 0), (0, 255, 128), (255, 227, 16))

# Neutral lights, not any seat's: white (TEN, capture flash, MARK dim), violet (FIFTY),
# pink (FIVE), red (refused touch) and magenta (WARN, the move timer's countdown; palette.py
# says why each).
WHITE_LED = (255, 255, 255)
VIOLET_LED = (103, 0, 255)
PINK_LED = (255, 81, 163)
RED_LED = (255, 0, 0)
WARN_LED = (255, 0, 255)

# Levels (0..255) a ring is drawn at; the global brightness and the power limiter scale
# them further. Every count light stays at >= BREATH_LOW, MARK stays far below it, so a
# reader can separate them with one threshold (MARK_SHARE) relative to the brightest LED.
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
