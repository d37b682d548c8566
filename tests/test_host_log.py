"""The game log: record writes it from what the board hands over, replay checks it,
stats/export read it.

Games are played by the real engine with a seeded random player on a model of the board
(tests/fakeboard.py); record's Recorder sees them only through the follower, as on a real
line. Broken lines must be named, counted and skipped.
"""

import csv
import io
import json
import random

import pytest

from fakeboard import FakeBoard, Flash
from fakeport import one_sentence

from mancala import Game, Rules
from mancala_host.commands import cli
from mancala_host.logs import gamelog
from mancala_host.link.boardgame import encode
from mancala_host.link.follower import Follower
from mancala_host.logs.record import Recorder
from waits import wait_for

VARIANTS = [
    {"variant": "kalah"},
    {"preset": "kalah-empty-capture"},
    {"variant": "basic", "players": 2, "pits": 7},
    {"variant": "basic", "players": 3},
    {"variant": "basic", "players": 4, "pits": 4, "seeds": 3},
]
SEATS = [{"kind": "human"}, {"kind": "cpu", "level": 2}, {"kind": "human"}, {"kind": "human"}]


class Session:
    """record's Recorder on a follower of a modelled quad board, in this process."""

    def __init__(self, path, flash=None):
        self.said = []
        self.flash = flash or Flash(profile="quad", seats=4)
        self.flash.config["seats"] = SEATS
        self.board = FakeBoard(self.flash)
        self.recorder = Recorder(str(path), say=self.said.append)
        self.follower = Follower("fake://board", [self.recorder], timeout=2.0, heartbeat=60,
                                 opener=lambda: self.board)
        self.follower.connect()
        self.follower.start()
        wait_for("the board's state", self.recorder.synced.is_set)

    def play(self, rnd, count, start=0):
        for i in range(start, start + count):
            rules = VARIANTS[i % len(VARIANTS)]
            self.board.new_game(first=i % Rules.from_dict(rules).players, rules=rules)
            self.board.play_random(rnd, resign_at=9 if i == 3 else None)
        return self

    def written(self, n):
        wait_for("%d game(s) written" % n, lambda: self.recorder.written >= n)
        return self

    def stop(self):
        """As record stops: catch up, then the game under way is written as far as it went."""
        self.follower.stop(catch_up=True)
        self.follower.wait(30)
        self.recorder.close(self.follower.game())
        return self


def make_log(path, rnd, count=10):
    session = Session(path).play(rnd, count).written(count).stop()
    return session.recorder, session.said


def test_recorded_games_replay_and_carry_their_key(tmp_path):
    log = tmp_path / "games.jsonl"
    recorder, said = make_log(log, random.Random(1), count=10)
    assert recorder.written == 10
    lines = log.read_text().splitlines()
    assert len(lines) == 10
    for number, text in enumerate(lines, 1):
        game = json.loads(text)
        assert game["format"] == "mancala-game-log" and game["version"] == 2
        assert game["board"] == {"profile": "quad", "firmware": "0.2.0", "id": "e6614c311b4f7a2d"}
        assert game["game"] == number
        assert len(game["seats"]) == len(game["result"]["places"])
        engine, records = gamelog.check_game(game)
        assert engine.to_dict()["stores"] == game["result"]["stores"]
        assert all(isinstance(m["t"], float) for m in game["moves"])
    assert any(m.get("resign") for m in json.loads(lines[3])["moves"])
    assert json.loads(lines[1])["rules"]["capture"] == "always"


def test_a_take_back_removes_the_move_from_the_record(tmp_path):
    log = tmp_path / "g.jsonl"
    session = Session(log)
    session.board.new_game(rules={"variant": "kalah"})
    session.board.pad(1)
    session.board.take_back()
    session.board.pad(3)  # an extra move: the last stone lands in seat 0's store
    session.stop()
    entry = json.loads(log.read_text())
    assert [(m["seat"], m["pit"]) for m in entry["moves"]] == [(0, 3)] and entry["unfinished"]


