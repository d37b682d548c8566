# Mancala Basic scenario tests, each from a hand-built position (OpenSpiel style).
# Drawings list each seat's pits 1..N then its store, in sowing-loop order:
#   seat 0: p1 .. pN | S0 -> seat 1: p1 .. pN | S1 -> ...
from mancala import Game, Rules, IllegalMove
from enginehelp import raises, basic


def test_sowing_goes_through_the_opponents_store_and_gives_an_extra_move():
    # seat 0: 4 4 4 4 0 8 | 0     seat 0 plays pit 6 (8): S0, 1p1..1p6, S1
    # seat 1: 4 4 4 4 4 4 | 0     the last stone lands in seat 1's store: seat 0 moves again
    g = basic([[4, 4, 4, 4, 0, 8], [4, 4, 4, 4, 4, 4]], [0, 0])
    r = g.play(6)
    assert r["sown"] == [[0, 0], [1, 1], [1, 2], [1, 3], [1, 4], [1, 5], [1, 6], [1, 0]]
    assert r["extra"] is True and g.turn == 0
    d = g.to_dict()
    assert d["stores"] == [1, 1]
    assert d["pits"] == [[4, 4, 4, 4, 0, 0], [5, 5, 5, 5, 5, 5]]


def test_landing_in_an_opponents_pit_passes_the_turn_and_never_captures():
    # seat 0 pit 6 (1 stone) lands in S0: extra move. With 2 stones the last lands in the
    # empty 1p1: the turn passes and nothing is captured.
    g = basic([[4, 4, 4, 4, 4, 1], [0, 4, 4, 4, 4, 4]], [7, 0])
    r = g.play(6)
    assert r["sown"] == [[0, 0]] and r["extra"] is True
    g2 = basic([[4, 4, 4, 4, 4, 2], [0, 4, 4, 4, 4, 4]], [3, 3])
    r = g2.play(6)
    assert r["sown"] == [[0, 0], [1, 1]] and r["capture"] is None
    assert g2.turn == 1 and g2.to_dict()["pits"][1][0] == 1


def test_emptied_start_pit_is_not_skipped_on_a_lap():
    # 2 players, 6 pits: the loop has 14 positions; 14 stones from 0p1 end in 0p1 again.
    g = basic([[14, 4, 4, 4, 4, 4], [4, 4, 4, 2, 0, 0]], [0, 0])
    r = g.play(1)
    assert r["sown"][-1] == [0, 1] and len(r["sown"]) == 14
    assert [0, 0] in r["sown"] and [1, 0] in r["sown"]
    assert g.to_dict()["pits"][0][0] == 1 and g.turn == 1


def test_finishing_wins_over_the_extra_move_and_ends_a_two_player_game():
    # seat 0: 0 0 0 0 0 1 | 20    pit 6 -> S0: side empty straight after sowing: seat 0 wins
    g = basic([[0, 0, 0, 0, 0, 1], [4, 4, 4, 4, 4, 3]], [20, 4])
    r = g.play(6)
    assert r["finished"] == [0] and r["over"] is True and r["extra"] is False
    assert g.to_dict()["places"] == [1, 2] and g.turn is None


def test_seven_pits_for_two_players():
    g = Game(Rules.from_dict({"variant": "basic", "pits": 7, "seeds": 3}))
    assert g.to_dict()["pits"] == [[3] * 7, [3] * 7]
    r = g.play(5)  # 3 stones: 0p6 0p7 S0 -> extra move
    assert r["extra"] is True


def test_three_player_finish_then_sowing_skips_the_finished_seat():
    # 3 players, 4 pits, 3 seeds (36 stones), play all places.
    # seat 0: 3 3 3 3 | 0
    # seat 1: 0 0 0 1 |  8    seat 1 plays pit 4 into S1: finishes first, leaves the loop
    # seat 2: 3 3 3 3 | 3
    g = basic([[3, 3, 3, 3], [0, 0, 0, 1], [3, 3, 3, 3]], [0, 8, 3], turn=1, seeds=3)
    r = g.play(4)
    assert r["finished"] == [1] and not r["over"]
    d = g.to_dict()
    assert d["places"] == [None, 1, None] and d["active"] == [0, 2]
    assert g.turn == 2
    # seat 2 plays pit 4 (3): S2, 0p1, 0p2
    g.play(4)
    assert g.turn == 0
    # seat 0 plays pit 4 (3): S0, then seat 1 is skipped: 2p1, 2p2
    r = g.play(4)
    assert r["sown"] == [[0, 0], [2, 1], [2, 2]]
    assert g.to_dict()["pits"][1] == [0, 0, 0, 0] and g.to_dict()["stores"][1] == 9


