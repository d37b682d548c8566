"""Memory: the firmware plays complete games with a small heap (-X heapsize)."""
import random

import pytest

from boardsim import Board

GAMES = [("duo", {"variant": "kalah"}),
         ("quad", {"variant": "basic", "players": 4, "pits": 6})]


def _whole_game(profile, heap, rules):
    rng = random.Random(11)
    with Board(profile, heapsize=heap) as b:
        state = b.ok("new_game", rules=rules)["state"]
        while not state["over"]:
            legal = [i + 1 for i, n in enumerate(state["pits"][state["turn"]]) if n]
            state = b.ok("press", pit=rng.choice(legal))["state"]
        b.ok("undo")
        b.ok("new_game")
        errors = [e for e in b.events if e["event"] == "log" and e["level"] == "error"]
        assert errors == []


@pytest.mark.parametrize("profile,rules", GAMES)
def test_whole_game_in_320k(profile, rules):
    # What the firmware needs today on the 64-bit unix port, sim fakes included; bench/board.py
    # reports the smallest heap that works.
    _whole_game(profile, "320k", rules)


@pytest.mark.xfail(reason="boot alone keeps ~150 KB on the 64-bit unix port: sim fakes "
                          "~45 KB, profile ~29 KB, app+protocol+storage+touch ~34 KB, display "
                          "~20 KB, engine ~19 KB; whole games need ~208 KB (duo) / ~232 KB "
                          "(quad), see bench/board.py", strict=False)
@pytest.mark.parametrize("profile,rules", GAMES)
def test_whole_game_in_160k(profile, rules):
    _whole_game(profile, "160k", rules)
