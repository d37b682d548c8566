"""`analyze --exact` and `hint --exact` (mancala_host.logs.exact): exact values through a logged
game, checked against each other from move to move and against the game's result, the
fall-back sentences for Basic and for positions past the budget (time or nodes), the hint on a
scripted board, and in a real process: the progress line on a terminal (a pty) and Ctrl-C."""

import contextlib
import json
import os
import pty
import select
import signal
import subprocess
import sys
import time

import pytest

from fakeport import ANSWER, FakePort, board_script, run
from mancala import Game, Rules
from mancala_host.logs import gamelog
from mancala_host.solver import Exact, TooBig
from test_host_analyze import mb, play_game, write_log
from test_solver import brute_force, game_at


def test_analyze_exact_values_agree_along_a_game(tmp_path, capsys):
    entry, _ = play_game({"variant": "kalah", "seeds": 3}, plant=None)
    log = tmp_path / "class.jsonl"
    write_log(log, [entry])
    code, out, err = mb(capsys, "analyze", str(log), "--exact", "--exact-nodes", "200000",
                        "--json")
    assert code == 0, err
    rows = json.loads(out)["games"][0]["moves"]
    exact = [r for r in rows if r["before"] is not None]
    assert len(exact) >= len(rows) // 2  # the late game is always within the budget
    for r in exact:
        assert r["cost"] == r["before"] - r["after"] >= 0
        assert (r["pit"] in r["best"]) == (r["cost"] == 0)
        assert r["turning"] == ((r["after"] > 0) - (r["after"] < 0) != (r["before"] > 0) - (r["before"] < 0))
    # Perfect play's value after a move is the next mover's best, from the other side when
    # the turn passes.
    for a, b in zip(rows, rows[1:]):
        if a["after"] is not None and b["before"] is not None:
            assert a["after"] == (b["before"] if a["seat"] == b["seat"] else -b["before"]), a
    last = rows[-1]
    stores = entry["result"]["stores"]
    assert last["after"] == stores[last["seat"]] - stores[1 - last["seat"]]
    code, text, err = mb(capsys, "analyze", str(log), "--exact", "--exact-nodes", "200000")
    assert code == 0 and "thrown away" in text and "perfect" in text


def test_analyze_exact_on_a_game_in_progress(tmp_path, capsys):
    # What record writes for a game it stopped in the middle of: the moves so far, marked
    # unfinished; the last position is valued like any other.
    entry, _ = play_game({"variant": "kalah", "seeds": 3}, plant=None)
    game = Game(Rules.from_dict(entry["rules"]), first=entry["first"])
    del entry["moves"][-3:]
    for move in entry["moves"]:
        game.play(move["pit"])
    gamelog.mark_unfinished(entry, game.to_dict())
    log = tmp_path / "now.jsonl"
    write_log(log, [entry])
    code, out, err = mb(capsys, "analyze", str(log), "--exact", "--json")
    assert code == 0, err
    last = json.loads(out)["games"][0]["moves"][-1]
    now = Exact(game.rules).value(game)  # the position on the board, for the seat to move
    assert last["after"] == (now if game.turn == last["seat"] else -now)
    code, out, err = mb(capsys, "analyze", str(log), "--exact")
    assert "unfinished (recording stopped before the end)" in out


def test_analyze_exact_says_which_moves_ran_out_of_the_budget(tmp_path, capsys, monkeypatch):
    # No opening book: the start of Kalah(6,4) needs minutes of search, far past a twentieth of
    # a second, and far past 2000 nodes a move.
    monkeypatch.setenv("MANCALA_BOOK", str(tmp_path / "no-book"))
    entry, _ = play_game({"variant": "kalah", "seeds": 4}, plant=None)
    log = tmp_path / "class.jsonl"
    write_log(log, [entry])
    code, out, err = mb(capsys, "analyze", str(log), "--exact", "--seconds", "0.05")
    assert code == 0, err
    text = " ".join(out.split())
    assert "Moves 1-" in text and "Traceback" not in err
    assert ("the exact search ran out of its 0.05-second budget a position, so they have no "
            "value (--seconds 20 searches longer; the heuristic analysis without --exact "
            "covers them).") in text
    code, out, err = mb(capsys, "analyze", str(log), "--exact", "--exact-nodes", "2000")
    assert code == 0, err
    assert ("ran out of its 5-second and 2000-node budget a position, so they have no value "
            "(--seconds 20 and --exact-nodes 8000 search longer;") in " ".join(out.split())
    with pytest.raises(SystemExit):
        mb(capsys, "analyze", str(log), "--exact", "--seconds", "0")
    assert "'0' is not a time budget: give seconds, more than 0" in capsys.readouterr().err


