"""app.session: the game in progress, its saved form and take-backs beyond the engine's
snapshots. Runs under MicroPython and CPython."""
from mancala import Game, IllegalMove
from mancala_fw.app.session import Session, KEEP
from mancala_fw.app.boot import saved_session  # what the board runs at power-on

BASIC3 = {"variant": "basic", "players": 3, "pits": 4}


def _play(session, n):
    """n plays, each the first legal pit of the seat to move; returns the states after each."""
    states = [session.game.to_dict()]
    for _ in range(n):
        session.play(None, session.game.legal_moves()[0])
        states.append(session.game.to_dict())
    return states


def test_undo_limit_keeps_only_the_last_snapshots():
    g = Game({"variant": "kalah"})
    for _ in range(5):
        g.play(g.legal_moves()[0])
    before = g.to_dict()
    g.undo_limit = 2
    assert g.history_length == 2 and g.to_dict() == before
    g.undo()
    g.undo()
    try:
        g.undo()
    except IllegalMove:
        pass
    else:
        raise AssertionError("a forgotten move was taken back")
    g.undo_limit = 10  # more than there are: nothing happens
    assert g.history_length == 0
    g = Game({"variant": "basic", "players": 4}, 0, 10)
    for _ in range(12):
        g.play(g.legal_moves()[0])
    assert g.history_length == 10  # plays keep to the limit
    g.undo_limit = None
    g.play(g.legal_moves()[0])
    assert g.history_length == 11


def test_undo_beyond_the_kept_snapshots_replays_from_the_start():
    s = Session(BASIC3, 1)
    states = _play(s, KEEP + 5)
    assert s.game.history_length == KEEP
    for k in range(KEEP + 5, 0, -1):
        assert s.game.to_dict() == states[k]
        assert s.undo()
    assert s.game.to_dict() == states[0] and len(s.moves) == 0
    assert not s.undo()


def test_saved_moves_are_one_character_each_and_round_trip():
    s = Session(BASIC3, 2)
    _play(s, 4)
    s.resign(s.game.turn)
    saved = s.to_saved()
    assert len(saved["moves"]) == 5 and saved["moves"][-1] in "ABC"
    assert all(c in "1234" for c in saved["moves"][:4])
    back, problem = saved_session(saved)
    assert problem is None and back.game.to_dict() == s.game.to_dict()
    assert back.moves == s.moves and back.first == 2
    assert back.undo() and back.game.to_dict() == saved_session(
        dict(saved, moves=saved["moves"][:4], state=back.game.to_dict()))[0].game.to_dict()


def test_a_saved_list_of_ints_from_the_old_format_still_loads():
    s = Session(BASIC3, 0)
    _play(s, 3)
    s.resign(1)
    old = [m - 48 if m < 65 else 64 - m for m in s.moves]  # pits as ints, -1-s to resign
    assert old[-1] == -2
    back, problem = saved_session(dict(s.to_saved(), moves=old))
    assert problem is None and back.moves == s.moves


def test_a_damaged_move_string_keeps_the_position_without_take_backs():
    s = Session(BASIC3, 0)
    _play(s, 3)
    for bad in ("12x", "9", 12, None):
        back, problem = saved_session(dict(s.to_saved(), moves=bad))
        assert problem and "move list" in problem, bad
        assert back.game.to_dict() == s.game.to_dict() and not back.undo()


def test_take_backs_after_a_recovery_replay_from_the_recovered_position():
    s = Session(BASIC3, 0)
    _play(s, 3)
    back, problem = saved_session(dict(s.to_saved(), moves="x"))
    assert problem
    recovered = back.game.to_dict()
    states = _play(back, KEEP + 2)
    assert states[0] == recovered
    again, problem = saved_session(back.to_saved())  # a reboot keeps the moves
    assert problem is None and again.game.to_dict() == states[-1]
    for session in (back, again):
        for k in range(KEEP + 2, 0, -1):
            assert session.game.to_dict() == states[k]
            assert session.undo()
        assert session.game.to_dict() == recovered and not session.undo()


def test_a_take_back_that_fails_loses_nothing():
    s = Session(BASIC3, 0)
    states = _play(s, KEEP + 2)
    s.game.undo_limit = 0
    moves = bytearray(s.moves)
    s.moves[1:2] = b"9"  # a replay that cannot go through, as if the heap ran out
    try:
        s.undo()
    except ValueError:
        pass
    else:
        raise AssertionError("the broken replay went through")
    assert s.game.to_dict() == states[-1] and len(s.moves) == len(moves)


def test_snapshots_keep_the_board_as_bytes_and_undo_gives_back_a_bytearray():
    g = Game(BASIC3)
    before = g.to_dict()
    g.play(g.legal_moves()[0])
    assert isinstance(g._history[-1][0], bytes)  # a quarter of a list's heap on 64-bit words
    g.undo()
    assert isinstance(g._board, bytearray) and g.to_dict() == before
    assert all(type(row) is list for row in g.to_dict()["pits"])  # JSON's lists, not bytes
    g.play(g.legal_moves()[0])  # the board given back takes moves again
    assert g.to_dict() != before


def test_the_saved_game_shares_the_state_it_is_given():
    s = Session(BASIC3, 0)
    _play(s, 2)
    state = s.game.to_dict()
    assert s.to_saved(state)["state"] is state  # one copy of the position while saving
    assert s.to_saved()["state"] == state
