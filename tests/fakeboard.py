"""A model of a board of protocol 2 for the follower's tests, on the Transport interface.

`Flash` is what the board keeps through a power cut: its id, the game counter, the game under
way (rules, first seat, moves) and its last finished games. `FakeBoard(flash)` is one boot of
it on one line: it answers hello, get_config, state (with `since`), games, game, new_game,
press, resign and undo as docs/protocol.md says, with the shared engine, and sends the events
(`move` ... `game_over`, each with `game`) before the answer. A test plays on the "pads" with
`board.pad(pit)`, loses events with `board.mute = True` (they are not sent), pulls the cable
with `board.unplug()` and restarts the board with `FakeBoard(flash)` on a new line. Protocol 1
(`protocol=1`) answers without ids and history, as old firmware does. Anything else gets
`unknown_cmd`, as the firmware answers it.
"""

import json
import time

import fakeport  # noqa: F401  (puts host_tools and firmware/lib on sys.path)
from mancala import Game, Rules
from mancala_host.errors import PortLost
from mancala_host.link.boardgame import RESIGN_CHARS
from mancala_host.link.transport import Transport

KEEP = 4  # finished games kept, as on MicroPython


class Flash:
    def __init__(self, board_id="e6614c311b4f7a2d", rules=None, profile="duo", seats=2):
        self.board_id = board_id
        self.profile = profile
        self.counter = 0
        self.rules = Rules.from_dict(rules or {"variant": "kalah"}).to_dict()
        self.first = 0
        self.history = ""
        self.base = None
        self.game_id = 0
        self.finished = []  # [{"game", "rules", "first", "history", "state", "base"?}], oldest first
        self.config = {"rules": self.rules, "seats": [{"kind": "human"}] * seats,
                       "animation_ms": 0}

    def engine(self):
        g = Game.from_dict(self.base) if self.base else Game(Rules.from_dict(self.rules), first=self.first)
        for ch in self.history:
            if ch in RESIGN_CHARS:
                g.resign(RESIGN_CHARS.index(ch))
            else:
                g.play(int(ch))
        return g


