"""The interactive terminal board: keys become pad touches, LED frames become the drawing.

One select() loop serves the keyboard, the board's stderr and the serial relay, and reads
the frames file on every pass.  The terminal goes into raw mode on an alternate screen and
is restored on every exit path.  Redraws happen only when something changed, at most FPS
times a second.
"""

from __future__ import annotations

import json
import os
import select
import signal
import sys
import termios
import time
from typing import TYPE_CHECKING, Any, TextIO

from . import keys, view
from .status import Status, legend

if TYPE_CHECKING:
    from .setup import Setup
    from .serial_line import PtyLink, Relay

FPS = 30
STDERR_LINES = 40
NEWS_LINES = 4          # the note, and up to three lines of what the board said last
FRAMES_FILE_MAX = 4 << 20
TAP_GAP_S = 0.06        # between a release and the next touch of one pad: over the debounce


def too_small(width: int, height: int | None, need: tuple[int, int]) -> str:
    """The one line shown instead of the board in a terminal too small for it."""
    text = "Terminal %dx%s, board needs %dx%d: make the window bigger." % (
        width, height if height is not None else "?", need[0], need[1])
    return text[:max(width - 1, 1)]


def wrap(text: str, width: int, most: int) -> list[str]:
    """text in lines of at most width characters (broken at spaces), at most `most` lines."""
    lines, line = [], ""
    for word in text.split(" "):
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = "   " + word
        else:
            line = line + " " + word if line else word
    lines.append(line)
    return lines[:most]


class Terminal:
    """Raw keys and an alternate screen; restore() puts the terminal back as it was."""

    def __init__(self, fd_in: int = 0, out: TextIO | None = None) -> None:
        self.fd_in = fd_in
        self.out = out or sys.stdout
        self.saved = termios.tcgetattr(fd_in)
        mode = termios.tcgetattr(fd_in)
        mode[0] &= ~(termios.IXON | termios.ICRNL)
        mode[3] &= ~(termios.ICANON | termios.ECHO | termios.ISIG | termios.IEXTEN)
        mode[6][termios.VMIN] = 1
        mode[6][termios.VTIME] = 0
        termios.tcsetattr(fd_in, termios.TCSAFLUSH, mode)
        self.out.write("\x1b[?1049h\x1b[?25l\x1b[2J")
        self.out.flush()

    def restore(self) -> None:
        self.out.write("\x1b[0m\x1b[?25h\x1b[?1049l")
        self.out.flush()
        termios.tcsetattr(self.fd_in, termios.TCSAFLUSH, self.saved)


