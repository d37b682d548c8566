"""How `record` stops: the signals that stop it, and where a stop may land.

Ctrl-C, `kill` (SIGTERM) and a closed terminal window (SIGHUP) stop record and write the game
under way. These tests send the real signals to this process while record runs in it, on a
model of the board (tests/fakeboard.py), at the moments that matter: while a finished game is
being written, after a hang-up that `nohup` asked to ignore, and while record waits for the
board's last answer.
"""

import contextlib
import json
import os
import signal
import types

from fakeboard import FakeBoard, Flash

from mancala_host.link.follower import Follower
from mancala_host.logs import gamelog, record
from mancala_host.logs.record import Recorder


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


class Board(FakeBoard):
    """The model board, with a hook run after each request it answers (`after`), and a
    `hush` that leaves `state` requests unanswered."""

    def __init__(self, flash):
        super().__init__(flash)
        self.after = None
        self.hush = False

    def write_line(self, data):
        req = json.loads(data.decode())
        if self.hush and req.get("cmd") == "state":
            self.sent.append(req)
            return
        super().write_line(data)
        if self.after is not None:
            self.after(req)


def _run(monkeypatch, board, log, heartbeat=60.0):
    said = []
    recorder = Recorder(str(log), say=said.append)
    monkeypatch.setattr(record, "follower_for", lambda args, rec: Follower(
        "fake://board", [rec], timeout=2.0, heartbeat=heartbeat, opener=lambda: board))
    args = types.SimpleNamespace(out=str(log), games=0, reconnect_timeout=0, port=None, timeout=2.0)
    assert record.run(args, recorder) == 0
    return said


def test_a_stop_while_a_finished_game_is_written_lets_the_write_finish(tmp_path, monkeypatch):
    # The kill comes the moment the game's line is on disk: the game is in the log once,
    # finished, and no stub of it follows.
    board = Board(Flash())
    append = gamelog.append_game

    def append_then_kill(path, game):
        append(path, game)
        os.kill(os.getpid(), signal.SIGTERM)

    monkeypatch.setattr(gamelog, "append_game", append_then_kill)

    def play(req):  # once record has the board's state, a whole game on the pads
        if req.get("cmd") == "state" and board.after is not None:
            board.after = None
            board.new_game()
            board.play_out()

    board.after = play
    log = tmp_path / "class.jsonl"
    with _signals(SIGTERM=_ignore):
        said = _run(monkeypatch, board, log)
    games = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(games) == 1 and "unfinished" not in games[0], said
    assert gamelog.check_game(games[0])[0].over
    assert said[-1] == "Stopped: 1 game(s) written to %s." % log


def test_a_hang_up_that_nohup_ignores_does_not_stop_record(tmp_path, monkeypatch):
    # `nohup mancala-board record &` then the terminal window is closed: record goes on,
    # and a later kill stops it with the game written.
    board = Board(Flash())
    board.new_game()
    steps = [lambda: os.kill(os.getpid(), signal.SIGHUP),   # the window closes
             lambda: board.pad(3),                          # a move on the pads
             lambda: os.kill(os.getpid(), signal.SIGTERM)]  # then the teacher's kill

    def next_step(req):
        if req.get("cmd") == "state" and steps:
            steps.pop(0)()

    board.after = next_step
    log = tmp_path / "class.jsonl"
    with _signals(SIGHUP=signal.SIG_IGN, SIGTERM=_ignore):
        said = _run(monkeypatch, board, log, heartbeat=0.05)  # each heartbeat is a step
    assert steps == [], said
    game = json.loads(log.read_text())
    assert game["unfinished"] is True
    assert [(m["seat"], m["pit"], m.get("by")) for m in game["moves"]] == [(0, 3, "human")]
    assert said[-1] == "Stopped: 1 game(s) written to %s (1 of them unfinished)." % log


def test_a_move_made_just_before_the_stop_is_kept(tmp_path, monkeypatch):
    # The teacher stops record right after a move on the pads whose event it has not read:
    # the catch-up at the stop takes it in, once.
    board = Board(Flash())
    board.new_game()
    board.pad(1)

    def stop_after_a_move(req):
        if req.get("cmd") == "state" and board.after is not None:
            board.after = None
            board.mute = True  # the move's event is not on the line yet
            board.pad(2)
            board.mute = False
            os.kill(os.getpid(), signal.SIGTERM)

    board.after = stop_after_a_move
    log = tmp_path / "class.jsonl"
    with _signals(SIGTERM=_ignore):
        said = _run(monkeypatch, board, log)
    game = json.loads(log.read_text())
    assert [(m["seat"], m["pit"]) for m in game["moves"]] == [(0, 1), (1, 2)], said
    assert "by" not in game["moves"][1]  # handed over by the board, not seen as an event


def test_a_second_stop_ends_the_wait_for_the_board_and_keeps_what_came(tmp_path, monkeypatch):
    # At the stop record asks the board for its state, and the board does not answer: a move's
    # event arrives, then the teacher presses Ctrl-C again. record waits no longer, and writes
    # the game with that move.
    board = Board(Flash())
    board.new_game()
    sent = []

    def first_stop(req):  # at the first heartbeat, once record follows the board
        if req.get("cmd") == "state" and len(board.sent) > 3 and board.after is not None:
            board.after = None
            board.hush = True
            os.kill(os.getpid(), signal.SIGTERM)

    def second_stop():
        if board.hush and len([r for r in board.sent if r.get("cmd") == "state"]) == 3 and not sent:
            sent.append(1)
            board.pad(4)  # its event arrives while record waits for the answer
            os.kill(os.getpid(), signal.SIGTERM)

    read = board.read_line

    def read_line(timeout):
        second_stop()
        return read(timeout)

    board.read_line = read_line
    board.after = first_stop
    log = tmp_path / "class.jsonl"
    with _signals(SIGTERM=_ignore):
        said = _run(monkeypatch, board, log, heartbeat=0.05)
    assert sent, said
    game = json.loads(log.read_text())
    assert game["unfinished"] is True
    assert [(m["seat"], m["pit"]) for m in game["moves"]] == [(0, 4)]
