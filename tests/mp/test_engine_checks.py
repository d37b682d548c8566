# Rules and state checking, and random whole games; both runtimes.
import random
from mancala import Game, Rules, IllegalMove, PRESETS
from enginehelp import raises

ALL_RULES = [
    {"variant": "kalah", "seeds": 3}, {"variant": "kalah"}, {"variant": "kalah", "seeds": 5},
    {"preset": "kalah-empty-capture"},
    {"variant": "basic"}, {"variant": "basic", "pits": 7, "seeds": 3},
    {"variant": "basic", "players": 3}, {"variant": "basic", "players": 3, "pits": 4},
    {"variant": "basic", "players": 4, "pits": 4, "seeds": 3},
    {"variant": "basic", "players": 4, "play_all_places": False},
    {"variant": "basic", "players": 3, "play_all_places": False},
]


def test_defaults_fill_every_key():
    assert Rules.from_dict({}).to_dict() == {"variant": "kalah", "players": 2, "pits": 6,
                                             "seeds": 4, "capture": "nonempty",
                                             "wipeout_capture": True}
    assert Rules.from_dict({"variant": "basic"}).to_dict() == {
        "variant": "basic", "players": 2, "pits": 6, "seeds": 4, "play_all_places": True}


def test_presets_set_the_flags_of_each_rule_text():
    r = Rules.from_dict({"preset": "kalah-empty-capture"})
    assert r.capture == "always" and r.wipeout_capture is False
    r = Rules.from_dict({"preset": "kalah", "seeds": 5})
    assert r.capture == "nonempty" and r.wipeout_capture is True and r.seeds == 5
    assert "preset" in raises(ValueError, Rules.from_dict, {"preset": "oware"})
    for name in PRESETS:
        Rules.from_dict({"preset": name})


def test_rule_errors_name_the_key_and_the_allowed_values():
    msg = raises(ValueError, Rules.from_dict, {"variant": "kalah", "seeds": 7})
    assert msg == "seeds must be 3, 4 or 5 for kalah, got 7", msg
    assert "variant" in raises(ValueError, Rules.from_dict, {"variant": "oware"})
    assert "players" in raises(ValueError, Rules.from_dict, {"variant": "kalah", "players": 3})
    assert "seeds" in raises(ValueError, Rules.from_dict, {"variant": "basic", "seeds": 5})
    assert "seeds" in raises(ValueError, Rules.from_dict, {"seeds": "4"})
    assert "seeds" in raises(ValueError, Rules.from_dict, {"seeds": True})
    assert "seeds" in raises(ValueError, Rules.from_dict, {"seeds": 4.0})
    assert "capture" in raises(ValueError, Rules.from_dict, {"capture": "never"})
    assert "wipeout_capture" in raises(ValueError, Rules.from_dict, {"wipeout_capture": 1})
    assert "play_all_places" in raises(ValueError, Rules.from_dict, {"play_all_places": True})
    assert "colour" in raises(ValueError, Rules.from_dict, {"colour": "red"})
    raises(ValueError, Rules.from_dict, "kalah")
    raises(ValueError, Game, {"variant": "kalah"}, 2)


def _state(**changes):
    d = Game(Rules.from_dict({"variant": "basic", "players": 3})).to_dict()
    d.update(changes)
    return d


def test_from_dict_refuses_states_that_are_not_games():
    good = _state()
    assert Game.from_dict(good).to_dict() == good
    cases = [
        (_state(pits=[[4] * 6, [4] * 6]), "pits"),
        (_state(pits=[[4] * 6, [4] * 5 + [5], [4] * 5 + [-1]]), "pits[2]"),
        (_state(pits=[[4] * 6, [4] * 6, [4] * 5 + [5]]), "stones"),
        (_state(stores=[0, 0]), "stores"),
        (_state(turn=3), "turn"),
        (_state(turn=None), "turn"),
        (_state(active=[2, 0, 1]), "active"),
        (_state(places=[None, 1, None]), "seat 1"),
        (_state(over=True), "turn"),
        (_state(over=1), "over"),
        (_state(secret=1), "secret"),
        (_state(rules={"variant": "basic", "players": 3, "pits": 7}), "normalized"),
    ]
    for d, word in cases:
        msg = raises(ValueError, Game.from_dict, d)
        assert word in msg, (word, msg)
    d = _state()
    del d["places"]
    assert "places" in raises(ValueError, Game.from_dict, d)


