"""The serial commands (docs/protocol.md §4): each takes the request and calls the same App
action a touch would, so the pads and the serial line can never disagree."""

from mancala_fw.protocol import CommandError, BAD_REQUEST, PROTOCOL_VERSION, LATER, need_int, request_id
from mancala import VARIANTS

NAMES = ("hello", "get_config", "set_config", "new_game", "state", "press", "resign", "undo",
         "hint", "demo", "diag")  # diag: app.loop adds selftest.Bringup's handler


def table(app):
    """The command table for protocol.Protocol: name -> handler(request) -> answer fields."""

    def hello(req):
        p = app.profile
        return {"firmware": _version(), "protocol": PROTOCOL_VERSION, "board": p.name,
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
                                                           req.get("first"), answer)
        return answer

    def state(req):
        s = app.session
        return {"state": app.state(), "first": s.first, "moves": len(s.moves),
                "demo": app.autoplay.demo}

    def _seat(req):
        if req.get("seat") is None:
            return None
        return need_int(req, "seat", 0, app.session.game.players - 1)

    def press(req):
        seat = _seat(req)
        pit = need_int(req, "pit", 1, app.session.game.pits)
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
        if app.session.game.over:
            raise CommandError("illegal_move", "The game is over; there is no move to hint.")
        # The search runs in slices in the main loop, so the board stays live; autoplay
        # answers when it ends, or with hint_dropped if the game changes first.
        app.autoplay.start_hint("serial", request_id(req))
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

    return {"demo": demo, "hint": hint, "hello": hello, "get_config": get_config, "set_config": set_config,
            "new_game": new_game, "state": state, "press": press, "resign": resign,
            "undo": undo}


def _version():
    from mancala_fw.app import FIRMWARE_VERSION
    return FIRMWARE_VERSION
