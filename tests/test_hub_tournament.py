"""The hub's tournament logic without boards: round robin with the CPU filling an odd count,
Swiss pairings without rematches, and the tie-break rule (points, store difference, head to
head, name)."""
import pytest

from mancala_host.hub.tournament import GAP, Tournament, parse_players


def _play(t, winner_of):
    """Deal and finish every game until the tournament is over; winner_of(game) -> 0, 1 or None."""
    while not t.over:
        game = t.next_game("b")
        assert game is not None
        w = winner_of(game)
        t.finish(game, [1, 1] if w is None else [1, 2] if w == 0 else [2, 1],
                 [20, 16] if w == 0 else [16, 20] if w == 1 else [18, 18])


def test_an_odd_round_robin_gives_each_player_one_game_against_the_cpu():
    t = Tournament(parse_players(["A", "B", "C", "D", "E"]))
    _play(t, lambda g: 0)
    gaps = [g for g in t.games if GAP in g.names]
    assert sorted(n for g in gaps for n in g.names if n != GAP) == ["A", "B", "C", "D", "E"]
    assert all(r["played"] == 4 + 1 for r in t.standings())
    assert GAP not in [r["name"] for r in t.standings()]


def test_swiss_pairs_by_score_without_rematches():
    t = Tournament(parse_players(["P%d" % i for i in range(8)]), "swiss", rounds=3)
    _play(t, lambda g: 0 if g.names[0] < g.names[1] else 1)
    pairs = [frozenset(g.names) for g in t.games]
    assert len(pairs) == 12 and len(set(pairs)) == 12
    assert t.standings()[0]["name"] == "P0" and t.standings()[0]["points"] == 3


def test_ties_go_to_store_difference_then_head_to_head():
    t = Tournament(parse_players(["A", "B", "C", "D"]))
    # C beats everyone; A and B beat D and draw each other; D loses all
    result = {frozenset("AB"): None}

    def winner(g):
        a, b = g.names
        if frozenset((a, b)) in result:
            return result[frozenset((a, b))]
        for best in "CABD":
            if best in (a, b):
                return 0 if a == best else 1
    _play(t, winner)
    rows = t.standings()
    assert [r["name"] for r in rows][0] == "C" and rows[-1]["name"] == "D"
    # A and B: same points and store difference, and a draw between them: the name decides
    assert [r["name"] for r in rows[1:3]] == ["A", "B"]
    assert rows[1]["points"] == rows[2]["points"] and rows[1]["head_to_head"] == 0.5


@pytest.mark.parametrize("entries, words", [(["A"], "at least 2"), (["A", "A"], "taken"),
                                            (["A", "B=cpu9"], "cpu1 to cpu5"), (["=cpu1", "B"], "name")])
def test_bad_player_lists_are_one_sentence(entries, words):
    with pytest.raises(ValueError) as e:
        parse_players(entries)
    assert words in str(e.value) and str(e.value).endswith(".")
