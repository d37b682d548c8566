"""The hub's game tracker, until the hub follows its boards through link.follower.

`GameTracker` builds the game in progress from `new_game`, `move`, `resign` and `undo` events
and checks every event's state against the engine, so a line it writes always replays. A game
that cannot go on being recorded (the board's state is not the game any more, the board starts
a new game) is written as far as it went, marked unfinished. It guesses nothing: a state that
the events do not explain ends the game being recorded. `mancala-board record` does not use
it: it follows the board with link.follower, which asks the board for the moves it missed.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Callable

from . import gamelog
from ..render.view import rules_label as _label

if TYPE_CHECKING:
    from mancala import Game

    from ..link.client import Client

DEMO_LEVEL = 3  # the level demo mode plays every seat at (docs/protocol.md, `demo`)


def _ask(client):
    """The board's config and its `state` answer, for GameTracker.take."""
    config = client.request("get_config").get("config") or {}
    return config, client.request("state")


class GameTracker:
    def __init__(self, out: str, say: Callable[[str], None]) -> None:
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
        """Compare the board's `state` answer with the game being recorded: a game that is
        not the board's any more is written as far as it went, marked unfinished."""
        state, moves = answer["state"], answer.get("moves")
        if self.game is not None:
            self._resync(state, why)
        if self.game is None and not state.get("over"):
            if moves == 0:
                self._start(state, answer.get("first", state.get("turn")))
            elif why == "The board is back" or why is None:
                self.say("A game with %s move(s) is already under way; this tracker cannot ask "
                         "the board for its first moves, so it is not recorded." % moves)

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
        self.game = gamelog.new_game(dict(self.board), state["rules"], seats, first,
                                     started=gamelog.utc_now())
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
