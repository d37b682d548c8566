"""`record`: follow the board's events and write every game to the game log.

`GameTracker` builds the game in progress from `new_game`, `move`, `resign` and `undo` events
and checks every event's state against the engine, so a line it writes always replays. When
the line goes away (unplugged, sim killed) the tracker is kept; after the board is back it
compares the board's `state` with its own and recovers moves made while away by a short
search. A game that cannot go on being recorded (record stops, the board starts a new game
or a different one) is written as far as it went, marked unfinished, so no class loses a game.
Seats are recorded as the board plays them: in demo mode every seat is the CPU at the demo
level.
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
import threading
import time
from typing import TYPE_CHECKING, Any, Callable, Iterator

from . import gamelog
from ..errors import BoardError
from ..link.session import open_client

if TYPE_CHECKING:
    from mancala import Game

    from ..link.client import Client

HEARTBEAT_S = 3.0  # silence after which record asks the board for its state
RECOVER_DEPTH = 4  # moves searched to bridge a gap while the board was away
DEMO_LEVEL = 3  # the level demo mode plays every seat at (docs/protocol.md, `demo`)


def _say(text: str) -> None:
    print(text, flush=True)


class GameTracker:
    def __init__(self, out: str, say: Callable[[str], None] = _say) -> None:
        self.out = out
        self.say = say
        # The log entry being built and the engine following it: both set while a game is
        # recorded, and game None between games (engine keeps the last one, for a late undo).
        self.game: dict[str, Any] | None = None
        self.engine: Game | None = None
        self.t0 = 0.0  # time.monotonic() at the game's start
        self.written = 0
        self.board: dict[str, Any] = {}
        self.config: dict[str, Any] = {}
        self.demo = False  # demo mode: every seat is the CPU at demo_level
        self.demo_level = DEMO_LEVEL
        self.unfinished = 0

    # -- set-up and resync ----------------------------------------------------------------
    def attach(self, client: Client) -> None:
        """Take the board's identity, config and game after (re)connecting."""
        self.take(client.hello_answer, *_ask(client))

    def take(self, hello: dict[str, Any] | None, config: dict[str, Any],
             answer: dict[str, Any]) -> None:
        """Take the board's hello, config and `state` answer, as `attach` asks for them."""
        hello = hello or {}
        self.board = {"profile": hello.get("board"), "firmware": hello.get("firmware")}
        self.config = config
        self.demo = answer.get("demo") is True
        self.check(answer, "The board is back")

    def check(self, answer: dict[str, Any], why: str | None) -> None:
        """Compare the board's `state` answer with the game being recorded, and catch up: a
        lost event, or moves made while the board was away, are recovered by a short search."""
        state, moves = answer["state"], answer.get("moves")
        if self.game is not None:
            self._resync(state, why)
        if self.game is None and not state.get("over"):
            if moves == 0:
                self._start(state, answer.get("first", state.get("turn")))
            elif why == "The board is back" or why is None:
                self.say("A game with %s move(s) is already under way; recording starts with the "
                         "next new game." % moves)

    def _recording(self) -> tuple[dict[str, Any], Game]:
        """The game being recorded and its engine; only called while one is."""
        game, engine = self.game, self.engine
        if game is None or engine is None:
            raise RuntimeError("no game is being recorded")
        return game, engine

    def _resync(self, state, why):
        game, engine = self._recording()
        kept = len(game["moves"])
        if engine.to_dict() == state:
            if why == "The board is back":
                self.say("The board is back; the game in progress continues (%d move(s) kept)." % kept)
            return
        path = _search(engine, state, RECOVER_DEPTH)
        if path is not None:
            t = self._t()
            for pit in path:
                seat = engine.turn
                engine.play(pit)
                game["moves"].append({"seat": seat, "pit": pit, "t": t, "recovered": True})
            self.say("%s; %d move(s) whose events did not arrive were recovered from its state, "
                     "and the game continues." % (why, len(path)))
            if engine.over:
                self._finish()
            return
        self.say("%s, but its game is not the one being recorded any more." % why)
        self.close_unfinished()

    # -- events ---------------------------------------------------------------------------
    def on_event(self, ev: dict[str, Any]) -> None:
        name = ev.get("event")
        if name == "config":
            self.config = ev.get("config") or self.config
        elif name == "demo":
            self.demo = ev.get("on") is True
            if isinstance(ev.get("level"), int):
                self.demo_level = ev["level"]
            if self.demo and self.game is not None and not self.game["moves"]:
                _, engine = self._recording()
                self.game["seats"] = self._seats(len(self.game["seats"]) or engine.players)
        elif name == "new_game":
            if self.game is not None:
                self.say("A new game was started before this one ended.")
                self.close_unfinished()
            self._start(ev["state"], ev.get("first", ev["state"].get("turn")))
        elif name in ("move", "resign", "undo") and self.game is not None:
            self._follow(name, ev)
        elif name == "undo" and self.engine is not None and self.engine.over:
            self.say("A move of the finished game was taken back on the board; the log keeps the "
                     "game as it ended.")

    def _follow(self, name, ev):
        game, engine = self._recording()
        try:
            if name == "move":
                engine.play(ev["pit"])
                entry = {"seat": ev["seat"], "pit": ev["pit"], "t": self._t()}
                if ev.get("by"):
                    entry["by"] = ev["by"]
                game["moves"].append(entry)
            elif name == "resign":
                engine.resign(ev["seat"])
                game["moves"].append({"seat": ev["seat"], "resign": True, "t": self._t()})
            else:
                engine.undo()
                game["moves"].pop()
        except (ValueError, KeyError, IndexError) as exc:
            self._lost_track("the board's %s event does not fit the game (%s)" % (name, exc))
            return
        if "state" in ev and engine.to_dict() != ev["state"]:
            self._lost_track("after a %s the board's state differs from the engine's" % name)
            return
        if engine.over:
            self._finish()

    def _lost_track(self, why):
        game, _ = self._recording()
        self.say("Recording lost track of the game in progress: %s; its %d move(s) are not "
                 "written." % (why, len(game["moves"])))
        self.game = None

    # -- games ----------------------------------------------------------------------------
    def _start(self, state, first):
        seats = self._seats(len(state["pits"]))
        self.game = gamelog.new_game(dict(self.board), state["rules"], seats, first)
        self.engine = engine = gamelog.start_engine(self.game)
        self.t0 = time.monotonic()
        if engine.to_dict() != state:
            self.say("The board's new game does not match its rules; it is not recorded.")
            self.game = None
            return
        self.say("Recording a new game: %s." % _label(state["rules"]))

    def _seats(self, players):
        """The seats as the board plays them: in demo mode every seat is the CPU."""
        if self.demo:
            return [{"kind": "cpu", "level": self.demo_level} for _ in range(players)]
        return list(self.config.get("seats") or [])[:players]

    def _finish(self):
        game, engine = self._recording()
        state = engine.to_dict()
        game["ended"] = gamelog.utc_now()
        game["result"] = {"places": state["places"], "stores": state["stores"]}
        gamelog.check_game(game)  # never write a line that does not replay
        gamelog.append_game(self.out, game)
        self.written += 1
        self.say("Game %d written to %s: %d moves, stores %s, places %s." % (
            self.written, self.out, len(game["moves"]), state["stores"], state["places"]))
        self.game = None

    def close_unfinished(self) -> int:
        """Write the game in progress as far as it went, marked unfinished (nothing when it has
        no moves yet); returns the number of moves written."""
        game, engine, self.game = self.game, self.engine, None
        if game is None or engine is None or not game["moves"]:
            return 0
        gamelog.mark_unfinished(game, engine.to_dict())
        gamelog.check_game(game)  # never write a line that does not replay
        gamelog.append_game(self.out, game)
        self.written += 1
        self.unfinished += 1
        self.say("Game %d written to %s unfinished, as far as it went: %d moves, seat %s to move."
                 % (self.written, self.out, len(game["moves"]), engine.turn))
        return len(game["moves"])

    def _t(self):
        return round(time.monotonic() - self.t0, 1)

    @property
    def in_progress(self) -> int | None:
        return len(self.game["moves"]) if self.game is not None else None


