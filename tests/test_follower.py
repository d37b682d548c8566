"""The follower (mancala_host.link.follower) against a model of a protocol-2 board
(tests/fakeboard.py): games handed over whole, from move 1, once each, whatever the gap."""

import threading

import pytest

from fakeboard import FakeBoard, Flash
from mancala import Game, Rules
from mancala_host.errors import BoardError, BoardRefused
from mancala_host.link import follower as follower_mod
from mancala_host.link.boardgame import decode, encode
from mancala_host.link.follower import Follower, Listener
from waits import wait_for


class Heard(Listener):
    """Everything a listener is told, in order."""

    def __init__(self, want=()):
        self.calls, self.games, self.notes, self.events = [], [], [], []
        self.want = set(want)
        self.lock = threading.Lock()

    def on_connect(self, hello, config):
        self.calls.append(("connect", hello.get("board_id")))

    def on_event(self, ev):
        self.events.append(ev)

    def on_state(self, answer):
        self.calls.append(("state", answer.get("game"), answer.get("moves")))

    def on_game(self, game):
        self.games.append(game)

    def on_note(self, text):
        self.notes.append(text)

    def on_lost(self, reason):
        self.calls.append(("lost", reason))

    def wants(self, board_id, game_id):
        return (board_id, game_id) in self.want


class Lines:
    """The follower's opener: the board's lines, one for each connection, in order."""

    def __init__(self, *boards):
        self.boards = list(boards)
        self.opened = []

    def __call__(self):
        if not self.boards:
            raise BoardError("There is no serial port at fake://board.")
        board = self.boards.pop(0)
        self.opened.append(board)
        return board


def _moves(game):
    return encode(game["moves"])


def _follow(lines, heard, **kw):
    f = Follower("fake://board", [heard], timeout=2.0, opener=lines, **kw)
    f.connect()
    f.start()
    return f


def _stopped(f):
    f.stop()
    f.wait(30)
    assert not f.running


@pytest.fixture(autouse=True)
def quick_backoff(monkeypatch):
    monkeypatch.setattr(follower_mod, "BACKOFF_S", (0.01,))


def test_history_round_trips_through_the_engine():
    g = Game(Rules.from_dict({"variant": "basic", "players": 3}), first=1)
    moves = decode("12A", g)
    assert moves[0] == {"seat": 1, "pit": 1} and moves[2] == {"seat": 0, "resign": True}
    assert encode(moves) == "12A"
    with pytest.raises(ValueError):
        decode("0", Game(Rules.from_dict({"variant": "kalah"})))


def test_a_game_followed_live_is_handed_over_once_with_times():
    flash = Flash()
    board = FakeBoard(flash)
    heard = Heard()
    f = _follow(Lines(board), heard)
    try:
        board.new_game()
        n = board.play_out()
        wait_for("the game", lambda: heard.games)
        wait_for("game_over to arrive", lambda: any(e["event"] == "game_over" for e in heard.events))
    finally:
        _stopped(f)
    (game,) = heard.games
    assert game["over"] and game["game"] == 1 and game["board_id"] == flash.board_id
    assert _moves(game) == flash.history and len(game["moves"]) == n
    assert all("t" in m and m["by"] == "human" for m in game["moves"])
    assert game["started"] and game["ended"]


def test_started_in_the_middle_of_a_game_it_hands_over_the_game_from_move_1():
    flash = Flash()
    board = FakeBoard(flash)
    board.new_game()
    board.play_out(moves=7)
    board._queue.clear()  # nobody was listening
    heard = Heard()
    f = _follow(Lines(board), heard)
    try:
        board.play_out()
        wait_for("the game", lambda: heard.games)
    finally:
        _stopped(f)
    (game,) = heard.games
    assert _moves(game) == flash.history and game["over"]
    # the seven moves before it came were handed over by the board: no `by`; the rest came
    # as events, with `by`, and no time, as the game's start was not seen
    assert all("by" not in m for m in game["moves"][:7])
    assert all(m["by"] == "human" for m in game["moves"][7:])
    assert not any("t" in m for m in game["moves"]) and game["started"] is None
    assert not heard.notes


def test_lost_events_are_caught_up_by_the_heartbeat():
    flash = Flash()
    board = FakeBoard(flash)
    heard = Heard()
    f = _follow(Lines(board), heard, heartbeat=0.05)
    try:
        board.new_game()
        board.play_out(moves=3)
        board.mute = True   # three moves whose events are lost
        board.play_out(moves=3)
        board.mute = False
        board.play_out()
        wait_for("the game", lambda: heard.games)
    finally:
        _stopped(f)
    (game,) = heard.games
    assert _moves(game) == flash.history
    assert ["t" in m for m in game["moves"][:6]] == [True] * 3 + [False] * 3


