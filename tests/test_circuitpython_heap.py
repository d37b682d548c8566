"""The CircuitPython edition's strongest CPU level: every search (a CPU seat's, the move
timer's, a hint's) runs at most at app.autoplay.STRONGEST_LEVEL, which is 4 on CircuitPython
(level 5's transposition table would leave the game too little heap there) and 5 elsewhere.
docs/performance.md section 7 has the heap figures behind it.

The clamp itself is tested on CPython with the cap set as CircuitPython sets it; the cap and
the searches it gives are tested on stock CircuitPython 9.2.9 on the emulated Pico.
"""
import json
import os

import pytest

from boardsim import Board
from conftest import ROOT

from mancala import Game, Rules
from mancala_fw.app import autoplay
from mancala_host.sim import rp2040

MIRROR = os.environ.get(rp2040.MIRROR_ENV) or os.path.join(ROOT, "build", "rp2")
CP_IMAGE = "circuitpython-9.2.9-raspberry_pi_pico.uf2"
LEVEL_4_PLIES = 4  # mancala.cpu.LEVELS: level 4 is a fixed 4-ply search without the table

needs_circuitpython = pytest.mark.skipif(
    not os.path.isfile(os.path.join(MIRROR, CP_IMAGE))
    or not os.path.isdir(os.path.join(rp2040.HARNESS_DIR, "node_modules", "rp2040js")),
    reason="the CircuitPython image (MANCALA_RP2_MIRROR) or rp2040js (make rp2040) is missing")


class _Session:
    def __init__(self):
        self.game = Game(Rules.from_dict({"variant": "kalah"}))


class _App:
    """What Autoplay's searches read of the app: the game to move in."""

    def __init__(self):
        self.session = _Session()


def test_micropython_and_cpython_keep_level_5():
    assert autoplay.STRONGEST_LEVEL == 5 and autoplay.HINT_LEVEL == 5


def test_a_level_5_seat_and_a_hint_search_at_the_cap(monkeypatch):
    monkeypatch.setattr(autoplay, "STRONGEST_LEVEL", 4)
    play = autoplay.Autoplay(_App())
    seat = play._search(play.app.session.game, 5)
    assert (seat.maxd, seat.tt) == (LEVEL_4_PLIES, None)
    play.start_hint("serial", 1)
    assert play.hinting == "serial"
    assert (play.search.maxd, play.search.tt) == (LEVEL_4_PLIES, None)
    # Levels under the cap are played as set.
    assert play._search(play.app.session.game, 3).maxd == 2


def test_without_the_cap_level_5_searches_with_its_table():
    # The other side of the test above: what the cap takes away is there without it.
    play = autoplay.Autoplay(_App())
    seat = play._search(play.app.session.game, 5)
    assert seat.maxd > LEVEL_4_PLIES and seat.tt is not None


PROBE = b"""import gc
import json
from mancala import Game, Rules
from mancala_fw.app import autoplay
import mancala.cpu  # loaded first: its code is not the search's heap


class Session:
    game = Game(Rules.from_dict({"variant": "kalah"}))


class App:
    session = Session()


play = autoplay.Autoplay(App())
gc.collect()
free = gc.mem_free()
seat = play._search(App.session.game, 5)
seat.step(7)
gc.collect()
kept = free - gc.mem_free()
play.changed(0)
play.start_hint("pad")
hint = play.search
print(json.dumps({"cap": autoplay.STRONGEST_LEVEL, "seat": [seat.maxd, seat.tt is None],
                  "hint": [hint.maxd, hint.tt is None], "kept": kept}))
print("probe done")
"""


@needs_circuitpython
def test_circuitpython_plays_level_5_seats_and_hints_at_level_4(tmp_path):
    """On stock CircuitPython 9.2.9 (emulated Pico): the cap is 4, a level-5 seat and a hint
    search 4 plies without the table, and the search keeps about level 4's heap (its per-ply
    arrays, under 9 KB on the emulated Pico), not level 5's (about 17 KB more with the
    table; the bound has room for the arrays to grow)."""
    main = tmp_path / "code.py"
    main.write_bytes(PROBE)
    board = Board("duo", flash=str(tmp_path / "flash"), target="rp2040",
                  image=os.path.join(MIRROR, CP_IMAGE), main=str(main))
    try:
        board.start()
        out = board.until(b"probe done").decode("utf-8", "replace")
        # A line may follow CircuitPython's console title (an escape sequence).
        line = [text[text.find("{"):] for text in out.splitlines() if '"cap"' in text]
        assert line, out[-600:]
        found = json.loads(line[-1])
        assert found["cap"] == 4
        assert found["seat"] == [LEVEL_4_PLIES, True] and found["hint"] == [LEVEL_4_PLIES, True]
        assert found["kept"] < 14000, found
    finally:
        board.close()
