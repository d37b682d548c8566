# Kalah scenario tests, each from a hand-built position (OpenSpiel style).
# Board drawings: seat 1's pits on top, right to left as seat 1 sees them; seat 0 below.
#          1p6 1p5 1p4 1p3 1p2 1p1
#     S1                            S0
#          0p1 0p2 0p3 0p4 0p5 0p6
# Runs under MicroPython and CPython (tests/test_micropython.py).
from mancala import Game, Rules, IllegalMove
from enginehelp import raises, kalah


def test_opening_sow_into_own_store_gives_extra_move():
    #      4 4 4 4 4 4
    #   0             0
    #      4 4 4 4 4 4      seat 0 plays pit 3: 4 stones -> 0p4 0p5 0p6 S0
    g = Game(Rules.from_dict({"variant": "kalah"}))
    r = g.play(3)
    assert r["sown"] == [[0, 4], [0, 5], [0, 6], [0, 0]]
    assert r["extra"] is True and g.turn == 0
    d = g.to_dict()
    assert d["pits"] == [[4, 4, 0, 5, 5, 5], [4, 4, 4, 4, 4, 4]]
    assert d["stores"] == [1, 0]


def test_sowing_skips_the_opponents_store():
    #      1 1 1 1 1 1
    #   27            0
    #      1 1 1 1 1 10     seat 0 plays pit 6 (10): S0, 1p1..1p6, (skip S1), 0p1 0p2 0p3
    g = kalah([1, 1, 1, 1, 1, 10], 0, [1, 1, 1, 1, 1, 1], 27)
    r = g.play(6)
    assert r["sown"] == [[0, 0], [1, 1], [1, 2], [1, 3], [1, 4], [1, 5], [1, 6],
                         [0, 1], [0, 2], [0, 3]]
    d = g.to_dict()
    assert d["stores"] == [1, 27]
    assert d["pits"] == [[2, 2, 2, 1, 1, 0], [2, 2, 2, 2, 2, 2]]
    assert g.turn == 1 and r["extra"] is False and r["capture"] is None


def test_lap_of_13_lands_in_the_emptied_start_pit_and_captures():
    #      2 0 0 0 0 3
    #   10            9
    #      13 1 1 1 1 7     seat 0 plays pit 1 (13 stones): the 13th lands in 0p1 again.
    # Opposite of 0p1 is 1p6, which held 2 and got one more during the lap.
    g = kalah([13, 1, 1, 1, 1, 7], 9, [3, 0, 0, 0, 0, 2], 10)
    r = g.play(1)
    assert len(r["sown"]) == 13 and r["sown"][-1] == [0, 1]
    assert [1, 0] not in r["sown"], "the opponent's store must be skipped"
    assert r["capture"] == {"seat": 0, "pit": 1, "from": [1, 6], "stones": 4}
    d = g.to_dict()
    assert d["pits"][0][0] == 0 and d["pits"][1][5] == 0
    assert d["stores"] == [9 + 1 + 4, 10]
    assert g.turn == 1


def test_capture_takes_last_stone_and_opposite_stones():
    #      4 4 9 4 4 4
    #   3             2
    #      2 0 0 4 4 4      seat 0 plays pit 1 (2): 0p2, 0p3; 0p3 was empty, 1p4 opposite has 9
    g = kalah([2, 0, 0, 4, 4, 4], 2, [4, 4, 4, 9, 4, 4], 3)
    r = g.play(1)
    assert r["capture"] == {"seat": 0, "pit": 3, "from": [1, 4], "stones": 10}
    d = g.to_dict()
    assert d["pits"] == [[0, 1, 0, 4, 4, 4], [4, 4, 4, 0, 4, 4]]
    assert d["stores"] == [12, 3]
    assert g.turn == 1


def test_no_capture_from_an_empty_opposite_pit_by_default():
    #      4 4 0 4 4 4      (1p4 is empty)
    #   12            2
    #      2 0 0 4 4 4      seat 0 plays pit 1: lands in empty 0p3; opposite 1p4 empty
    g = kalah([2, 0, 0, 4, 4, 4], 2, [4, 4, 4, 0, 4, 4], 12)
    r = g.play(1)
    assert r["capture"] is None
    assert g.to_dict()["pits"][0] == [0, 1, 1, 4, 4, 4]
    assert g.to_dict()["stores"] == [2, 12]


def test_capture_always_takes_the_single_stone_from_an_empty_opposite():
    # Same position under capture "always" (kalah-empty-capture-de.txt).
    g = kalah([2, 0, 0, 4, 4, 4], 2, [4, 4, 4, 0, 4, 4], 12, capture="always")
    r = g.play(1)
    assert r["capture"] == {"seat": 0, "pit": 3, "from": [1, 4], "stones": 1}
    d = g.to_dict()
    assert d["pits"][0] == [0, 1, 0, 4, 4, 4]
    assert d["stores"] == [3, 12]


