"""Draws the virtual board in a terminal: every LED ring in 24-bit colour, with its count.

Pure rendering, no I/O: Board keeps the latest GRB frame per data pin and render() turns it
into lines of text with ANSI colour codes, so tests can render a known frame to a string.

Rings are placed by the profile's xy_mm (clustered into a grid of rows and columns), so a
new profile is drawn without code changes.  Each ring is a flat loop of cells, clockwise from
its top-left corner, with the count it shows written inside it.

Two things the LEDs alone do not tell a person at a glance are drawn from what the view knows:
- a pit the current game does not use (set_used) is drawn without its dots and with a dash
  for its count while it is dark, so it never looks like an empty pit;
- a ring filled with one colour (the extra-move pulse, a capture flash, a refused touch) is
  an effect, not a count (no count on a 12- to 24-LED ring lights every LED alike): the count
  read before it stays, so the number does not flicker while the ring blinks.
"""

from __future__ import annotations

import math
from typing import Any, Iterable

LIT = "\u25cf"          # a lit LED
DARK = "\u00b7"         # a dark LED
DARK_RGB = (90, 90, 90)
UNUSED = "-"            # the count of a pit the current game does not use
RESET = "\x1b[0m"
BOLD = "\x1b[1m"
COLUMN_GAP = 2


def fg(rgb: tuple[int, ...]) -> str:
    return "\x1b[38;2;%d;%d;%dm" % rgb


def visible_rgb(g: int, r: int, b: int, frame_max: int = 255) -> tuple[int, ...] | None:
    """The terminal colour for one LED's GRB bytes, or None when it is dark.

    LED light is linear in the byte while terminal colours are sRGB, so gamma-encode.  The
    frame is first scaled so its brightest channel is full, as the eye adapts to a dimmed
    board: the brightness setting and the power limiter must not make the view unreadable.
    """
    level = max(r, g, b)
    if level == 0:
        return None
    top = max(frame_max, level)
    return tuple(round(255 * (c / top) ** (1 / 2.2)) for c in (r, g, b))


