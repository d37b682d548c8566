"""The opening book (mancala_host.solver.book, `make book`), shipped in the package
(solver/books): the Kalah(6,3) books made here are the bytes whose SHA-256 is checked in
(tests/data/opening-book.sha256) and the shipped ones; the shipped Kalah(6,4) books (hours of
search to make, so not made here) have their checked-in SHA-256, every position of their
plies, each earlier ply the best of its moves, and the published start values; values read
back are the solver's own; a command answers the start from the shipped book with no search
at all, and a file that is not a book gets one sentence."""

import hashlib
import json
import os

import pytest

from fakeport import ANSWER, FakePort, board_script, run
from mancala import Game, Rules
from mancala_host.solver import OVER, Exact, TooBig, book, for_rules
from test_solver_tables import checked_in

SUMS = os.path.join(os.path.dirname(__file__), "data", "opening-book.sha256")
# The published values of the starts: Kalah(6,3) and (6,4) under the standard rule (Irving,
# Donkers and Uiterwijk 2000), (6,4) with empty captures (Rawlings 2015).
START = {("kalah", 3): 2, ("kalah", 4): 8, ("kalah-empty-capture", 4): 10}


@pytest.fixture(scope="module", params=sorted(book.PRESETS))
def small(request):
    """(preset, the Kalah(6,3) book's bytes), made here."""
    always, wipeout = book.PRESETS[request.param]
    return request.param, book.build(always, wipeout, 3)


def shipped(name, seeds):
    with open(os.path.join(book.PACKAGED, book.file_name(name, seeds)), "rb") as f:
        return f.read()


def test_the_kalah_6_3_books_are_the_checked_in_bytes_and_the_shipped_ones(small):
    name, data = small
    assert hashlib.sha256(data).hexdigest() == checked_in(SUMS)[book.file_name(name, 3)]
    assert shipped(name, 3) == data


@pytest.mark.parametrize("name", sorted(book.PRESETS))
def test_the_shipped_kalah_6_4_books_are_the_checked_in_bytes(name):
    data = shipped(name, 4)
    assert hashlib.sha256(data).hexdigest() == checked_in(SUMS)[book.file_name(name, 4)]
    head, values = book.read(data)
    assert values[(4,) * 12] == START[(name, 4)]
    check_plies(name, head, values)


def check_plies(name, head, values):
    """Every position of the book's first plies is there, and each one before the last ply is
    the best of its moves: the move's gain plus the next position's value after an extra
    move, minus it when the turn passes."""
    always, wipeout = book.PRESETS[name]
    assert (head["always"], head["wipeout"], head["plies"]) == (always, wipeout,
                                                              book.PLIES[(name, head["seeds"])])
    r = Rules.from_dict({"preset": name, "seeds": head["seeds"]})
    solver = Exact(r, tt_bits=16)
    found = book.layers(solver._solver, head["seeds"], head["plies"])
    assert set(values) == set().union(*found)
    for p in set().union(*found[:-1]):
        moves = []
        for pit in range(1, 7):
            if p[pit - 1]:
                after, gain, status = solver.play(p, pit)
                moves.append(gain if status == OVER else
                             gain + values[after] if status == 1 else gain - values[after])
        assert values[p] == max(moves), p


def test_the_header_and_values_read_back(small):
    name, data = small
    always, wipeout = book.PRESETS[name]
    head, values = book.read(data)
    assert head["seeds"] == 3
    assert len(data) == book.HEADER + book.ENTRY * len(values)
    if (name, 3) in START:
        assert values[(3,) * 12] == START[(name, 3)]
    check_plies(name, head, values)
    # The last ply's values against a solver set up otherwise (a small transposition table, no
    # endgame table): searched again, not read from the book.
    r = Rules.from_dict({"preset": name, "seeds": 3})
    solver = Exact(r, tt_bits=18, db_stones=0)
    last = sorted(book.layers(solver._solver, 3, head["plies"])[-1])
    for p in last[::2]:
        assert values[p] == solver.pits_value(p), p


def _state(game):
    return {"id": ANSWER, "ok": True, "state": game.to_dict()}


@pytest.mark.parametrize("name", sorted(book.PRESETS))
def test_hint_answers_the_start_from_the_shipped_book_with_no_search(name, monkeypatch, capsys):
    # A budget of 1 node a move: only the book can answer; none is named, so it is the
    # package's own.
    monkeypatch.delenv("MANCALA_BOOK", raising=False)
    start = Game(Rules.from_dict({"preset": name, "seeds": 4}))
    _, values = book.read(shipped(name, 4))
    port = FakePort(board_script(state=[_state(start)]))
    code, out, err = run(monkeypatch, capsys, port, ["--json", "hint", "--exact",
                                                     "--exact-nodes", "1"])
    assert code == 0, err
    answer = json.loads(out)
    assert answer["value"] == values[(4,) * 12] == START[(name, 4)]
    assert set(values) <= set(for_rules(start.rules).book)


def test_make_book_writes_the_full_endgame_table_and_the_commands_read_it(tmp_path,
                                                                          monkeypatch):
    # A 12-stone position answered with a budget of one node: only the endgame table read
    # whole from the file can (filled on demand, it needs a search).
    folder = tmp_path / "book"
    assert book.main(["--out", str(folder), "--seeds", "3", "--preset", "kalah"]) == 0
    data = open(book.endgame_path(False, True, 12, str(folder)), "rb").read()
    assert data[:8] == b"MKDB" + bytes([1, 6, 12, 2]) and len(data) == 16 + 2704156
    r = Rules.from_dict({"preset": "kalah", "seeds": 3})
    pits = (1, 0, 2, 0, 3, 1, 0, 2, 1, 1, 0, 1)
    with pytest.raises(TooBig):
        Exact(r).pits_value(pits, max_nodes=1)
    monkeypatch.setenv("MANCALA_BOOK", str(folder))
    assert for_rules(r).pits_value(pits, max_nodes=1) == Exact(r).pits_value(pits) == -2
    assert data[16:] == Exact(r, tt_bits=16)._solver.endgame()


def test_a_file_that_is_not_a_book_gets_one_sentence(tmp_path, monkeypatch, capsys):
    folder = tmp_path / "book"
    folder.mkdir()
    (folder / "kalah-4.bin").write_bytes(b"not a book")
    monkeypatch.setenv("MANCALA_BOOK", str(folder))
    start = Game(Rules.from_dict({"preset": "kalah", "seeds": 4}))
    port = FakePort(board_script(state=[_state(start)]))
    code, out, err = run(monkeypatch, capsys, port, ["hint", "--exact"])
    assert code != 0 and "Traceback" not in err
    assert err.strip() == ("%s is not an opening book (no MKOB header); delete it and run "
                           "'make book' again." % (folder / "kalah-4.bin"))
