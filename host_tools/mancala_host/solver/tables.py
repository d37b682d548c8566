"""Endgame tables for the board: the exact value of every 6-pit Kalah position with at most
STONES stones in play, from the side to move, 4 bits a position; one file per rule preset.

    python -m mancala_host.solver.tables [--out build/tables] [--stones N]    (make tables)

The values come from the exact solver (its endgame table filled in full), so the files are
the same bytes on every machine; tests/test_solver_tables.py checks their SHA-256.

File format (docs/host-tool.md §15), little-endian:

    offset  size  field
    0       4     magic b"MKET" (Mancala Kalah Endgame Table)
    4       1     format version, 1
    5       1     pits a side, 6
    6       1     N, the most stones in play covered
    7       1     rules: bit 0 capture "always", bit 1 wipe-out captures allowed
    8       4     positions, C(N + 12, 12)
    12      4     0 (reserved)
    16      ...   one nibble a position, by rank: byte 16 + r // 2, low nibble for even r

A position is its 12 pits from the side to move: the mover's pits 1..6, then the other
seat's pits 1..6. Its rank is sum over i = 0..11 of C(b_i, i + 1), where b_i is the stones
in pits 0..i plus i; positions with fewer stones come first. The nibble is (v + s) / 2, where
s is the stones in play and v the value (the final store difference still to come with
perfect play, for the side to move), which has the parity of s.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import struct
import sys
from math import comb
from typing import Sequence

from ._kalah import Solver

PITS = 6
# 10 stones: 646,646 positions, 323,339 bytes a file; both presets take 632 KiB of the
# board's 1408 KiB filesystem (docs/host-tool.md §15). 11 stones would take 1.29 MiB.
STONES = 10
MAGIC = b"MKET"
VERSION = 1
HEADER = 16
PRESETS = {"kalah": (False, True), "kalah-empty-capture": (True, False)}


def rank(pits: Sequence[int]) -> int:
    r = b = 0
    for i, c in enumerate(pits):
        b += c
        r += comb(b + i, i + 1)
    return r


def build(always: bool, wipeout: bool, stones: int = STONES) -> bytes:
    """The whole file for one set of rules."""
    values = Solver(PITS, always, wipeout, 10, stones).endgame()
    size = len(values)
    assert size == comb(stones + 2 * PITS, 2 * PITS)
    head = MAGIC + struct.pack("<BBBBII", VERSION, PITS, stones, int(always) | 2 * int(wipeout),
                               size, 0)
    body = bytearray((size + 1) // 2)
    r = 0
    for s in range(stones + 1):
        # Ranks of the positions with exactly s stones: C(s - 1 + 12, 12) .. C(s + 12, 12) - 1.
        end = comb(s + 2 * PITS, 2 * PITS)
        while r < end:
            v = values[r] - 256 if values[r] > 127 else values[r]
            nibble = (v + s) // 2
            body[r >> 1] |= nibble << (4 * (r & 1))
            r += 1
    return head + bytes(body)


def value(table: bytes, pits: Sequence[int]) -> int:
    """A position's value read back from a file's bytes, as the board would read it."""
    s = sum(pits)
    r = rank(pits)
    nibble = table[HEADER + (r >> 1)] >> (4 * (r & 1)) & 15
    return 2 * nibble - s


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="write the board's endgame tables")
    p.add_argument("--out", default=os.path.join("build", "tables"))
    p.add_argument("--stones", type=int, default=STONES, help="most stones in play (1-15)")
    args = p.parse_args(argv)
    if not 1 <= args.stones <= 15:
        print("--stones must be 1 to 15 (a value must fit 4 bits).", file=sys.stderr)
        return 2
    os.makedirs(args.out, exist_ok=True)
    for name, (always, wipeout) in PRESETS.items():
        data = build(always, wipeout, args.stones)
        path = os.path.join(args.out, "%s-%d.bin" % (name, args.stones))
        tmp = path + ".tmp"
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
        print("%s: %d bytes, sha256 %s" % (path, len(data), hashlib.sha256(data).hexdigest()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
