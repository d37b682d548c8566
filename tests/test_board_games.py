"""Whole games through the real firmware under MicroPython, over the serial protocol."""
import random

import pytest

from mancala import Game

from boardsim import Board

GAMES = [
    ("duo", {"variant": "kalah"}),
    ("duo", {"variant": "kalah", "seeds": 3, "capture": "always", "wipeout_capture": False}),
    ("duo", {"variant": "basic", "players": 2, "pits": 6}),
    ("duo", {"variant": "basic", "players": 2, "pits": 7, "seeds": 3}),
    ("quad", {"variant": "kalah", "seeds": 5}),
    ("quad", {"variant": "basic", "players": 2}),
    ("quad", {"variant": "basic", "players": 3, "pits": 4}),
    ("quad", {"variant": "basic", "players": 3, "pits": 6, "play_all_places": False}),
    ("quad", {"variant": "basic", "players": 4, "pits": 4}),
    ("quad", {"variant": "basic", "players": 4, "pits": 6, "seeds": 3}),
]


def legal(state):
    seat = state["turn"]
    return [i + 1 for i, n in enumerate(state["pits"][seat]) if n]


def play_out(b, rng, state, after_move=None):
    """Random legal presses until the game ends; checks every answer and event, and every
    state against the engine's own game (CPython) played alongside. after_move(state): a
    further check after each move."""
    total = sum(map(sum, state["pits"])) + sum(state["stores"])
    mirror = Game.from_dict(state)
    moves = 0
    while not state["over"]:
        pit = rng.choice(legal(state))
        seat = state["turn"]
        ans = b.ok("press", pit=pit) if rng.random() < 0.5 else b.ok("press", seat=seat, pit=pit)
        rec = ans["record"]
        assert (rec["seat"], rec["pit"], rec["kind"]) == (seat, pit, "sow")
        (ev,) = b.take_events("move")
        assert ev["state"] == ans["state"] and ev["record"] == rec and ev["source"] == "serial"
        assert mirror.play(pit) == rec and mirror.to_dict() == ans["state"]
        state = ans["state"]
        if after_move is not None:
            after_move(state)
        assert sum(map(sum, state["pits"])) + sum(state["stores"]) == total
        moves += 1
        assert moves < 2000
    (over,) = b.take_events("game_over")
    assert over["places"] == state["places"] and over["stores"] == state["stores"]
    assert None not in state["places"] and state["turn"] is None
    assert b.ok("state")["state"] == state
    return moves


@pytest.mark.parametrize("profile,rules", GAMES)
def test_whole_game(profile, rules):
    rng = random.Random(repr(rules))
    with Board(profile) as b:
        ans = b.ok("new_game", rules=rules)
        state = ans["state"]
        for key in rules:
            assert state["rules"][key] == rules[key]
        assert len(state["pits"]) == state["rules"]["players"]
        play_out(b, rng, state)
        # the finished game refuses further presses and stays as it is
        bad = b.request("press", pit=1)
        assert bad["error"]["code"] == "illegal_move"
