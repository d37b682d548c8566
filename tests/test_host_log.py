"""The game log: the tracker builds it from board events, replay checks it, stats/export read it.

Games are played by the real engine with a seeded random player; the tracker sees them only as
protocol events, as `record` does. Broken lines must be named, counted and skipped.
"""

import csv
import io
import json
import random

import pytest

from fakeport import ANSWER, CONFIG, FakePort, board_script, one_sentence

from mancala import Game, Rules
from mancala_host.commands import cli
from mancala_host.logs import gamelog
from mancala_host.link.client import Client
from mancala_host.logs.record import GameTracker

VARIANTS = [
    {"variant": "kalah"},
    {"preset": "kalah-empty-capture"},
    {"variant": "basic", "players": 2, "pits": 7},
    {"variant": "basic", "players": 3},
    {"variant": "basic", "players": 4, "pits": 4, "seeds": 3},
]


def events_of_game(rules, first, rnd, resign_at=None):
    """The board's events for one random game: new_game, move/resign..., game_over."""
    game = Game(Rules.from_dict(rules), first=first)
    yield {"event": "new_game", "state": game.to_dict(), "first": first, "source": "serial"}
    n = 0
    while not game.over:
        n += 1
        if resign_at is not None and n == resign_at:
            seat = game.turn
            rec = game.resign(seat)
            yield {"event": "resign", "seat": seat, "record": rec, "state": game.to_dict()}
            continue
        seat, pit = game.turn, rnd.choice(game.legal_moves())
        rec = game.play(pit)
        yield {"event": "move", "seat": seat, "pit": pit, "record": rec, "state": game.to_dict(),
               "by": "human", "source": "pad"}
    state = game.to_dict()
    yield {"event": "game_over", "places": state["places"], "stores": state["stores"]}


def make_log(path, rnd, count=10):
    said = []
    tracker = GameTracker(str(path), say=said.append)
    tracker.board = {"profile": "quad", "firmware": "0.1.0"}
    tracker.config = {"seats": [{"kind": "human"}, {"kind": "cpu", "level": 2}, {"kind": "human"}, {"kind": "human"}]}
    for i in range(count):
        rules = VARIANTS[i % len(VARIANTS)]
        players = Rules.from_dict(rules).players
        for ev in events_of_game(rules, i % players, rnd, resign_at=9 if i == 3 else None):
            tracker.on_event(ev)
    return tracker, said


def test_tracker_writes_games_that_replay(tmp_path):
    log = tmp_path / "games.jsonl"
    tracker, said = make_log(log, random.Random(1), count=10)
    assert tracker.written == 10
    lines = log.read_text().splitlines()
    assert len(lines) == 10
    for text in lines:
        game = json.loads(text)
        assert game["format"] == "mancala-game-log" and game["version"] == 1
        assert game["board"] == {"profile": "quad", "firmware": "0.1.0"}
        assert len(game["seats"]) == len(game["result"]["places"])
        engine, records = gamelog.check_game(game)
        assert engine.to_dict()["stores"] == game["result"]["stores"]
        assert all(isinstance(m["t"], float) for m in game["moves"])
    assert any(m.get("resign") for m in json.loads(lines[3])["moves"])
    assert json.loads(lines[1])["rules"]["capture"] == "always"


def test_undo_removes_the_move_from_the_record(tmp_path):
    log = tmp_path / "g.jsonl"
    tracker = GameTracker(str(log), say=lambda s: None)
    game = Game(Rules.from_dict({"variant": "kalah"}), first=0)
    tracker.on_event({"event": "new_game", "state": game.to_dict(), "first": 0})
    rec = game.play(1)
    tracker.on_event({"event": "move", "seat": 0, "pit": 1, "record": rec, "state": game.to_dict()})
    game.undo()
    tracker.on_event({"event": "undo", "state": game.to_dict()})
    assert tracker.game["moves"] == []
    rec = game.play(3)  # an extra move: the last stone lands in seat 0's store
    tracker.on_event({"event": "move", "seat": 0, "pit": 3, "record": rec, "state": game.to_dict()})
    assert [(m["seat"], m["pit"]) for m in tracker.game["moves"]] == [(0, 3)]


def test_event_that_does_not_fit_drops_the_game_not_the_log(tmp_path):
    said = []
    tracker = GameTracker(str(tmp_path / "g.jsonl"), say=said.append)
    game = Game(Rules.from_dict({"variant": "kalah"}), first=0)
    tracker.on_event({"event": "new_game", "state": game.to_dict(), "first": 0})
    wrong = game.to_dict()
    wrong["stores"] = [9, 9]
    tracker.on_event({"event": "move", "seat": 0, "pit": 2, "record": {}, "state": wrong})
    assert tracker.game is None and "lost track" in said[-1]


