"""Each game in the log once, whole, from move 1: `record` (a real process, real pyserial over
a pty) against the real firmware on the unix-port virtual board with its flash kept, through
what a classroom does to it.

One board plays two Kalah games, and around them:
- a recorder is started in the middle of game 1 (4 moves made before it);
- the board is killed (SIGKILL, a power cut) in the middle of game 1 and started again on
  the same flash, while that recorder follows it;
- that recorder is stopped in the middle of game 1, the game is played to its end and game 2
  begun with nobody recording, then a second recorder is started on the same log;
- the second recorder is stopped the moment game 2 ends;
- a third is started in the middle of game 3 and killed (SIGKILL: it writes nothing more),
  game 3 is played to its end, and a fourth recorder is started after it.

The log, read as every reader reads it (gamelog.latest), then holds games 1 to 3 once each,
finished, with exactly the moves the board hands over for them (`game`), and no game has two
finished lines.
"""

import json
import os
import queue
import signal
import threading

from mancala import Game, Rules
from mancala_host.commands import cli
from mancala_host.link.boardgame import encode
from mancala_host.link.session import open_client
from mancala_host.logs import gamelog
from test_host_record_sim import _record, _stop
from test_host_sim import Sim, wait_for
from waits import HANG_S

RULES = {"variant": "kalah", "seeds": 3}


def _saved(sim):
    """(game id, moves) of the game the board has saved on its flash (it saves every move
    before it says so), or None while the file is being replaced."""
    try:
        with open(os.path.join(str(sim.flash), "game.json")) as f:
            saved = json.load(f)
    except (OSError, ValueError):
        return None
    return saved.get("game"), saved.get("moves")


class Play:
    """The games as the test plays them, one move at a time, on the line or on the pads."""

    def __init__(self, sim):
        self.sim = sim
        self.game = None

    def new(self):
        assert cli.main(["--port", self.sim.link, "new", "--first", "0", "variant=kalah", "seeds=3"]) == 0
        self.game = Game(Rules.from_dict(RULES), first=0)

    def _next(self):
        seat, pit = self.game.turn, self.game.legal_moves()[-1]
        self.game.play(pit)
        return seat, pit

    def press(self, n=None):
        """n moves (None: to the end) with `press`, while no recorder holds the line."""
        while not self.game.over and (n is None or n > 0):
            seat, pit = self._next()
            assert cli.main(["--port", self.sim.link, "press", str(seat), str(pit)]) == 0
            n = None if n is None else n - 1

    def touch(self, n=None):
        """n moves (None: to the end) on the pads, while a recorder holds the line; each is
        waited for on the board's flash."""
        while not self.game.over and (n is None or n > 0):
            before = len((_saved(self.sim) or (0, ""))[1] or "")
            self.sim.touch(*self._next())
            wait_for("the move to be saved", lambda: len((_saved(self.sim) or (0, ""))[1] or "") > before)
            n = None if n is None else n - 1


class Recording:
    """`record` on the board as a process (test_host_record_sim._record), its output read by a
    thread of its own, so that a wait for a line fails after HANG_S instead of hanging."""

    def __init__(self, link, log):
        self.proc, self.lines = _record(link, log)
        self.queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            self.queue.put(line)
        self.queue.put(None)

    def until(self, text):
        """Read the output up to a line that holds text."""
        while not any(text in line for line in self.lines):
            try:
                line = self.queue.get(timeout=HANG_S)
            except queue.Empty:
                raise AssertionError("record did not say %r: %s" % (text, self.lines))
            assert line is not None, "record stopped: %s" % self.lines
            self.lines.append(line)

    def finish(self, how=signal.SIGTERM):
        """Stop it with how; everything it said."""
        self.proc.send_signal(how)
        self.proc.wait(HANG_S)
        err = self.proc.stderr.read()
        assert how == signal.SIGKILL or (self.proc.returncode == 0 and "Traceback" not in err), err
        while True:
            line = self.queue.get(timeout=HANG_S)
            if line is None:
                return "".join(self.lines)
            self.lines.append(line)


def test_each_game_is_logged_once_whole_from_move_1(tmp_path, capsys):
    sim = Sim(tmp_path).start()
    log = str(tmp_path / "class.jsonl")
    procs = []
    try:
        assert cli.main(["--port", sim.link, "config", "set", "animation_ms=0"]) == 0
        play = Play(sim)
        play.new()
        play.press(4)
        game1 = _saved(sim)[0]

        # a recorder started in the middle of game 1
        rec = Recording(sim.link, log)
        procs.append(rec.proc)
        assert any("Recording the game under way (4 move(s) so far) from its first move" in l
                   for l in rec.lines), rec.lines
        play.touch(3)
        sim.kill()     # a power cut in the middle of the game
        sim.start()    # the same flash: the game goes on
        rec.until("The board is back.")
        play.touch(2)
        out1 = rec.finish()      # stopped in the middle of game 1: written as far as it went
        assert "unfinished, as far as it went: 9 moves" in out1, out1

        # nobody records: game 1 ends, game 2 begins
        play.press()
        play.new()
        game2 = _saved(sim)[0]
        play.press(3)

        # a second recorder on the same log: game 1 is fetched finished, game 2 followed whole
        rec = Recording(sim.link, log)
        procs.append(rec.proc)
        play.touch()              # game 2 to its end on the pads...
        out2 = rec.finish()      # ...and the recorder stopped as it ends

        # a third recorder in the middle of game 3, killed; game 3 ends with nobody recording
        play.new()
        game3 = _saved(sim)[0]
        play.press(2)
        rec = Recording(sim.link, log)
        procs.append(rec.proc)
        play.touch(2)
        rec.finish(signal.SIGKILL)
        play.press()

        # a fourth: the game newer than the newest in the log is fetched from the board
        rec = Recording(sim.link, log)
        procs.append(rec.proc)
        rec.until("written to")
        out4 = rec.finish()
        capsys.readouterr()

        client = open_client(sim.link, timeout=HANG_S)
        try:
            board = {g: client.request("game", game=g) for g in (game1, game2, game3)}
            board_id = client.hello_answer["board_id"]
        finally:
            client.close()
    finally:
        for proc in procs:
            _stop(proc)
        sim.stop()

    kept, superseded = gamelog.latest(gamelog.read_log(log))
    games = [g for _, g, _ in kept]
    assert [(g["board"]["id"], g["game"]) for g in games] == \
        [(board_id, game1), (board_id, game2), (board_id, game3)], (out1, out2, out4)
    for g in games:
        assert not gamelog.is_unfinished(g)
        assert encode(g["moves"]) == board[g["game"]]["history"]  # whole, from move 1
        gamelog.check_game(g)
    lines = [json.loads(line) for line in open(log)]
    finished = [(l["game"]) for l in lines if not gamelog.is_unfinished(l)]
    assert sorted(finished) == [game1, game2, game3], lines  # no game written finished twice
    assert len(superseded) == len(lines) - 3
    # the moves the first recorder saw as events keep their `by` (from its unfinished line);
    # the four made before it started, handed over by the board, have none. Move 7 was saved
    # just before the power cut, which may have taken its event: either is right.
    by = [m.get("by") for m in games[0]["moves"][:9]]
    assert by[:6] == [None] * 4 + ["human"] * 2 and by[7:] == ["human"] * 2, by
    assert by[6] in (None, "human")
