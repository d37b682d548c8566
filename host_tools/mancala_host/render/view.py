"""What a person reads about a game: the board drawn as text, and plain-words commentary.

`board_lines(state)` draws any variant and player count; two seats get the classic board with
the stores at the ends, more seats one row per seat. `commentary(event)` turns a protocol
event (or a move record) into sentences such as "Seat 2 sows 5 from pit 3; the last stone
lands in seat 3's store: seat 2 moves again". Seats are numbered from 0, as on the board.
"""

from __future__ import annotations

from typing import Any, Sequence

from .colours import seat_colours, seat_names

# The board's own seat colours (the firmware's palette), so the text matches the LEDs.
SEAT_COLOURS = seat_colours()
SEAT_NAMES = seat_names()
RESET = "\x1b[0m"
BOLD = "\x1b[1m"
DIM = "\x1b[2m"


def _ansi(hex_colour):
    r, g, b = int(hex_colour[1:3], 16), int(hex_colour[3:5], 16), int(hex_colour[5:7], 16)
    return "\x1b[38;2;%d;%d;%dm" % (r, g, b)


def paint(text: str, seat: int, colour: bool) -> str:
    if not colour:
        return text
    return _ansi(SEAT_COLOURS[seat % len(SEAT_COLOURS)]) + text + RESET


def rules_label(rules: dict[str, Any] | None) -> str:
    """'Kalah, 6 pits, 4 seeds (empty capture, no wipe-out capture)' and the like."""
    if not isinstance(rules, dict):
        return "unknown rules"
    if rules.get("variant") == "kalah":
        extras = []
        if rules.get("capture") == "always":
            extras.append("empty capture")
        if rules.get("wipeout_capture") is False:
            extras.append("no wipe-out capture")
        tail = " (%s)" % ", ".join(extras) if extras else ""
        return "Kalah, %s pits, %s seeds%s" % (rules.get("pits"), rules.get("seeds"), tail)
    tail = "" if rules.get("play_all_places", True) else ", first finish ends"
    return "Basic, %s players, %s pits, %s seeds%s" % (
        rules.get("players"), rules.get("pits"), rules.get("seeds"), tail)


def variant_key(rules: dict[str, Any]) -> str:
    """A short name for grouping games by variant: 'kalah 6x4', 'basic 3p 4x4'."""
    if rules.get("variant") == "kalah":
        name = "kalah"
        if rules.get("capture") == "always" or rules.get("wipeout_capture") is False:
            name = "kalah-ec"
        return "%s %sx%s" % (name, rules.get("pits"), rules.get("seeds"))
    return "basic %sp %sx%s" % (rules.get("players"), rules.get("pits"), rules.get("seeds"))


def _pit(n, colour, seat, live):
    text = "[%2d]" % n
    if colour and not live:
        return DIM + text + RESET
    return paint(text, seat, colour)


def _seat_status(state, seat):
    places = state.get("places") or []
    if seat < len(places) and places[seat] is not None:
        return "place %d" % places[seat]
    if state.get("turn") == seat:
        return "to move"
    return ""


def board_lines(state: dict[str, Any], colour: bool = False) -> list[str]:
    """The board as lines of text."""
    pits, stores = state["pits"], state["stores"]
    active = state.get("active") or []
    n = len(pits[0]) if pits else 0
    lines = []
    if len(pits) == 2:
        top = " ".join(_pit(c, colour, 1, 1 in active) for c in reversed(pits[1]))
        bottom = " ".join(_pit(c, colour, 0, 0 in active) for c in pits[0])
        pad = " " * 8
        lines.append(pad + " " + " ".join("%4s" % ("p%d" % p) for p in range(n, 0, -1)) + "   seat 1 " + _seat_status(state, 1))
        lines.append(pad + " " + top)
        lines.append(paint("(%3d)" % stores[1], 1, colour) + " " * (5 * n + 5) + paint("(%3d)" % stores[0], 0, colour))
        lines.append(pad + " " + bottom)
        lines.append(pad + " " + " ".join("%4s" % ("p%d" % p) for p in range(1, n + 1)) + "   seat 0 " + _seat_status(state, 0))
    else:
        lines.append("         " + " ".join("%4s" % ("p%d" % p) for p in range(1, n + 1)) + "  store")
        for seat in range(len(pits)):
            mark = ">" if state.get("turn") == seat else " "
            row = " ".join(_pit(c, colour, seat, seat in active) for c in pits[seat])
            lines.append("%s seat %d %s  %s  %s" % (mark, seat, row, paint("(%3d)" % stores[seat], seat, colour),
                                                 _seat_status(state, seat)))
    if state.get("over"):
        lines.append("Game over: " + result_words(state.get("places") or [], stores))
    elif state.get("turn") is not None:
        lines.append("Seat %d to move." % state["turn"])
    return lines


