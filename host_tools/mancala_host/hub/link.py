"""One board in the classroom hub: its line, followed by link.follower.Follower (opening it and
opening it again with backoff, the heartbeat, the requests, catching up by game id and move
index after any gap), its game log (logs.record.Recorder: each game once, by board id and
game id, whole from its first move), its tile and its projector snapshot.

The link reports what its board does to a `Listener` (the room implements it) and owns its
own fields: the room asks it for things through its methods and never writes them.

The board is the authority: after every reconnect the tile and the log are rebuilt from the
board's own hello, config and state. A port that another program holds marks this tile only.
A request the board refuses shows on the tile and keeps the line.
"""

from __future__ import annotations

import concurrent.futures
import os
import time
import traceback
from typing import Any

from ..errors import BoardError, BoardRefused
from ..link import follower, transport
from ..logs.record import Recorder
from ..render.colours import seat_colours
from ..render.view import commentary, rules_label

NOTES = 12


class Listener:
    """What a board's link reports to, each call in the follower's thread. The room is one;
    these defaults do nothing (a test's listener overrides what it needs)."""

    def link_changed(self, link: BoardLink) -> None:
        """The tile or the projector snapshot changed."""

    def board_ready(self, link: BoardLink, answer: dict[str, Any]) -> None:
        """The line is (again) open; answer is the board's first `state` answer on it."""

    def board_state(self, link: BoardLink, answer: dict[str, Any]) -> None:
        """A later `state` answer (a heartbeat, a catch-up)."""

    def board_event(self, link: BoardLink, ev: dict[str, Any]) -> None:
        """A new_game or game_over event."""

    def board_game(self, link: BoardLink, game: dict[str, Any]) -> None:
        """A game the follower handed over (follower.Listener.on_game), after it was logged:
        one that ended (also one fetched after a gap), or one left under way."""

    def board_gone(self, link: BoardLink) -> None:
        """The line dropped, or the port could not be opened, or the follower stopped."""

    def game_tag(self, link: BoardLink, board_id: str | None,
                 game: int | None) -> dict[str, Any] | None:
        """The log's tournament tag for the board's game `game` (the board's id and the
        game's; both None on protocol 1)."""
        return None

    def wants(self, link: BoardLink, board_id: str, game: int) -> bool:
        """Whether a finished game of the board that nobody followed is to be fetched."""
        return False

    def logged(self, link: BoardLink, game: dict[str, Any]) -> None:
        """The game (follower's dict) is in the link's log now."""

    def plan_for(self, board: str | None, rules: Any) -> Any:
        """The projector page's drawing of the board profile `board`."""
        return None


def log_name(key: str) -> str:
    return "board-%s.jsonl" % key


class HubRecorder(Recorder):
    """The board's log: games also name the board's label and port, and the tournament (its
    id, round and players) when the room dealt them; each written game goes to the room's
    index."""

    def __init__(self, out: str, link: BoardLink) -> None:
        super().__init__(out, say=link.note)
        self.link = link

    def on_connect(self, hello: dict[str, Any], config: dict[str, Any]) -> None:
        super().on_connect(hello, config)
        self.board.update(label=config.get("label") or "", port=self.link.port)

    def wants(self, board_id: str, game_id: int) -> bool:
        return super().wants(board_id, game_id) or self.link.listener.wants(
            self.link, board_id, game_id)

    def extra(self, game: dict[str, Any]) -> dict[str, Any]:
        tag = self.link.listener.game_tag(self.link, game.get("board_id"), game.get("game"))
        return {"tournament": tag} if tag is not None else {}

    def on_game(self, game: dict[str, Any]) -> None:
        super().on_game(game)
        self.link.listener.logged(self.link, game)


class Watch(follower.Listener):
    """The link's own listener on its follower: the tile, the notes, the room's reports."""

    def __init__(self, link: BoardLink) -> None:
        self.link = link

    def on_connect(self, hello: dict[str, Any], config: dict[str, Any]) -> None:
        self.link._connected(hello, config)

    def on_state(self, answer: dict[str, Any]) -> None:
        self.link._state(answer)

    def on_event(self, ev: dict[str, Any]) -> None:
        self.link._event(ev)

    def on_game(self, game: dict[str, Any]) -> None:
        self.link.listener.board_game(self.link, game)

    def on_note(self, text: str) -> None:
        self.link.note(text)

    def on_lost(self, reason: str) -> None:
        self.link._away(reason)

    def on_stopped(self, failure: BaseException) -> None:
        self.link._stopped(failure)


