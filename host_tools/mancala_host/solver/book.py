"""The opening book: the exact value of every position of the first plies of Kalah(6,3) and
Kalah(6,4), under both rule presets, so that the start of a game answers at once; and beside
it the solver's endgame table filled in full, which a new command reads instead of filling it
search by search (a hint in the late game then needs almost no search).

    python -m mancala_host.solver.book [--out DIR] [--seeds 3 4] [--preset ...] [--force]
                                                                             (make book)

The books are part of the package (solver/books/, package data): every install answers the
start of a game at once, and tests/test_solver_book.py checks their SHA-256 in every test
run. `make book` makes any that are missing there, and the full endgame tables into
build/book; `--force` makes them again (the same bytes), `--out DIR` writes both into DIR,
which MANCALA_BOOK=DIR then makes the commands read instead.

A position is its 12 pits from the side to move (the mover's pits 1..6, then the other
seat's), as the solver sees it; its value is the final store difference that perfect play
still adds, for the side to move (the stores never change what is left to win). The book of
a start holds every position reached from it in at most PLIES[preset, seeds] moves (an extra move
counts as a move), over or not: the positions of the last ply are searched by the solver,
every earlier one is the best of its moves' values, so it needs no search. The values are
exact, so the file is the same bytes on every machine and with any version of the search;
tests/test_solver_book.py checks their SHA-256.

File format (docs/host-tool.md §16), little-endian:

    offset  size  field
    0       4     magic b"MKOB" (Mancala Kalah Opening Book)
    4       1     format version, 1
    5       1     pits a side, 6
    6       1     seeds a pit at the start
    7       1     plies covered
    8       1     rules: bit 0 capture "always", bit 1 wipe-out captures allowed
    9       3     0 (reserved)
    12      4     positions
    16      ...   13 bytes a position, in ascending order of its pits: the 12 pits, then
                  the value as a signed byte

The full endgame table beside it is database.py's file (its header and format).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import struct
import sys
import time
from typing import Callable, Dict, Iterable, Optional, Sequence, Tuple

from ._kalah import Solver

PITS = 6
# How many plies each start's book covers, chosen by what a ply costs to make and what it
# saves (docs/host-tool.md §16).
PLIES = {("kalah", 3): 1, ("kalah-empty-capture", 3): 1,
         ("kalah", 4): 1, ("kalah-empty-capture", 4): 2}
SEEDS = (3, 4)
MAGIC = b"MKOB"
VERSION = 1
HEADER = 16
ENTRY = 2 * PITS + 1
PRESETS = {"kalah": (False, True), "kalah-empty-capture": (True, False)}
NORMAL, EXTRA, OVER = 0, 1, 2
# The search's transposition table while a book is made (2^bits entries of 16 bytes): larger
# for Kalah(6,4), whose positions take a hundred million nodes each. The bytes of the book do
# not depend on it.
TT_BITS = {3: 22, 4: 25}
DB_STONES = 12

Position = Tuple[int, ...]


class BookError(ValueError):
    """An opening book file that cannot be read: the sentence says which and what to do."""


def file_name(preset: str, seeds: int) -> str:
    return "%s-%d.bin" % (preset, seeds)


def endgame_path(always: bool, wipeout: bool, stones: int, folder: Optional[str] = None) -> str:
    """Where `make book` puts the full endgame table of these rules (database.py's file)."""
    from . import database
    return database.path_for(tables_folder() if folder is None else folder, PITS, always,
                             wipeout, stones)


def load_endgame(solver: Solver, always: bool, wipeout: bool, stones: int,
                 folder: Optional[str] = None) -> bool:
    """Fill the solver's endgame table from the file `make book` wrote for these rules and
    stones, if there is one: True if it did; BookError in one sentence if it is not one."""
    from . import database
    path = endgame_path(always, wipeout, stones, folder)
    if not os.path.exists(path):
        return False
    try:
        database.load(solver, path, PITS, always, wipeout, stones)
    except (OSError, ValueError) as exc:
        raise BookError("Cannot read the endgame table %s (%s); delete it and run 'make book' "
                        "again." % (path, exc))
    return True


PACKAGED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "books")


