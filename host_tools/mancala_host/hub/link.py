"""One board's line, in a thread of its own: it opens the port, follows the board's events,
writes its games to the game log (record.GameTracker: checked by the engine, resynchronised
from the board's `state` after a replug, an unfinished game written once), runs the requests
the page sends, and keeps the board's tile and its projector snapshot.

The link reports what its board does to a `Listener` (the room implements it) and owns its
own fields: the room asks it for things through its methods and never writes them.

The board is the authority: after every reconnect the tile and the log are rebuilt from the
board's own hello, config and state. A port that another program holds marks this tile only.
A request the board refuses shows on the tile and keeps the line.
"""

from __future__ import annotations

import concurrent.futures
import os
import queue
import threading
import time
from typing import Any

from ..link import transport
from ..link.client import Client
from ..render.colours import seat_colours
from ..errors import BoardError, BoardRefused, PortLost
from ..logs.record import GameTracker
from ..render.view import commentary, rules_label

HEARTBEAT_S = 3.0   # silence after which the board is asked for its state
RETRY_S = 0.5       # between attempts to open a board that is away
NOTES = 12


class Listener:
    """What a board's link reports to, each call in the link's own thread. The room is one;
    these defaults do nothing (a test's listener overrides what it needs)."""

    def link_changed(self, link: BoardLink) -> None:
        """The tile or the projector snapshot changed."""

    def board_ready(self, link: BoardLink, answer: dict[str, Any]) -> None:
        """The line is (again) open; answer is the board's `state` answer."""

    def board_state(self, link: BoardLink, answer: dict[str, Any]) -> None:
        """A heartbeat's `state` answer."""

    def board_event(self, link: BoardLink, ev: dict[str, Any]) -> None:
        """A new_game or game_over event, after the log has taken it in."""

    def board_gone(self, link: BoardLink) -> None:
        """The line dropped, or the port could not be opened."""

    def game_tag(self, link: BoardLink, game: int | None) -> dict[str, Any] | None:
        """The log's tournament tag for the game starting on the board (its board game id)."""
        return None

    def plan_for(self, board: str | None, rules: Any) -> Any:
        """The projector page's drawing of the board profile `board`."""
        return None


class Tracker(GameTracker):
    """GameTracker whose games also name the board's label and port, and the tournament (its
    id, round and players) when the game is one the room dealt."""

    def __init__(self, out: str, link: BoardLink) -> None:
        super().__init__(out, say=link.note)
        self.link = link
        self.game_id: int | None = None   # the board's id of the game starting

    def on_event(self, ev: dict[str, Any]) -> None:
        if ev.get("event") == "new_game":
            self.game_id = ev.get("game") if isinstance(ev.get("game"), int) else None
        super().on_event(ev)

    def _start(self, state, first):
        super()._start(state, first)
        if self.game is not None:
            self.game["board"].update(label=self.link.label, port=self.link.port)
            tag = self.link.listener.game_tag(self.link, self.game_id)
            if tag is not None:
                self.game["tournament"] = tag


def log_name(key: str) -> str:
    return "board-%s.jsonl" % key


