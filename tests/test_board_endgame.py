"""A perfect endgame on the virtual board (the firmware on the MicroPython unix port, its
flash a folder holding tables/ as `make deploy` puts it on a Pico): a position set up over
serial (new_game with a state), the coach's hint in a covered endgame naming every pit that
keeps the exact value and the outcome, the plain hint outside one, and a level-5 CPU seat
keeping the exact value. The host's exact solver is the judge."""
import os
import random

import pytest

from boardsim import Board
from mancala import Game, Rules
from mancala_host.solver import Exact, tables
from test_solver import game_at, random_position


@pytest.fixture(scope="module")
def board(tmp_path_factory):
    flash = tmp_path_factory.mktemp("flash")
    os.makedirs(flash / "tables")
    for name, (always, wipeout) in tables.PRESETS.items():
        (flash / "tables" / ("%s-%d.bin" % (name, tables.STONES))).write_bytes(
            tables.build(always, wipeout))
    with Board("duo", flash=str(flash)) as b:
        b.ok("set_config", config={"animation_ms": 0})
        yield b


def positions(name, count, seed, stones=(2, tables.STONES)):
    rules = Rules.from_dict({"preset": name})
    rng = random.Random(seed)
    for k in range(count):
        mine, theirs = random_position(rng, rng.randint(*stones))
        rest = 48 - sum(mine) - sum(theirs)
        lead = rng.randrange(rest + 1)
        yield game_at(rules, [mine, theirs], turn=k % 2, stores=(lead, rest - lead))


def set_up(b, game):
    answer = b.ok("new_game", state=game.to_dict())
    assert answer["state"] == game.to_dict()
    b.take_events()


@pytest.mark.parametrize("name", sorted(tables.PRESETS))
def test_the_coach_names_every_pit_that_keeps_the_exact_value(board, name):
    solver = Exact(Rules.from_dict({"preset": name}), tt_bits=18)
    for game in positions(name, 12, 5):
        set_up(board, game)
        answer = board.ok("hint")
        moves = solver.move_values(game)
        value = max(moves.values())
        best = sorted(p for p in moves if moves[p] == value)
        assert (answer["exact"], answer["best"]) == (value, best), game.to_dict()
        assert answer["seat"] == game.turn and answer["pit"] in best
        winner = game.turn if value > 0 else 1 - game.turn
        assert answer["outcome"] == ("a draw with best play" if not value else
                                     "seat %d wins by %d with best play" % (winner, abs(value)))
        (event,) = board.take_events("hint")
        assert {k: event[k] for k in ("seat", "pit", "exact", "best", "outcome")} == \
            {k: answer[k] for k in ("seat", "pit", "exact", "best", "outcome")}


def test_outside_a_covered_endgame_the_hint_is_as_before(board):
    board.ok("new_game", rules={"variant": "kalah"}, first=0)
    answer = board.ok("hint")
    assert set(answer) == {"id", "ok", "seat", "pit"}
    # Rules no table covers: the same, however few stones are left.
    rules = Rules.from_dict({"variant": "kalah", "capture": "always", "wipeout_capture": True})
    set_up(board, game_at(rules, [[0, 0, 0, 0, 1, 1], [1, 0, 0, 0, 0, 0]]))
    assert set(board.ok("hint")) == {"id", "ok", "seat", "pit"}


def test_a_level_5_seat_keeps_the_exact_value(board):
    for name in sorted(tables.PRESETS):
        solver = Exact(Rules.from_dict({"preset": name}), tt_bits=18)
        for game in positions(name, 6, 9):
            seats = [{"kind": "human"}, {"kind": "human"}]
            seats[game.turn] = {"kind": "cpu", "level": 5}
            board.ok("set_config", config={"seats": seats})
            set_up(board, game)
            move = board.wait_event("move")
            moves = solver.move_values(game)
            best = [p for p in sorted(moves) if moves[p] == max(moves.values())]
            # from the table: of the pits that keep the value, the one nearest the store (a
            # search alone keeps the value in about 9 moves of 10, and picks among ties
            # by its own order)
            assert move["pit"] == best[-1], (game.to_dict(), move["pit"], moves)
    board.ok("set_config", config={"seats": [{"kind": "human"}, {"kind": "human"}]})