class FakeBoard(Transport):
    def __init__(self, flash, name="fake://board", protocol=2, boot=False):
        self.flash, self.name, self.protocol = flash, name, protocol
        self.mute = False       # events made now are lost (a glitch on the line)
        self.lost = False
        self.sent = []          # the requests, parsed
        self._queue = []
        if boot:
            g = flash.engine()
            self._event({"event": "boot", "firmware": "0.2.0", "board": "duo", "resumed": True,
                         "turn": g.turn, "rules": flash.rules, "game": flash.game_id})

    # -- the board's side ---------------------------------------------------------------
    def new_game(self, first=0, state=None, rules=None):
        f = self.flash
        if rules is not None:
            f.rules = Rules.from_dict(rules).to_dict()
        f.counter += 1
        f.game_id, f.history, f.first = f.counter, "", first
        f.base = state
        f.rules = state["rules"] if state else f.rules
        g = f.engine()
        self._event({"event": "new_game", "state": g.to_dict(), "first": first, "source": "pad",
                     "game": f.game_id})
        return g.to_dict()

    def pad(self, pit, by="human"):
        """A play by the seat to move, as a touch does; the answer's fields."""
        f = self.flash
        g = f.engine()
        seat = g.turn
        rec = g.play(pit)
        f.history += str(pit)
        self._event({"event": "move", "seat": seat, "pit": pit, "record": dict(rec),
                     "state": g.to_dict(), "by": by, "source": "pad", "game": f.game_id})
        self._ended(g)
        return {"state": g.to_dict(), "record": dict(rec)}

    def resign(self, seat):
        f = self.flash
        g = f.engine()
        g.resign(seat)
        f.history += RESIGN_CHARS[seat]
        self._event({"event": "resign", "seat": seat, "state": g.to_dict(), "source": "pad",
                     "game": f.game_id})
        self._ended(g)
        return {"state": g.to_dict()}

    def take_back(self):
        f = self.flash
        f.history = f.history[:-1]
        g = f.engine()
        self._event({"event": "undo", "state": g.to_dict(), "source": "pad", "game": f.game_id})
        return {"state": g.to_dict()}

    def _ended(self, g):
        if not g.over:
            return
        f = self.flash
        st = g.to_dict()
        entry = {"game": f.game_id, "rules": f.rules, "first": f.first, "history": f.history,
                 "state": st}
        if f.base:
            entry["base"] = f.base
        f.finished = [e for e in f.finished if e["game"] != f.game_id][-(KEEP - 1):] + [entry]
        self._event({"event": "game_over", "places": st["places"], "stores": st["stores"],
                     "game": f.game_id})

    def play_out(self, moves=None):
        """Play the game to its end, each seat its first legal pit (or `moves` of them)."""
        n = 0
        while not self.flash.engine().over and (moves is None or n < moves):
            self.pad(self.flash.engine().legal_moves()[0])
            n += 1
        return n

    def play_random(self, rnd, resign_at=None):
        """Play the game to its end with random legal moves; the seat to move resigns at move
        `resign_at` (counted from 1)."""
        n = 0
        while not self.flash.engine().over:
            n += 1
            g = self.flash.engine()
            if n == resign_at:
                self.resign(g.turn)
            else:
                self.pad(rnd.choice(g.legal_moves()))

    def _event(self, ev):
        if self.protocol == 1:
            ev.pop("game", None)
        if not self.mute:
            self._queue.append(json.dumps(ev).encode())

    def unplug(self):
        self._queue.append(None)

    # -- the line -----------------------------------------------------------------------
    def _answer(self, req):
        f, cmd = self.flash, req.get("cmd")
        if cmd == "hello":
            ans = {"firmware": "0.2.0", "protocol": self.protocol, "board": f.profile,
                   "commands": ["hello", "state", "games", "game"]}
            if self.protocol != 1:
                ans["board_id"] = f.board_id
            return ans
        if cmd == "get_config":
            return {"config": f.config}
        if cmd == "state":
            g = f.engine()
            ans = {"state": g.to_dict(), "first": f.first, "moves": len(f.history), "demo": False}
            if self.protocol != 1:
                ans["game"] = f.game_id
                if "since" in req:
                    k = req["since"]
                    if not isinstance(k, int) or not 0 <= k <= len(f.history):
                        return _err("bad_request", "since must be a move index")
                    ans["since"], ans["history"] = k, f.history[k:]
                    if f.base:
                        ans["base"] = f.base
            return ans
        if self.protocol != 1 and cmd == "games":
            return {"games": [{"game": e["game"], "moves": len(e["history"]),
                               "places": e["state"]["places"], "stores": e["state"]["stores"]}
                              for e in f.finished]}
        if self.protocol != 1 and cmd == "game":
            for e in f.finished:
                if e["game"] == req.get("game"):
                    return dict(e)
            return _err("unknown_game", "This board does not keep game %s." % req.get("game"))
        if cmd == "new_game":
            return {"state": self.new_game(req.get("first", 0), req.get("state")),
                    "first": req.get("first", 0), "warnings": []}
        if cmd == "press":
            try:
                return self.pad(req["pit"], by="human")
            except ValueError as exc:
                return _err("illegal_move", str(exc))
        if cmd == "undo":
            return self.take_back()
        return _err("unknown_cmd", "Unknown command %r." % cmd)

    def write_line(self, data):
        if self.lost:
            raise PortLost("The board on %s went away." % self.name)
        req = json.loads(data.decode())
        self.sent.append(req)
        ans = self._answer(req)
        msg = dict(ans) if "ok" in ans else dict(ans, ok=True)
        msg["id"] = req.get("id")
        self._queue.append(json.dumps(msg).encode())

    def read_line(self, timeout):
        if self.lost:
            raise PortLost("The board on %s went away." % self.name)
        if self._queue:
            item = self._queue.pop(0)
            if item is None:
                self.lost = True
                raise PortLost("The board on %s went away." % self.name)
            return item
        time.sleep(min(timeout, 0.005))
        return None

    def close(self):
        self.lost = True


def _err(code, message):
    return {"ok": False, "error": {"code": code, "message": message}}