class BoardLink(threading.Thread):
    def __init__(self, key: str, port: str, folder: str, listener: Listener,
                 timeout: float = 5.0) -> None:
        super().__init__(daemon=True, name="board " + key)
        self.key, self.port, self.listener, self.timeout = key, port, listener, timeout
        self.stop = threading.Event()
        self.requests: queue.Queue[tuple[str, dict[str, Any], concurrent.futures.Future]] = queue.Queue()
        self.tracker = Tracker(os.path.join(folder, log_name(key)), self)
        self.client: Client | None = None
        self.label = ""
        self.status = "connecting"   # live, offline, held, connecting
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
                "games": self.tracker.written}

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

    # -- what the room asks of the link (any thread) --------------------------------------
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

    # -- requests from the page (any thread) ----------------------------------------------
    def call(self, cmd: str, **fields: Any) -> concurrent.futures.Future:
        fut: concurrent.futures.Future = concurrent.futures.Future()
        if self.status != "live":
            fut.set_exception(BoardError("%s is %s." % (self.name_for_people(), self.status)))
        else:
            self.requests.put((cmd, fields, fut))
        return fut

    def name_for_people(self) -> str:
        return self.label or self.port

    # -- the thread -----------------------------------------------------------------------
    def run(self) -> None:
        while not self.stop.is_set():
            try:
                self._open()
            except BoardError as exc:
                if self.client is not None:  # opened, then lost: let go of the port, or
                    self.client.close()      # every reopen finds it busy
                    self.client = None
                self._away(exc)
                self.stop.wait(RETRY_S)
                continue
            try:
                self._follow()
            except BoardError as exc:
                self._away(exc)
            finally:
                if self.client is not None:
                    self.client.close()
                    self.client = None
        self.tracker.close_unfinished()

    def _away(self, exc: BaseException) -> None:
        # requests queued while the line was up fail now: sent after a reconnect, a new_game
        # or set_config pressed during the blip would throw away the game the board resumed
        while True:
            try:
                cmd, _, fut = self.requests.get_nowait()
            except queue.Empty:
                break
            fut.set_exception(BoardError("%s went off line before %s was sent." % (
                self.name_for_people(), cmd)))
        others = transport.holders(self.port) if os.path.exists(self.port) else []
        status, problem = ("held", "Another program has this port open (%s): close it."
                           % "; ".join(others)) if others else ("offline", str(exc))
        if (status, problem) != (self.status, self.problem):
            self.status, self.problem = status, problem
            self.changed()
        self.listener.board_gone(self)

    def _open(self) -> None:
        line = transport.SerialTransport(self.port)
        client = Client(line, timeout=self.timeout)
        try:
            client.hello()
            config = client.request("get_config").get("config") or {}
            answer = client.request("state")
        except BaseException:
            client.close()
            raise
        # the events that came before the state answer are in that state already: replayed
        # after it, they would not fit the game (only a newer config is kept from them)
        for ev in client.events:
            if ev.get("event") == "config" and isinstance(ev.get("config"), dict):
                config = ev["config"]
        client.events.clear()
        self.client, self.hello, self.config = client, client.hello_answer, config
        self.opened += 1
        self.label = config.get("label") or ""
        self.tracker.take(client.hello_answer, config, answer)
        self.state = answer["state"]
        self.status, self.problem, self.last_seen = "live", "", time.time()
        self.seq += 1
        self.changed()
        self.listener.board_ready(self, answer)

    def _follow(self) -> None:
        client = self.client
        assert client is not None
        quiet = time.monotonic()
        missed = 0
        while not self.stop.is_set():
            self._serve(client)
            ev = client.next_event(0.05)
            now = time.monotonic()
            if ev is None:
                if now - quiet > HEARTBEAT_S:
                    quiet = now
                    try:
                        answer = client.request("state")
                    except PortLost:
                        raise
                    except BoardError:
                        # a slow board keeps its line (closing it would lose its events);
                        # one that misses two heartbeats in a row is taken for gone
                        missed += 1
                        if missed >= 2:
                            raise
                        continue
                    missed = 0
                    # the events that came before the answer are older than its state
                    while client.events:
                        self._event(client.events.popleft())
                    self._beat(answer)
                continue
            quiet = now
            self.last_seen = time.time()
            self._event(ev)

    def _serve(self, client: Client) -> None:
        while True:
            try:
                cmd, fields, fut = self.requests.get_nowait()
            except queue.Empty:
                return
            try:
                answer = client.request(cmd, **fields)
            except BoardRefused as exc:
                self.problem = "Refused %s: %s" % (cmd, exc.board_message)
                fut.set_exception(exc)
                self.changed()
                continue
            except PortLost as exc:
                fut.set_exception(exc)
                raise
            except BoardError as exc:
                # no answer in time (or a garbled one): the request fails, the line stays
                # open, so the board's events (the game it may be playing) keep coming
                self.problem = str(exc)
                fut.set_exception(exc)
                self.changed()
                continue
            fut.set_result(answer)
            # the events the request caused came before its answer: take them in now
            while client.events:
                self._event(client.events.popleft())

    def _beat(self, answer: dict[str, Any]) -> None:
        self.last_seen = time.time()
        self.tracker.check(answer, "The board's state moved on")
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

    def _event(self, ev: dict[str, Any]) -> None:
        read = time.time()   # the page's latency is counted from here (tile()'s t_event)
        name = ev.get("event")
        self.tracker.on_event(ev)
        text = commentary(ev) if name not in ("log", "config") else None
        if text:
            self.note(text)
        if name == "config" and isinstance(ev.get("config"), dict):
            self.config = ev["config"]
            self.label = self.config.get("label") or ""
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
        """The board's menu changed a locked setting: put it back (in the link's thread)."""
        differs = {k: v for k, v in (self.locked or {}).items() if self.config.get(k) != v}
        if differs and self.client is not None:
            try:
                self.client.request("set_config", config=differs)
            except PortLost:
                raise
            except BoardError as exc:   # refused or late: said on the tile, the line kept
                self.problem = "Locked, but the change could not be put back: %s" % (
                    getattr(exc, "board_message", None) or exc)
                return
            self.problem = "Locked: the change made on the board was put back."