def result_words(places: Sequence[int | None], stores: Sequence[int]) -> str:
    """'seat 0 wins, 30 stones to 18' / 'a draw, 24 stones each' / 'place 1: seat 2 ...'."""
    if len(places) == 2 and None not in places:
        if places[0] == places[1]:
            if stores[0] == stores[1]:
                return "a draw, %d stones each." % stores[0]
            return "a draw, %d stones to %d." % (stores[0], stores[1])
        win = places.index(1)
        return "seat %d wins, %d stones to %d." % (win, stores[win], stores[1 - win])
    order = sorted((p if p is not None else 99, s) for s, p in enumerate(places))
    return "; ".join("place %s: seat %d (store %d)" % (p if p != 99 else "-", s, stores[s])
                     for p, s in order) + "."


def _where(pos, mover):
    seat, pit = pos
    if pit == 0:
        return "its own store" if seat == mover else "seat %d's store" % seat
    return ("its own pit %d" % pit) if seat == mover else "seat %d's pit %d" % (seat, pit)


def record_words(rec: dict[str, Any]) -> str:
    """One sentence for an engine move record (docs/architecture.md §2)."""
    seat = rec.get("seat")
    if rec.get("kind") == "resign":
        text = "Seat %d resigns" % rec["seat"]
    else:
        sown = rec.get("sown") or []
        stones = rec.get("stones", len(sown))
        text = "Seat %d sows %d from pit %d" % (rec["seat"], stones, rec["pit"])
        if sown:
            text += "; the last stone lands in %s" % _where(sown[-1], seat)
        cap = rec.get("capture")
        if cap:
            frm = cap.get("from") or []
            opposite = " and seat %d's pit %d" % (frm[0], frm[1]) if len(frm) == 2 else ""
            text += ", capturing %d stones from its pit %d%s" % (cap.get("stones", 0), cap.get("pit", 0), opposite)
        if rec.get("extra") and not rec.get("over"):
            text += ": seat %d moves again" % rec["seat"]
    for s in rec.get("finished") or []:
        places = rec.get("places") or []
        place = places[s] if s < len(places) else None
        text += "; seat %d finishes%s" % (s, " in place %d" % place if place else "")
    sweep = rec.get("sweep")
    if sweep:
        text += "; the game ends and each seat moves its last stones into its store (%s)" % (
            ", ".join("seat %d: %d" % (s, n) for s, n in enumerate(sweep)))
    if not rec.get("over") and rec.get("turn") is not None and not rec.get("extra") and rec.get("kind") != "resign":
        text += "; seat %d to move" % rec["turn"]
    return text + "."


def commentary(event: dict[str, Any]) -> str | None:
    """Plain words for a protocol event; None for events a person need not read."""
    name = event.get("event")
    if name in ("move", "resign") and isinstance(event.get("record"), dict):
        return record_words(event["record"])
    if name == "move":
        return "Seat %s plays pit %s." % (event.get("seat"), event.get("pit"))
    if name == "resign":
        return "Seat %s resigns." % event.get("seat")
    if name == "game_over":
        return "Game over: " + result_words(event.get("places") or [], event.get("stores") or [])
    if name == "new_game":
        state = event.get("state") or {}
        return "New game: %s; seat %s starts." % (rules_label(state.get("rules")), event.get("first", state.get("turn")))
    if name == "undo":
        state = event.get("state") or {}
        return "A move is taken back; seat %s to move." % state.get("turn")
    if name == "config":
        return "The settings changed."
    if name == "refused":
        return "Seat %s touched pit %s, which is not a move: %s." % (
            event.get("seat"), event.get("pit"), str(event.get("reason", "")).rstrip("."))
    if name == "boot":
        return "The board started (firmware %s%s)." % (event.get("firmware"), ", game restored" if event.get("resumed") else "")
    if name == "log":
        return "The board says (%s): %s" % (event.get("level"), event.get("message"))
    return None