class View:
    """The loop state: board drawing, scheduled touches, status lines."""

    def __init__(self, setup: Setup, profile: dict[str, Any], link: PtyLink | None,
                 touch_fd: int, frames_fd: int, err_fd: int) -> None:
        self.setup = setup
        self.profile = profile
        self.link = link
        self.touch_fd = touch_fd
        self.frames_fd = frames_fd
        self.err_fd = err_fd
        self.reader = keys.KeyReader(profile)
        self.board_keys = keys.keys_by_position(profile)
        self.board = view.Board(profile, self.board_keys,
                                view.count_reader(os.path.join(setup.root, "firmware", "lib")))
        self.legend = legend(profile["sides"])
        self.pending: list[tuple[float, str, bool]] = []  # (monotonic time, position id, touched)
        self.pad_free: dict[str, float] = {}  # position id -> when its last scheduled release is
        self.frames_partial = b""
        self.frames_quiet_since = 0.0
        self.err_lines: list[str] = []
        self.err_partial = b""
        self.err_open = True
        self.last_line = ""
        self.board_tail: list[str] = []  # the board's last serial lines (tracebacks go there)
        self.note = "Ready: press a key to touch its pad."
        self.status = Status()
        self.game_shape: tuple[Any, Any] | None = None  # (players, pits) the board last reported
        self.seating: Any = None  # the firmware's Seating of that game: which pad is which pit
        self.dirty = True
        self.shown_connected = False
        self.quit = False

    # --- inputs -------------------------------------------------------------------------
    def board_line(self, line: bytes) -> None:
        text = line.decode("utf-8", "replace").rstrip()
        self.last_line = self.status.summary(text) or self.last_line
        rules = self.status.rules or {}
        shape: tuple[Any, Any] = (rules.get("players"), rules.get("pits"))
        if None not in shape and shape != self.game_shape:
            self.game_shape = shape
            path = getattr(self.setup, "profile_path", None)
            self.seating = view.seating_of(path, *shape) if path else None
            self.board.set_used(self.seating.used if self.seating is not None else None)
        self.board_tail.append(text)
        del self.board_tail[:-STDERR_LINES]
        self.dirty = True

    def on_keys(self, chunk: bytes) -> None:
        if chunk.startswith(b"\x1b") and len(chunk) > 1:
            return                          # an arrow or function key: not ours
        for char in chunk.decode("utf-8", "ignore"):
            action = self.reader.feed(char)
            if action is None:
                continue
            if action[0] == "quit":
                self.quit = True
            elif action[0] == "long-armed":
                self.note = "Long press: now press the pad's key."
            elif action[0] == "long-cancelled":
                self.note = "Long press cancelled."
            else:
                self.touch(action[1], action[2])
            self.dirty = True

    def touch(self, pid: str, hold: float, now: float | None = None) -> None:
        """Schedule a finger on pad pid for hold seconds.  A press that comes while the pad is
        still held (a quick double tap) waits for the release plus TAP_GAP_S, so the firmware
        sees two whole taps rather than one long one."""
        now = time.monotonic() if now is None else now
        start = max(now, self.pad_free.get(pid, 0.0) + TAP_GAP_S)
        self.pending.append((start, pid, True))
        self.pending.append((start + hold, pid, False))
        self.pad_free[pid] = start + hold
        self.note = "%s %s (key %s)." % ("Long press on" if hold >= keys.LONG_S else "Touched",
                                         view.place_name(self.seating, pid), self.board_keys[pid])

    def _send(self, line):
        try:
            os.write(self.touch_fd, line.encode())
        except BlockingIOError:
            self.note = "The touch channel is full: the board is not reading its pads."

    def send_due(self, now: float) -> None:
        """Send every scheduled touch or release whose time has come, in time order."""
        due = sorted(e for e in self.pending if e[0] <= now)
        for event in due:
            self.pending.remove(event)
            self._send(keys.touch_line(self.profile, event[1], event[2]))

    def next_due(self) -> float | None:
        return min(e[0] for e in self.pending) if self.pending else None

    def on_frames(self, now: float) -> None:
        """Read new frame lines from the frames file (which the board appends to)."""
        chunk = os.read(self.frames_fd, 1 << 20)
        if chunk:
            self.frames_quiet_since = now
            *lines, self.frames_partial = (self.frames_partial + chunk).split(b"\n")
            for line in lines:
                try:
                    frame = json.loads(line)
                    grb = bytes.fromhex(frame["grb"])
                    self.dirty |= self.board.update(frame["pin"], grb)
                except (ValueError, KeyError, TypeError):
                    self.note = "The board sent a frame line the view cannot read."
        elif (not self.frames_partial and now - self.frames_quiet_since > 1.0
              and os.lseek(self.frames_fd, 0, os.SEEK_CUR) > FRAMES_FILE_MAX):
            # Quiet for a second and all read: start the file again.  The board appends
            # (O_APPEND), so its next frame lands at the new start.
            os.ftruncate(self.frames_fd, 0)
            os.lseek(self.frames_fd, 0, os.SEEK_SET)

    def on_stderr(self) -> None:
        try:
            chunk = os.read(self.err_fd, 1 << 16)
        except BlockingIOError:
            return
        if not chunk:
            self.err_open = False           # the board closed stderr: it is exiting
            return
        *lines, self.err_partial = (self.err_partial + chunk).split(b"\n")
        for line in lines:
            self.err_lines.append(line.decode("utf-8", "replace"))
            self.note = "The board says: " + self.err_lines[-1].strip()
            self.dirty = True
        del self.err_lines[:-STDERR_LINES]

    def drain_stderr(self) -> None:
        """After the board exited: read what it wrote last, for the report on exit."""
        os.set_blocking(self.err_fd, True)
        while self.err_open:
            self.on_stderr()
        if self.err_partial:
            self.err_lines.append(self.err_partial.decode("utf-8", "replace"))
            self.err_partial = b""

    def stderr_tail(self) -> str:
        """What the board said last that was not a protocol line: its last words on exit."""
        said = [line for line in self.board_tail if not line.startswith("{")]
        return "".join(line + "\n" for line in (said + self.err_lines)[-15:])

    # --- output -------------------------------------------------------------------------
    def footer(self, width: int) -> list[str]:
        """The key help and the serial line's state, packed into lines of at most width - 1
        characters, each item whole: a narrow terminal gets more lines, not cut words."""
        self.shown_connected = bool(self.link and self.link.host_connected())
        host = "a host is connected" if self.shown_connected else "no host"
        link = "-"
        if self.link:
            link = os.path.relpath(self.link.link)
            if len(link) > 40:
                link = self.link.link
        sides = keys.describe(self.profile)
        groups = [["pads: " + sides[0]] + sides[1:],
                  ["hold: a capital letter, or Space then the key", "double tap: the key twice",
                   "quit: Esc or Ctrl-C"],
                  ["serial: %s, on %s" % (host, link), "board: %s" % self.setup.args.profile,
                   "heap: %s" % self.setup.heapsize,
                   "counts: %s" % getattr(self.board.count, "name", "?")]]
        lines: list[str] = []
        for items in groups:
            line = ""
            for item in items:
                if line and len(line) + 3 + len(item) > width - 1:
                    lines.append(line)
                    line = "      " + item if items[0].startswith("pads:") else item
                else:
                    line = line + "   " + item if line else item
            lines += wrap(line, width - 1, 3)
        return lines

    def screen(self, width: int = 100, height: int | None = None) -> list[str]:
        """The whole screen as lines (board, legend, footer, then what just happened); one line
        of warning instead when a terminal of width x height (height None: any) cannot show
        all of it. The news takes up to NEWS_LINES lines, and the size check counts them all,
        so whose turn it is never falls off the bottom."""
        board = ["  " + line for line in self.board.render()]
        board_width = max(len(view.strip_ansi(line)) for line in board) + 1
        footer = self.footer(max(width, board_width))
        need = (board_width, len(board) + bool(self.legend) + len(footer) + NEWS_LINES)
        if width < need[0] or (height is not None and height < need[1]):
            return [too_small(width, height, need)]
        news = [("note: " + self.note)[:width - 1]] + wrap("board: " + self.last_line, width - 1,
                                                            NEWS_LINES - 1)
        lines = board + ([self.legend] if self.legend else [])
        lines += ["\x1b[2m" + line + "\x1b[0m" for line in footer]
        lines += ["\x1b[1m" + line + "\x1b[0m" for line in news]  # what just happened
        return lines

    def draw(self, out: TextIO) -> None:
        try:
            size = os.get_terminal_size(out.fileno())
            width, height = size.columns or 100, size.lines or None
        except OSError:
            width, height = 100, None
        # no line end after the last line: on the bottom row it would scroll the top away
        text = "\x1b[H" + "\x1b[K\r\n".join(self.screen(width, height)) + "\x1b[K\x1b[J"
        out.write(text)
        out.flush()
        self.dirty = False

    def run(self, relay: Relay) -> None:
        term = Terminal(0, sys.stdout)
        old_winch = signal.signal(signal.SIGWINCH, self._resized)
        try:
            last_draw = 0.0
            while not self.quit and not relay.board_closed:
                now = time.monotonic()
                self.send_due(now)
                timeout = 1.0 / (2 * FPS)        # the frames file cannot be select()ed
                due = self.next_due()
                if due is not None:
                    timeout = min(timeout, max(0.0, due - now))
                if self.dirty:
                    wait = 1.0 / FPS - (now - last_draw)
                    if wait <= 0:
                        self.draw(sys.stdout)
                        last_draw = now
                    else:
                        timeout = min(timeout, wait)
                fds = relay.fds() + [0] + ([self.err_fd] if self.err_open else [])
                if relay.connected != self.shown_connected:
                    self.dirty = True
                ready, _, _ = select.select(fds, [], [], timeout)
                if 0 in ready:
                    self.on_keys(os.read(0, 256))
                self.on_frames(time.monotonic())
                if self.err_fd in ready:
                    self.on_stderr()
                relay.pump(ready)
            for _, pid, touched in self.pending:     # leave no finger on a pad
                if not touched:
                    self._send(keys.touch_line(self.profile, pid, False))
        finally:
            signal.signal(signal.SIGWINCH, old_winch)
            term.restore()

    def _resized(self, signum, frame):
        self.dirty = True               # redraw for the new size, even if no frame changed
