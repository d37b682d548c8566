# The engine as a library: copy(), outcome(), is_legal(), stones(), hashable Rules, typed
# move records that stay plain JSON, undo_limit. Both runtimes.
import json
from mancala import Game, Rules, IllegalMove, Record
from mancala.outcome import Outcome
from enginehelp import raises, kalah, basic, Picker
from test_engine_checks import ALL_RULES


def test_rules_are_values_equal_rules_hash_alike():
    a = Rules.from_dict({"variant": "kalah"})
    b = Rules.from_dict({"preset": "kalah", "seeds": 4})
    c = Rules.from_dict({"variant": "kalah", "capture": "always"})
    assert a == b and hash(a) == hash(b) and a != c
    assert len(set([a, b, c])) == 2
    table = {a: "standard"}
    assert table[b] == "standard" and c not in table
    basics = set(Rules.from_dict(r) for r in ALL_RULES if r.get("variant") == "basic")
    assert len(basics) == 7
    # A pits value that was changed to 6 (with a warning) is the same game as 6.
    assert Rules.from_dict({"variant": "basic", "players": 3, "pits": 7}) == \
        Rules.from_dict({"variant": "basic", "players": 3})


def test_is_legal_agrees_with_legal_moves_and_play():
    rnd = Picker(3)
    for rules in ALL_RULES:
        g = Game(rules)
        while not g.over:
            legal = g.legal_moves()
            for pit in (0, 1, 2, 3, 4, 5, 6, 7, 8, -1, True, "1", None, 2.0):
                want = pit in legal and type(pit) is int
                assert g.is_legal(pit) == want, (rules, pit, g.to_dict())
            g.play(rnd.choice(legal))
        assert not any(g.is_legal(p) for p in range(1, 8))


def test_stones_reads_pits_stores_and_sides():
    #        seat 1:  pit 6 5 4 3 2 1
    #                    [1 0 2 0 0 3]
    #   store 1: [9]                   store 0: [20]
    #                    [0 4 0 5 0 4]
    #        seat 0:  pit 1 2 3 4 5 6
    g = kalah([0, 4, 0, 5, 0, 4], 20, [3, 0, 0, 2, 0, 1], 9)
    assert [g.stones(0, p) for p in range(7)] == [20, 0, 4, 0, 5, 0, 4]
    assert [g.stones(1, p) for p in range(7)] == [9, 3, 0, 0, 2, 0, 1]
    assert g.stones(0) == 13 and g.stones(1) == 6
    assert raises(ValueError, g.stones, 2, 1) == "this game has no seat 2 pit 1"
    assert "pit 7" in raises(ValueError, g.stones, 0, 7)
    assert "pit -1" in raises(ValueError, g.stones, 0, -1)


def test_copy_is_independent_and_keeps_its_own_undo():
    rnd = Picker(5)
    for rules in ALL_RULES:
        g = Game(rules, first=1)
        for _ in range(3 + rnd.below(9)):
            if g.over:
                break
            g.play(rnd.choice(g.legal_moves()))
        before = g.to_dict()
        c = g.copy()
        assert c.to_dict() == before and c.rules == g.rules
        assert c.history_length == g.history_length
        while not c.over:
            c.play(rnd.choice(c.legal_moves()))
        assert g.to_dict() == before  # the copy's moves left the original alone
        while c.history_length:
            c.undo()
        assert c.to_dict() == Game(rules, first=1).to_dict()
        assert g.to_dict() == before
        bare = g.copy(stack=False)
        assert bare.to_dict() == before and bare.history_length == 0
        assert "take back" in raises(IllegalMove, bare.undo)