def default_folder() -> str:
    """Where the commands look for the books: MANCALA_BOOK, else the package's own."""
    return os.environ.get("MANCALA_BOOK") or PACKAGED


def tables_folder() -> str:
    """Where the commands look for the full endgame tables: MANCALA_BOOK, else build/book of
    the repository this package is in (make book writes them there: 5.4 MB, made in
    seconds, so they are not shipped)."""
    env = os.environ.get("MANCALA_BOOK")
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.normpath(os.path.join(here, "..", "..", "..", "build", "book"))


def layers(solver: Solver, seeds: int, plies: int) -> list:
    """The positions reached from the start in exactly 0, 1, ... plies moves (a set each);
    a move that ends the game reaches no position."""
    layer = {(seeds,) * (2 * PITS)}
    found = [layer]
    for _ in range(plies):
        nxt = set()
        for p in layer:
            for pit in range(1, PITS + 1):
                if p[pit - 1]:
                    after, _, status = solver.play(p, pit)
                    if status != OVER:
                        nxt.add(after)
        layer = nxt
        found.append(layer)
    return found


def solve(always: bool, wipeout: bool, seeds: int, plies: int,
          progress: Optional[Callable[[int, int], None]] = None,
          solver: Optional[Solver] = None) -> Dict[Position, int]:
    """{position: exact value} of every position of the first `plies` plies. progress(done,
    to_search) after each searched position."""
    if solver is None:
        solver = Solver(PITS, always, wipeout, TT_BITS.get(seeds, 24), DB_STONES)
    found = layers(solver, seeds, plies)
    interior = set().union(*found[:plies])
    frontier = set().union(*found) - interior
    values: Dict[Position, int] = {}
    searched = [0]

    def value(p: Position) -> int:
        v = values.get(p)
        if v is not None:
            return v
        if p in interior:
            best = None
            # Nearest the store first, as the search orders them: siblings share most of their
            # lines, and the transposition table carries them from one to the next.
            for pit in range(PITS, 0, -1):
                if not p[pit - 1]:
                    continue
                after, gain, status = solver.play(p, pit)
                v = gain if status == OVER else gain + value(after) if status == EXTRA \
                    else gain - value(after)
                best = v if best is None else max(best, v)
            assert best is not None  # a position that is not over has a move
            v = best
        else:
            v = solver.value(p)
            searched[0] += 1
            if progress:
                progress(searched[0], len(frontier))
        values[p] = v
        return v

    value(next(iter(found[0])))
    assert len(values) == len(interior | frontier)
    return values


def pack(always: bool, wipeout: bool, seeds: int, plies: int,
         values: Dict[Position, int]) -> bytes:
    """The whole file for one start and one set of rules."""
    head = MAGIC + struct.pack("<BBBBB3xI", VERSION, PITS, seeds, plies,
                               int(always) | 2 * int(wipeout), len(values))
    body = bytearray()
    for p in sorted(values):
        body += bytes(p) + struct.pack("<b", values[p])
    return head + bytes(body)


def build(always: bool, wipeout: bool, seeds: int, plies: Optional[int] = None,
          progress: Optional[Callable[[int, int], None]] = None) -> bytes:
    if plies is None:
        name = [n for n, rules in PRESETS.items() if rules == (always, wipeout)][0]
        plies = PLIES[(name, seeds)]
    return pack(always, wipeout, seeds, plies, solve(always, wipeout, seeds, plies, progress))


def read(data: bytes, where: str = "the opening book") -> Tuple[dict, Dict[Position, int]]:
    """(header fields, {position: value}) of a book file's bytes; BookError if it is not one."""
    if len(data) < HEADER or data[:4] != MAGIC:
        raise BookError("%s is not an opening book (no MKOB header); delete it and run "
                        "'make book' again." % where)
    version, pits, seeds, plies, rules, count = struct.unpack("<BBBBB3xI", data[4:HEADER])
    if version != VERSION or pits != PITS or len(data) != HEADER + ENTRY * count:
        raise BookError("%s is an opening book of another format or cut short; delete it and "
                        "run 'make book' again." % where)
    values = {}
    for at in range(HEADER, len(data), ENTRY):
        values[tuple(data[at:at + 2 * PITS])] = struct.unpack("<b", data[at + 2 * PITS:at + ENTRY])[0]
    head = {"seeds": seeds, "plies": plies, "always": bool(rules & 1), "wipeout": bool(rules & 2)}
    return head, values