def test_from_dict_refuses_a_turn_without_a_move_and_bad_places():
    d = _state(pits=[[0] * 6, [4] * 6, [4] * 6], stores=[24, 0, 0])
    assert "finished" in raises(ValueError, Game.from_dict, d)
    d = _state(active=[0, 1], places=[None, None, 1], turn=0)
    Game.from_dict(d)
    d = _state(active=[0, 2], places=[None, 2, None], turn=0)
    assert "gap" in raises(ValueError, Game.from_dict, d)
    d = _state(active=[], places=[1, 3, 3], turn=None, over=True)
    assert "ranking" in raises(ValueError, Game.from_dict, d)
    d = _state(active=[], places=[1, 2, 2], turn=None, over=True)
    assert Game.from_dict(d).over
    k = Game(Rules.from_dict({})).to_dict()
    k["pits"] = [[0] * 6, [4] * 6]
    k["stores"] = [24, 0]
    assert "already over" in raises(ValueError, Game.from_dict, k)


def _play_out(rules, seed):
    rnd = random.Random(seed) if hasattr(random, "Random") else None
    if rnd is None:
        random.seed(seed)
        rnd = random
    game = Game(Rules.from_dict(rules), first=seed % Rules.from_dict(rules).players)
    total = game.players * game.pits * game.rules.seeds
    history = [game.to_dict()]
    moves = 0
    while not game.over:
        legal = game.legal_moves()
        assert legal, "a running game always has a move"
        for pit in range(1, game.pits + 1):
            if pit not in legal:
                before = game.to_dict()
                raises(IllegalMove, game.play, pit)
                assert game.to_dict() == before
        if rnd.randrange(50) == 0:
            game.resign(game.active[rnd.randrange(len(game.active))])
        else:
            game.play(legal[rnd.randrange(len(legal))])
        d = game.to_dict()
        assert sum(sum(r) for r in d["pits"]) + sum(d["stores"]) == total
        assert Game.from_dict(d).to_dict() == d
        history.append(d)
        moves += 1
        assert moves < 2000, "game does not end"
    assert None not in game.to_dict()["places"]
    for expected in reversed(history[:-1]):
        game.undo()
        assert game.to_dict() == expected
    return moves


def test_random_games_of_every_variant_end_conserve_stones_and_undo():
    for rules in ALL_RULES:
        for seed in range(6):
            _play_out(rules, seed)


def test_from_dict_refuses_positions_play_cannot_reach():
    # Basic: an active seat with empty pits would have finished.
    d = _state(pits=[[4] * 6, [0] * 6, [4] * 6], stores=[0, 24, 0], turn=0)
    assert "finished" in raises(ValueError, Game.from_dict, d)
    # A game that ends at the first finish cannot run on after one.
    d = _state(rules={"variant": "basic", "players": 3, "pits": 6, "seeds": 4,
                      "play_all_places": False},
               active=[0, 2], places=[None, 1, None], turn=0)
    assert "already over" in raises(ValueError, Game.from_dict, d)
    # ... but resigned seats may have left it.
    d["places"] = [None, 3, None]
    Game.from_dict(d)
    # Rules in a state are the normalized ones, so to_dict() gives back what came in.
    d = _state(rules={"variant": "basic", "players": 3})
    assert "normalized" in raises(ValueError, Game.from_dict, d)


def test_a_failed_resign_changes_nothing():
    g = Game(Rules.from_dict({"variant": "basic", "players": 3}))
    before = g.to_dict()
    for seat in (1.0, "1", None, True, 5):
        raises(IllegalMove, g.resign, seat)
    assert g.to_dict() == before and g.history_length == 0