def test_a_board_killed_mid_game_and_restarted_is_followed_on():
    flash = Flash()
    first = FakeBoard(flash)
    heard = Heard()
    lines = Lines(first)
    f = _follow(lines, heard)
    try:
        first.new_game()
        first.play_out(moves=4)
        wait_for("four moves", lambda: len((f.game() or {}).get("moves", [])) == 4)
        first.mute = True
        first.play_out(moves=2)  # made and saved, but never sent: the power went
        first.unplug()
        wait_for("the line to be lost", lambda: any(c[0] == "lost" for c in heard.calls))
        second = FakeBoard(flash, boot=True)
        lines.boards.append(second)
        wait_for("the board to be back", lambda: lines.opened[-1] is second and f.live)
        second.play_out()
        wait_for("the game", lambda: heard.games)
    finally:
        _stopped(f)
    (game,) = heard.games
    assert _moves(game) == flash.history and game["game"] == 1
    assert ["t" in m for m in game["moves"][:7]] == [True] * 4 + [False] * 2 + [True]


def test_games_that_ended_while_away_are_fetched_once(monkeypatch):
    flash = Flash()
    first = FakeBoard(flash)
    heard = Heard()
    lines = Lines(first)
    f = _follow(lines, heard)
    try:
        first.new_game()
        first.play_out(moves=5)
        wait_for("five moves", lambda: len((f.game() or {}).get("moves", [])) == 5)
        first.unplug()
        wait_for("the line to be lost", lambda: any(c[0] == "lost" for c in heard.calls))
        away = FakeBoard(flash)  # the board plays on with nobody listening
        away.play_out()                          # game 1 ends
        away.new_game(first=1)
        away.play_out()                          # game 2, whole
        away.new_game()
        away.play_out(moves=3)                   # game 3, under way
        away._queue.clear()
        lines.boards.append(FakeBoard(flash))
        wait_for("games 1 and 2", lambda: len(heard.games) == 2)
        lines.opened[-1].play_out()
        wait_for("game 3", lambda: len(heard.games) == 3)
    finally:
        _stopped(f)
    assert sorted(g["game"] for g in heard.games) == [1, 2, 3]
    by_id = {g["game"]: g for g in heard.games}
    assert [by_id[e["game"]]["moves"] and _moves(by_id[e["game"]]) for e in flash.finished] == \
        [e["history"] for e in flash.finished]
    assert all(g["over"] for g in heard.games)
    # the five moves of game 1 seen live keep their times
    assert ["t" in m for m in by_id[1]["moves"][:6]] == [True] * 5 + [False]


def test_a_fresh_follower_fetches_only_the_games_a_listener_wants():
    flash = Flash()
    board = FakeBoard(flash)
    for first in (0, 1, 0):
        board.new_game(first=first)
        board.play_out()
    board._queue.clear()
    heard = Heard(want=[(flash.board_id, 2)])
    f = _follow(Lines(board), heard, heartbeat=0.02)
    try:
        wait_for("the first state", lambda: any(c[0] == "state" for c in heard.calls))
        wait_for("game 2", lambda: heard.games)
        # game 3, finished before the follower came and not wanted, stays so at the heartbeats
        wait_for("five heartbeats", lambda: sum(c[0] == "state" for c in heard.calls) >= 6)
        assert [g["game"] for g in heard.games] == [2]
        board.new_game()
        board.play_out()
        wait_for("game 4", lambda: len(heard.games) == 2)
    finally:
        _stopped(f)
    assert [g["game"] for g in heard.games] == [2, 4]


def test_a_new_game_before_the_end_hands_the_old_one_over_unfinished():
    flash = Flash()
    board = FakeBoard(flash)
    heard = Heard()
    f = _follow(Lines(board), heard)
    try:
        board.new_game()
        board.play_out(moves=3)
        board.new_game()
        wait_for("the dropped game", lambda: heard.games)
    finally:
        _stopped(f)
    (game,) = heard.games
    assert not game["over"] and len(game["moves"]) == 3 and game["game"] == 1


