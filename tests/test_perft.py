"""Perft: the engine's and the search's move generation checked against known counts.

tests/data/perft.json holds the counts (its "about" says exactly what is counted);
tests/data/make_perft.py wrote it, and tests/mp/perft.py holds the two counters. The engine
(Game.push) is checked at every depth the file holds; the search loop (negamax.run, with its
own inlined sowing) at depths 1-6 from every start, and at every depth from the standard
Kalah and 4-player Basic starts and from every endgame. Kalah(6,4) is also checked against
the counts of OpenSpiel's mancala, written into the file by the same script.
"""
import json
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "mp"))  # perft.py runs under MicroPython too
import perft  # noqa: E402
from mancala import Game, Rules  # noqa: E402

DATA = os.path.join(HERE, "data", "perft.json")
with open(DATA) as _f:
    PERFT = json.load(_f)
STARTS = PERFT["starts"]
ENDGAMES = PERFT["endgames"]
SEARCH_DEPTH = 6
DEEP = [{"variant": "kalah", "players": 2, "pits": 6, "seeds": 4, "capture": "nonempty",
         "wipeout_capture": True},
        {"variant": "basic", "players": 4, "pits": 6, "seeds": 4, "play_all_places": True}]


def _name(entry):
    r = entry["state"]["rules"]
    return "-".join(str(v) for v in r.values())


def test_the_file_covers_every_variant_and_says_what_it_counts():
    about = " ".join(PERFT["about"])
    assert "ply" in about and "extra move" in about and "not distinct positions" in about
    seen = set(Rules.from_dict(e["state"]["rules"]) for e in STARTS)
    assert len(seen) == len(STARTS) == 32  # 12 Kalah, 20 Basic rule sets
    for e in STARTS:
        assert e["state"] == Game(e["state"]["rules"]).to_dict()  # the start, seat 0 first
        assert len(e["counts"]) == PERFT["depth"] == 8
    assert len(ENDGAMES) == 2 * len(STARTS)
    # The endgames reach endings: a line from each one ends within the 8 plies counted.
    assert all(_ends_within(Game.from_dict(e["state"]), 8) for e in ENDGAMES)


def _ends_within(game, depth):
    for pit in game.legal_moves():
        game.push(pit)
        ends = game.over or (depth > 1 and _ends_within(game, depth - 1))
        game.pop()
        if ends:
            return True
    return False


@pytest.mark.parametrize("entry", STARTS + ENDGAMES, ids=_name)
def test_engine_counts(entry):
    assert perft.game_counts(Game.from_dict(entry["state"]), len(entry["counts"])) == \
        entry["counts"]


@pytest.mark.parametrize("entry", STARTS, ids=_name)
def test_search_counts_from_the_start(entry):
    depth = PERFT["depth"] if entry["state"]["rules"] in DEEP else SEARCH_DEPTH
    assert perft.search_counts(Game.from_dict(entry["state"]), depth) == \
        entry["counts"][:depth]


def test_search_counts_in_endgames():
    for entry in ENDGAMES:
        got = perft.search_counts(Game.from_dict(entry["state"]), len(entry["counts"]))
        assert got == entry["counts"], entry["state"]


def test_kalah_6_4_counts_agree_with_openspiel():
    ref = PERFT["openspiel"]
    assert ref["game"] == "mancala" and ref["package"].startswith("open_spiel ")
    assert len(ref["counts"]) == 8
    ours = [e for e in STARTS if e["state"]["rules"] == ref["rules"]]
    assert ref["rules"] == Rules.from_dict({"variant": "kalah"}).to_dict()
    assert len(ours) == 1 and ours[0]["counts"] == ref["counts"]
    # and not only through the file: Game counts them the same today
    assert perft.game_counts(Game(ref["rules"]), 8) == ref["counts"]


def test_a_sowing_slip_changes_the_counts():
    # The counts pin the rules: the same game with one rule flipped counts differently.
    base = {"variant": "kalah", "seeds": 4}
    flipped = dict(base, capture="always")
    a = perft.game_counts(Game(base), 8)
    b = perft.game_counts(Game(flipped), 8)
    assert a != b
