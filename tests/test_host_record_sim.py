"""`record` as the README and docs/host-tool.md use it, against the virtual board over a real
pty: Ctrl-C in the middle of a game keeps that game (unfinished), so the next command of the
tutorial, `replay class.jsonl`, works; demo games are recorded with CPU seats and differ.
"""

import contextlib
import json
import signal
import subprocess
import sys

import pytest

from mancala import Game, Rules
from mancala_host.commands import cli
from test_host_sim import ENV, Sim, wait_for
from waits import HANG_S


def _json(capsys, link, *argv):
    assert cli.main(["--port", link, "--json"] + list(argv)) == 0
    return json.loads(capsys.readouterr().out.splitlines()[-1])


def _stop(proc):
    """A step that failed before record was stopped must not leave it running."""
    if proc is not None and proc.poll() is None:
        proc.kill()
        proc.wait()


@contextlib.contextmanager
def _as_from_a_terminal():
    """Ctrl-C and hang-up at their defaults in a program started now, as a shell at a terminal
    starts it. A program inherits an ignored signal across exec, and the test run may be
    ignoring both: run in the background of a script (`make test &` ignores Ctrl-C) or under
    nohup. A record started so would never see the test's Ctrl-C, as it never sees the
    terminal's. Caught (by a no-op) rather than ignored here while the program starts, they
    reach it at their defaults; this process goes on ignoring them."""
    ignored = [s for s in (signal.SIGINT, signal.SIGHUP) if signal.getsignal(s) == signal.SIG_IGN]
    old = dict((s, signal.signal(s, lambda signum, frame: None)) for s in ignored)
    try:
        yield
    finally:
        for s, handler in old.items():
            signal.signal(s, handler)


def _record(link, log, *more):
    with _as_from_a_terminal():
        proc = subprocess.Popen([sys.executable, "-m", "mancala_host", "--port", link, "record", "--out", log]
                                + list(more), env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True)
    lines = [proc.stdout.readline()]
    while not lines[-1].startswith("Recording games from"):
        assert lines[-1], "record stopped: %s %s" % (lines, proc.stderr.read())
        lines.append(proc.stdout.readline())
    return proc, lines


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGHUP], ids=["ctrl-c", "window-closed"])
def test_the_readme_steps_record_then_replay(tmp_path, capsys, stop):
    sim = Sim(tmp_path, profile="quad").start()
    proc = None
    try:
        link = sim.link
        assert cli.main(["--port", link, "config", "set", "rules.variant=basic", "rules.players=3",
                         "animation_ms=0"]) == 0
        assert cli.main(["--port", link, "new"]) == 0
        capsys.readouterr()
        state = _json(capsys, link, "state")["state"]
        log = str(tmp_path / "class.jsonl")
        proc, lines = _record(link, log)
        assert any(l.startswith("Recording a new game: Basic, 3 players") for l in lines), lines
        # play three moves on the board's pads while record holds the port
        rules = Rules.from_dict(state["rules"])
        game = Game.from_dict(state)
        for _ in range(3):
            seat, pit = game.turn, game.legal_moves()[0]
            game.play(pit)
            sim.touch(seat, pit, players=rules.players, pits=rules.pits)
            # the board's state is the only judge of the move having been played
            wait_for("the move to be played", lambda: _pits_of(sim) == game.to_dict()["pits"])
        proc.send_signal(stop)  # the teacher's Ctrl-C, or the terminal window closed
        out, err = proc.communicate(timeout=HANG_S)
    finally:
        _stop(proc)
        sim.stop()
    assert proc.returncode == 0 and "Traceback" not in err, err
    assert "unfinished, as far as it went: 3 moves" in out
    assert "Stopped: 1 game(s) written to %s (1 of them unfinished)." % log in out
    assert cli.main(["replay", log]) == 0
    assert "1 game(s), 1 replay correctly (1 of them unfinished" in capsys.readouterr().out


def _pits_of(sim):
    """The board's pits, read from the sim's flash (the board saves after every move), since
    record holds the serial line."""
    import os
    path = os.path.join(str(sim.flash), "game.json")
    try:
        with open(path) as f:
            saved = json.load(f)
    except (OSError, ValueError):
        return None
    return saved.get("state", {}).get("pits")