def test_a_take_back_is_followed_and_a_game_from_a_position_has_its_base():
    flash = Flash()
    board = FakeBoard(flash)
    heard = Heard()
    f = _follow(Lines(board), heard)
    start = {"rules": flash.rules, "pits": [[1, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 2]],
             "stores": [20, 24], "turn": 0, "active": [0, 1], "places": [None, None], "over": False}
    try:
        board.new_game(state=start)
        board.pad(1)
        board.take_back()
        board.play_out()
        wait_for("the game", lambda: heard.games)
    finally:
        _stopped(f)
    (game,) = heard.games
    assert game["base"] == start and _moves(game) == flash.history


def test_requests_are_answered_while_events_flow_and_refusals_keep_their_code():
    flash = Flash()
    board = FakeBoard(flash)
    heard = Heard()
    f = _follow(Lines(board), heard)
    try:
        board.new_game()
        answer = f.ask("press", pit=3)
        assert answer["state"]["pits"][0][2] == 0
        assert heard.events[-1]["event"] == "move"  # its event came before its answer
        with pytest.raises(BoardRefused) as refused:
            f.ask("press", pit=3)
        assert refused.value.code == "illegal_move"
    finally:
        _stopped(f)


def test_a_protocol_1_board_is_followed_from_the_next_game_and_says_why():
    flash = Flash()
    board = FakeBoard(flash, protocol=1)
    board.new_game()
    board.play_out(moves=2)
    board._queue.clear()
    heard = Heard()
    f = _follow(Lines(board), heard)
    try:
        wait_for("the note", lambda: heard.notes)
        board.new_game()
        board.play_out()
        wait_for("the game", lambda: heard.games)
    finally:
        _stopped(f)
    assert "protocol 1" in heard.notes[0] and "update its firmware" in heard.notes[0]
    (game,) = heard.games
    assert game["game"] is None and _moves(game) == flash.history


def test_the_catch_up_at_a_stop_takes_in_the_last_moves():
    flash = Flash()
    board = FakeBoard(flash)
    heard = Heard()
    f = _follow(Lines(board), heard)
    board.new_game()
    board.play_out(moves=2)
    board.mute = True
    board.play_out(moves=1)
    f.stop(catch_up=True)
    f.wait(30)
    assert _moves(f.game()) == flash.history and len(flash.history) == 3


def test_a_board_that_stays_away_ends_the_follower_with_one_sentence():
    board = FakeBoard(Flash())
    heard = Heard()
    f = _follow(Lines(board), heard, reconnect_timeout=0.05)
    board.unplug()
    with pytest.raises(BoardError) as away:
        f.wait(30)
    assert str(away.value).startswith("The board stayed away for 0.05 s")


def test_moves_taken_back_while_away_are_caught_up_from_the_start():
    flash = Flash()
    first = FakeBoard(flash)
    heard = Heard()
    lines = Lines(first)
    f = _follow(lines, heard, heartbeat=0.05)
    try:
        first.new_game()
        first.play_out(moves=5)
        wait_for("five moves", lambda: len((f.game() or {}).get("moves", [])) == 5)
        first.mute = True       # three take-backs and two other moves, none of them seen
        for _ in range(3):
            first.take_back()
        first.pad(6 if flash.engine().is_legal(6) else flash.engine().legal_moves()[-1])
        first.mute = False      # the heartbeat asks from move 5, which is past the board's 3
        wait_for("the board's moves", lambda: _moves(f.game()) == flash.history)
        first.play_out()
        wait_for("the game", lambda: heard.games)
    finally:
        _stopped(f)
    (game,) = heard.games
    assert _moves(game) == flash.history and not heard.notes
    assert any(r.get("since") == 5 for r in first.sent) and any(r.get("since") == 0 for r in first.sent[3:])


class Tripping(Heard):
    """A listener with a bug: it raises on the first state answer."""

    def on_state(self, answer):
        raise KeyError("state")

    def on_stopped(self, failure):
        self.calls.append(("stopped", repr(failure)))


def test_a_listener_that_raises_stops_the_follower_and_every_listener_is_told():
    board = FakeBoard(Flash())
    heard, tripping = Heard(), Tripping()
    heard.on_stopped = lambda failure: heard.calls.append(("stopped", repr(failure)))
    f = Follower("fake://board", [tripping, heard], timeout=2.0, opener=Lines(board))
    f.connect()
    f.start()
    wait_for("the stop", lambda: ("stopped", "KeyError('state')") in heard.calls)
    assert ("stopped", "KeyError('state')") in tripping.calls
    with pytest.raises(KeyError):
        f.wait(30)
    assert not f.running