def test_landing_in_an_empty_opponent_pit_captures_nothing():
    #      4 4 4 4 4 0
    #   16            5
    #      1 0 0 0 4 2      seat 0 plays pit 6 (2): S0, 1p1 (was empty) -> no capture
    g = kalah([1, 0, 0, 0, 4, 2], 5, [0, 4, 4, 4, 4, 4], 16)
    r = g.play(6)
    assert r["capture"] is None and g.turn == 1
    assert g.to_dict()["pits"][1][0] == 1


def test_wipeout_capture_allowed_by_default_ends_the_game():
    #      0 0 0 6 0 0      seat 1 has stones only in 1p3, opposite 0p4
    #   20            10
    #      0 0 1 0 4 7      seat 0 plays pit 3 (1): lands in empty 0p4, opposite 1p3 = 6
    g = kalah([0, 0, 1, 0, 4, 7], 10, [0, 0, 6, 0, 0, 0], 20)
    r = g.play(3)
    assert r["capture"]["stones"] == 7
    assert r["over"] is True and g.over and g.turn is None
    # seat 1's side is empty: the game ends; seat 0 sweeps its 11 stones.
    assert r["sweep"] == [11, 0]
    d = g.to_dict()
    assert d["stores"] == [28, 20] and d["places"] == [1, 2] and d["active"] == []


def test_wipeout_capture_forbidden_leaves_the_stones():
    # Same position with wipeout_capture false (kalah-empty-capture-de.txt): every opponent pit
    # except the opposite one is empty, so nothing is captured and play goes on.
    g = kalah([0, 0, 1, 0, 4, 7], 10, [0, 0, 6, 0, 0, 0], 20, wipeout_capture=False)
    r = g.play(3)
    assert r["capture"] is None and not g.over and g.turn == 1
    assert g.to_dict()["pits"] == [[0, 0, 0, 1, 4, 7], [0, 0, 6, 0, 0, 0]]


def test_wipeout_rule_allows_capture_when_opponent_keeps_other_stones():
    g = kalah([0, 0, 1, 0, 4, 7], 10, [1, 0, 6, 0, 0, 0], 19, wipeout_capture=False)
    r = g.play(3)
    assert r["capture"]["stones"] == 7 and not g.over


def test_game_ends_when_the_mover_empties_their_side_even_with_an_extra_move():
    #      1 1 1 1 1 1
    #   20            21
    #      0 0 0 0 0 1      seat 0 plays pit 6 into S0: its side is empty -> game over
    g = kalah([0, 0, 0, 0, 0, 1], 21, [1, 1, 1, 1, 1, 1], 20)
    r = g.play(6)
    assert r["over"] is True and r["extra"] is False and g.turn is None
    assert r["sweep"] == [0, 6]
    assert g.to_dict()["stores"] == [22, 26]
    assert g.to_dict()["places"] == [2, 1]


def test_draw_gives_places_1_1():
    #      0 0 0 0 0 1
    #   23            23
    #      0 0 0 0 0 1      seat 0 plays 6 into S0 -> side empty; seat 1 sweeps 1: 24-24
    g = kalah([0, 0, 0, 0, 0, 1], 23, [1, 0, 0, 0, 0, 0], 23)
    r = g.play(6)
    assert r["over"] and g.to_dict()["stores"] == [24, 24]
    assert g.to_dict()["places"] == [1, 1]


def test_resign_in_kalah_lets_the_other_seat_win():
    g = Game(Rules.from_dict({"variant": "kalah"}), first=1)
    r = g.resign(1)
    assert r["over"] and g.over and g.to_dict()["places"] == [1, 2]
    assert g.to_dict()["pits"] == [[4] * 6, [4] * 6], "a resign moves no stones"


def test_resign_by_the_seat_not_to_move():
    g = Game(Rules.from_dict({"variant": "kalah"}), first=0)
    g.resign(0)
    assert g.to_dict()["places"] == [2, 1]


def test_illegal_moves_change_nothing():
    g = kalah([0, 0, 1, 0, 4, 7], 10, [1, 0, 6, 0, 0, 0], 19)
    before = g.to_dict()
    assert "empty" in raises(IllegalMove, g.play, 1)
    assert "1 to 6" in raises(IllegalMove, g.play, 7)
    raises(IllegalMove, g.play, 0)
    raises(IllegalMove, g.play, "3")
    raises(IllegalMove, g.play, True)
    raises(IllegalMove, g.resign, 2)
    assert g.to_dict() == before
    assert g.legal_moves() == [3, 5, 6]
    assert issubclass(IllegalMove, ValueError)


def test_no_moves_after_the_end():
    g = Game(Rules.from_dict({"variant": "kalah"}))
    g.resign(0)
    assert g.legal_moves() == []
    raises(IllegalMove, g.play, 1)
    raises(IllegalMove, g.resign, 1)


def test_undo_restores_each_state_exactly():
    g = Game(Rules.from_dict({"variant": "kalah", "seeds": 5}), first=1)
    seen = [g.to_dict()]
    for pit in (1, 2, 6, 3, 4):
        if g.over or pit not in g.legal_moves():
            break
        g.play(pit)
        seen.append(g.to_dict())
    g.resign(g.turn)
    seen.append(g.to_dict())
    while len(seen) > 1:
        seen.pop()
        g.undo()
        assert g.to_dict() == seen[-1]
    raises(IllegalMove, g.undo)
