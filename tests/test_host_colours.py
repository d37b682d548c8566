"""The host's seat colours are the board's: the web page, `watch` and the plots take them from
the firmware's palette, as sRGB for a screen, and they turn back into the LED bytes."""
import os
import subprocess

import pytest

from conftest import ROOT

from mancala_host.render import colours, view


def _lin(c):
    c = c / 255
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def test_the_css_colours_are_the_led_colours_as_a_screen_shows_them():
    from mancala_fw.display import palette

    css = colours.seat_colours()
    assert len(css) == len(palette.SEAT_LED) == 4
    for hex_colour, led in zip(css, palette.SEAT_LED):
        rgb = [int(hex_colour[i:i + 2], 16) for i in (1, 3, 5)]
        lin = [_lin(c) for c in rgb]
        back = [round(255 * v / max(lin)) for v in lin]
        assert all(abs(a - b) <= 1 for a, b in zip(back, led)), (hex_colour, back, led)
    # seat 1 is vermillion on the board, not amber; seat 3 is not the pink of the "five" light
    assert css[1] == "#d55e00" and css[3] == "#f0e442"
    assert colours.seat_colour(5) == css[1]
    assert colours.seat_names()[:2] == ["sky blue", "vermillion"]


def test_watch_paints_each_seat_in_its_board_colour():
    assert "\x1b[38;2;213;94;0m" in view.paint("seat 1", 1, True)
    assert view.SEAT_COLOURS == colours.seat_colours()


def test_the_installed_tool_finds_the_palette_from_any_folder(tmp_path):
    python = os.path.join(ROOT, ".venv", "bin", "python")
    out = subprocess.run([python, "-c", "from mancala_host.render import colours; print(colours.seat_colours())"],
                         cwd=str(tmp_path), capture_output=True, text=True, timeout=60,
                         env={"PATH": os.environ.get("PATH", "")})
    assert out.returncode == 0, out.stderr
    assert "#56b4e9" in out.stdout


def test_without_the_firmware_the_colours_are_one_sentence(monkeypatch, tmp_path):
    from mancala_host.flashing import bringup, deploy
    from mancala_host.errors import BoardError

    def nowhere():
        raise BoardError("Cannot find the repository's firmware/ and hardware/ folders.")
    monkeypatch.setattr(deploy, "repo_root", nowhere)
    with pytest.raises(BoardError, match="inside the project folder, or install it from there"):
        bringup.firmware_lib()
