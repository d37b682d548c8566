"""Following a board: the one way the host tool keeps a board's line open and knows its games.

    follower = Follower(port, [listener])
    follower.connect()            # the first open, in this thread: BoardError if no board
    follower.start()              # from now on a thread of its own follows the board
    answer = follower.ask("press", pit=3)   # from any thread, while events keep flowing
    follower.stop(catch_up=True)  # take in what the board did up to now, then let go
    follower.wait()               # joins the thread; raises what made it give up

The follower owns:
- the line: opened (hello, get_config, then `state`), and opened again with backoff
  (BACKOFF_S) whenever it goes away; `reconnect_timeout` (seconds, 0 = for ever) gives up;
- the heartbeat: after `heartbeat` seconds without a line it asks `state`; two unanswered
  in a row and the line counts as lost;
- the requests: `request()` returns a Future answered by id; the events the request caused
  reach the listeners before the Future is done (the board sends them before its answer);
- the game: built from the board's events and checked by the engine; after any gap (a
  reconnect, an event that does not fit, the board's `boot`, a heartbeat that disagrees) it
  catches up by game id and move index: `state` with `since` hands over the moves it missed,
  `games` and `game` the games that ended while it was away. Nothing is guessed.

Listeners (subclass `Listener`, override what you need) are called on the follower's thread,
one call at a time, in the order things happened on the board:
- `on_connect(hello, config)`: the line is open (again); the hello answer and the config;
- `on_event(ev)`: every event, as the board sent it. The events that arrive before a `state`
  answer are older than it: they come first, and `on_state` follows;
- `on_state(answer)`: the board's `state` answer, after each connect and heartbeat;
- `on_game(game)`: a game the follower will follow no further, as a dict: `board_id`, `game`
  (the board's id; None on protocol 1), `rules`, `first`, `base` (the starting state of a
  game set up from a position, else None), `moves` (from move 1, as the game log writes
  them; `t` and `by` only where the live event gave them), `state` (its last position),
  `over`, `started` and `ended` (UTC, when the follower saw them; else None). A finished game
  (`over` true) comes once for each (board, game id), whether it ended while followed or was
  fetched after a gap (again only if it was taken back after its end and ended anew, or if
  the board's counter went back: a wiped board numbers its games from 1 again). A
  game with `over` false was left under way with at least one move: the board started
  another game, or was wiped, or does not keep it;
- `on_note(text)`: a sentence for people (an old firmware's limits, a game that cannot be
  handed over);
- `on_lost(reason)`: the line went away (or would not open); the follower tries again;
- `wants(board_id, game_id)`: asked for each finished game the board keeps that this
  follower has not followed: true to have it fetched and handed to `on_game` (a recorder
  returns true for the games its log holds unfinished);
- `on_stopped(failure)`: the follower gave up for good, on `failure`: a listener that raised
  (or a fault of the follower's own), or a board that stayed away past `reconnect_timeout`.

A listener that raises stops the follower; `wait()` raises that error again.

A board of protocol 1 (old firmware) has no game ids and cannot hand over moves: its games
are followed from their first move as the events come, and a game under way at connect, or
one whose events were missed, cannot be followed whole (OLD_FIRMWARE says so).
"""

from __future__ import annotations

import concurrent.futures
import queue
import threading
import time
from typing import Any, Callable, Iterable

from . import session
from .catchup import GameSync
from .client import Client
from .transport import Transport
from ..errors import BoardError, BoardRefused

HEARTBEAT_S = 3.0
BACKOFF_S = (0.25, 0.5, 1.0, 2.0)  # waits between attempts to open a board that is away
POLL_S = 0.05  # how long a read waits before the outgoing requests are looked at again


class Listener:
    """What a follower reports to (see the module's docstring). Every method does nothing."""

    def on_connect(self, hello: dict[str, Any], config: dict[str, Any]) -> None:
        pass

    def on_event(self, ev: dict[str, Any]) -> None:
        pass

    def on_state(self, answer: dict[str, Any]) -> None:
        pass

    def on_game(self, game: dict[str, Any]) -> None:
        pass

    def on_note(self, text: str) -> None:
        pass

    def on_lost(self, reason: str) -> None:
        pass

    def wants(self, board_id: str, game_id: int) -> bool:
        return False

    def on_stopped(self, failure: BaseException) -> None:
        pass


