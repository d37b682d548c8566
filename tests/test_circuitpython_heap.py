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


def _autoplay():
    """An Autoplay and a game for it to search."""
    return autoplay.Autoplay(None, None), Game(Rules.from_dict({"variant": "kalah"}))


def test_micropython_and_cpython_keep_level_5():
    assert autoplay.STRONGEST_LEVEL == 5 and autoplay.HINT_LEVEL == 5


def test_a_level_5_seat_and_a_hint_search_at_the_cap(monkeypatch):
    monkeypatch.setattr(autoplay, "STRONGEST_LEVEL", 4)
    play, game = _autoplay()
    seat = play._search(game, 5)
    assert (seat.maxd, seat.tt) == (LEVEL_4_PLIES, None)
    play.start_hint(game, "serial", 1)
    assert play.hinting == "serial"
    assert (play.search.maxd, play.search.tt) == (LEVEL_4_PLIES, None)
    # Levels under the cap are played as set.
    assert play._search(game, 3).maxd == 2


def test_without_the_cap_level_5_searches_with_its_table():
    # The other side of the test above: what the cap takes away is there without it.
    play, game = _autoplay()
    seat = play._search(game, 5)
    assert seat.maxd > LEVEL_4_PLIES and seat.tt is not None


PROBE = b"""import gc
import json
import sys
import supervisor
supervisor.status_bar.console = False
from mancala_fw.app import autoplay, loop
from mancala_fw.app.circuitpython import build


def sink(text):
    pass


app = loop.boot("", sink, sys.stdout, build)[0]  # the board as booted, as app.loop.run does it
import mancala.cpu  # loaded first: its code is not the search's heap

play = app.autoplay
gc.collect()
free = gc.mem_free()
seat = play._search(app.session.game, 5)
seat.step(7)
gc.collect()
during = gc.mem_free()
memory = play.memory
plies = [len(memory.dep), len(memory.mv), len(memory.board.sb)]
play.changed(0)
play.start_hint(app.session.game, "pad")
hint = play.search
print("probe: " + json.dumps({"cap": autoplay.STRONGEST_LEVEL, "seat": [seat.maxd, seat.tt is None],
                  "hint": [hint.maxd, hint.tt is None], "kept": free - during,
                  "free": during, "plies": plies}))
print("probe done")
"""

# The whole app booted on duo with the CPU loaded, during a level-4 search after a
# collection: 52,856 bytes free on the emulated Pico when this test was written
# (docs/performance.md section 7). The floor leaves room for the firmware to grow a little;
# per-ply arrays of 33 plies at every level (6 KB more) would break it.
FREE_DURING_A_SEARCH = 48000


@needs_circuitpython
def test_circuitpython_plays_level_5_seats_and_hints_at_level_4(tmp_path):
    """On stock CircuitPython 9.2.9 (emulated Pico), with the board booted: the cap is 4, a
    level-5 seat and a hint search 4 plies without the table, the search's per-ply arrays
    hold those 4 plies, and the search keeps level 4's heap (under 4 KB: its Memory, arrays
    and board), not level 5's (about 14 KB more with the table); the app then leaves at
    least FREE_DURING_A_SEARCH bytes free."""
    main = tmp_path / "code.py"
    main.write_bytes(PROBE)
    board = Board("duo", flash=str(tmp_path / "flash"), target="rp2040",
                  image=os.path.join(MIRROR, CP_IMAGE), main=str(main))
    try:
        board.start()
        out = board.until(b"probe done").decode("utf-8", "replace")
        # A line may follow CircuitPython's console title (an escape sequence) or the app's
        # boot event.
        line = [text.split("probe: ")[1] for text in out.splitlines() if "probe: " in text]
        assert line, out[-600:]
        found = json.loads(line[-1])
        assert found["cap"] == 4
        assert found["seat"] == [LEVEL_4_PLIES, True] and found["hint"] == [LEVEL_4_PLIES, True]
        assert found["plies"] == [LEVEL_4_PLIES] * 3, found
        assert found["kept"] < 4000, found
        assert found["free"] >= FREE_DURING_A_SEARCH, found
    finally:
        board.close()