class BoardLink:
    def __init__(self, key: str, port: str, folder: str, listener: Listener,
                 timeout: float = 5.0) -> None:
        self.key, self.port, self.listener, self.timeout = key, port, listener, timeout
        self.recorder = HubRecorder(os.path.join(folder, log_name(key)), self)
        # the recorder first: a game is in the log before the room hears of it
        self.follower = follower.Follower(None, [self.recorder, Watch(self)], timeout=timeout,
                                          opener=lambda: transport.SerialTransport(self.port))
        self.label = ""
        self.status = "connecting"   # live, offline, held, connecting, stopped
        self.problem = ""            # why it is not live, or what it refused last
        self.last_seen: float | None = None
        self.state: dict[str, Any] | None = None
        self.config: dict[str, Any] = {}
        self.hello: dict[str, Any] = {}
        self.notes: list[str] = []
        self.locked: dict[str, Any] | None = None   # the settings kept while locked
        self.seq = 0
        self.opened = 0              # how many times the line was opened (1 + reconnects)
        self.record: Any = None
        self.before: dict[str, Any] | None = None
        self.event_time = 0.0        # time.time() when the last game event was taken in
        self._fresh = False          # the line opened; its first state answer is to come

    # -- its life -------------------------------------------------------------------------
    def start(self) -> None:
        self.follower.start()

    def close(self) -> None:
        """Let go of the board (after taking in what it did up to now)."""
        self.follower.stop(catch_up=True)

    def join(self, timeout: float | None = None) -> None:
        """Wait for the follower to end, then write the game under way, unfinished."""
        try:
            self.follower.wait(timeout)
        except Exception:
            pass   # on the tile and stderr already (_stopped): the other boards still close
        self.recorder.close(self.follower.game())

    # -- what the page sees ---------------------------------------------------------------
    def note(self, text: str) -> None:
        self.notes = (self.notes + [text])[-NOTES:]

    def tile(self) -> dict[str, Any]:
        return {"key": self.key, "port": self.port, "label": self.label, "status": self.status,
                "problem": self.problem, "last_seen": self.last_seen, "state": self.state,
                "seats": (self.config.get("seats") or [])[:len((self.state or {}).get("pits", []))],
                "paused": self.config.get("paused") is True, "locked": self.locked is not None,
                "title": rules_label(self.state["rules"]) if self.state else "",
                "seq": self.seq, "t_event": self.event_time, "opened": self.opened,
                "games": self.recorder.written}

    def projector(self) -> dict[str, Any]:
        """The snapshot the projector page (web.py) draws: the same keys."""
        planned = self.listener.plan_for(self.hello.get("board"), (self.state or {}).get("rules"))
        stone = self.config.get("animation_ms") or 120
        return {"state": self.state, "board": self.hello.get("board"),
                "firmware": self.hello.get("firmware"),
                "title": (self.label + ": " if self.label else "") +
                (rules_label(self.state["rules"]) if self.state else ""),
                "colours": seat_colours(), "plan": planned, "record": self.record,
                "before": self.before, "hint": None, "seq": self.seq, "stone_ms": stone,
                "live": self.status == "live", "notes": self.notes}

    def changed(self) -> None:
        self.listener.link_changed(self)

    def name_for_people(self) -> str:
        return self.label or self.port

    # -- what the room asks of the link (any thread) --------------------------------------
    def call(self, cmd: str, **fields: Any) -> concurrent.futures.Future:
        """Send cmd to the board: a Future of its answer. A refusal shows on the tile and keeps
        the line; a request to a board that is not live fails at once (sent after a
        reconnect, a new_game pressed during a blip would throw away the game it resumed)."""
        if self.status != "live":
            fut: concurrent.futures.Future = concurrent.futures.Future()
            fut.set_exception(BoardError("%s is %s." % (self.name_for_people(), self.status)))
            return fut
        out: concurrent.futures.Future = concurrent.futures.Future()

        def answered(f: concurrent.futures.Future) -> None:
            exc = f.exception()
            if exc is None:
                out.set_result(f.result())
                return
            if isinstance(exc, BoardRefused):
                self.show("Refused %s: %s" % (cmd, exc.board_message))
            else:   # no answer in time (the line stays open), or the line went away
                exc = BoardError(str(exc).replace("did not answer in time",
                                                  "did not answer '%s' in time" % cmd))
                if self.status == "live":
                    self.show(str(exc))
            out.set_exception(exc)
        self.follower.request(cmd, **fields).add_done_callback(answered)
        return out

    def move_to(self, port: str) -> None:
        """The same board found on another device path (a replug): the next open uses it."""
        if self.status != "live":
            self.port = port

    def show(self, problem: str) -> None:
        """A sentence for the tile: what the board refused last ("" clears it)."""
        if problem != self.problem:
            self.problem = problem
            self.changed()

    def applied(self, config: dict[str, Any]) -> None:
        """The page's setting reached the board: a refusal shown before is cleared, and a
        locked board keeps the new values."""
        if self.locked is not None:
            self.locked = dict(self.locked, **config)
        self.show("")

    def lock(self, locked: bool) -> str:
        """Locked: a change made on the board's own menu is put back at once; "ok" or why
        not."""
        if self.status != "live":
            return "%s is %s." % (self.name_for_people(), self.status)
        self.locked = {k: self.config[k] for k in ("rules", "seats", "move_time_limit")
                       if k in self.config} if locked else None
        self.changed()
        return "ok"

    # -- what the follower reports (its thread) -------------------------------------------
    def _connected(self, hello: dict[str, Any], config: dict[str, Any]) -> None:
        self.hello, self.config = hello, config
        self.label = config.get("label") or ""
        self.opened += 1
        self._fresh = True

    def _state(self, answer: dict[str, Any]) -> None:
        self.last_seen = time.time()
        fresh, self._fresh = self._fresh, False
        if fresh:
            self.state = answer["state"]
            self.status, self.problem = "live", ""
            self.seq += 1
            self.changed()
            self.listener.board_ready(self, answer)
            return
        others = transport.holders(self.port)
        problem = ("Another program has this port open too (%s) and takes part of the board's "
                   "lines: close it." % "; ".join(others)) if others else ""
        if answer["state"] != self.state or (problem and problem != self.problem):
            self.state = answer["state"]
            if problem:
                self.problem = problem
            self.seq += 1
            self.changed()
        self.listener.board_state(self, answer)

    def _away(self, reason: str) -> None:
        self._fresh = False
        others = transport.holders(self.port) if os.path.exists(self.port) else []
        status, problem = ("held", "Another program has this port open (%s): close it."
                           % "; ".join(others)) if others else ("offline", reason)
        if (status, problem) != (self.status, self.problem):
            self.status, self.problem = status, problem
            self.changed()
        self.listener.board_gone(self)

    def _stopped(self, failure: BaseException) -> None:
        """The follower gave up on a fault of the hub's own: the tile says so (and stderr has
        the traceback), where it would otherwise stand still, live to the eye, for the rest
        of the class."""
        traceback.print_exception(type(failure), failure, failure.__traceback__)
        self.status = "stopped"
        self.problem = ("The hub stopped following this board after an error of its own "
                        "(%s: %s): restart the hub on the same folder; the games so far are "
                        "in the log." % (type(failure).__name__, str(failure)[:120]))
        self.seq += 1
        self.changed()
        self.listener.board_gone(self)

    def _event(self, ev: dict[str, Any]) -> None:
        read = time.time()   # the page's latency is counted from here (tile()'s t_event)
        self.last_seen = read
        name = ev.get("event")
        text = commentary(ev) if name not in ("log", "config") else None
        if text:
            self.note(text)
        if name == "config" and isinstance(ev.get("config"), dict):
            self.config = ev["config"]
            self.label = self.config.get("label") or ""
            self.recorder.board["label"] = self.label
            if self.locked is not None and ev.get("source") == "pad":
                self._relock()
        if name in ("move", "resign"):
            self.record, self.before = ev.get("record"), self.state
        elif name in ("new_game", "undo"):
            self.record = self.before = None
        if isinstance(ev.get("state"), dict):
            self.state = ev["state"]
        if name in ("move", "resign", "undo", "new_game", "game_over", "config"):
            self.event_time = read
            self.seq += 1
            self.changed()
        if name in ("new_game", "game_over"):
            self.listener.board_event(self, ev)

    def _relock(self) -> None:
        """The board's menu changed a locked setting: put it back."""
        differs = {k: v for k, v in (self.locked or {}).items() if self.config.get(k) != v}
        if differs:
            self.call("set_config", config=differs)
            self.problem = "Locked: the change made on the board was put back."
