"""`watch`: the live board in the terminal, redrawn on each event, with commentary beside it.

On a terminal the screen is redrawn in place: the board on the left, the last lines of the
running commentary on the right. With `--plain` (or when the output is not a terminal) each
event prints its sentence and the board below it, which suits logs and tests.
When the board goes away (cable bumped, sim restarted), watch says so, waits for it and goes
on with the board's state as it is then.
"""

from __future__ import annotations

import argparse
import collections
import re
import shutil
import sys
import time

from ..errors import BoardError
from ..link.session import open_client, reopen
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


def run(args: argparse.Namespace) -> int:
    plain = args.plain or not sys.stdout.isatty()
    line = [open_client(args.port, args.timeout)]  # the client now, after any reconnection
    try:
        return _watch(line, args, plain)
    finally:
        line[0].close()


def _watch(line, args, plain):
    client = line[0]
    port = args.port  # None: found by USB ID again, wherever the board comes back
    state = client.request("state")["state"]
    notes: collections.deque[str] = collections.deque(maxlen=16)
    title = "Board %s on %s" % (client.hello_answer.get("board"), client.name)
    print("Watching %s; stop with Ctrl-C." % title, flush=True)

    def show(text, new_state):
        if text:
            notes.append(text)
        if plain:
            _print_plain(text, new_state, args)
        else:
            _redraw(title, state, notes, args)

    show(None, state)
    seen = 0
    while not (args.events and seen >= args.events):
        try:
            ev = client.next_event(1.0)
        except BoardError as exc:
            client.close()
            show("%s Waiting for it to come back." % exc, None)
            client, state = _back(port, args.timeout)
            line[0] = client
            show("The board is back.", state)
            continue
        if ev is None:
            continue
        if ev.get("event") in GAME_EVENTS:
            seen += 1
        if isinstance(ev.get("state"), dict):
            state = ev["state"]
        show(commentary(ev), state if "state" in ev else None)
    return 0


def _back(port, timeout):
    """Waits for the board to come back; returns (client, its state)."""
    while True:
        client = reopen(port, timeout)
        assert client is not None  # with no stop event, reopen waits until it opens
        try:
            return client, client.request("state")["state"]
        except BoardError:
            client.close()
            time.sleep(0.3)  # it answered hello but not state: not ready yet


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