def test_demo_games_are_recorded_as_cpu_games_and_differ(tmp_path, capsys):
    sim = Sim(tmp_path).start()
    proc = None
    try:
        link = sim.link
        assert cli.main(["--port", link, "config", "set", "animation_ms=0"]) == 0
        assert cli.main(["--port", link, "demo", "--seed", "3"]) == 0
        assert "Demo mode is on" in capsys.readouterr().out
        log = str(tmp_path / "demo.jsonl")
        proc, lines = _record(link, log, "--games", "2")
        out, err = proc.communicate(timeout=120)
    finally:
        _stop(proc)
        sim.stop()
    assert proc.returncode == 0 and "Traceback" not in err, err
    games = [json.loads(line) for line in open(log)]
    assert len(games) == 2 and not any(g.get("unfinished") for g in games)
    for g in games:
        assert g["seats"] == [{"kind": "cpu", "level": 3}, {"kind": "cpu", "level": 3}]
        # the demo game under way when record started is written whole: its moves made before
        # then were handed over by the board, without `by`; every one after is the CPU's
        by = [m.get("by") for m in g["moves"]]
        assert set(by[by.count(None):]) == {"cpu"} and None not in by[by.count(None):], by
    assert None not in [m.get("by") for m in games[1]["moves"]]
    pits = [[m["pit"] for m in g["moves"]] for g in games]
    assert pits[0] != pits[1] and games[0]["first"] != games[1]["first"]


def test_a_demo_started_before_the_first_move_makes_the_game_a_cpu_game(tmp_path):
    from mancala_host.logs.record import Recorder
    recorder = Recorder(str(tmp_path / "g.jsonl"), say=lambda s: None)
    recorder.config = {"seats": [{"kind": "human"}, {"kind": "human"}]}
    game = Game(Rules.from_dict({"variant": "kalah"}), first=0)
    recorder.on_event({"event": "new_game", "game": 1, "state": game.to_dict(), "first": 0})
    assert recorder.seats[1] == [{"kind": "human"}, {"kind": "human"}]
    recorder.on_event({"event": "demo", "on": True, "source": "pad", "level": 4})
    assert recorder.seats[1] == [{"kind": "cpu", "level": 4}, {"kind": "cpu", "level": 4}]
    recorder.on_event({"event": "demo", "on": False, "source": "pad"})
    recorder.on_event({"event": "new_game", "game": 2, "state": game.to_dict(), "first": 0})
    assert recorder.seats[2] == [{"kind": "human"}, {"kind": "human"}]
    # once a move is made, the game's seats are what they were
    recorder.on_event({"event": "move", "game": 2, "seat": 0, "pit": 1})
    recorder.on_event({"event": "demo", "on": True, "source": "pad", "level": 4})
    assert recorder.seats[2] == [{"kind": "human"}, {"kind": "human"}]


def _sh_block(text, after):
    """The commands of the first ```sh block after the line containing `after`."""
    import re
    block = re.search(r"```sh\n(.*?)```", text[text.index(after):], re.S).group(1)
    return [line.split("#")[0].split() for line in block.splitlines() if line.strip()]


def test_the_tutorial_and_the_info_example_work_as_written(tmp_path, capsys):
    import os
    from test_host_sim import ROOT
    doc = open(os.path.join(ROOT, "docs", "host-tool.md")).read()
    readme = open(os.path.join(ROOT, "README.md")).read()
    steps = _sh_block(doc, "**Terminal 2** talks to it")
    assert [s[1] for s in steps] == ["info", "config", "new", "press", "state"]
    # the README's steps up to the commands that run until stopped (tested above)
    first = _sh_block(readme, "## The host tool")
    short = [s[1:] for s in first if s[1] in ("info", "config", "new", "press")]
    sim = Sim(tmp_path, profile="quad").start()
    try:
        # a game has been played since boot, so `new` hands the start to the next seat
        assert cli.main(["--port", sim.link, "new"]) == 0
        for argv in [s[1:] for s in steps] + short:
            assert cli.main(["--port", sim.link] + argv) == 0, (argv, capsys.readouterr().err)
        capsys.readouterr()
        assert cli.main(["--port", sim.link, "info"]) == 0
        out = capsys.readouterr().out
    finally:
        sim.stop()
    # the info example lists every command the board has, as the board lists them
    real = [l for l in out.splitlines() if l.startswith("Commands:")][0]
    example = [l for l in doc.split("$ mancala-board info")[1].splitlines() if l.startswith("Commands:")][0]
    assert example == real
