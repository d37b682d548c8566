"""The board's endgame tables (mancala_host.solver.tables, `make tables`): the bytes are the
ones whose SHA-256 is checked in (tests/data/endgame-tables.sha256), the header says what
they cover, and the values read back as the board would read them are the exact solver's
and, on small positions, brute force's through the engine."""

import hashlib
import os
import random
import struct
from math import comb

import pytest

from mancala import Rules
from mancala_host.solver import Exact, tables
from test_solver import brute_force, game_at, random_position

SUMS = os.path.join(os.path.dirname(__file__), "data", "endgame-tables.sha256")


def checked_in(path=SUMS):
    """{file name: SHA-256} of a checked-in sums file (sha256sum's format)."""
    with open(path) as f:
        return dict(reversed(line.split()) for line in f if line.strip())


@pytest.fixture(scope="module", params=sorted(tables.PRESETS))
def table(request):
    always, wipeout = tables.PRESETS[request.param]
    return request.param, tables.build(always, wipeout)


def test_the_tables_are_the_checked_in_bytes(table):
    name, data = table
    assert hashlib.sha256(data).hexdigest() == checked_in()["%s-%d.bin" % (name, tables.STONES)]


def test_the_header_says_what_the_table_covers(table):
    name, data = table
    always, wipeout = tables.PRESETS[name]
    magic, version, pits, stones, rules, size, _ = struct.unpack("<4sBBBBII", data[:16])
    assert (magic, version, pits, stones) == (b"MKET", 1, 6, tables.STONES)
    assert rules == int(always) | 2 * int(wipeout)
    assert size == comb(tables.STONES + 12, 12) == 646646
    assert len(data) == 16 + (size + 1) // 2
    # The last rank is the position with every stone in the mover's pit 1.
    assert tables.rank([tables.STONES] + [0] * 11) == size - 1
    assert tables.rank([0] * 11 + [1]) == 1 and tables.rank([0] * 12) == 0


def test_values_read_back_are_the_solvers(table):
    name, data = table
    r = Rules.from_dict({"preset": name})
    rng = random.Random(10)
    solver = Exact(r, tt_bits=16, db_stones=0)  # searched, not from its own endgame table
    for _ in range(300):
        mine, theirs = random_position(rng, rng.randrange(2, tables.STONES + 1))
        pits = tuple(mine + theirs)
        assert tables.value(data, pits) == solver.pits_value(pits), pits
    for _ in range(20):
        mine, theirs = random_position(rng, rng.randrange(2, 8))
        game = game_at(r, [mine, theirs])
        assert tables.value(data, mine + theirs) == brute_force(game) - (
            game.stones(0, 0) - game.stones(1, 0))
    # A side that is empty: the game is over, and the value is the sweep.
    assert tables.value(data, [0] * 6 + [3, 0, 0, 0, 0, 1]) == -4