class Follower:
    def __init__(self, port: str | None = None, listeners: Iterable[Listener] = (),
                 timeout: float = 5.0, heartbeat: float = HEARTBEAT_S,
                 opener: Callable[[], Transport] | None = None,
                 reconnect_timeout: float = 0.0) -> None:
        self.port, self.timeout, self.heartbeat = port, timeout, heartbeat
        self.reconnect_timeout = reconnect_timeout
        self.listeners = list(listeners)
        self._opener = opener or (lambda: session.open_transport(port))
        self.hello: dict[str, Any] = {}
        self.config: dict[str, Any] = {}
        self.board_id: str | None = None
        self.protocol: int | None = None
        self.name = port or "?"
        self.live = False
        self.failure: BaseException | None = None
        self._client: Client | None = None
        self._games = GameSync(self._ask, self._tell, self._wants)
        self._outbox: queue.Queue[tuple[str, dict[str, Any], concurrent.futures.Future, float | None]] = queue.Queue()
        self._pending: dict[int, tuple[float, Callable, Callable, bool]] = {}
        self._quiet = self._missed = 0.0
        self._lost_told = ""
        self._stop = threading.Event()
        self._catch_up_at_stop = False
        self._final: float | None = None     # deadline of the catch-up at a stop
        self._hard = False
        self._lock = threading.RLock()
        self._thread: threading.Thread | None = None

    # -- the caller's side --------------------------------------------------------------
    def add(self, listener: Listener) -> None:
        self.listeners.append(listener)

    def connect(self) -> None:
        """Open the board now, in this thread; BoardError (one sentence) if it is not there."""
        self._open()

    def start(self) -> None:
        self._thread = threading.Thread(target=self.run, daemon=True, name="follow " + self.name)
        self._thread.start()

    def stop(self, catch_up: bool = False) -> None:
        """Let go of the board. With catch_up, first take in what it did up to now (one `state`
        and what that asks for); a second stop ends that wait."""
        if self._stop.is_set():
            self._hard = True
        self._catch_up_at_stop = catch_up
        self._stop.set()

    def close(self) -> None:
        """Let go of a line that connect() opened, when start() is not to follow."""
        self._stop.set()
        if self._thread is None:
            self._close(BoardError("The follower of %s stopped." % self.name))

    def wait(self, timeout: float | None = None) -> None:
        """Wait for the thread to end; raise the error that stopped it, if any."""
        if self._thread is not None:
            self._thread.join(timeout)
        if self.failure is not None:
            raise self.failure

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def request(self, cmd: str, timeout: float | None = None, **fields: Any) -> concurrent.futures.Future:
        """Send a request from any thread: a Future of the answer (BoardRefused when the board
        says no, BoardError when it is away or silent)."""
        fut: concurrent.futures.Future = concurrent.futures.Future()
        if not self.live:
            fut.set_exception(BoardError("The board on %s is not connected." % self.name))
        else:
            self._outbox.put((cmd, fields, fut, timeout))
        return fut

    def ask(self, cmd: str, timeout: float | None = None, **fields: Any) -> dict[str, Any]:
        """request() and wait for its answer (not from a listener: that would wait for itself)."""
        wait = (timeout or self.timeout) + 1.0
        try:
            return self.request(cmd, timeout, **fields).result(wait)
        except concurrent.futures.TimeoutError:
            raise BoardError("The board on %s did not answer '%s' within %g s." % (self.name, cmd, wait))

    def game(self) -> dict[str, Any] | None:
        """The game under way as on_game would give it, or None."""
        with self._lock:
            return self._games.current()

    # -- the thread ---------------------------------------------------------------------
    def run(self) -> None:
        try:
            while not self._hard:
                if self._client is None:
                    if self._stop.is_set() or not self._reopen():
                        break
                    continue
                try:
                    if not self._step():
                        break
                except BoardError as exc:
                    self._drop(str(exc))
        except Exception as exc:   # a fault of the follower's own: it stops, and says so
            if self.failure is None:
                self.failure = exc
        finally:
            self._close(BoardError("The follower of %s stopped." % self.name))
            if self.failure is not None:
                for listener in list(self.listeners):
                    try:
                        listener.on_stopped(self.failure)
                    except Exception:
                        pass   # told once; wait() raises the failure

    def _reopen(self) -> bool:
        attempt, since = 0, time.monotonic()
        while not self._stop.is_set():
            try:
                self._open()
                return True
            except BoardError as exc:
                self._lost(str(exc))
                if self.reconnect_timeout and time.monotonic() - since > self.reconnect_timeout:
                    self.failure = BoardError("The board stayed away for %g s (%s)." % (
                        self.reconnect_timeout, str(exc).rstrip(".")))
                    return False
            self._stop.wait(BACKOFF_S[min(attempt, len(BACKOFF_S) - 1)])
            attempt += 1
        return False

    def _open(self) -> None:
        client = Client(self._opener(), timeout=self.timeout)
        self.name = client.name
        try:
            hello = client.hello()
            config = client.request("get_config").get("config") or {}
        except BaseException:
            client.close()
            raise
        with self._lock:
            self.protocol = hello.get("protocol")
            self.board_id = hello.get("board_id") if self.protocol != 1 else None
            self._client, self.hello, self.config = client, hello, config
            self._pending.clear()
            self._missed, self._quiet = 0, time.monotonic()
            self.live, self._lost_told = True, ""
            self._games.connected(client.name, self.protocol, self.board_id)
            self._tell("on_connect", hello, config)
            self._games.catch_up(full=True, fresh=True)
            queued = list(client.events)
            client.events.clear()
            for ev in queued:  # came during hello: older than the state answer asked for
                self._event(ev)

    def _step(self) -> bool:
        client = self._client
        assert client is not None
        while True:
            try:
                cmd, fields, fut, timeout = self._outbox.get_nowait()
            except queue.Empty:
                break
            if fut.set_running_or_notify_cancel():
                self._ask(cmd, fields, fut.set_result, fut.set_exception, timeout, internal=False)
        if self._stop.is_set():
            if self._final is None:
                if not self._catch_up_at_stop:
                    return False
                self._final = time.monotonic() + self.timeout
                with self._lock:
                    self._games.catch_up(full=False, anyway=True)
            if not any(p[3] for p in self._pending.values()) or time.monotonic() > self._final:
                return False
        msg = client.receive(POLL_S)
        now = time.monotonic()
        if msg is not None:
            self._quiet = now
            with self._lock:
                self._handle(msg)
        for rid in [r for r, p in self._pending.items() if p[0] < now]:
            _, _, fail, internal = self._pending.pop(rid)
            if internal:
                self._games.syncing = 0
                self._missed += 1
                if self._missed >= 2:
                    raise BoardError("The board on %s stopped answering." % self.name)
            fail(BoardError("The board on %s did not answer in time." % self.name))
        if now - self._quiet > self.heartbeat and not self._games.syncing:
            self._quiet = now
            with self._lock:
                self._games.catch_up(full=False)
        return True

    def _handle(self, msg: dict[str, Any]) -> None:
        if "event" in msg and "id" not in msg:
            self._event(msg)
            return
        entry = self._pending.pop(msg.get("id"), None)  # type: ignore[arg-type]
        if entry is None:
            return  # the late answer to a request that timed out
        _, answered, fail, internal = entry
        if internal:
            self._missed = 0
        if msg.get("ok") is True:
            answered(msg)
            return
        err = msg["error"] if isinstance(msg.get("error"), dict) else {}
        fail(BoardRefused(str(err.get("code", "error")), str(err.get("message", "no reason given")), msg))

    def _ask(self, cmd: str, fields: dict[str, Any], answered: Callable, fail: Callable | None = None,
             timeout: float | None = None, internal: bool = True) -> None:
        client = self._client
        if client is None:
            (fail or _ignore)(BoardError("The board on %s is not connected." % self.name))
            return
        rid = client.send(cmd, **fields)
        self._pending[rid] = (time.monotonic() + (timeout or self.timeout), answered,
                              fail or _ignore, internal)

    def _drop(self, reason: str) -> None:
        self._close(BoardError(reason))
        self._lost(reason)

    def _close(self, why: BoardError) -> None:
        client, self._client = self._client, None
        self.live = False
        if client is not None:
            client.close()
        pending, self._pending = self._pending, {}
        self._games.syncing = 0
        for _, _, fail, internal in pending.values():
            if not internal:
                fail(why)
        while True:
            try:
                fut = self._outbox.get_nowait()[2]
            except queue.Empty:
                break
            if fut.set_running_or_notify_cancel():
                fut.set_exception(why)

    def _lost(self, reason: str) -> None:
        if reason != self._lost_told:
            self._lost_told = reason
            self._tell("on_lost", reason)

    # -- listeners ----------------------------------------------------------------------
    def _tell(self, method: str, *args: Any) -> None:
        for listener in list(self.listeners):
            try:
                getattr(listener, method)(*args)
            except Exception as exc:  # a listener's fault stops the follower, not the program
                if self.failure is None:
                    self.failure = exc
                self._hard = True
                self._stop.set()

    def _wants(self, board_id: str | None, game_id: int) -> bool:
        try:
            return any(l.wants(board_id, game_id) for l in self.listeners)  # type: ignore[arg-type]
        except Exception as exc:
            if self.failure is None:
                self.failure = exc
            self._hard = True
            self._stop.set()
            return False

    def _event(self, ev: dict[str, Any]) -> None:
        if ev.get("event") == "config" and isinstance(ev.get("config"), dict):
            self.config = ev["config"]
        self._games.take(ev)


def _ignore(exc: BaseException) -> None:
    pass