def test_outcome_places_and_reasons():
    # Kalah: seat 0 sows its last stone into its store, its side is empty, the game ends.
    #        seat 1:  [1 0 2 0 0 3]
    #   store 1: [20]                  store 0: [21]
    #        seat 0:  [0 0 0 0 0 1]
    g = kalah([0, 0, 0, 0, 0, 1], 21, [3, 0, 0, 2, 0, 1], 20)
    assert g.outcome() is None
    g.play(6)
    assert g.outcome() == Outcome("empty_side", [2, 1])
    assert g.outcome().winners == [1]
    # A draw: both seats hold place 1.
    g = kalah([0, 0, 0, 0, 0, 1], 23, [0, 0, 0, 0, 0, 2], 22)
    g.play(6)
    assert g.outcome() == Outcome("empty_side", [1, 1]) and g.outcome().winners == [0, 1]
    g = Game({"variant": "kalah"})
    g.resign(0)
    assert g.outcome() == Outcome("resigned", [2, 1])
    # Basic: seat 0 plays its last stone into its store and finishes first.
    #   seat 1: [2 2 2 2 2 2]
    #   seat 0: [0 0 0 0 0 1]
    g = basic([[0, 0, 0, 0, 0, 1], [2, 2, 2, 2, 2, 2]], [20, 15])
    g.play(6)
    assert g.outcome() == Outcome("finished", [1, 2])
    # Three seats, all places played out: 0 finishes, 2 resigns, 1 is left in second place.
    #   seat 2: [1 1 1 1]   seat 1: [1 1 1 1]   seat 0: [0 0 0 1]
    g = basic([[0, 0, 0, 1], [1, 1, 1, 1], [1, 1, 1, 1]], [15, 12, 12])
    g.play(4)
    assert g.outcome() is None
    g.resign(2)
    assert g.outcome() == Outcome("finished", [1, 2, 3])
    g = Game({"variant": "basic", "players": 3})
    g.resign(1)
    g.resign(0)
    assert g.outcome() == Outcome("resigned", [2, 3, 1])
    # A rebuilt game tells the same story from its state alone.
    assert Game.from_dict(g.to_dict()).outcome() == g.outcome()


def test_records_have_named_fields_and_stay_plain_json():
    #        seat 1:  pit 6 5 4 3 2 1
    #                    [4 4 4 4 4 4]
    #   store 1: [4]                   store 0: [3]
    #                    [1 0 4 4 4 4]
    #        seat 0:  pit 1 2 3 4 5 6
    g = kalah([1, 0, 4, 4, 4, 4], 3, [4, 4, 4, 4, 4, 4], 4)
    rec = g.play(1)  # the stone lands in empty pit 2, across from seat 1's pit 5
    assert isinstance(rec, Record) and isinstance(rec, dict)
    assert rec.kind == "sow" and rec.seat == 0 and rec.pit == 1 and rec.stones == 1
    assert rec.sown == [[0, 2]] and rec.extra is False and rec.turn == 1
    cap = rec.capture
    assert isinstance(cap, Record) and cap.opposite == [1, 5] and cap.stones == 5
    assert cap.seat == 0 and cap.pit == 2 and cap["from"] == [1, 5]
    back = json.loads(json.dumps(rec))
    assert back == rec and type(back) is dict
    again = Record(back)
    assert again.capture["stones"] == 5 and again.turn == 1 and again == rec
    # A record compares as the dict it is, from either side (MicroPython builds it on an
    # OrderedDict, which its == would never match with a plain dict).
    assert rec == back and not rec != back and not back != rec
    back["turn"] = 0
    assert rec != back and back != rec and not rec == back and not back == rec
    assert "nonsense" in raises(AttributeError, getattr, rec, "nonsense")
    res = g.resign(1)
    assert isinstance(res, Record) and res.kind == "resign" and res.places == [1, 2]
    assert json.loads(json.dumps(res)) == {"kind": "resign", "seat": 1, "finished": [],
                                           "over": True, "places": [1, 2], "turn": None}


def test_records_are_the_documented_json():
    # Every key of the documented record, and nothing else, through a whole game of each
    # variant.
    sow_keys = sorted(["kind", "seat", "pit", "stones", "sown", "capture", "extra",
                       "finished", "sweep", "over", "places", "turn"])
    rnd = Picker(9)
    for rules in ALL_RULES:
        g = Game(rules)
        while not g.over:
            rec = g.play(rnd.choice(g.legal_moves()))
            assert sorted(json.loads(json.dumps(rec))) == sow_keys
            if rec.capture is not None:
                assert sorted(rec.capture) == ["from", "pit", "seat", "stones"]


def test_undo_limit_is_checked():
    g = Game({"variant": "kalah"}, 0, 3)
    assert g.undo_limit == 3
    for bad in (-1, -0.5):
        assert "undo_limit" in raises(ValueError, setattr, g, "undo_limit", bad)
    assert g.undo_limit == 3
