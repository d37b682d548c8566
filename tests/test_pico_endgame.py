"""A perfect endgame on the emulated Pico: the stock MicroPython image with the firmware and
the endgame tables on its flash as `make deploy` puts them (/tables/kalah-10.bin and
kalah-empty-capture-10.bin), one boot for every case. Each endgame is set up over serial
(new_game with a state, docs/protocol.md §4); a level-5 seat must keep the exact value in 50
covered positions, and the coach's hint must name every pit that keeps it, with the outcome.
The host's exact solver is the judge."""
import pytest

from boardsim import Board
from mancala import Rules
from mancala_host.solver import Exact, tables
from test_board_endgame import positions
from test_rp2040_harness import needs_emulator

pytestmark = needs_emulator
HUMANS = [{"kind": "human"}, {"kind": "human"}]


@pytest.fixture(scope="module")
def board():
    b = Board("duo", target="rp2040")
    try:
        b.start()
        b.ok("set_config", config={"animation_ms": 0})
        yield b
    finally:
        b.close()


def best_of(solver, game):
    moves = solver.move_values(game)
    value = max(moves.values())
    return moves, value, sorted(p for p in moves if moves[p] == value)


def test_level_5_keeps_the_exact_value_in_50_covered_endgames(board):
    played, current = 0, None
    for name in sorted(tables.PRESETS):
        solver = Exact(Rules.from_dict({"preset": name}), tt_bits=18)
        # by the seat to move, so that the seats are set (and saved) once for each
        for game in sorted(positions(name, 25, 50), key=lambda g: g.turn):
            moves, value, best = best_of(solver, game)
            seats = list(HUMANS)
            seats[game.turn] = {"kind": "cpu", "level": 5}
            if seats != current:
                board.ok("set_config", config={"seats": seats})
                current = seats
            board.ok("new_game", state=game.to_dict())
            board.take_events()
            move = board.wait_event("move", board.timeout)
            assert move["seat"] == game.turn and move["by"] == "cpu"
            # the table's choice: of the pits that keep the value, the one nearest the store
            assert move["pit"] == best[-1], (name, game.to_dict(), move["pit"], moves)
            played += 1
    board.ok("set_config", config={"seats": HUMANS})
    assert played == 50


def test_the_coach_names_every_best_pit_over_serial(board):
    board.ok("set_config", config={"seats": HUMANS})
    solver = Exact(Rules.from_dict({"preset": "kalah"}), tt_bits=18)
    for game in positions("kalah", 200, 7, stones=(6, 10)):
        moves, value, best = best_of(solver, game)
        if len(best) >= 2 and value:
            break
    else:
        raise AssertionError("no covered position with two best pits")
    board.ok("new_game", state=game.to_dict())
    answer = board.ok("hint")
    winner = game.turn if value > 0 else 1 - game.turn
    assert (answer["seat"], answer["exact"], answer["best"], answer["outcome"]) == \
        (game.turn, value, best, "seat %d wins by %d with best play" % (winner, abs(value)))
    assert answer["pit"] in best