def test_analyze_exact_on_basic_says_so_and_uses_the_heuristic(tmp_path, capsys):
    entry, _ = play_game({"variant": "basic"}, plant=None)
    log = tmp_path / "basic.jsonl"
    write_log(log, [entry])
    code, out, err = mb(capsys, "analyze", str(log), "--exact", "--nodes", "500")
    assert code == 0
    assert err.strip() == ("The exact solver covers Kalah only; these games are analysed with "
                           "the heuristic search instead.")
    assert "level-5 search of 500 nodes" in out


def _state(game):
    return {"id": ANSWER, "ok": True, "state": game.to_dict()}


def test_hint_exact_names_every_pit_that_keeps_the_value(monkeypatch, capsys):
    #        seat 1:  6  5  4  3  2  1
    #               [ 0][ 2][ 0][ 0][ 1][ 1]
    #                                      (store 0 | store 1: the rest)
    #               [ 1][ 0][ 2][ 0][ 0][ 1]
    #        seat 0:  1  2  3  4  5  6
    r = Rules.from_dict({"variant": "kalah"})
    game = game_at(r, [[1, 0, 2, 0, 0, 1], [1, 1, 0, 0, 2, 0]])
    values = {}
    for pit in game.legal_moves():
        g = game.copy(stack=False)
        g.push(pit)
        values[pit] = (g.stones(0, 0) - g.stones(1, 0) if g.over else
                       brute_force(g) if g.turn == 0 else -brute_force(g))
    best = max(values.values())
    keep = [p for p in sorted(values) if values[p] == best]
    port = FakePort(board_script(state=[_state(game)]))
    code, out, err = run(monkeypatch, capsys, port, ["--json", "hint", "--exact"])
    assert code == 0, err
    answer = json.loads(out)
    assert answer["value"] == best and answer["pits"] == keep and answer["seat"] == 0
    assert answer["moves"] == {str(p): v for p, v in values.items()}
    assert [m["cmd"] for m in port.sent] == ["hello", "state"]
    port = FakePort(board_script(state=[_state(game)]))
    code, out, err = run(monkeypatch, capsys, port, ["hint", "--exact"])
    assert out.startswith("Seat 0 to move ") and ("keep" in out) and ("%+d" % best) in out


def test_hint_exact_falls_back_on_the_boards_cpu(monkeypatch, capsys):
    basic = Game(Rules.from_dict({"variant": "basic"}))
    port = FakePort(board_script(state=[_state(basic)],
                                 hint=[{"id": ANSWER, "ok": True, "seat": 0, "pit": 4}]))
    code, out, err = run(monkeypatch, capsys, port, ["hint", "--exact"])
    assert code == 0, err
    assert out == ("The exact solver covers Kalah only (Basic has no exact solver here). The "
                   "board's CPU suggests pit 4 for seat 0 instead.\n")
    start = Game(Rules.from_dict({"variant": "kalah", "seeds": 5}))
    port = FakePort(board_script(state=[_state(start)],
                                 hint=[{"id": ANSWER, "ok": True, "seat": 0, "pit": 2}]))
    code, out, err = run(monkeypatch, capsys, port, ["hint", "--exact", "--seconds", "0.05"])
    assert code == 0, err
    assert out == ("The exact search ran out of its 0.05-second budget on this position "
                   "(--seconds 20 searches longer). The board's CPU suggests pit 2 for seat 0 "
                   "instead.\n")


def _unsolved_log(tmp_path):
    """A log of one Kalah(6,4) game stopped after its first move, and the environment with no
    opening book: valuing that first move takes minutes of search."""
    game = Game(Rules.from_dict({"variant": "kalah", "seeds": 4}), first=0)
    entry = gamelog.new_game({"profile": "duo", "firmware": "test"}, game.rules.to_dict(),
                             [{"kind": "human"}, {"kind": "human"}], 0)
    game.play(3)
    entry["moves"].append({"seat": 0, "pit": 3, "by": "human"})
    gamelog.mark_unfinished(entry, game.to_dict())
    log = tmp_path / "opening.jsonl"
    write_log(log, [entry])
    return str(log), dict(os.environ, MANCALA_BOOK=str(tmp_path / "no-book"))