def _label(rules):
    from ..render.view import rules_label

    return rules_label(rules)


def _search(engine, target, depth):
    """The shortest list of pits (up to `depth`) that takes `engine` to the state `target`."""
    for d in range(1, depth + 1):
        path = _dfs(engine, target, d)
        if path is not None:
            return path
    return None


def _dfs(engine, target, depth):
    if engine.over:
        return None
    for pit in engine.legal_moves():
        engine.play(pit)
        try:
            if engine.to_dict() == target:
                return [pit]
            if depth > 1:
                rest = _dfs(engine, target, depth - 1)
                if rest is not None:
                    return [pit] + rest
        finally:
            engine.undo()
    return None


def _connect(args):
    return open_client(args.port, args.timeout)


def _ask(client):
    """The board's config and its `state` answer, for GameTracker.take."""
    config = client.request("get_config").get("config") or {}
    return config, client.request("state")


STOP_SIGNALS = ("SIGINT", "SIGTERM", "SIGHUP")  # Ctrl-C, kill, the terminal window closed


class _Stop:
    """Ctrl-C, SIGTERM and SIGHUP stop record, so the game under way is still written.

    A stop ends record at once while it waits on the board (a read, a request, a reconnect).
    One that comes while record takes in what the board said is held until that is done, so it
    never lands between the engine's move and the log's, or between writing a game and noting
    it written (the game would be written twice, or not replay). A signal that was ignored when
    record started (`nohup`, or `&` in a script, which ignores Ctrl-C) stays ignored, as the
    one who started it asked. Off the main thread, where signals never arrive, nothing is set.
    """

    def __init__(self) -> None:
        self.requested = False
        self._waiting = False
        self._old: dict[int, Any] = {}
        if threading.current_thread() is not threading.main_thread():
            return
        for name in STOP_SIGNALS:
            signum = getattr(signal, name, None)  # Windows has no SIGHUP
            if signum is not None and signal.getsignal(signum) != signal.SIG_IGN:
                self._old[signum] = signal.signal(signum, self._arrived)

    def _arrived(self, signum, frame):
        self.requested = True
        if self._waiting:
            raise KeyboardInterrupt()

    @contextlib.contextmanager
    def waiting(self) -> Iterator[None]:
        """Around a wait on the board: a stop, now or held from before, ends it."""
        self._waiting = True
        try:
            if self.requested:
                raise KeyboardInterrupt()
            yield
        finally:
            self._waiting = False

    def restore(self) -> None:
        for signum, handler in self._old.items():
            signal.signal(signum, signal.SIG_DFL if handler is None else handler)
        self._old = {}


