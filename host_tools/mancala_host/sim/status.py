"""Sentences for the terminal view's footer: what the board just said, and the colours.

Status.summary() turns one line from the board (docs/protocol.md section 5 events, answers, or
any other text such as a traceback) into a sentence a person reads at a glance: whose turn it
is right after boot, each move in the words `watch` uses, a finished seat, a hint, demo mode,
the menu's values with what each pit sets, and the result ("Game over. Seat 0 wins, 28 stones
to 20."). It remembers the rules and seats the board last reported, which some sentences need.
legend() draws the seat colours and count marks from the firmware's own palette.
"""

from __future__ import annotations

import json

from . import view
from ..render.view import commentary, rules_label

ORDINAL = {1: "first", 2: "second", 3: "third", 4: "fourth"}


def _then(state):
    turn = state.get("turn") if isinstance(state, dict) else None
    return " Seat %d to move." % turn if isinstance(turn, int) else ""


class Status:
    def __init__(self):
        self.rules = None   # the rules of the game on the board, once an event has named them
        self.seats = None   # the config's seats, once a config event has named them

    def summary(self, line: str) -> str | None:
        """One or two sentences for a line the board sent, the line itself if it is not a
        protocol line, or None for an answer that is no news to a person."""
        try:
            msg = json.loads(line)
        except ValueError:
            return line
        if not isinstance(msg, dict):
            return line
        state = msg.get("state")
        if not isinstance(state, dict):
            state = {}
        if isinstance(state.get("rules"), dict):
            self.rules = state["rules"]
        ev = msg.get("event")
        if ev is None:
            if "ok" in msg and not msg.get("ok"):
                return "The board refused a request from the computer: %s" % (
                    (msg.get("error") or {}).get("message"))
            return None if "ok" in msg else line
        handler = getattr(self, "_" + str(ev), None)
        if handler is not None:
            return handler(msg, state)
        words = commentary(msg)
        return words if words is not None else line

    # --- events with words of their own here ---------------------------------------------
    def _boot(self, msg, state):
        if isinstance(msg.get("rules"), dict):
            self.rules = msg["rules"]
        text = "Board started: firmware %s, %s profile%s." % (
            msg.get("firmware"), msg.get("board"), ", saved game restored" if msg.get("resumed") else "")
        if "turn" in msg:
            text += " Seat %d to move." % msg["turn"] if isinstance(msg["turn"], int) else \
                " The game is over: hold a store for the menu to start a new one."
        return text

    def _move(self, msg, state):
        if isinstance(msg.get("record"), dict) and "sown" in msg["record"]:
            return commentary(msg)
        text = "Seat %s played pit %s." % (msg.get("seat"), msg.get("pit"))
        return text + (_then(state) if not state.get("over") else " The game is over.")

    def _game_over(self, msg, state):
        places, stores = msg.get("places") or [], msg.get("stores") or []
        if not places or len(stores) != len(places):
            return "Game over."
        kalah = (self.rules or {}).get("variant") == "kalah"
        if len(places) == 2 and places[0] == places[1]:
            return "Game over. A draw, %d stones each." % stores[0] if stores[0] == stores[1] else \
                "Game over. A draw, %d stones to %d." % (stores[0], stores[1])
        order = sorted(range(len(places)), key=lambda s: (places[s] or 99, s))
        win = order[0]
        if len(places) == 2:
            if kalah or self.rules is None:
                return "Game over. Seat %d wins, %d stones to %d." % (win, stores[win], stores[1 - win])
            return "Game over. Seat %d wins: it was the first to sow all its stones away." % win
        rest = ", ".join("seat %d %s" % (s, ORDINAL.get(places[s], "without a place") if places[s]
                                         else "without a place") for s in order[1:])
        return "Game over. Seat %d wins; %s." % (win, rest)

    def _hint(self, msg, state):
        return "Hint for seat %s: the CPU would play pit %s, which pulses until the seat moves." % (
            msg.get("seat"), msg.get("pit"))

    def _demo(self, msg, state):
        if msg.get("on"):
            return ("Demo mode: the CPU plays every seat%s, game after game. Touch any pad to stop it."
                    % (" at level %d" % msg["level"] if isinstance(msg.get("level"), int) else ""))
        return "Demo mode has ended; the seats play as set again."

    def _config(self, msg, state):
        config = msg.get("config") if isinstance(msg.get("config"), dict) else {}
        seats = config.get("seats")
        changed = []
        if isinstance(seats, list) and isinstance(self.seats, list):
            for s, (old, new) in enumerate(zip(self.seats, seats)):
                if old != new:
                    changed.append("seat %d is now played by %s" % (s, _player(new)))
        if isinstance(seats, list):
            self.seats = seats
        if changed:
            return "Settings changed: %s." % "; ".join(changed)
        return "Settings changed."

    def _menu(self, msg, state):
        seat = msg.get("seat")
        if not msg.get("open"):
            return "Menu closed."
        r = msg.get("rules")
        if not isinstance(r, dict):
            r = {}
        values = ["pit 1 variant %s" % {"kalah": "Kalah", "basic": "Basic"}.get(str(r.get("variant")), r.get("variant")),
                  "pit 2 players %s" % r.get("players"),
                  "pit 3 pits %s" % r.get("pits"),
                  "pit 4 seeds %s" % r.get("seeds")]
        plays = msg.get("plays")
        if isinstance(plays, int):
            values.append("pit 5 seat %s played by %s" % (
                seat, _player({"kind": "cpu", "level": plays} if plays else {"kind": "human"})))
        return ("Menu of seat %s, for the next game: %s. Tap a pit to change it, the store to "
                "start, another store to close." % (seat, ", ".join(values)))

    def _refused(self, msg, state):
        where = "seat %s's pit %s" % (msg.get("seat"), msg.get("pit")) if msg.get("seat") is not None \
            else "pad %s" % msg.get("pos")
        return "Not a move on %s: %s" % (where, msg.get("reason"))

    def _new_game(self, msg, state):
        return "New game: %s. Seat %s starts." % (rules_label(state.get("rules")),
                                                  msg.get("first", state.get("turn")))


def _player(seat):
    if isinstance(seat, dict) and seat.get("kind") == "cpu":
        return "the CPU at level %s" % seat.get("level")
    return "a person"


def summary(line: str) -> str | None:
    """Status().summary for one line alone (no memory of earlier lines)."""
    return Status().summary(line)


def legend(sides: int) -> str:
    """Seat colours and the count marks, drawn in colour with the display's own palette."""
    from mancala_fw.display import palette

    dot = view.LIT
    seats = "  ".join(view.fg(c) + dot + "\x1b[0m seat %d" % i
                      for i, c in enumerate(palette.SEAT_SRGB[:sides]))
    marks = "  ".join(view.fg(c) + dot + "\x1b[0m " + name for c, name in (
        (palette.WHITE_SRGB, "ten"), (palette.VIOLET_SRGB, "fifty"), (palette.PINK_SRGB, "five")))
    return seats + "   " + marks