def test_an_event_that_does_not_fit_is_settled_by_the_board(tmp_path):
    log = tmp_path / "g.jsonl"
    session = Session(log)
    board = session.board
    board.new_game(rules={"variant": "kalah"})
    board.pad(1)
    wrong = board.flash.engine().to_dict()
    wrong["stores"] = [9, 9]
    board._queue.append(json.dumps({"event": "move", "seat": 1, "pit": 2, "state": wrong,
                                    "game": board.flash.game_id}).encode())
    board.play_random(random.Random(3))
    session.written(1).stop()
    entry = json.loads(log.read_text())
    assert encode(entry["moves"]) == board.flash.history  # the board's own moves, whole
    assert "t" in entry["moves"][0] and "t" in entry["moves"][-1]


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
    """Two finished games, then a Basic 3p game stopped after 7 moves by stopping record."""
    session = Session(path).play(rnd, 2).written(2)
    session.board.new_game(first=1, rules={"variant": "basic", "players": 3})
    for _ in range(7):
        session.board.pad(rnd.choice(session.flash.engine().legal_moves()))
    session.stop()
    return session.flash.engine(), session.said


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
    session = Session(log)
    board = session.board
    board.new_game(rules={"variant": "kalah"})
    board.pad(1)
    board.new_game(first=1)
    wait_for("the game left under way", lambda: session.recorder.written)
    entry = json.loads(log.read_text())
    assert entry["unfinished"] is True and entry["moves"] == [{"seat": 0, "pit": 1, "by": "human",
                                                                "t": entry["moves"][0]["t"]}]
    # a new game straight after another, before any move, writes nothing
    board.new_game(first=1)
    session.stop()
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


# -- exactly once: one line per (board id, game id), whatever stops and starts ----------------

def _kept(log):
    """The games a reader reads from log, as (game id, history, finished)."""
    kept, _ = gamelog.latest(gamelog.read_log(str(log)))
    return [(g["game"], encode(g["moves"]), not gamelog.is_unfinished(g)) for _, g, _ in kept]


def test_two_recorders_one_after_the_other_write_each_game_once_and_whole(tmp_path, capsys):
    log = tmp_path / "class.jsonl"
    flash = Flash(profile="quad", seats=4)
    rnd = random.Random(20)
    first = Session(log, flash)
    first.play(rnd, 1).written(1)               # game 1, whole
    first.board.new_game(rules={"variant": "kalah"})
    for _ in range(5):                          # game 2, under way when the first recorder stops
        first.board.pad(rnd.choice(flash.engine().legal_moves()))
    first.stop()
    assert _kept(log) == [(1, flash.finished[0]["history"], True), (2, flash.history, False)]
    away = FakeBoard(flash)                     # nobody records: game 2 ends, game 3 is played
    away.play_random(rnd)
    away.new_game(rules={"variant": "kalah"})
    away.play_random(rnd)
    away.new_game(rules={"variant": "kalah"})
    away.pad(1)                                 # game 4 is under way when the second one starts
    second = Session(log, flash)
    second.board.play_random(rnd)
    second.written(3).stop()
    histories = {e["game"]: e["history"] for e in flash.finished}
    assert _kept(log) == [(1, histories[1], True), (2, histories[2], True), (3, histories[3], True),
                          (4, histories[4], True)]
    assert cli.main(["replay", str(log)]) == 0
    out = capsys.readouterr().out
    assert "4 game(s), 4 replay correctly, 0 do not; 1 earlier line(s) of the same games are " \
           "superseded." in out
    # game 2's stub kept its seats and its start time for the finished line
    lines = [json.loads(l) for l in log.read_text().splitlines()]
    assert lines[-1]["game"] == 4 and lines[-1]["moves"][0] == {"seat": 0, "pit": 1}  # handed over
    two = [l for l in lines if l["game"] == 2]
    assert two[1]["seats"] == two[0]["seats"] and two[1]["started"] == two[0]["started"]
    # a third recorder on a board whose games are all logged writes nothing again
    third = Session(log, flash).stop()
    assert third.recorder.written == 0 and len(log.read_text().splitlines()) == 5

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

