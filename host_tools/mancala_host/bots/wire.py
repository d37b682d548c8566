"""The lines of the Kalah Game Protocol (KGP 1.0.0, github.com/KWARC/kalah-game, spec/), as the
hub's server (hub/kgp.py) and the students' bot runner (bots/runner.py) both read and write them.

A command is one line: an optional id, an optional reference `@id`, a name and arguments:

    4 state <6,0,0,4,4,4,4,4,4,4,4,4,4,4,4>
    @4 move 3
    6@4 stop
    set info:name "deep thought"

An argument is an integer, a real, a word, a double-quoted string (with backslash escapes) or a
board `<n,south store,north store,south pits...,north pits...>`. `parse` gives a Command or
raises BadLine with one sentence; `line` writes one.
"""

from __future__ import annotations

import re
from typing import NamedTuple, Union

VERSION = (1, 0, 0)
MAX_LINE = 4096     # the longest line either side takes (the specification allows 16384)

Arg = Union[int, float, str, "Board"]


class BadLine(ValueError):
    """A line that is not a KGP command, in one sentence."""


class Board(NamedTuple):
    """A KGP board: the pits and store of the side to move ("south") and of the other."""
    south: tuple[int, ...]
    north: tuple[int, ...]
    south_store: int
    north_store: int

    def literal(self) -> str:
        n = len(self.south)
        return "<%s>" % ",".join(str(v) for v in
                                 (n, self.south_store, self.north_store) + self.south + self.north)


class Command(NamedTuple):
    id: int | None
    ref: int | None
    name: str
    args: tuple[Arg, ...]


_HEAD = re.compile(r"\s*(?:(\d+)?(?:@(\d+))?\s+)?([A-Za-z0-9]+)")
_TOKEN = re.compile(r"""\s+(?:
    (?P<board><[0-9]+(?:,[0-9]+)*>) |
    (?P<string>"(?:\\.|[^"\\])*") |
    (?P<real>[+-]?[0-9]*\.[0-9]+)(?=\s|$) |
    (?P<int>[+-]?[0-9]+)(?=\s|$) |
    (?P<word>[A-Za-z0-9:-]+)(?=\s|$))""", re.X)


def parse(text: str) -> Command:
    text = text.rstrip("\r\n")
    if len(text) > MAX_LINE:
        raise BadLine("The line is longer than %d characters." % MAX_LINE)
    head = _HEAD.match(text)
    if not head or (head.group(1) is None and head.group(2) is None and text[:1].isspace()):
        raise BadLine("A command starts with an optional id and @reference, then its name.")
    ident, ref, name = head.groups()
    pos = head.end()
    args: list[Arg] = []
    rest = text[pos:]
    while rest.strip():
        m = _TOKEN.match(rest)
        if not m:
            raise BadLine("Cannot read the argument %r." % rest.strip()[:40])
        if m.group("board"):
            args.append(_board(m.group("board")))
        elif m.group("string"):
            args.append(re.sub(r"\\(.)", r"\1", m.group("string")[1:-1]))
        elif m.group("real"):
            args.append(float(m.group("real")))
        elif m.group("int"):
            args.append(int(m.group("int")))
        else:
            args.append(m.group("word"))
        rest = rest[m.end():]
    return Command(int(ident) if ident else None, int(ref) if ref else None, name, tuple(args))


def _board(literal: str) -> Board:
    values = [int(v) for v in literal[1:-1].split(",")]
    n = values[0]
    if n < 1 or len(values) != 3 + 2 * n:
        raise BadLine("A board of %d pits has %d numbers, not %d." % (n, 3 + 2 * n, len(values)))
    return Board(tuple(values[3:3 + n]), tuple(values[3 + n:]), values[1], values[2])


def quote(text: str) -> str:
    return '"%s"' % re.sub(r'(["\\])', r"\\\1", text.replace("\n", " ").replace("\r", " "))


def line(name: str, *args: Arg, id: int | None = None, ref: int | None = None) -> str:
    """One command, with its line end."""
    head = ("" if id is None else str(id)) + ("" if ref is None else "@%d" % ref)
    parts = [head + " " + name if head else name]
    for a in args:
        if isinstance(a, Board):
            parts.append(a.literal())
        elif isinstance(a, str) and not re.fullmatch(r"[A-Za-z0-9:-]+", a):
            parts.append(quote(a))
        else:
            parts.append(str(a))
    return " ".join(parts) + "\r\n"


def board_of(state: dict, seat: int) -> Board:
    """The KGP board of a board's (or the engine's) 2-seat state dict from seat's side."""
    other = 1 - seat
    return Board(tuple(state["pits"][seat]), tuple(state["pits"][other]),
                 state["stores"][seat], state["stores"][other])
