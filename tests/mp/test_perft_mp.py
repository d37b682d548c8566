# Perft under the board's interpreter: the engine and the search loop count the lines from
# every start (to depth 4) and from the endgames of the data file (to depth 5) as the file
# says (tests/test_perft.py checks the whole file under CPython). Both runtimes.
import json
import perft
from mancala import Game

with open("../data/perft.json") as _f:
    PERFT = json.load(_f)


def _check(entries, depth):
    checked = 0
    for entry in entries:
        want = entry["counts"][:depth]
        assert perft.game_counts(Game.from_dict(entry["state"]), depth) == want, entry["state"]
        assert perft.search_counts(Game.from_dict(entry["state"]), depth) == want, \
            entry["state"]
        checked += 1
    return checked


def test_counts_from_every_start():
    assert _check(PERFT["starts"], 4) == 32


def test_counts_in_endgames():
    assert _check(PERFT["endgames"], 5) == 64
