"""The exact solver's endgame database on disk: the exact value of every position with at most
N stones in play under one set of Kalah rules, one signed byte a position by rank, as
Solver.endgame() gives it, after a 16-byte header. A solver reads it whole
(Solver.load_endgame) instead of filling its table by search, which pays when many searches
share it (bench/solver.py).

    python -m mancala_host.solver.database --stones 20 [--pits 6] [--out build/solver]

Header, little-endian: magic b"MKDB", format version 1, pits a side, N, rules (bit 0 capture
"always", bit 1 wipe-out captures allowed), then the table's size in bytes (8 bytes).
"""

from __future__ import annotations

import argparse
import os
import struct
import sys
import time

from ._kalah import Solver

MAGIC = b"MKDB"
VERSION = 1
HEADER = 16


def _header(pits: int, always: bool, wipeout: bool, stones: int, size: int) -> bytes:
    return MAGIC + struct.pack("<BBBBQ", VERSION, pits, stones,
                               int(always) | 2 * int(wipeout), size)


def path_for(folder: str, pits: int, always: bool, wipeout: bool, stones: int) -> str:
    """Where the database of these rules and stones lives in folder."""
    return os.path.join(folder, "kalah%d-%s-%s-%d.bin" % (
        pits, "always" if always else "nonempty", "wipeout" if wipeout else "nowipeout",
        stones))


def build(path: str, pits: int, always: bool, wipeout: bool, stones: int) -> float:
    """Fills the database by memoised search and writes it to path (atomically); returns
    the CPU seconds the filling took."""
    solver = Solver(pits, always, wipeout, 16, stones)
    t0 = time.process_time()
    table = solver.endgame()
    took = time.process_time() - t0
    del solver
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    tmp = "%s.%d.tmp" % (path, os.getpid())
    with open(tmp, "wb") as f:
        f.write(_header(pits, always, wipeout, stones, len(table)))
        f.write(table)
    os.replace(tmp, path)
    return took


def load(solver: Solver, path: str, pits: int, always: bool, wipeout: bool,
         stones: int, mapped: bool = False) -> None:
    """Reads the database at path into solver's endgame table (db_stones = stones), or maps
    the file (mapped: no copy, so a short run starts at once, but in 4 KiB pages, so a long
    search runs slower); a file of other rules or size is refused in one sentence."""
    with open(path, "rb") as f:
        head = f.read(HEADER)
    if head != _header(pits, always, wipeout, stones, solver.db_size):
        raise ValueError("%s is not the endgame database of these rules with %d stones; "
                         "delete it to build it again" % (path, stones))
    solver.load_endgame(path, HEADER, mapped)


def solver_with(folder: str, pits: int, always: bool, wipeout: bool, stones: int,
                tt_bits: int, threads: int = 1,
                mapped: bool = False) -> tuple[Solver, float | None]:
    """A solver searching on threads threads whose endgame table is the database in folder
    (read in that many parts at once, or mapped: load), built first if missing; with the
    CPU seconds the build took (None when it was there)."""
    path = path_for(folder, pits, always, wipeout, stones)
    took = None
    if not os.path.exists(path):
        took = build(path, pits, always, wipeout, stones)
    solver = Solver(pits, always, wipeout, tt_bits, stones, threads)
    load(solver, path, pits, always, wipeout, stones, mapped)
    return solver, took


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--stones", type=int, default=20, help="most stones in play (20)")
    parser.add_argument("--pits", type=int, default=6)
    parser.add_argument("--out", default=os.path.join("build", "solver"), help="folder")
    args = parser.parse_args(argv)
    for always, wipeout in ((False, True), (True, False)):
        path = path_for(args.out, args.pits, always, wipeout, args.stones)
        took = build(path, args.pits, always, wipeout, args.stones)
        print("%s: %d bytes, %.1f s CPU" % (path, os.path.getsize(path), took))
    return 0


if __name__ == "__main__":
    sys.exit(main())