def is_fill(grb: bytes) -> bool:
    """True when every LED of a ring shows the same lit colour: an effect, not a count."""
    return len(grb) >= 6 and any(grb[:3]) and grb == grb[:3] * (len(grb) // 3)


def seating_of(profile_path: str, players: int, pits: int) -> Any:
    """The firmware's own Seating of a game of players x pits on the profile (which position
    is which seat's pit), or None if the firmware's profile code cannot tell."""
    try:
        from mancala_fw import profile as profiles
        board = profiles.load(profile_path)
        return profiles.seating(board, players, pits)
    except Exception:           # a game this board cannot seat, or no firmware
        return None


def used_positions(profile_path: str, players: int, pits: int) -> list[str] | None:
    """The position ids the firmware seats a game of players x pits on, or None if the
    firmware's profile code cannot tell (then every ring is drawn as used)."""
    seating = seating_of(profile_path, players, pits)
    return None if seating is None else seating.used


def place_name(seating: Any, pid: str) -> str:
    """A pad in the game's words, as the board and `watch` say it: "seat 0's pit 3", "seat 1's
    store"; a position the game leaves unused, or any pad before a game is known, by its id."""
    place = seating.seat_pit(pid) if seating is not None else None
    if place is None:
        return "pad %s%s" % (pid, ", which this game does not use" if seating is not None else "")
    seat, pit = place
    return "seat %d's store" % seat if pit == 0 else "seat %d's pit %d" % (seat, pit)


def ring_cells(leds: int) -> tuple[int, list[tuple[int, int]]]:
    """(width, [(row, col) of LED 0, 1, ...]) for a ring drawn as a 3-row loop."""
    if leds <= 2:
        return max(leds, 1), [(0, i) for i in range(leds)]
    width = max(3, (leds - 1) // 2)        # 2 * width + 2 cells >= leds
    loop = [(0, c) for c in range(width)]
    loop.append((1, width - 1))
    loop += [(2, c) for c in range(width - 1, -1, -1)]
    loop.append((1, 0))
    return width, loop[:leds]


def _clusters(values, tolerance):
    """Map each value to the index of its cluster (values closer than tolerance share one)."""
    index, last, out = -1, None, {}
    for v in sorted(set(values)):
        if last is None or v - last > tolerance:
            index += 1
        out[v] = index
        last = v
    return out


class Layout:
    """Where each position's ring goes on the screen: grid cells from the profile's xy_mm."""

    def __init__(self, profile):
        positions = profile["positions"]
        tolerance = profile.get("geometry", {}).get("pit_mm", 40) / 2.0
        xs = _clusters([p["xy_mm"][0] for p in positions.values()], tolerance)
        ys = _clusters([p["xy_mm"][1] for p in positions.values()], tolerance)
        self.cell = {}
        self.rings = {}
        for pid, p in positions.items():
            self.cell[pid] = (ys[p["xy_mm"][1]], xs[p["xy_mm"][0]])
            self.rings[pid] = ring_cells(p["ring"]["leds"])
        self.rows = max(r for r, _ in self.cell.values()) + 1
        self.cols = max(c for _, c in self.cell.values()) + 1
        self.col_width = [1] * self.cols
        for pid, (_, col) in self.cell.items():
            self.col_width[col] = max(self.col_width[col], self.rings[pid][0])
        self.col_x = []
        x = 0
        for width in self.col_width:
            self.col_x.append(x)
            x += width + COLUMN_GAP
        self.width = x - COLUMN_GAP
        self.row_height = 4                 # three rows of ring, one label row

    def origin(self, pid: str) -> tuple[int, int]:
        row, col = self.cell[pid]
        width = self.rings[pid][0]
        return row * self.row_height, self.col_x[col] + (self.col_width[col] - width) // 2


class LitCount:
    """A count reader that needs no firmware: the number of lit LEDs (exact only for counts up
    to the ring size)."""
    name = "lit LEDs"

    def __call__(self, grb, frame_max):
        return sum(1 for i in range(0, len(grb) - 2, 3) if grb[i] or grb[i + 1] or grb[i + 2])


class DisplayCount:
    """Reads a ring the way docs/display.md encodes it, with the firmware's own display code:
    reader.classify names each LED's kind, counts.decode adds up their values."""
    name = "display decode"

    def __init__(self, counts, reader):
        self.counts = counts
        self.reader = reader

    def __call__(self, grb, frame_max):
        classify = self.reader.classify
        kinds = bytearray(len(grb) // 3)
        for i in range(len(kinds)):
            kinds[i] = classify(grb[3 * i + 1], grb[3 * i], grb[3 * i + 2], frame_max)
        return self.counts.decode(kinds)


def count_reader(firmware_lib: str) -> DisplayCount:
    """A DisplayCount on the firmware's own display code, imported from firmware_lib
    (firmware/lib). A display module that does not import is an error here, as on the board."""
    import sys
    if firmware_lib not in sys.path:
        sys.path.append(firmware_lib)
    from mancala_fw.display import counts, reader
    return DisplayCount(counts, reader)


class Board:
    """The latest frame per pin, and the screen drawing of it."""

    def __init__(self, profile, keys=None, count=None):
        self.profile = profile
        self.layout = Layout(profile)
        self.keys = keys or {}
        self.count = count or LitCount()
        self.pins = [chain["pin"] for chain in profile["led_chains"]]
        self.frames = {}
        self.used = None        # position ids of the current game; None: not known, all drawn
        self.counts = {}        # position id -> the last count read from a ring that was no fill

    def set_used(self, used: Iterable[str] | None) -> bool:
        """The positions the current game uses (None: unknown). True if that changed."""
        used = None if used is None else frozenset(used)
        if used == self.used:
            return False
        self.used = used
        return True

    def update(self, pin: int, grb: bytes) -> bool:
        """Store a frame; returns True when it changes what is shown."""
        if self.frames.get(pin) == grb:
            return False
        self.frames[pin] = grb
        return True

    def ring_bytes(self, pid: str) -> bytes:
        ring = self.profile["positions"][pid]["ring"]
        frame = self.frames.get(self.pins[ring["chain"]], b"")
        grb = frame[ring["start"] * 3:(ring["start"] + ring["leds"]) * 3]
        return grb + bytes(ring["leds"] * 3 - len(grb))    # a short or missing frame is dark

    def frame_max(self) -> int:
        """The largest channel value in the latest frame of every pin."""
        return max((max(f) for f in self.frames.values() if f), default=0)

    def ring_count(self, pid: str, frame_max: int | None = None) -> int:
        if frame_max is None:
            frame_max = self.frame_max()
        return self.count(self.ring_bytes(pid), frame_max)

    def render(self) -> list[str]:
        """The board as a list of text lines with ANSI colour codes."""
        layout = self.layout
        height = layout.rows * layout.row_height
        # Each screen cell is (style, character); None is a blank.
        grid: list[list[tuple[str, str] | None]] = [[None] * layout.width for _ in range(height)]
        frame_max = self.frame_max()
        for pid in self.profile["positions"]:
            top, left = layout.origin(pid)
            width, cells = layout.rings[pid]
            grb = self.ring_bytes(pid)
            unused = self.used is not None and pid not in self.used and not any(grb)
            for i, (r, c) in enumerate(cells):
                rgb = visible_rgb(grb[3 * i], grb[3 * i + 1], grb[3 * i + 2], frame_max)
                lit = (RESET + fg(rgb), LIT) if rgb else (RESET + fg(DARK_RGB), DARK)
                grid[top + r][left + c] = None if unused else lit
            if unused:
                text = UNUSED
            elif is_fill(grb) and pid in self.counts:
                text = str(self.counts[pid])     # a pulse or flash: the count stays
            else:
                count = self.ring_count(pid, frame_max)
                text = str(count)
                self.counts[pid] = count
            style = RESET + (fg(DARK_RGB) if unused else BOLD)
            if width >= 3 and len(text) <= width - 2:
                self._write(grid, top + 1, left + 1, width - 2, text, style)
            else:
                self._write(grid, top + 3, left, width, text, style)
                continue
            label = "[%s]" % self.keys[pid] if pid in self.keys else pid
            self._write(grid, top + 3, left, width, label, RESET + fg(DARK_RGB))
        return [self._line(row) for row in grid]

    @staticmethod
    def _write(grid, row, left, width, text, style):
        start = left + max(0, (width - len(text)) // 2)
        for i, ch in enumerate(text[:width]):
            grid[row][start + i] = (style, ch)

    @staticmethod
    def _line(row):
        while row and row[-1] is None:
            row = row[:-1]
        out, style = [], RESET
        for cell in row:
            want, ch = (RESET, " ") if cell is None else cell
            if want != style:
                out.append(want)        # every style starts with RESET, so none leaks on
                style = want
            out.append(ch)
        if style != RESET:
            out.append(RESET)
        return "".join(out)


def strip_ansi(text: str) -> str:
    """The text without colour codes (for tests and width checks)."""
    out, i = [], 0
    while i < len(text):
        if text[i] == "\x1b":
            while i < len(text) and not text[i].isalpha():
                i += 1
            i += 1
            continue
        out.append(text[i])
        i += 1
    return "".join(out)