def load(always: bool, wipeout: bool, folder: Optional[str] = None) -> Dict[Position, int]:
    """{position: value} from every book file in the folder for these rules (none there: an
    empty book, and the solver searches)."""
    folder = default_folder() if folder is None else folder
    merged: Dict[Position, int] = {}
    for preset, rules in sorted(PRESETS.items()):
        if rules != (always, wipeout):
            continue
        for seeds in SEEDS:
            path = os.path.join(folder, file_name(preset, seeds))
            try:
                with open(path, "rb") as f:
                    data = f.read()
            except FileNotFoundError:
                continue
            except OSError as exc:
                raise BookError("Cannot read the opening book %s (%s)." % (path, exc.strerror))
            head, values = read(data, path)
            if (head["always"], head["wipeout"], head["seeds"]) != (always, wipeout, seeds):
                raise BookError("%s is an opening book for other rules; delete it and run "
                                "'make book' again." % path)
            merged.update(values)
    return merged


def write(path: str, data: bytes) -> None:
    tmp = "%s.%d.tmp" % (path, os.getpid())
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def main(argv: Optional[Sequence[str]] = None) -> int:
    p = argparse.ArgumentParser(description="write the exact solver's opening books")
    p.add_argument("--out", default=None,
                   help="write the books and the endgame tables here (default: the books into "
                        "the package, %s, the tables into build/book)" % PACKAGED)
    p.add_argument("--seeds", type=int, nargs="+", default=list(SEEDS), choices=SEEDS,
                   help="which starts (default: all)")
    p.add_argument("--preset", nargs="+", default=sorted(PRESETS), choices=sorted(PRESETS),
                   help="which rules (default: both presets)")
    p.add_argument("--force", action="store_true", help="make the files even if they are there")
    args = p.parse_args(argv)
    from . import DB_STONES as stones, database  # the size the commands' solvers use
    books = PACKAGED if args.out is None else args.out
    tables = os.path.join("build", "book") if args.out is None else args.out
    os.makedirs(books, exist_ok=True)
    os.makedirs(tables, exist_ok=True)
    for name in args.preset:
        always, wipeout = PRESETS[name]
        path = endgame_path(always, wipeout, stones, tables)
        if args.force or not os.path.exists(path):
            took = database.build(path, PITS, always, wipeout, stones)
            print("%s: the full endgame table, %d bytes, %.1f s CPU" % (
                path, os.path.getsize(path), took))
    for seeds in args.seeds:
        for name in args.preset:
            always, wipeout = PRESETS[name]
            path = os.path.join(books, file_name(name, seeds))
            if os.path.exists(path) and not args.force:
                with open(path, "rb") as f:
                    data = f.read()
                print("%s: there already (%d bytes, sha256 %s); --force makes it again" % (
                    path, len(data), hashlib.sha256(data).hexdigest()))
                continue
            start = time.monotonic()
            tty = sys.stderr.isatty()

            def progress(done: int, total: int) -> None:
                if tty:
                    sys.stderr.write("\r%s: %d of %d positions searched, %.0f s " % (
                        path, done, total, time.monotonic() - start))
                    sys.stderr.flush()

            data = build(always, wipeout, seeds, progress=progress)
            if tty:
                sys.stderr.write("\n")
            write(path, data)
            print("%s: %d positions, %d plies, %d bytes, %.1f s, sha256 %s" % (
                path, (len(data) - HEADER) // ENTRY, PLIES[(name, seeds)], len(data),
                time.monotonic() - start, hashlib.sha256(data).hexdigest()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
