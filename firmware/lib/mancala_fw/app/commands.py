"""The serial commands (docs/protocol.md §4): each takes the request and calls the same App
action a touch would, so the pads and the serial line can never disagree. The diag command
(diag(): the heap report, and the self-test's Bringup made when a diag needs it) and the
report of a command that failed are made by the boot (app.boot) and live on after it:
app.boot is forgotten once the board is built, so nothing the loop keeps may come from it.
"""
import json
import sys

from mancala_fw import forget
from mancala_fw.protocol import CommandError, BAD_REQUEST, PROTOCOL_VERSION, LATER, need_int, \
    request_id
from mancala import VARIANTS

NAMES = ("hello", "get_config", "set_config", "new_game", "state", "press", "resign", "undo",
         "hint", "demo", "diag", "games", "game")  # diag: app.boot adds it, diag() below


def table(app):
    """The command table for protocol.Protocol: name -> handler(request) -> answer fields."""

    def hello(req):
        p = app.profile
        return {"firmware": _version(), "protocol": PROTOCOL_VERSION, "board": p.name,
                "board_id": app.board_id,
                "variants": list(VARIANTS), "sides": p.sides, "pits_per_side": p.pits_per_side,
                "commands": list(NAMES)}

    def get_config(req):
        return {"config": app.config}

    def set_config(req):
        if "config" not in req:
            raise CommandError(BAD_REQUEST, "set_config needs \"config\", an object with the "
                               "keys to change.")
        config, warnings = app.set_config(req["config"], "serial")
        return {"config": config, "warnings": warnings}

    def new_game(req):
        answer = {}  # type: dict
        answer["first"], answer["warnings"] = app.new_game("serial", req.get("rules"),
                                                           req.get("first"), answer,
                                                           req.get("state"))
        return answer

    def state(req):
        s = app.game_on()
        answer = {"state": app.state(), "game": s.id, "first": s.first, "moves": len(s.moves),
                  "demo": app.in_demo()}
        if "since" in req:
            # The moves from index k, in the game file's one-character format: a host that
            # attaches late replays the game from its start (or from base) with the engine.
            k = need_int(req, "since", 0, len(s.moves))
            answer["since"] = k
            answer["history"] = s.moves[k:].decode()
            if s.base:
                answer["base"] = s.base
        return answer

    def _seat(req):
        if req.get("seat") is None:
            return None
        return need_int(req, "seat", 0, app.game().players - 1)

    def press(req):
        seat = _seat(req)
        pit = need_int(req, "pit", 1, app.game().pits)
        answer = {}  # type: dict
        answer["record"] = app.press(seat, pit, "serial", answer=answer)
        return answer

    def resign(req):
        seat = _seat(req)
        answer = {}  # type: dict
        answer["record"] = app.resign(seat, "serial", answer)
        return answer

    def undo(req):
        return {"state": app.undo("serial")}

    def hint(req):
        if app.game().over:
            raise CommandError("illegal_move", "The game is over; there is no move to hint.")
        # The search runs in slices in the main loop, so the board stays live; autoplay
        # answers when it ends, or with hint_dropped if the game changes first.
        app.hint("serial", request_id(req))
        return LATER

    def demo(req):
        on = req.get("on", True)
        if on is not True and on is not False:
            raise CommandError(BAD_REQUEST, "\"on\" must be true or false.")
        seed = req.get("seed")
        if seed is not None:
            seed = need_int(req, "seed", 0, 0x3FFFFFFF)
        app.close_menu()
        app.set_demo(on, "serial", seed)
        return {"on": on}

    def games(req):
        return _finished(app, "games", req)

    def game(req):
        return _finished(app, "game", req)

    return {"games": games, "game": game, "demo": demo, "hint": hint, "hello": hello, "get_config": get_config, "set_config": set_config,
            "new_game": new_game, "state": state, "press": press, "resign": resign,
            "undo": undo}


def _finished(app, name, req):
    """The games or game command's answer (app.finished's answer()), with the module loaded
    for it and forgotten."""
    try:
        from mancala_fw.app import finished
        return finished.answer(name, req, app.flash, app.game_on().id)
    finally:
        forget("mancala_fw.app.finished")


def _version():
    from mancala_fw.app import FIRMWARE_VERSION
    return FIRMWARE_VERSION


def bringup_maker(prof, pads, display, flash, app):
    """bringup(boot): makes the self-test's Bringup (selftest), as the boot and the diag
    command do."""
    def bringup(boot):
        from mancala_fw.selftest import Bringup
        return Bringup(prof, pads, getattr(display, "leds", None), flash,
                       log=lambda text: app.log("warning", text),
                       on_stop=lambda: display.set_state(app.state()), boot=boot)
    return bringup


def reporter(proto):
    """The protocol's on_error: a failing command is reported as a log event."""
    return lambda e: report(proto, e)


def diag(held, bringup, heap_report):
    """diag: the heap report is the app's (app.heap); every other action is the self-test's,
    on the Bringup in held[0], made again (bringup(False)) if the loop has let it go."""
    def diag(req):
        if req.get("action") == "memory":
            reset = req.get("reset", False)
            if reset is not True and reset is not False:
                raise CommandError(BAD_REQUEST, "\"reset\" must be true or false, got %s."
                                   % json.dumps(reset)[:40])
            return heap_report(reset)
        if held[0] is None:
            held[0] = bringup(False)
        return held[0].command(req)
    return diag


def report(proto, e):
    """e, an exception the board goes on after, as a log event (and its traceback on
    stderr where there is one)."""
    proto.event("log", {"level": "error", "message": "Internal error %s: %s" % (
        type(e).__name__, e)})
    if hasattr(sys, "print_exception"):
        sys.print_exception(e, sys.stderr)
