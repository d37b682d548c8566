"""Every host command against the virtual board: the real firmware under MicroPython, reached
over a real pty with real pyserial (`mancala-board sim --pty LINK`).

Moves are made with `press` over the line, or, while another command holds the port (record,
watch, web), with pad touches through the sim's MANCALA_SIM_TOUCH channel. Waits poll for a
result with a generous deadline; nothing asserts on time.
"""

import json
import os
import signal
import subprocess
import sys
import threading
import types

import pytest

import fakeport  # noqa: F401  (puts host_tools and firmware/lib on sys.path)
from boardsim import TapWriter

from mancala_host.commands import cli
from mancala_host.logs import record
from mancala_host.link.session import open_client
from waits import HANG_S, wait_for  # noqa: F401  (wait_for is for the callers too)

ROOT = fakeport.ROOT
ENV = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.join(ROOT, "host_tools"), os.path.join(ROOT, "firmware", "lib")]))


# These tests are about the host tool, not the firmware's memory (its own tests hold it to the
# Pico's heap); a roomier heap keeps the sim's frame-capturing fakes from starving the app.
HEAP = "320k"


class Sim:
    """A virtual board in its own process group, restartable on the same flash."""

    def __init__(self, tmp_path, profile="duo"):
        self.dir = tmp_path
        self.link = str(tmp_path / "board.pty")
        self.flash = tmp_path / "flash"
        self.flash.mkdir(exist_ok=True)
        self.profile_name = profile
        with open(os.path.join(ROOT, "hardware", "profiles", profile + ".json")) as f:
            self.profile = json.load(f)
        self.starts = 0
        self.proc = None

    def start(self):
        self.starts += 1
        # a fresh touch file per start: the fake reads a regular file from its beginning
        self.touch_path = str(self.dir / ("touch%d.txt" % self.starts))
        open(self.touch_path, "w").close()
        self.taps = TapWriter(self.touch_path)
        env = dict(ENV, MANCALA_SIM_TOUCH=self.touch_path)
        log = open(str(self.dir / "sim.log"), "ab")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "mancala_host", "sim", "--pty", self.link, "--flash", str(self.flash),
             "--profile", self.profile_name, "--heapsize", HEAP],
            env=env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            start_new_session=True, cwd=str(self.dir))
        log.close()
        wait_for("the sim to answer hello", self._answers)
        return self

    def _answers(self):
        if self.proc.poll() is not None:
            raise AssertionError("the sim exited: " + open(str(self.dir / "sim.log")).read()[-2000:])
        if not os.path.exists(self.link):
            return False
        # After a kill the old link may point at a pty number that another program has since
        # opened: only a link this sim has taken (its lock names this process) is its own.
        lock = os.path.join(os.path.dirname(self.link), "." + os.path.basename(self.link) + ".lock")
        try:
            with open(lock) as f:
                if f.read() != "%d\n" % self.proc.pid:
                    return False
        except OSError:
            return False
        try:
            open_client(self.link, timeout=HANG_S).close()
            return True
        except Exception as exc:
            # A watcher of the test (watch, record, web) that reconnected first holds the
            # line, and its reconnect got the board's hello: the board answers.
            text = str(exc)
            return "is busy" in text or "open in another program" in text

    def kill(self):
        """A power cut: SIGKILL the launcher's process group (the board dies with it)."""
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()

    def stop(self):
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(HANG_S)
            except subprocess.TimeoutExpired:
                self.kill()

    def touch(self, seat, pit, players=2, pits=6, hold_s=0.15):
        """Tap the pad of a seat's pit (pit 0: its store), as a finger would; hold_s 1 or
        more is a long press."""
        from mancala_host.flashing.bringup import firmware_profile  # not the stdlib's `profile`

        board_profile = firmware_profile()
        seating = board_profile.seating(board_profile.check(self.profile), players, pits)
        pad = self.profile["positions"][seating.position(seat, pit)]["pad"]
        self.taps.tap(int(str(pad["chip"]), 16), pad["electrode"], hold_s=hold_s)


@pytest.fixture
def sim(tmp_path):
    board = Sim(tmp_path).start()
    yield board
    board.stop()


