"""How `record` stops: the signals that stop it, and where a stop may land.

Ctrl-C, `kill` (SIGTERM) and a closed terminal window (SIGHUP) stop record and write the game
under way. These tests send the real signals to this process while record runs in it, on a
scripted board line, at the moments that matter: while a finished game is being written, and
after a hang-up that `nohup` asked to ignore.
"""

import contextlib
import json
import os
import signal
import types

from fakeport import ANSWER, FakePort, board_script

from mancala import Game, Rules
from mancala_host.logs import gamelog, record
from mancala_host.link.client import Client
from mancala_host.logs.record import GameTracker


def _kalah_game():
    """The board's events for a whole Kalah game (each seat plays its first legal pit), the
    state answers before and after it, and the number of moves."""
    game = Game(Rules.from_dict({"variant": "kalah"}), first=0)
    start = {"id": ANSWER, "ok": True, "state": game.to_dict(), "first": 0, "moves": 0}
    events = []
    while not game.over:
        seat, pit = game.turn, game.legal_moves()[0]
        rec = game.play(pit)
        events.append({"event": "move", "seat": seat, "pit": pit, "record": rec,
                       "state": game.to_dict(), "by": "human", "source": "pad"})
    end = {"id": ANSWER, "ok": True, "state": game.to_dict(), "first": 0, "moves": len(events)}
    return events, start, end


@contextlib.contextmanager
def _signals(**dispositions):
    """This process's handlers for the named signals set for the test, and put back after.
    A stop signal is caught by a no-op here rather than left at its default, so that a record
    that failed to take it over fails the test instead of killing the test run."""
    old = {}
    try:
        for name, handler in dispositions.items():
            signum = getattr(signal, name)
            old[signum] = signal.signal(signum, handler)
        yield
    finally:
        for signum, handler in old.items():
            signal.signal(signum, handler)


def _ignore(signum, frame):
    pass


def _run(monkeypatch, client, log):
    said = []
    tracker = GameTracker(str(log), say=said.append)
    monkeypatch.setattr(record, "_connect", lambda args: client)
    # No heartbeat: the board's line is scripted step by step, and a pause of this test run
    # must not add a request the script does not expect.
    monkeypatch.setattr(record, "HEARTBEAT_S", float("inf"))
    args = types.SimpleNamespace(out=str(log), games=0, reconnect_timeout=0)
    assert record.run(args, tracker) == 0
    return said


def test_a_stop_while_a_finished_game_is_written_lets_the_write_finish(tmp_path, monkeypatch):
    # The kill comes the moment the game's line is on disk, before record has noted it as
    # written: stopping there would write the same game again, as unfinished.
    events, start, end = _kalah_game()
    asked = []

    def state(req):  # the game's start when record attaches, its end after that
        asked.append(req)
        return [start if len(asked) == 1 else end]

    port = FakePort(board_script(state=state))

    class Board(Client):
        def next_event(self, timeout):
            if timeout and not self.events and not port._queue:  # a wait, not the drain at a stop
                raise AssertionError("record went on waiting for the board after the kill")
            return Client.next_event(self, timeout)

    client = Board(port, timeout=0.3)
    client.hello()
    for ev in events:
        port.push(ev)
    append = gamelog.append_game

    def append_then_kill(path, game):
        append(path, game)
        os.kill(os.getpid(), signal.SIGTERM)

    monkeypatch.setattr(gamelog, "append_game", append_then_kill)
    log = tmp_path / "class.jsonl"
    with _signals(SIGTERM=_ignore):
        said = _run(monkeypatch, client, log)
    games = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(games) == 1 and "unfinished" not in games[0], said
    assert len(games[0]["moves"]) == len(events)
    assert said[-1] == "Stopped: 1 game(s) written to %s." % log


