"""Short sentences for the terminal view's footer: what the board just said, and the colours.

summary() turns one line from the board (docs/protocol.md section 5 events, answers, or any
other text such as a traceback) into a sentence; legend() draws the seat colours and count
marks from the firmware's own palette.
"""
import json

from . import view


def summary(line):
    """One short sentence for a line the board sent (the footer's status), the line itself if
    it is not a protocol line, or None for an answer that is no news to a person."""
    try:
        msg = json.loads(line)
        if not isinstance(msg, dict):
            return line
    except ValueError:
        return line
    ev = msg.get("event")
    state = msg.get("state") if isinstance(msg.get("state"), dict) else {}
    turn = state.get("turn")
    then = "; seat %s to move" % turn if turn is not None else ("; game over" if state else "")
    if ev == "boot":
        restored = ", saved game restored" if msg.get("resumed") else ""
        return "board started: firmware %s, %s profile%s" % (
            msg.get("firmware"), msg.get("board"), restored)
    if ev == "log":
        return "board %s: %s" % (msg.get("level"), msg.get("message"))
    if ev == "new_game":
        rules = state.get("rules", {})
        return "new game: %s, %s players, %s pits, %s seeds%s" % (
            rules.get("variant"), rules.get("players"), rules.get("pits"), rules.get("seeds"), then)
    if ev == "move":
        return "seat %s played pit %s%s" % (msg.get("seat"), msg.get("pit"), then)
    if ev == "resign":
        return "seat %s resigned%s" % (msg.get("seat"), then)
    if ev == "undo":
        return "move taken back%s" % then
    if ev == "game_over":
        return "game over: places %s, stores %s" % (msg.get("places"), msg.get("stores"))
    if ev == "refused":
        return "refused %s: %s" % (msg.get("pos"), msg.get("reason"))
    if ev == "menu":
        return "menu %s" % ("opened by seat %s" % msg.get("seat") if msg.get("open") else "closed")
    if ev == "config":
        return "settings changed"
    if "ok" in msg and not msg.get("ok"):
        return "host request refused: %s" % (msg.get("error") or {}).get("message")
    if "ok" in msg:
        return None             # an answer the host asked for: keep the last news on screen
    return line


def legend(sides):
    """Seat colours and the count marks, drawn in colour with the display's own palette."""
    from mancala_fw.display import palette

    dot = view.LIT
    seats = "  ".join(view.fg(c) + dot + "\x1b[0m seat %d" % i
                      for i, c in enumerate(palette.SEAT_SRGB[:sides]))
    marks = "  ".join(view.fg(c) + dot + "\x1b[0m " + name for c, name in (
        (palette.WHITE_SRGB, "ten"), (palette.VIOLET_SRGB, "fifty"), (palette.PINK_SRGB, "five")))
    return seats + "   " + marks