class _Line:
    """record's line to the board: opened, reopened when the board comes back, and asked for
    its state at a stop. `client` is None while the board is away."""

    def __init__(self, args: argparse.Namespace, tracker: GameTracker, stop: _Stop) -> None:
        self.args, self.tracker, self.stop = args, tracker, stop
        self.client: Client | None = None

    def open(self) -> Client:
        """Open the board and take in its identity, config and game (BoardError if it is not
        there). A stop ends the wait; the client is kept from the moment it opened, for the
        catch-up."""
        with self.stop.waiting():
            self.client = client = _connect(self.args)
            config, answer = _ask(client)
        self.tracker.take(client.hello_answer, config, answer)
        return client

    def close(self) -> None:
        client, self.client = self.client, None
        if client is not None:
            client.close()

    def reopen(self, why: str) -> Client:
        """Wait for the board to come back after the line went away, keeping the game."""
        self.close()
        tracker, limit = self.tracker, self.args.reconnect_timeout
        n = tracker.in_progress
        tracker.say("%s Waiting for it to come back%s; stop with Ctrl-C." % (
            why, "; the game in progress (%d move(s)) is kept" % n if n is not None else ""))
        since = time.monotonic()
        while True:
            if limit and time.monotonic() - since > limit:
                raise BoardError("The board stayed away for %g s; %d game(s) were written to %s."
                                 % (limit, tracker.written, tracker.out))
            try:
                return self.open()
            except BoardError:
                self.close()
                with self.stop.waiting():
                    time.sleep(0.3)

    def follow(self) -> None:
        """Take in the board's events until --games games are written; KeyboardInterrupt at a
        stop. Silence for HEARTBEAT_S asks the board for its state: still there? an event lost?"""
        args, tracker, stop = self.args, self.tracker, self.stop
        client = self.open()
        tracker.say("Recording games from %s to %s; stop with Ctrl-C." % (client.name, args.out))
        quiet_since = time.monotonic()
        while not (args.games and tracker.written >= args.games):
            ev = beat = None
            try:
                with stop.waiting():
                    ev = client.next_event(0.5)
                    if ev is None and time.monotonic() - quiet_since > HEARTBEAT_S:
                        beat = client.request("state")
                        quiet_since = time.monotonic()
            except BoardError as exc:  # PortLost, or silence on the heartbeat
                client = self.reopen(str(exc))
                quiet_since = time.monotonic()
            if beat is not None:
                # The board answers after every line it sent before the request: the events
                # that came while record waited for the answer go in first (next_event(0)
                # takes only those), or the answer would look like moves lost and be
                # "recovered" beside the events that played them.
                queued = client.next_event(0)
                while queued is not None:
                    tracker.on_event(queued)
                    queued = client.next_event(0)
                tracker.check(beat, "The board's state moved on")
            if ev is not None:
                quiet_since = time.monotonic()
                tracker.on_event(ev)

    def catch_up(self) -> None:
        """At a stop: take in the events the board sent before it, so a move made on the pads
        just before the stop is kept. The board answers `state` after every line it sent before
        the request, so the events still on the way arrive first; the state then settles the
        rest. A second stop ends the wait; the events read by then are still taken in."""
        client = self.client
        if client is None:  # the board is away: the game is written as far as the events went
            return
        self.stop.requested = False
        answer = None
        try:
            with self.stop.waiting():
                answer = client.request("state")
        except (BoardError, KeyboardInterrupt):
            pass
        while True:
            ev = client.next_event(0)
            if ev is None:
                break
            self.tracker.on_event(ev)
        if answer is not None:
            self.tracker.check(answer, "The board's state moved on")


def run(args: argparse.Namespace, tracker: GameTracker | None = None) -> int:
    gamelog.check_appendable(args.out)  # before the board: a game recorded into nowhere is lost
    tracker = tracker or GameTracker(args.out)
    stop = _Stop()
    line = _Line(args, tracker, stop)
    try:
        line.follow()
    except KeyboardInterrupt:
        line.catch_up()
        tracker.close_unfinished()
        tracker.say("Stopped: %d game(s) written to %s%s." % (
            tracker.written, args.out,
            " (%d of them unfinished)" % tracker.unfinished if tracker.unfinished else ""))
    except BoardError:
        tracker.close_unfinished()
        raise
    finally:
        stop.restore()
        line.close()
    sys.stdout.flush()
    return 0