def test_a_state_that_is_no_position_is_refused_with_a_sentence(board):
    before = board.ok("state")["state"]
    bad = dict(before, pits=[[1, 2, 3], [0, 0, 0]])
    answer = board.request("new_game", state=bad)
    assert answer["ok"] is False and answer["error"]["code"] == "bad_request"
    assert answer["error"]["message"].startswith("state is not a position of a game: ")
    answer = board.request("new_game", state=before, first=1)
    assert answer["error"]["code"] == "bad_request"
    # a finished game (every stone in a store, no seat active) is no position to play from
    over = dict(before, pits=[[0] * 6, [0] * 6], stores=[30, 18], turn=None, over=True,
                places=[1, 2], active=[])
    answer = board.request("new_game", state=over)
    assert answer["error"] == {"code": "bad_request", "message": "state is not a position of a "
                               "game: it is a finished game; give one with a seat to move."}
    assert board.ok("state")["state"] == before


# ------------------------------------------------------------------ the store tap, in-process
def _app(flash):
    from test_board_gestures import DUO, RecordingDisplay
    from mancala_fw.app import App
    events = []
    display = RecordingDisplay()
    app = App(DUO, display, lambda name, fields: events.append(dict(fields, event=name)),
              str(flash) + os.sep)
    app.boot()
    app.set_config({"animation_ms": 0}, "test")
    return app, events, display


def _tap_the_movers_store(app, events):
    from test_board_gestures import _run
    del events[:]
    app.touch("press", app.seating.position(app.session.game.turn, 0), 1000)
    _run(app, 1000, 3000)
    return [e for e in events if e["event"] == "hint"]


def test_a_tap_on_the_store_pulses_every_perfect_pit(tmp_path):
    os.makedirs(tmp_path / "tables")
    (tmp_path / "tables" / "kalah-10.bin").write_bytes(tables.build(*tables.PRESETS["kalah"]))
    app, events, display = _app(tmp_path)
    solver = Exact(Rules.from_dict({"preset": "kalah"}), tt_bits=18)
    for game in positions("kalah", 40, 3, stones=(5, 10)):
        moves = solver.move_values(game)
        best = sorted(p for p in moves if moves[p] == max(moves.values()))
        if len(best) >= 2:
            break
    app.new_game("test", position=game.to_dict())
    (hint,) = _tap_the_movers_store(app, events)
    assert hint["source"] == "pad" and hint["best"] == best and hint["exact"] == max(moves.values())
    # every pit that keeps the value pulses on the rings, and no other
    assert display.hints[-1] == [app.seating.position(game.turn, p) for p in best]
    assert not [e for e in events if e["event"] == "log"]  # nothing to say


def _searched_hint_and_its_log(flash):
    """A covered Kalah endgame on an app over flash, its store tapped: the hint must be the
    search's (no exact fields), and the one log line said is returned."""
    app, events, _ = _app(flash)
    (game,) = positions("kalah", 1, 4)
    app.new_game("test", position=game.to_dict())
    (hint,) = _tap_the_movers_store(app, events)
    assert "exact" not in hint and hint["pit"] in game.legal_moves()
    (log,) = [e for e in events if e["event"] == "log"]
    return app, events, log


def test_a_file_that_is_no_table_is_said_once_quietly_and_the_hint_searches(tmp_path):
    os.makedirs(tmp_path / "tables")
    (tmp_path / "tables" / "kalah-10.bin").write_bytes(b"MKET\x01\x06\x0a\x02" + bytes(30))
    app, events, log = _searched_hint_and_its_log(tmp_path)
    assert log["level"] == "info" and log["message"] == (
        "%s/tables/kalah-10.bin is not used: its size does not match its header (38 bytes "
        "for 10 stones); the CPU plays without it." % tmp_path)
    (hint,) = _tap_the_movers_store(app, events)  # looked for once: not said again
    assert not [e for e in events if e["event"] == "log"]


def test_a_table_that_cannot_be_loaded_is_said_once_and_the_hint_searches(tmp_path, monkeypatch):
    """Loading the table's finder fails (say, no memory to import it): one quiet line, and
    the board goes on as without a table."""
    import mancala_fw.app.endgame as finder

    def no_memory(rules, flash=""):
        raise MemoryError("memory allocation failed, allocating 512 bytes")

    monkeypatch.setattr(finder, "find", no_memory)
    _, _, log = _searched_hint_and_its_log(tmp_path)
    assert (log["level"], log["message"]) == ("info", "The endgame table could not be loaded "
                                              "(MemoryError: memory allocation failed, "
                                              "allocating 512 bytes).")
