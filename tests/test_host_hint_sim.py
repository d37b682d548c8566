"""`mancala-board hint` against the real firmware in the virtual board, over a real pty."""

import json

import pytest

import fakeport  # noqa: F401  (puts host_tools and firmware/lib on sys.path)
from mancala import Game, Rules
from test_host_sim import Sim, mb


@pytest.fixture
def sim(tmp_path):
    board = Sim(tmp_path).start()
    yield board
    board.stop()


def hint_of(capsys, sim):
    code, out, err = mb(capsys, sim, "--json", "hint")
    assert code == 0, err
    return json.loads(out)


def test_hint_from_the_firmware(sim, capsys):
    assert mb(capsys, sim, "new", "--first", "0", "variant=kalah", "seeds=4")[0] == 0
    game = Game(Rules.from_dict({"variant": "kalah", "seeds": 4}), first=0)
    code, out, err = mb(capsys, sim, "hint")
    assert code == 0, err
    assert out.startswith("Seat 0 to move: the CPU suggests pit ") and out.endswith(".\n")
    assert int(out.split()[-1].rstrip(".")) in game.legal_moves()

    # Seat 0 sows pit 3 into its store and moves again; pit 3 is empty then, so no hint names
    # it. Then seat 0 plays pit 6 and it is seat 1's turn.
    for pit in (3, 6):
        hint = hint_of(capsys, sim)
        assert hint["seat"] == game.turn == 0 and hint["pit"] in game.legal_moves()
        assert mb(capsys, sim, "press", "0", str(pit))[0] == 0
        game.play(pit)
    hint = hint_of(capsys, sim)
    assert hint["seat"] == game.turn == 1 and hint["pit"] in game.legal_moves()
    # The hint changes nothing on the board.
    code, out, err = mb(capsys, sim, "--json", "state")
    assert json.loads(out)["state"] == game.to_dict()

    assert mb(capsys, sim, "resign", "1")[0] == 0
    code, out, err = mb(capsys, sim, "hint")
    assert code == 2 and out == ""
    lines = [l for l in err.splitlines() if l.strip()]
    assert len(lines) == 1 and "game on the board is over" in lines[0]