def test_a_hang_up_that_nohup_ignores_does_not_stop_record(tmp_path, monkeypatch):
    # `nohup mancala-board record &` then the terminal window is closed: record goes on,
    # and a later kill stops it with the game written.
    events, start, _ = _kalah_game()
    after_one = {"id": ANSWER, "ok": True, "state": events[0]["state"], "first": 0, "moves": 1}
    board = [start]  # what the board answers to `state`

    def move():  # a move on the pads
        board[0] = after_one
        port.push(events[0])

    port = FakePort(board_script(state=lambda req: list(board)))
    steps = [lambda: os.kill(os.getpid(), signal.SIGHUP),  # the window closes
             move,
             lambda: os.kill(os.getpid(), signal.SIGTERM)]  # then the teacher's kill

    class Board(Client):
        def next_event(self, timeout):
            if timeout and not self.events and not port._queue:  # a wait, not the drain at a stop
                if not steps:
                    raise AssertionError("record went on waiting for the board after the kill")
                steps.pop(0)()
            return Client.next_event(self, timeout)

    client = Board(port, timeout=0.3)
    client.hello()
    log = tmp_path / "class.jsonl"
    with _signals(SIGHUP=signal.SIG_IGN, SIGTERM=_ignore):
        said = _run(monkeypatch, client, log)
    assert steps == [], said  # it read on after the hang-up, up to the kill
    game = json.loads(log.read_text())
    assert game["unfinished"] is True
    assert [(m["seat"], m["pit"]) for m in game["moves"]] == [(events[0]["seat"], events[0]["pit"])]
    assert "recovered" not in game["moves"][0]  # it came as the event, read after the hang-up
    assert said[-1] == "Stopped: 1 game(s) written to %s (1 of them unfinished)." % log


def test_a_move_sent_while_the_heartbeat_waits_is_taken_as_its_event(tmp_path, monkeypatch):
    # The board is quiet, so record asks for its state; a move on the pads goes out just
    # before the answer. The answer must be compared after that move's event, not before:
    # else the move looks lost, is "recovered" from the answer, and its event comes on top.
    events, start, _ = _kalah_game()
    after_one = {"id": ANSWER, "ok": True, "state": events[0]["state"], "first": 0, "moves": 1}
    asked = []

    def state(req):
        asked.append(req)
        if len(asked) == 2:  # the heartbeat: the move's event is on the line first
            port.push(events[0])
        return [start if len(asked) == 1 else after_one]

    port = FakePort(board_script(state=state))

    class Board(Client):
        def next_event(self, timeout):
            if timeout and not self.events and not port._queue and len(asked) >= 2:
                os.kill(os.getpid(), signal.SIGTERM)  # after the heartbeat: stop
            return Client.next_event(self, timeout)

    client = Board(port, timeout=0.3)
    client.hello()
    said = []
    log = tmp_path / "class.jsonl"
    tracker = GameTracker(str(log), say=said.append)
    monkeypatch.setattr(record, "_connect", lambda args: client)
    monkeypatch.setattr(record, "HEARTBEAT_S", 0)  # the first quiet wait asks for the state
    args = types.SimpleNamespace(out=str(log), games=0, reconnect_timeout=0)
    with _signals(SIGTERM=_ignore):
        assert record.run(args, tracker) == 0
    assert len(asked) >= 2, said
    game = json.loads(log.read_text())
    assert [(m["seat"], m["pit"]) for m in game["moves"]] == [(events[0]["seat"], events[0]["pit"])]
    assert "recovered" not in game["moves"][0], game
    assert not [line for line in said if "moved on" in line], said


def test_a_second_stop_ends_the_wait_for_the_board_and_keeps_what_came(tmp_path, monkeypatch):
    # At the stop record asks the board for its state, and the board is slow to answer: a
    # move's event arrives, then the teacher presses Ctrl-C again. record reads no further, and
    # writes the game with that move.
    events, start, _ = _kalah_game()
    asked = []  # the `state` requests: record's at the start, then its catch-up at the stop

    def state(req):
        asked.append(req)
        return [start] if len(asked) == 1 else []  # no answer to the catch-up

    at_stop = [lambda: port.push(events[1]),  # a move's event on the way
               lambda: os.kill(os.getpid(), signal.SIGTERM)]  # the second stop

    class SlowBoard(FakePort):
        def read_line(self, timeout):
            if len(asked) == 2 and not self._queue:
                if not at_stop:
                    raise AssertionError("record went on waiting for the board after the second stop")
                at_stop.pop(0)()
            return FakePort.read_line(self, timeout)

    port = SlowBoard(board_script(state=state))
    steps = [lambda: port.push(events[0]),  # a move on the pads
             lambda: os.kill(os.getpid(), signal.SIGTERM)]  # the first stop

    class Board(Client):
        def next_event(self, timeout):
            if timeout and not self.events and not port._queue:  # a wait, not the drain at a stop
                steps.pop(0)()
            return Client.next_event(self, timeout)

    client = Board(port, timeout=5.0)
    client.hello()
    log = tmp_path / "class.jsonl"
    with _signals(SIGTERM=_ignore):
        said = _run(monkeypatch, client, log)
    assert steps == [] and at_stop == [], said
    game = json.loads(log.read_text())
    assert game["unfinished"] is True
    assert [(m["seat"], m["pit"]) for m in game["moves"]] == [(e["seat"], e["pit"]) for e in events[:2]]
