"""`watch`: the live board in the terminal, redrawn on each event, with commentary beside it.

On a terminal the screen is redrawn in place: the board on the left, the last lines of the
running commentary on the right. With `--plain` (or when the output is not a terminal) each
event prints its sentence and the board below it, which suits logs and tests.
The board is followed by link.follower (`Watcher` is its listener): when the board goes away
(cable bumped, sim restarted), watch says so, waits for it and goes on with the board's state
as it is then; a position the events did not show (a lost event) is drawn from the board's
own state.
"""

from __future__ import annotations

import argparse
import collections
import re
import shutil
import sys
import threading
from typing import Any

from ..link.follower import Follower, Listener
from ..render.view import board_lines, commentary, rules_label

ANSI = re.compile(r"\x1b\[[0-9;]*m")
HOME_CLEAR = "\x1b[H\x1b[2J"
GAME_EVENTS = ("new_game", "move", "resign", "undo", "game_over")  # what --events counts


def _width(text):
    return len(ANSI.sub("", text))


def _wrap(text, width):
    words, lines, line = text.split(), [], ""
    for w in words:
        if line and len(line) + 1 + len(w) > width:
            lines.append(line)
            line = w
        else:
            line = (line + " " + w) if line else w
    if line:
        lines.append(line)
    return lines


def side_by_side(left: list[str], notes: list[str], total_width: int) -> list[str]:
    """The board lines with the commentary wrapped into a column to their right."""
    lw = max(_width(l) for l in left) + 4
    cw = max(20, total_width - lw - 1)
    right = []
    for note in notes:
        right += _wrap(note, cw)
    rows = max(len(left), len(right))
    right = right[-rows:] if len(right) > rows else right
    out = []
    for i in range(rows):
        l = left[i] if i < len(left) else ""
        r = right[i] if i < len(right) else ""
        out.append(l + " " * (lw - _width(l)) + r)
    return out


class Watcher(Listener):
    """Draws each event the follower reports, with its sentence; `done` is set after
    --events game events."""

    def __init__(self, args: argparse.Namespace, plain: bool) -> None:
        self.args, self.plain = args, plain
        self.notes: collections.deque[str] = collections.deque(maxlen=16)
        self.state: dict[str, Any] | None = None
        self.title = ""
        self.seen = 0
        self.back = False
        self.done = threading.Event()

    def on_connect(self, hello: dict[str, Any], config: dict[str, Any]) -> None:
        self.back = bool(self.title)  # the title is set once the first connect is done

    def on_state(self, answer: dict[str, Any]) -> None:
        state = answer["state"]
        if self.back:
            self.back = False
            self.show("The board is back.", state)
        elif state != self.state:  # the start, or a position the events did not show
            self.show(None, state)

    def on_event(self, ev: dict[str, Any]) -> None:
        if ev.get("event") in GAME_EVENTS:
            self.seen += 1
        self.show(commentary(ev), ev["state"] if isinstance(ev.get("state"), dict) else None)
        if self.args.events and self.seen >= self.args.events:
            self.done.set()

    def on_note(self, text: str) -> None:
        self.show(text, None)

    def on_lost(self, reason: str) -> None:
        self.show("%s Waiting for it to come back." % reason.rstrip(), None)

    def show(self, text: str | None, state: dict[str, Any] | None) -> None:
        if state is not None:
            self.state = state
        if text:
            self.notes.append(text)
        if self.plain:
            _print_plain(text, state, self.args)
        elif self.state is not None:
            _redraw(self.title, self.state, self.notes, self.args)


def run(args: argparse.Namespace) -> int:
    watcher = Watcher(args, plain=args.plain or not sys.stdout.isatty())
    follower = Follower(args.port, [watcher], timeout=args.timeout)
    follower.connect()
    watcher.title = "Board %s on %s" % (follower.hello.get("board"), follower.name)
    print("Watching %s; stop with Ctrl-C." % watcher.title, flush=True)
    try:
        follower.start()
        while follower.running and not watcher.done.wait(0.2):
            pass
    finally:
        follower.stop()
        follower.wait(5)
    return 0


def _print_plain(text, state, args):
    if text:
        print(text)
    if state is not None:
        print(rules_label(state.get("rules")))
        for line in board_lines(state, colour=args.colour):
            print("  " + line)
    sys.stdout.flush()


def _redraw(title, state, notes, args):
    width = shutil.get_terminal_size((100, 30)).columns
    left = [title, rules_label(state.get("rules")), ""] + board_lines(state, colour=args.colour)
    out = side_by_side(left, list(notes), width)
    sys.stdout.write(HOME_CLEAR + "\n".join(out) + "\n\n(Ctrl-C stops watching)\n")
    sys.stdout.flush()
