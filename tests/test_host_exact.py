"""`analyze --exact` and `hint --exact` (mancala_host.logs.exact): exact values through a logged
game, checked against each other from move to move and against the game's result, the
fall-back sentences for Basic and for positions over the node budget, and the hint on a
scripted board."""

import json

from fakeport import ANSWER, FakePort, board_script, run
from mancala import Game, Rules
from mancala_host.logs import gamelog
from mancala_host.solver import Exact
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


def test_analyze_exact_says_what_was_too_big(tmp_path, capsys):
    entry, _ = play_game({"variant": "kalah", "seeds": 4}, plant=None)
    log = tmp_path / "class.jsonl"
    write_log(log, [entry])
    code, out, err = mb(capsys, "analyze", str(log), "--exact", "--exact-nodes", "2000")
    assert code == 0, err
    assert "Moves 1-" in out and "too big for the exact solver within 2000 nodes" in out


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
    code, out, err = run(monkeypatch, capsys, port, ["hint", "--exact", "--exact-nodes", "1000"])
    assert code == 0, err
    assert out.startswith("This position is too big for the exact solver within 1000 nodes")
    assert out.endswith("The board's CPU suggests pit 2 for seat 0 instead.\n")