def mb(capsys, sim, *argv):
    code = cli.main(["--port", sim.link, "--timeout", "5"] + list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


def state_of(capsys, sim):
    code, out, err = mb(capsys, sim, "--json", "state")
    assert code == 0, err
    return json.loads(out)


def test_info_state_and_a_whole_game(sim, capsys):
    code, out, err = mb(capsys, sim, "info")
    assert code == 0, err
    assert "duo" in out and "protocol 2" in out
    code, out, err = mb(capsys, sim, "new", "--first", "0")
    assert code == 0 and "seat 0 starts" in out
    code, out, err = mb(capsys, sim, "press", "0", "3")
    assert code == 0, err
    assert "Seat 0 sows 4 from pit 3; the last stone lands in its own store: seat 0 moves again." in out
    code, out, err = mb(capsys, sim, "press", "1", "2")
    assert code == 2 and "illegal_move" in err
    code, out, err = mb(capsys, sim, "undo")
    assert code == 0
    assert state_of(capsys, sim)["moves"] == 0
    code, out, err = mb(capsys, sim, "undo")
    assert code == 2 and "nothing_to_undo" in err
    code, out, err = mb(capsys, sim, "resign", "1")
    assert code == 0 and "Seat 1 resigns" in out and "Game over" in out
    assert state_of(capsys, sim)["state"]["places"] == [1, 2]


def test_new_from_a_state_file_and_the_exact_hint_of_an_endgame(sim, capsys, tmp_path):
    # The virtual board's flash holds tables/ as deploy puts them: the hint is exact.
    state = {"rules": {"variant": "kalah", "players": 2, "pits": 6, "seeds": 4,
                       "capture": "nonempty", "wipeout_capture": True},
             "pits": [[1, 0, 2, 0, 0, 1], [0, 3, 0, 0, 1, 0]], "stores": [20, 20], "turn": 0,
             "active": [0, 1], "places": [None, None], "over": False}
    path = tmp_path / "endgame.json"
    path.write_text(json.dumps({"state": state}))  # as `state --json` prints it
    code, out, err = mb(capsys, sim, "new", "--state", str(path))
    assert code == 0 and "seat 0 starts" in out, err
    assert state_of(capsys, sim)["state"] == state
    code, out, err = mb(capsys, sim, "hint")
    assert code == 0, err
    assert out == ("Seat 0 to move: pits 3 and 6 are perfect (the board's endgame table); "
                   "seat 0 wins by 4 with best play.\n")
    code, out, err = mb(capsys, sim, "new", "--state", str(path), "--first", "1")
    assert code == 2 and "takes the position alone" in err
    path.write_text("[1, 2")
    code, out, err = mb(capsys, sim, "new", "--state", str(path))
    assert code == 2 and "cannot be read as JSON" in err and "Traceback" not in err
    path.write_text(json.dumps(dict(state, stores=[0, 0])))
    code, out, err = mb(capsys, sim, "new", "--state", str(path))
    assert code == 2 and "state is not a position of a game: the state holds 8 stones" in err


def test_config_show_set_reset(sim, capsys):
    code, out, err = mb(capsys, sim, "config", "show")
    assert code == 0 and "rules.variant=\"kalah\"" in out
    code, out, err = mb(capsys, sim, "config", "set", "rules.variant=basic", "rules.players=2", "rules.pits=7", "brightness=60")
    assert code == 0, err
    assert "rules.pits=7" in out and "brightness=60" in out
    code, out, err = mb(capsys, sim, "config", "set", "brightness=300")
    assert code == 2 and "bad_config" in err and "brightness" in err
    code, out, err = mb(capsys, sim, "config", "set", "rules.preset=kalah-empty-capture", "seats.1.kind=human")
    assert code == 0, err
    assert 'rules.capture="always"' in out and "rules.wipeout_capture=false" in out
    # a CPU seat turned back into a person's, as a newcomer writes it
    code, out, err = mb(capsys, sim, "config", "set", "seats.0.kind=cpu", "seats.0.level=2")
    assert code == 0 and 'seats.0.kind="cpu"' in out, err
    code, out, err = mb(capsys, sim, "config", "set", "seats.0.kind=human", "seats.1.kind=human")
    assert code == 0 and 'seats.0.kind="human"' in out and "seats.0.level" not in out, err
    # ... or with its level set to null, as the board now takes it
    assert mb(capsys, sim, "config", "set", "seats.1.kind=cpu")[0] == 0
    code, out, err = mb(capsys, sim, "config", "set", "seats.1.level=null", "seats.1.kind=human")
    assert code == 0 and 'seats.1.kind="human"' in out, err
    code, out, err = mb(capsys, sim, "config", "reset")
    assert code == 0 and "brightness=40" in out and 'rules.capture="nonempty"' in out


def test_record_survives_the_sim_being_killed(sim, capsys, tmp_path):
    """Record games while moves come from the pads; kill the board mid-game and restart it."""
    log = str(tmp_path / "games.jsonl")
    # a tap during a sowing animation only skips it, so the pads play without one
    assert mb(capsys, sim, "config", "set", "animation_ms=0")[0] == 0
    assert mb(capsys, sim, "new", "--first", "0", "variant=kalah", "seeds=3")[0] == 0
    said = []

    class Counting(record.Recorder):
        moves = 0

        def on_event(self, ev):
            super().on_event(ev)
            self.moves += ev.get("event") == "move"

    recorder = Counting(log, say=said.append)
    args = types.SimpleNamespace(port=sim.link, timeout=3.0, out=log, games=1, reconnect_timeout=30)
    result = []
    worker = threading.Thread(target=lambda: result.append(record.run(args, recorder)), daemon=True)
    worker.start()
    wait_for("record to start", recorder.synced.is_set)

    def play(seat, pit):
        n = recorder.moves
        sim.touch(seat, pit)
        wait_for("the move %d/%d after %s (%s)" % (seat, pit, played, said),
                 lambda: recorder.moves > n or recorder.written)

    from mancala import Game, Rules
    game = Game(Rules.from_dict({"variant": "kalah", "seeds": 3}), first=0)
    moves = 0
    played = []
    while not game.over:
        if moves == 6:
            sim.kill()
            wait_for("record to notice", lambda: any("went away" in s for s in said))
            sim.start()
            wait_for("record to reconnect", lambda: any("is back" in s for s in said))
        pit = game.legal_moves()[-1]
        seat = game.turn
        game.play(pit)
        played.append((seat, pit))
        play(seat, pit)
        moves += 1
    worker.join(HANG_S)
    assert result == [0], said
    lines = open(log).read().splitlines()
    assert len(lines) == 1
    logged = json.loads(lines[0])
    assert [(m["seat"], m["pit"]) for m in logged["moves"]] == played
    assert logged["result"]["stores"] == game.to_dict()["stores"]
    assert logged["board"]["profile"] == "duo" and logged["rules"]["seeds"] == 3
    # the round trip: replay and stats read what record wrote
    assert cli.main(["replay", log]) == 0
    assert "1 replay correctly, 0 do not" in capsys.readouterr().out
    assert cli.main(["stats", log, "--plot", str(tmp_path / "s.png")]) == 0
    assert "1 game(s) counted, 0 skipped" in capsys.readouterr().out
    assert cli.main(["export", log, "--csv", "--out", str(tmp_path / "m.csv")]) == 0
    assert len(open(str(tmp_path / "m.csv")).read().splitlines()) == 1 + len(played)


def _watch(sim, events, during):
    """A new game with no animation and `watch --plain --events N` on it; during(proc) acts
    while it runs. Returns watch's output once it has stopped by itself."""
    assert cli.main(["--port", sim.link, "config", "set", "animation_ms=0"]) == 0
    assert cli.main(["--port", sim.link, "new", "--first", "0"]) == 0
    proc = subprocess.Popen([sys.executable, "-m", "mancala_host", "--port", sim.link, "watch", "--plain",
                             "--events", str(events)], env=ENV, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        first = proc.stdout.readline()
        assert first.startswith("Watching Board duo"), first + proc.stderr.read()
        during(proc)
        out, err = proc.communicate(timeout=HANG_S)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0 and "Traceback" not in err, err
    return out


def test_watch_comments_on_pad_moves(sim, tmp_path):
    out = _watch(sim, 2, lambda proc: (sim.touch(0, 3), sim.touch(0, 6)))
    assert "Seat 0 sows 4 from pit 3; the last stone lands in its own store: seat 0 moves again." in out
    assert "Seat 0 sows 5 from pit 6; the last stone lands in seat 1's pit 4; seat 1 to move." in out


def test_watch_waits_for_the_board_to_come_back(sim, tmp_path):
    # A bumped cable or a restarted sim must not end a live view in front of a class.
    def cut_and_restore(proc):
        sim.kill()
        lines = []
        wait_for("watch to notice", lambda: lines.append(proc.stdout.readline()) or "went away" in lines[-1])
        assert "Waiting for it to come back." in lines[-1] and proc.poll() is None
        sim.start()
        wait_for("watch to reconnect", lambda: lines.append(proc.stdout.readline()) or "is back" in lines[-1])
        sim.touch(0, 3)

    assert "Seat 0 sows 4 from pit 3" in _watch(sim, 1, cut_and_restore)