def test_last_active_seat_takes_the_last_place():
    # seat 0 finished second earlier? Build: seat 1 already first; seats 0 and 2 remain.
    # seat 0: 0 0 0 1 | ...  seat 0 plays pit 4 -> S0, side empty: place 2; seat 2 is third.
    g = basic([[0, 0, 0, 1], [0, 0, 0, 0], [3, 3, 3, 3]], [11, 12, 0], turn=0,
              active=[0, 2], places=[None, 1, None], seeds=3)
    r = g.play(4)
    assert r["over"] and g.to_dict()["places"] == [2, 1, 3]


def test_first_finish_ends_the_game_with_ties_sharing_a_place():
    # 4 players, 4 pits, 3 seeds (48 stones), play_all_places false.
    # seat 0: 0 0 0 1 | 11     seat 0 finishes: 1st
    # seat 1: 2 1 1 1 |  7     5 left  -> 2nd
    # seat 2: 1 1 1 2 |  7     5 left  -> 2nd (shares)
    # seat 3: 3 3 3 0 |  3     9 left  -> 4th (3rd is skipped)
    g = basic([[0, 0, 0, 1], [2, 1, 1, 1], [1, 1, 1, 2], [3, 3, 3, 0]], [11, 7, 7, 3],
              seeds=3, play_all_places=False)
    r = g.play(4)
    assert r["over"] is True
    assert g.to_dict()["places"] == [1, 2, 2, 4]


def test_first_finish_ranking_with_a_resigned_seat():
    # seat 3 resigned earlier (4th). Seat 0 finishes: 1st; seats 1 and 2 get places 2 and 3.
    g = basic([[0, 0, 0, 1], [2, 1, 1, 1], [1, 1, 1, 3], [3, 3, 3, 0]], [11, 7, 6, 3],
              seeds=3, play_all_places=False, active=[0, 1, 2], places=[None, None, None, 4])
    g.play(4)
    assert g.to_dict()["places"] == [1, 2, 3, 4]


def test_resign_takes_the_worst_open_place_and_passes_the_turn():
    g = Game(Rules.from_dict({"variant": "basic", "players": 3}), first=1)
    r = g.resign(1)
    assert r["kind"] == "resign" and not r["over"]
    d = g.to_dict()
    assert d["places"] == [None, 3, None] and d["active"] == [0, 2] and g.turn == 2
    assert d["pits"][1] == [4] * 6, "a resigned seat's stones stay where they are"
    # its pits leave the loop: seat 0's pit 6 (4 stones) sows S0, then 2p1, 2p2, 2p3
    g.play(1)  # seat 2 plays pit 1: 2p2..2p5, no store -> turn passes to seat 0
    assert g.turn == 0
    r = g.play(6)
    assert r["sown"] == [[0, 0], [2, 1], [2, 2], [2, 3]]
    g.resign(2)
    assert g.over and g.to_dict()["places"] == [1, 3, 2]


def test_resign_of_a_seat_not_to_move_keeps_the_turn():
    g = Game(Rules.from_dict({"variant": "basic", "players": 4}), first=0)
    g.resign(2)
    assert g.turn == 0 and g.to_dict()["places"] == [None, None, 4, None]
    g.resign(0)
    assert g.turn == 1 and g.to_dict()["places"] == [3, None, 4, None]
    raises(IllegalMove, g.resign, 0)
    g.undo()
    assert g.turn == 0 and g.to_dict()["active"] == [0, 1, 3]


def test_pits_that_do_not_fit_the_players_become_six_with_a_warning():
    r = Rules.from_dict({"variant": "basic", "players": 3, "pits": 7})
    assert r.pits == 6 and len(r.warnings) == 1 and "6" in r.warnings[0]
    r = Rules.from_dict({"variant": "basic", "players": 2, "pits": 4})
    assert r.pits == 6 and r.warnings
    r = Rules.from_dict({"variant": "basic", "players": 4, "pits": 4})
    assert r.pits == 4 and not r.warnings
    assert "pits" in raises(ValueError, Rules.from_dict, {"variant": "basic", "pits": 5})
