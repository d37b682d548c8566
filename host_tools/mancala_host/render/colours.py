"""The seat colours on a screen: the web page, `watch` and the plots use these, so they are
the colours the board's LEDs show.

They come from the firmware's palette, the one place they are defined. Its sRGB colours are
what a screen shows; the LED bytes are the same colours linearised (WS2812 light is linear in
the byte), so CSS takes the sRGB values as they are, not the LED bytes, which would look
washed out on a gamma-encoded screen.

    seat_colours()   # ['#56b4e9', '#d55e00', '#009e73', '#f0e442']: CSS hex, seat 0 first
    seat_names()     # ['sky blue', 'vermillion', 'bluish green', 'yellow']
    seat_colour(s)   # seat s's CSS hex
"""

from __future__ import annotations

from typing import Sequence

from ..flashing.bringup import firmware_lib


def _palette():
    firmware_lib()
    from mancala_fw.display import palette

    return palette


def css(rgb: Sequence[int]) -> str:
    """'#rrggbb' for an (r, g, b) of 0..255."""
    return "#%02x%02x%02x" % tuple(rgb)


def seat_colours() -> list[str]:
    """Every seat's colour as CSS hex, seat 0 first (as many as the palette has seats)."""
    return [css(c) for c in _palette().SEAT_SRGB]


def seat_names() -> list[str]:
    """Every seat's colour in words, seat 0 first."""
    return list(_palette().SEAT_NAMES)


def seat_colour(seat: int) -> str:
    """Seat `seat`'s CSS hex colour."""
    colours = seat_colours()
    return colours[seat % len(colours)]