def _attach(tracker, state, moves, first=0):
    answer = {"id": ANSWER, "ok": True, "state": state, "first": first, "moves": moves}
    client = Client(FakePort(board_script(state=[answer])), timeout=0.3)
    client.hello()
    tracker.attach(client)


def test_reconnect_recovers_moves_made_while_away(tmp_path):
    said = []
    tracker = GameTracker(str(tmp_path / "g.jsonl"), say=said.append)
    game = Game(Rules.from_dict({"variant": "kalah"}), first=0)
    _attach(tracker, game.to_dict(), 0)
    assert tracker.game is not None and tracker.board["profile"] == "duo"
    for pit in (1, 2):
        seat = game.turn
        rec = game.play(pit)
        tracker.on_event({"event": "move", "seat": seat, "pit": pit, "record": rec, "state": game.to_dict()})
    _attach(tracker, game.to_dict(), 2)  # back with nothing missed
    assert "continues (2 move(s) kept)" in said[-1]
    game.play(5)
    game.play(6)  # two moves the host did not see
    _attach(tracker, game.to_dict(), 4)
    assert "2 move(s) whose events did not arrive were recovered" in said[-1]
    assert [m["pit"] for m in tracker.game["moves"]] == [1, 2, 5, 6]
    other = Game(Rules.from_dict({"variant": "kalah", "seeds": 3}), first=1)
    other.play(2)
    _attach(tracker, other.to_dict(), 1)
    # the game that was being recorded is kept, as far as it went, marked unfinished
    assert tracker.game is None and "not the one being recorded any more" in said[-3]
    assert "written to %s unfinished, as far as it went: 4 moves" % (tmp_path / "g.jsonl") in said[-2]
    assert "recording starts with the next new game" in said[-1]
    kept = json.loads((tmp_path / "g.jsonl").read_text())
    assert kept["unfinished"] is True and [m["pit"] for m in kept["moves"]] == [1, 2, 5, 6]
    engine, _ = gamelog.check_game(kept)
    assert not engine.over and kept["result"]["stores"] == engine.to_dict()["stores"]


def test_replay_names_each_bad_game_and_goes_on(tmp_path, capsys):
    log = tmp_path / "games.jsonl"
    make_log(log, random.Random(2), count=5)
    lines = log.read_text().splitlines()
    bad_result = json.loads(lines[0])
    bad_result["result"]["stores"] = [0, 48]
    illegal = json.loads(lines[2])
    illegal["moves"][0]["seat"] = (illegal["first"] + 1) % len(illegal["result"]["places"])
    cut = json.loads(lines[4])
    cut["moves"] = cut["moves"][:3]
    text = "\n".join([json.dumps(bad_result), lines[1], json.dumps(illegal), "{not json", json.dumps(cut),
                      lines[3], '{"format": "something-else"}']) + "\n"
    log.write_text(text)
    code = cli.main(["replay", str(log)])
    out = capsys.readouterr().out
    assert code == 1
    assert "7 game(s), 2 replay correctly, 5 do not." in out
    assert "line 1: the log says places" in out and "stores [0, 48]" in out
    assert "line 3: move 1: seat" in out and "turn" in out
    assert "line 4: it is not valid JSON" in out
    assert "line 5: the moves stop before the game ends" in out
    assert "line 7: it is not a game-log entry" in out
    code = cli.main(["stats", str(log)])
    out, err = capsys.readouterr()
    assert code == 0 and "2 game(s) counted, 5 skipped" in out
    assert err.count("skipped ") == 5


def test_good_log_replays_and_steps(tmp_path, capsys):
    log = tmp_path / "games.jsonl"
    make_log(log, random.Random(3), count=5)
    assert cli.main(["replay", str(log)]) == 0
    assert "5 game(s), 5 replay correctly, 0 do not." in capsys.readouterr().out
    game = json.loads(log.read_text().splitlines()[3])
    assert cli.main(["replay", str(log), "--step", "--game", "4", "--delay", "0"]) == 0
    out = capsys.readouterr().out
    assert out.count("\nMove ") == len(game["moves"])
    assert "Basic, 3 players, 6 pits, 4 seeds" in out and "Game over" in out
    assert cli.main(["replay", str(log), "--step", "--game", "9"]) == 1
    assert "has 5 game(s)" in capsys.readouterr().err


