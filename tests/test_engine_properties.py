"""Property tests of the engine with hypothesis (CPython): conservation, legality, undo,
round trips and termination, over every variant and player count."""
from hypothesis import given, settings, strategies as st

from mancala import Game, IllegalMove, Rules

RULES = st.one_of(
    st.builds(lambda seeds, cap, wipe: {"variant": "kalah", "seeds": seeds, "capture": cap,
                                        "wipeout_capture": wipe},
              st.sampled_from([3, 4, 5]), st.sampled_from(["nonempty", "always"]), st.booleans()),
    st.builds(lambda players, pits, seeds, allp: {"variant": "basic", "players": players,
                                                  "pits": pits, "seeds": seeds,
                                                  "play_all_places": allp},
              st.sampled_from([2, 3, 4]), st.sampled_from([4, 6, 7]), st.sampled_from([3, 4]),
              st.booleans()),
)


def total(game):
    d = game.to_dict()
    return sum(map(sum, d["pits"])) + sum(d["stores"])


@settings(max_examples=150, deadline=None)
@given(RULES, st.data())
def test_whole_games(rules_dict, data):
    rules = Rules.from_dict(rules_dict)
    game = Game(rules, first=data.draw(st.integers(0, rules.players - 1)))
    expected_total = rules.players * rules.pits * rules.seeds
    states = [game.to_dict()]
    for _ in range(3000):
        if game.over:
            break
        legal = game.legal_moves()
        # every legal move is accepted, every other pit refused without a change
        for pit in range(0, rules.pits + 2):
            if pit not in legal:
                before = game.to_dict()
                try:
                    game.play(pit)
                except IllegalMove:
                    pass
                else:
                    raise AssertionError("pit %d was accepted but is not legal" % pit)
                assert game.to_dict() == before
        if data.draw(st.integers(0, 40)) == 0:
            game.resign(data.draw(st.sampled_from(game.active)))
        else:
            record = game.play(data.draw(st.sampled_from(legal)))
            assert record["stones"] == len(record["sown"])
        assert total(game) == expected_total
        d = game.to_dict()
        assert Game.from_dict(d).to_dict() == d
        states.append(d)
    assert game.over, "every game ends"
    assert game.legal_moves() == [] and game.turn is None
    for expected in reversed(states[:-1]):
        game.undo()
        assert game.to_dict() == expected


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from(["variant", "players", "pits", "seeds", "capture",
                                        "wipeout_capture", "play_all_places", "preset", "x"]),
                       st.one_of(st.integers(-2, 9), st.booleans(), st.none(),
                                 st.sampled_from(["kalah", "basic", "always", "nonempty",
                                                  "kalah-empty-capture"]))))
def test_rules_either_normalize_or_raise_valueerror(d):
    try:
        r = Rules.from_dict(d)
    except ValueError as e:
        assert str(e)
    else:
        again = Rules.from_dict(r.to_dict())
        assert again.to_dict() == r.to_dict() and not again.warnings
