"""The plain-words commentary and the text board, from real engine records of every variant."""

import random

import fakeport  # noqa: F401

from mancala import Game, Rules
from mancala_host.render.view import board_lines, commentary, record_words, rules_label
from mancala_host.views.watch import side_by_side


def state(rules, pits, stores, turn, active=None, places=None):
    n = len(pits)
    return {"rules": Rules.from_dict(rules).to_dict(), "pits": pits, "stores": stores, "turn": turn,
            "active": active if active is not None else list(range(n)),
            "places": places or [None] * n, "over": False}


def test_capture_is_told():
    #        seat 1:  p6 p5 p4 p3 p2 p1
    #                 [0][7][0][0][0][0]
    #  store 1 (20)                       (20) store 0
    #                 [1][0][0][0][0][0]
    #        seat 0:  p1 p2 p3 p4 p5 p6
    game = Game.from_dict(state({"variant": "kalah"}, [[1, 0, 0, 0, 0, 0], [0, 0, 0, 0, 7, 0]], [20, 20], 0))
    words = record_words(game.play(1))
    assert words.startswith("Seat 0 sows 1 from pit 1; the last stone lands in its own pit 2, capturing 8 stones")
    assert "seat 1's pit 5" in words


def test_basic_extra_move_in_another_store_and_finish():
    # 3 players, 4 pits: seat 1's last stone lands in seat 2's store
    game = Game.from_dict(state({"variant": "basic", "players": 3, "pits": 6},
                                [[4, 4, 4, 4, 4, 4], [4, 4, 4, 4, 4, 2], [4, 4, 4, 4, 4, 3]], [2, 1, 0], 1))
    rec = game.play(6)
    words = record_words(rec)
    assert words.startswith("Seat 1 sows 2 from pit 6; the last stone lands in seat 2's pit 1")
    rng = random.Random(1)
    g = Game(Rules.from_dict({"variant": "basic", "players": 3, "pits": 4, "seeds": 3}), first=0)
    told = []
    while not g.over:
        told.append(record_words(g.play(rng.choice(g.legal_moves()))))
    assert any("finishes in place 1" in t for t in told)
    assert any("moves again" in t and "store" in t for t in told)


def test_game_over_and_new_game_events():
    assert commentary({"event": "game_over", "places": [2, 1], "stores": [18, 30]}) == \
        "Game over: seat 1 wins, 30 stones to 18."
    assert commentary({"event": "game_over", "places": [1, 1], "stores": [24, 24]}) == \
        "Game over: a draw, 24 stones each."
    s = state({"variant": "basic", "players": 4, "pits": 4}, [[4] * 4] * 4, [0] * 4, 2)
    assert commentary({"event": "new_game", "state": s, "first": 2}) == \
        "New game: Basic, 4 players, 4 pits, 4 seeds; seat 2 starts."
    assert rules_label({"preset": None, "variant": "kalah", "pits": 6, "seeds": 4, "capture": "always",
                        "wipeout_capture": False}) == "Kalah, 6 pits, 4 seeds (empty capture, no wipe-out capture)"


def test_boards_for_two_and_four_seats():
    two = board_lines(state({"variant": "kalah"}, [[1, 2, 3, 4, 5, 6], [7, 8, 9, 10, 11, 0]], [3, 5], 1))
    assert "[ 0] [11] [10] [ 9] [ 8] [ 7]" in two[1]  # seat 1 seen from seat 0's side
    assert two[2].startswith("(  5)") and two[2].endswith("(  3)")
    four = board_lines(state({"variant": "basic", "players": 4, "pits": 4}, [[1, 2, 3, 4]] * 4, [0, 1, 2, 3], 3))
    assert four[4].startswith("> seat 3") and "(  3)" in four[4]
    lines = side_by_side(two, ["Seat 0 sows 4 from pit 3; the last stone lands in its own store: seat 0 moves again."], 80)
    assert all(len(l) <= 80 for l in lines) and "moves again." in "".join(lines)