def test_a_stub_is_superseded_by_the_finished_line_and_old_logs_still_read(tmp_path, capsys):
    log = tmp_path / "class.jsonl"
    make_log(log, random.Random(21), count=2)
    lines = log.read_text().splitlines()
    finished = json.loads(lines[1])
    stub = dict(finished, moves=finished["moves"][:4], unfinished=True)
    engine = gamelog.start_engine(stub)
    for i, m in enumerate(stub["moves"], 1):
        gamelog.apply_move(engine, m, i)
    stub["result"] = {"places": engine.to_dict()["places"], "stores": engine.to_dict()["stores"]}
    old = dict(json.loads(lines[0]), version=1)  # a line of version 1: no key
    del old["game"]
    del old["board"]["id"]
    # the stub comes before the finished line and after it: either way the finished one counts
    log.write_text("\n".join([json.dumps(old), json.dumps(stub), lines[1], json.dumps(stub)]) + "\n")
    kept, superseded = gamelog.latest(gamelog.read_log(str(log)))
    assert [n for n, _, _ in kept] == [1, 3] and superseded == [2, 4]
    assert cli.main(["replay", str(log)]) == 0
    assert "2 game(s), 2 replay correctly, 0 do not; 2 earlier line(s)" in capsys.readouterr().out
    assert cli.main(["stats", str(log)]) == 0
    assert "2 game(s) counted, 0 skipped" in capsys.readouterr().out
    out = tmp_path / "moves.csv"
    assert cli.main(["export", "--csv", str(log), "--out", str(out)]) == 0
    rows = list(csv.DictReader(io.StringIO(out.read_text())))
    assert len(rows) == len(old["moves"]) + len(finished["moves"])
    assert {r["board_game"] for r in rows} == {"", "2"} and "unfinished" not in rows[-1]["unfinished"]
    # the same game in two logs (two recorders, two files) is counted once by stats
    other = tmp_path / "other.jsonl"
    other.write_text(lines[1] + "\n")
    assert cli.main(["stats", str(log), str(other)]) == 0
    assert "2 game(s) counted, 0 skipped" in capsys.readouterr().out


def test_record_refuses_to_append_to_a_file_that_is_not_a_game_log(tmp_path):
    picture = tmp_path / "class.png"
    picture.write_bytes(b"\x89PNG\r\n\x1a\n" * 10)
    with pytest.raises(gamelog.BoardError) as refused:
        Recorder(str(picture))
    assert str(refused.value) == ("%s is not a game log (line 1 is not JSON): choose another file "
                                  "for the games with --out." % picture)


def test_a_game_taken_back_after_its_end_is_read_as_it_ended_last(tmp_path, capsys):
    log = tmp_path / "class.jsonl"
    session = Session(log)
    board = session.board
    board.new_game(rules={"variant": "kalah"})
    board.play_out()
    session.written(1)
    first_end = board.flash.history
    while True:                            # taken back to where another move was possible
        played = int(board.flash.history[-1])
        board.take_back()
        other = [p for p in board.flash.engine().legal_moves() if p != played]
        if other:
            break
    board.pad(other[0])
    board.play_out()
    session.written(2).stop()
    lines = [json.loads(l) for l in log.read_text().splitlines()]
    assert [l.get("retaken") for l in lines] == [None, True]
    kept, superseded = gamelog.latest(gamelog.read_log(str(log)))
    assert [encode(g["moves"]) for _, g, _ in kept] == [board.flash.history] and superseded == [1]
    assert first_end != board.flash.history


def test_a_wiped_board_counting_from_1_again_loses_no_game(tmp_path, capsys):
    log = tmp_path / "class.jsonl"
    rnd = random.Random(22)
    flash = Flash(profile="quad", seats=4)
    Session(log, flash).play(rnd, 2).written(2).stop()
    old = {e["game"]: e["history"] for e in flash.finished}
    flash.counter, flash.finished, flash.history, flash.game_id = 0, [], "", 0  # wiped
    session = Session(log, flash).play(rnd, 1).written(1).stop()
    assert any("counts its games from 1 again" in s for s in session.said), session.said
    kept, superseded = gamelog.latest(gamelog.read_log(str(log)))
    assert [(g["game"], encode(g["moves"])) for _, g, _ in kept] == \
        [(1, old[1]), (2, old[2]), (1, flash.history)] and not superseded
    assert cli.main(["stats", str(log)]) == 0
    assert "3 game(s) counted, 0 skipped" in capsys.readouterr().out