def test_stats_tables_count_what_the_log_holds(tmp_path, capsys):
    log = tmp_path / "games.jsonl"
    make_log(log, random.Random(4), count=10)
    games = [json.loads(l) for l in log.read_text().splitlines()]
    assert cli.main(["stats", str(log)]) == 0
    out = capsys.readouterr().out
    kalah = [g for g in games if g["rules"]["variant"] == "kalah" and g["rules"]["capture"] == "nonempty"]
    seat0 = sum(1 for g in kalah if g["result"]["places"] == [1, 2])
    row = [l for l in out.splitlines() if l.startswith("kalah 6x4")][0].split()
    assert int(row[2]) == len(kalah) and int(row[3]) == seat0
    assert "First player's advantage" in out and "Game length" in out and "Average margin" in out
    assert "10 game(s) counted, 0 skipped" in out
    decided = [g for g in kalah if g["result"]["places"] != [1, 1]]
    margin = sum(abs(g["result"]["stores"][0] - g["result"]["stores"][1]) for g in decided) / len(decided)
    margin_rows = out.split("Average margin")[1].splitlines()
    row = [l for l in margin_rows if l.startswith("kalah 6x4")][0].split()
    assert int(row[2]) == len(decided) and float(row[3]) == round(margin, 1)


def test_stats_plot_writes_a_png(tmp_path, capsys):
    log = tmp_path / "games.jsonl"
    make_log(log, random.Random(5), count=6)
    png = tmp_path / "stats.png"
    assert cli.main(["stats", str(log), "--plot", str(png)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10000


def test_export_csv_one_row_per_move(tmp_path, capsys):
    log = tmp_path / "games.jsonl"
    make_log(log, random.Random(6), count=4)
    games = [json.loads(l) for l in log.read_text().splitlines()]
    out = tmp_path / "moves.csv"
    assert cli.main(["export", "--csv", str(log), "--out", str(out)]) == 0
    rows = list(csv.DictReader(io.StringIO(out.read_text())))
    assert len(rows) == sum(len(g["moves"]) for g in games)
    last = [r for r in rows if r["game"] == "1"][-1]
    assert last["stores_after"] == " ".join(str(s) for s in games[0]["result"]["stores"])


def test_missing_log_is_one_sentence(tmp_path, capsys):
    assert cli.main(["replay", str(tmp_path / "nope.jsonl")]) != 0
    err = capsys.readouterr().err
    assert "Could not read the game log" in err and "Traceback" not in err


def test_torn_last_line_is_stepped_over(tmp_path):
    log = tmp_path / "games.jsonl"
    log.write_text('{"format": "mancala-game-log", "vers')  # a write cut by a crash
    tracker, _ = make_log(log, random.Random(7), count=1)
    results = list(gamelog.read_log(str(log)))
    assert results[0][2].startswith("it is cut off after") and results[1][1] is not None


def test_the_example_in_docs_replays():
    import os
    import re

    doc = open(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs", "game-log.md")).read()
    block = re.search(r"```json\n(.*?)```", doc, re.S).group(1)
    game = json.loads(block)
    engine, records = gamelog.check_game(game)
    assert engine.over and records[-1]["kind"] == "resign"


def _unfinished_log(path, rnd):
    """Two finished games, then a Basic 3p game stopped after 7 moves by closing the tracker."""
    tracker, said = make_log(path, rnd, count=2)
    game = Game(Rules.from_dict({"variant": "basic", "players": 3}), first=1)
    tracker.on_event({"event": "new_game", "state": game.to_dict(), "first": 1})
    for _ in range(7):
        seat, pit = game.turn, rnd.choice(game.legal_moves())
        rec = game.play(pit)
        tracker.on_event({"event": "move", "seat": seat, "pit": pit, "record": rec, "state": game.to_dict()})
    assert tracker.close_unfinished() == 7
    return game, said


def test_a_game_stopped_midway_is_written_unfinished(tmp_path):
    log = tmp_path / "class.jsonl"
    game, said = _unfinished_log(log, random.Random(8))
    lines = log.read_text().splitlines()
    assert len(lines) == 3
    entry = json.loads(lines[2])
    assert entry["unfinished"] is True and len(entry["moves"]) == 7 and entry["ended"]
    assert entry["result"] == {"places": game.to_dict()["places"], "stores": game.to_dict()["stores"]}
    assert "unfinished" not in json.loads(lines[0])
    assert "3 moves" not in said[-1] and "unfinished, as far as it went: 7 moves, seat %d to move" % game.turn in said[-1]


def test_a_new_game_on_the_board_keeps_the_old_one_unfinished(tmp_path):
    log = tmp_path / "g.jsonl"
    said = []
    tracker = GameTracker(str(log), say=said.append)
    game = Game(Rules.from_dict({"variant": "kalah"}), first=0)
    tracker.on_event({"event": "new_game", "state": game.to_dict(), "first": 0})
    rec = game.play(1)
    tracker.on_event({"event": "move", "seat": 0, "pit": 1, "record": rec, "state": game.to_dict()})
    fresh = Game(Rules.from_dict({"variant": "kalah"}), first=1)
    tracker.on_event({"event": "new_game", "state": fresh.to_dict(), "first": 1})
    assert tracker.game is not None and tracker.game["first"] == 1
    entry = json.loads(log.read_text())
    assert entry["unfinished"] is True and entry["moves"] == [{"seat": 0, "pit": 1, "t": entry["moves"][0]["t"]}]
    # a new game straight after another, before any move, writes nothing
    tracker.on_event({"event": "new_game", "state": fresh.to_dict(), "first": 1})
    assert len(log.read_text().splitlines()) == 1


def test_replay_and_stats_count_unfinished_games_as_unfinished(tmp_path, capsys):
    log = tmp_path / "class.jsonl"
    game, _ = _unfinished_log(log, random.Random(9))
    assert cli.main(["replay", str(log)]) == 0
    out = capsys.readouterr().out
    assert "3 game(s), 3 replay correctly (1 of them unfinished: recording stopped before the game ended), 0 do not." in out
    assert cli.main(["replay", str(log), "--step", "--game", "3", "--delay", "0"]) == 0
    out = capsys.readouterr().out
    assert "7 moves (unfinished)." in out and out.count("\nMove ") == 7
    assert "The game is unfinished: recording stopped here, with seat %d to move." % game.turn in out
    assert cli.main(["stats", str(log)]) == 0
    out = capsys.readouterr().out
    assert "2 game(s) counted, 0 skipped because they do not replay; 1 unfinished game(s) not counted." in out
    assert "basic 3p" not in out.split("unfinished game(s) (recording")[0]  # no row for it in the tables
    assert cli.main(["export", "--csv", str(log), "--out", str(tmp_path / "m.csv")]) == 0
    rows = list(csv.DictReader(io.StringIO((tmp_path / "m.csv").read_text())))
    assert [r["unfinished"] for r in rows].count("1") == 7
    # marked unfinished but the moves end the game, or unmarked but stopping early: both named
    entry = json.loads(log.read_text().splitlines()[0])
    entry["unfinished"] = True
    cut = json.loads(log.read_text().splitlines()[2])
    del cut["unfinished"]
    log.write_text(json.dumps(entry) + "\n" + json.dumps(cut) + "\n")
    assert cli.main(["replay", str(log)]) == 1
    out = capsys.readouterr().out
    assert "line 1: it is marked unfinished, but its moves end the game." in out
    assert "line 2: the moves stop before the game ends" in out


def test_only_unfinished_games_plot_nothing_but_say_so(tmp_path, capsys):
    log = tmp_path / "class.jsonl"
    log.write_text("")
    _unfinished_log(log, random.Random(10))
    only = [l for l in log.read_text().splitlines() if '"unfinished":true' in l]
    log.write_text(only[0] + "\n")
    assert cli.main(["stats", str(log), "--plot", str(tmp_path / "p.png")]) == 1
    out, err = capsys.readouterr()
    assert "No finished games to count." in out and "There are no finished games to plot." in err
    assert not (tmp_path / "p.png").exists()


@pytest.mark.parametrize("content, said", [
    (b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 40, "is not a game log (line 1 is not JSON)."),
    (b"game,file,line\n1,a,2\n" * 50, "is not a game log (line 1 is not JSON)."),
    (b'{"rules": {"variant": "kalah"}}\n' * 20, "is not a game log (line 1 is not a game-log entry)."),
    (b"", "is empty: it holds no games."),
    (b"\n\n  \n", "is empty: it holds no games."),
])
def test_a_file_that_is_not_a_game_log_is_one_line(tmp_path, capsys, content, said):
    path = tmp_path / "class.png"
    path.write_bytes(content)
    for argv in (["replay", str(path)], ["replay", str(path), "--step"], ["stats", str(path)],
                 ["export", "--csv", str(path)], ["analyze", str(path)]):
        assert cli.main(argv) == 1, argv
        out, err = capsys.readouterr()
        assert err == "%s %s\n" % (path, said), (argv, err)
        assert "skipped" not in out and "Traceback" not in err


def test_stats_reads_on_past_a_file_that_is_not_a_log(tmp_path, capsys):
    log = tmp_path / "class.jsonl"
    make_log(log, random.Random(14), count=2)
    picture = tmp_path / "class.png"
    picture.write_bytes(b"\x89PNG\r\n\x1a\n" * 100)
    assert cli.main(["stats", str(picture), str(log)]) == 0
    out, err = capsys.readouterr()
    assert err == "%s is not a game log (line 1 is not JSON).\n" % picture
    assert "2 game(s) counted, 0 skipped" in out


def test_analyze_names_an_unfinished_game_as_unfinished(tmp_path, capsys):
    log = tmp_path / "class.jsonl"
    _unfinished_log(log, random.Random(15))
    assert cli.main(["analyze", str(log), "--game", "3", "--nodes", "50"]) == 0
    out = capsys.readouterr().out
    assert "7 moves; unfinished (recording stopped before the end)." in " ".join(out.split())


def test_ctrl_c_right_after_a_move_keeps_the_move(tmp_path, monkeypatch):
    # The teacher stops record just after a move on the pads, before its event was read: the
    # game is written with that move, from the events the board sent before the stop.
    import types
    from mancala_host.logs import record

    game = Game(Rules.from_dict({"variant": "kalah"}), first=0)
    start = game.to_dict()
    rec = game.play(3)
    moved = game.to_dict()
    states = [[{"id": ANSWER, "ok": True, "state": start, "first": 0, "moves": 0}],
              [{"event": "move", "seat": 0, "pit": 3, "record": rec, "state": moved},
               {"id": ANSWER, "ok": True, "state": moved, "first": 0, "moves": 1}]]

    class CtrlC(Client):
        stopped = False

        def next_event(self, timeout):
            if not self.stopped:
                self.stopped = True
                raise KeyboardInterrupt()
            return Client.next_event(self, timeout)

    client = CtrlC(FakePort(board_script(state=lambda req: states.pop(0))))
    client.hello()
    monkeypatch.setattr(record, "_connect", lambda args: client)
    said = []
    log = tmp_path / "g.jsonl"
    tracker = GameTracker(str(log), say=said.append)
    args = types.SimpleNamespace(out=str(log), games=0)
    assert record.run(args, tracker) == 0
    kept = json.loads(log.read_text())
    assert kept["unfinished"] is True
    assert [(m["seat"], m["pit"]) for m in kept["moves"]] == [(0, 3)]
    assert not any("recovered" in s for s in said)  # it came as the event itself


@pytest.mark.parametrize("out, said", [
    ("missing/games.jsonl", "for the game log does not exist: create it"),
    (".", "is a folder: give a file, e.g."),
])
def test_record_refuses_a_log_it_cannot_write_before_it_starts(tmp_path, monkeypatch, capsys, out, said):
    monkeypatch.chdir(tmp_path)
    from mancala_host.link import session
    monkeypatch.setattr(session, "open_transport", lambda name: pytest.fail("record opened the board"))
    assert cli.main(["record", "--out", out]) == 1
    err = capsys.readouterr().err
    assert said in one_sentence(err)


def test_a_line_cut_off_says_so_and_stats_fails_when_every_game_is_skipped(tmp_path, capsys):
    log = tmp_path / "class.jsonl"
    make_log(log, random.Random(21), count=2)
    lines = log.read_text().splitlines()
    log.write_text(lines[0][:-40] + "\n" + lines[1][:120] + "\n")  # both cut by a crash
    for argv in (["replay", str(log)], ["stats", str(log)], ["export", "--csv", str(log)],
                 ["analyze", str(log), "--nodes", "20"]):
        assert cli.main(argv) == 1, argv
        out, err = capsys.readouterr()
        if argv[0] != "analyze":
            assert "line 2: it is cut off after 120 characters (a write that stopped partway)." in out + err
        assert " at)" not in out + err and "Traceback" not in err
    log.write_text(lines[0] + "\n" + '{"format": "mancala-game-log", "version": 1 2}\n')
    assert cli.main(["replay", str(log)]) == 1
    assert "line 2: it is not valid JSON (expecting ',' delimiter, column 45)." in capsys.readouterr().out
