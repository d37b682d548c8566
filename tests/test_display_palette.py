"""The seat palette stays distinguishable under simulated colour blindness, and the LED
bytes are the documented linearisation of the sRGB colours."""
import itertools
import math

import pytest

from mancala_fw.display import palette

# Machado, Oliveira & Fernandes (2009), severity 1.0, on linear RGB.
CVD = {
    "normal": ((1, 0, 0), (0, 1, 0), (0, 0, 1)),
    "protanopia": ((0.152286, 1.052583, -0.204868), (0.114503, 0.786281, 0.099216),
                   (-0.003882, -0.048116, 1.051998)),
    "deuteranopia": ((0.367322, 0.860646, -0.227968), (0.280085, 0.672501, 0.047413),
                     (-0.011820, 0.042940, 0.968881)),
    "tritanopia": ((1.255528, -0.076749, -0.178779), (-0.078411, 0.930809, 0.147602),
                   (0.004733, 0.691367, 0.303900)),
}


def _lin(c):
    c = c / 255
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def _lab(srgb, vision):
    lin = [_lin(c) for c in srgb]
    m = CVD[vision]
    r, g, b = [min(1.0, max(0.0, sum(m[i][j] * lin[j] for j in range(3)))) for i in range(3)]
    x = 0.4124 * r + 0.3576 * g + 0.1805 * b
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = 0.0193 * r + 0.1192 * g + 0.9505 * b

    def f(t):
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116
    fx, fy, fz = f(x / 0.9505), f(y), f(z / 1.089)
    return (116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz))


def _delta_e(a, b, vision):
    return math.dist(_lab(a, vision), _lab(b, vision))


@pytest.mark.parametrize("vision", sorted(CVD))
def test_seat_colours_differ_for_every_kind_of_vision(vision):
    # CIE76 distance 20+ is "clearly different". Tritanopia (blue-yellow, about 1 in 10000)
    # brings sky blue and bluish green to 16: still apart, and seats sit on their own sides.
    least = 15 if vision == "tritanopia" else 20
    for a, b in itertools.combinations(palette.SEAT_SRGB, 2):
        assert _delta_e(a, b, vision) >= least, (a, b, vision)


@pytest.mark.parametrize("vision", sorted(CVD))
def test_count_marks_differ_from_every_seat_colour(vision):
    # A ring shows one seat's ONE lights next to TEN (white), FIFTY (violet), FIVE (pink).
    marks = (palette.WHITE_SRGB, palette.VIOLET_SRGB, palette.PINK_SRGB)
    for seat in palette.SEAT_SRGB:
        for mark in marks:
            assert _delta_e(seat, mark, vision) >= 15, (seat, mark, vision)
    for a, b in itertools.combinations(marks, 2):
        assert _delta_e(a, b, vision) >= 15, (a, b, vision)


@pytest.mark.parametrize("vision", sorted(CVD))
def test_countdown_colour_differs_from_every_other_light(vision):
    # The countdown (WARN) sits on a store beside the seat's ONE lights and white TENs; the
    # reader also tells it from violet and pink. Red would fail here: 2 against vermillion
    # under deuteranopia.
    others = palette.SEAT_SRGB + (palette.WHITE_SRGB, palette.VIOLET_SRGB, palette.PINK_SRGB)
    for other in others:
        assert _delta_e(palette.WARN_SRGB, other, vision) >= 15, (other, vision)


def test_led_bytes_are_the_linearised_screen_colours():
    pairs = list(zip(palette.SEAT_SRGB, palette.SEAT_LED)) + [
        (palette.WHITE_SRGB, palette.WHITE_LED), (palette.VIOLET_SRGB, palette.VIOLET_LED),
        (palette.PINK_SRGB, palette.PINK_LED), (palette.RED_SRGB, palette.RED_LED),
        (palette.WARN_SRGB, palette.WARN_LED)]
    for srgb, led in pairs:
        lin = [_lin(c) for c in srgb]
        top = max(lin)
        want = tuple(round(255 * v / top) for v in lin)
        assert all(abs(a - b) <= 1 for a, b in zip(led, want)), (srgb, led, want)
        assert max(led) == 255   # reader.classify() relies on one full channel


def test_hint_pulse_stays_at_count_levels_and_is_faster_than_the_breath():
    assert min(palette.HINT) == palette.BREATH_LOW and max(palette.HINT) == palette.FULL
    assert len(palette.HINT) == 16   # board.py indexes it with & 15
    assert len(palette.HINT) * palette.HINT_STEP_MS * 2 < \
        len(palette.BREATH) * palette.BREATH_STEP_MS


def test_breath_ramp_stays_above_marks_and_within_full():
    assert len(palette.BREATH) == 32
    assert min(palette.BREATH) == palette.BREATH_LOW and max(palette.BREATH) == palette.FULL
    # every count light stays far enough above a MARK for reader.classify() to tell them apart
    assert palette.BREATH_LOW > palette.MARK_SHARE * palette.MARK_LEVEL
