"""The board's endgame reader (mancala.endgame, and mancala_fw.app.endgame which finds the
tables) against the host's exact solver: the value of each position, and of each of its
pits, under both rule presets, read from a file in tables/ (10 stones) and from the frozen
module's bytes (8 stones), on the MicroPython unix port and on CPython (tests/mp/
endgame_check.py does the reading; this file writes the tables and the solver's answers)."""
import json
import os
import random
import subprocess
import sys

import pytest

from conftest import FIRMWARE_LIB, MICROPYTHON, ROOT
from mancala import Rules
from mancala_host.solver import Exact, tables
from test_solver import game_at, random_position

MP_DIR = os.path.join(ROOT, "tests", "mp")
POSITIONS = 150  # a rule set; with 2..12 stones in play, a few past the tables


@pytest.fixture(scope="module")
def flash(tmp_path_factory):
    """A board's flash: tables/ with both 10-stone files, mancala_tables.py with both 8-stone
    tables as bytes, bad/tables/ with a file that is no table; and the cases."""
    root = tmp_path_factory.mktemp("flash")
    (root / "tables").mkdir()
    (root / "bad" / "tables").mkdir(parents=True)
    (root / "bad" / "tables" / "kalah-10.bin").write_bytes(b"not a table")
    frozen = []
    cases = {}
    for name, (always, wipeout) in sorted(tables.PRESETS.items()):
        data = tables.build(always, wipeout)
        (root / "tables" / ("%s-10.bin" % name)).write_bytes(data)
        small = tables.build(always, wipeout, 8)
        assert data[16:len(small)] == small[16:]  # a table starts with the smaller ones
        frozen.append("%s = %r\n" % (name.replace("-", "_"), small))
        rules = Rules.from_dict({"preset": name})
        solver = Exact(rules, tt_bits=18)
        rng = random.Random(24)
        rows = []
        for k in range(POSITIONS):
            mine, theirs = random_position(rng, 2 + k % 11)
            rest = 48 - sum(mine) - sum(theirs)
            lead = rng.randrange(0, rest + 1)
            game = game_at(rules, [mine, theirs], turn=k % 2, stores=(lead, rest - lead))
            pits = tuple(game.to_dict()["pits"][game.turn] + game.to_dict()["pits"][1 - game.turn])
            if sum(pits) > 10:
                rows.append([game.to_dict(), None, None, None, {}])
                continue
            moves = solver.move_values(game)
            best = max(moves.values())
            assert best == solver.value(game)
            rows.append([game.to_dict(), tables.value(data, pits), best,
                         sorted(p for p in moves if moves[p] == best),
                         {str(p): v for p, v in moves.items()}])
        cases[name] = rows
    (root / "mancala_tables.py").write_text("".join(frozen))
    (root / "cases.json").write_text(json.dumps(cases))
    return root


def _run(argv, env, flash):
    proc = subprocess.run(argv + ["endgame_check.py", str(flash / "cases.json"), str(flash)],
                          cwd=MP_DIR, env=dict(os.environ, **env), capture_output=True,
                          text=True, timeout=600)
    out = proc.stdout + proc.stderr
    assert "ENDGAME-RESULT" in out and "failed=0" in out, out[-3000:]
    assert proc.returncode == 0, out[-3000:]
    checked = int(out.split("checked=")[1].split()[0])
    assert checked > 4 * POSITIONS, out[-3000:]


def test_the_reader_under_micropython(flash):
    _run([MICROPYTHON, "-X", "heapsize=4M"], {"MICROPYPATH": os.pathsep.join(
        [MP_DIR, ".frozen", FIRMWARE_LIB])}, flash)


def test_the_reader_under_cpython(flash):
    _run([sys.executable], {"PYTHONPATH": os.pathsep.join([MP_DIR, FIRMWARE_LIB])}, flash)