@contextlib.contextmanager
def _in_a_terminal(argv, env):
    """mancala-board argv with stderr on a pty: (process, read) where read(text) reads what
    it wrote there until text appears (None: until it exits) and returns all of it; the pty
    is closed and the process killed if still running on the way out."""
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "mancala_host"] + argv, env=env,
                            stdout=subprocess.PIPE, stderr=slave, stdin=subprocess.DEVNULL)
    os.close(slave)
    seen = []

    def read(text=None):
        end = time.monotonic() + 120
        while text is None or text not in "".join(seen):
            left = end - time.monotonic()
            assert left > 0, "%s within 2 minutes; the terminal shows %r" % (
                "no %r" % text if text else "the process did not end", "".join(seen)[-400:])
            ready, _, _ = select.select([master], [], [], left)
            assert ready, "nothing on the terminal for 2 minutes: %r" % "".join(seen)
            try:
                chunk = os.read(master, 4096)
            except OSError:  # the process has gone: its end of the pty is closed
                chunk = b""
            if not chunk:
                assert text is None, "the process ended without %r: %r" % (text, "".join(seen))
                break
            seen.append(chunk.decode())
        return "".join(seen)

    try:
        yield proc, read
    finally:
        os.close(master)
        if proc.poll() is None:
            proc.kill()


def test_a_long_search_shows_a_progress_line_on_a_terminal_and_wipes_it(tmp_path):
    log, env = _unsolved_log(tmp_path)
    with _in_a_terminal(["analyze", log, "--exact", "--seconds", "2"], env) as (proc, read):
        shown = read()
        out = proc.communicate(timeout=120)[0].decode()
    assert proc.returncode == 0
    assert "\rExact search: move 1 of 1, " in shown and " of 2 s, " in shown
    assert "million positions (Ctrl-C stops it)" in shown
    # Wiped at the end: the last thing on the line is blanks and a carriage return.
    assert shown.rstrip("\r\n").endswith(" \r") or shown.endswith(" \r")
    assert "Moves 1: the exact search ran out of its 2-second budget" in " ".join(out.split())
    # Not on a pipe: the same run with stderr captured writes no progress line.
    done = subprocess.run([sys.executable, "-m", "mancala_host", "analyze", log, "--exact",
                           "--seconds", "1"], env=env, capture_output=True, timeout=120)
    assert done.returncode == 0 and done.stderr == b""


def test_ctrl_c_stops_a_long_search_in_one_sentence(tmp_path):
    log, env = _unsolved_log(tmp_path)
    with _in_a_terminal(["analyze", log, "--exact", "--seconds", "600"], env) as (proc, read):
        read("million positions")  # the search is under way
        proc.send_signal(signal.SIGINT)
        # the terminal is read to the end first: a process that writes to a terminal nobody
        # reads stops when its buffer is full, and would never end
        shown = read()
        out = proc.communicate(timeout=120)[0].decode()
    assert proc.returncode == 130
    assert "Traceback" not in shown
    last = [t for t in shown.replace("\r", "\n").split("\n") if t.strip()][-1]
    assert last == "Stopped: Ctrl-C ended the exact analysis of %s (game 1 of 1)." % log
    assert "Exact search" not in out


def test_a_node_budget_reaches_as_far_on_a_two_thread_solver_as_on_one():
    # The shared solvers search on both cores (solver.THREADS); a search given a node budget
    # runs on one thread, so that it stops at exactly that many nodes every time (a second
    # thread, which joins after 262,144 nodes, would count its own at its checks). A Kalah(6,4)
    # position after two moves needs tens of millions.
    r = Rules.from_dict({"preset": "kalah", "seeds": 4})
    pits = (5, 5, 5, 4, 4, 0, 5, 5, 5, 4, 4, 0)
    for _ in range(2):
        solver = Exact(r, tt_bits=18, threads=2)
        with pytest.raises(TooBig):
            solver.pits_value(pits, max_nodes=400000)
        assert solver.nodes == 400001
        assert solver.threads == 2
