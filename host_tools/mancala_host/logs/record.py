"""`record`: every game the board plays, written to the game log once, whole, from move 1.

A `Follower` (link/follower.py) keeps the board's line and hands over each game it will follow
no further; `Recorder`, its listener, writes it. The board is the authority: moves made while
record could not see them (the line was away, an event was lost, record started in the middle
of a game) are handed over by the board itself, never guessed. Each line of the log has a key,
the board's id and its id for the game, and a game already in the log finished is not written
again; a game the log holds unfinished (record was stopped while it was under way) is fetched
from the board once it has ended, and the finished line supersedes the stub
(docs/game-log.md §5). Seats are recorded as the board plays them: in demo mode every seat is
the CPU at the demo level.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
import time
from typing import Any, Callable

from . import gamelog
from ..errors import BoardError
from ..link.boardgame import same_move
from ..link.follower import Follower, Listener
from ..render.view import rules_label as _label

DEMO_LEVEL = 3  # the level demo mode plays every seat at (docs/protocol.md, `demo`)


def _say(text: str) -> None:
    print(text, flush=True)


class Recorder(Listener):
    """Writes the games a follower hands over to the log at `out`, once per key."""

    def __init__(self, out: str, say: Callable[[str], None] = _say) -> None:
        self.out, self.say = out, say
        self.logged = gamelog.logged(out)  # key -> the lines the log keeps for it
        self.written = self.unfinished = 0
        self.board: dict[str, Any] = {}
        self.config: dict[str, Any] = {}
        self.demo, self.demo_level = False, DEMO_LEVEL
        self.seats: dict[Any, list[Any]] = {}  # game id -> the seats as the game was first seen
        self.fresh: Any = False  # the id of a game with no move yet (demo may still change its seats)
        self.synced = threading.Event()  # the first state answer is in
        self.wiped: set[str] = set()  # boards seen counting their games from 1 again

    # -- what the follower reports ------------------------------------------------------
    def on_connect(self, hello: dict[str, Any], config: dict[str, Any]) -> None:
        if self.board:
            self.say("The board is back.")
        self.board = {"profile": hello.get("board"), "firmware": hello.get("firmware")}
        if isinstance(hello.get("board_id"), str):
            self.board["id"] = hello["board_id"]
        self.config = config

    def on_state(self, answer: dict[str, Any]) -> None:
        self.demo = answer.get("demo") is True
        state, gid = answer["state"], answer.get("game")
        self._counted(gid)
        if gid not in self.seats and not state.get("over"):
            self.seats[gid] = self._seats(len(state["pits"]))
            moves = answer.get("moves") or 0
            if moves and answer.get("history") is not None:
                self.say("Recording the game under way (%d move(s) so far) from its first move: "
                         "%s." % (moves, _label(state["rules"])))
            elif not moves:
                self.fresh = gid
                self.say("Recording a new game: %s." % _label(state["rules"]))
        self.synced.set()

    def on_event(self, ev: dict[str, Any]) -> None:
        name = ev.get("event")
        if name == "config" and isinstance(ev.get("config"), dict):
            self.config = ev["config"]
        elif name == "demo":
            self.demo = ev.get("on") is True
            if isinstance(ev.get("level"), int):
                self.demo_level = ev["level"]
            if self.fresh is not False and self.fresh in self.seats:
                self.seats[self.fresh] = self._seats(len(self.seats[self.fresh]) or 2)
        elif name == "new_game" and isinstance(ev.get("state"), dict):
            self.fresh = ev.get("game")
            self._counted(self.fresh)
            self.seats[self.fresh] = self._seats(len(ev["state"]["pits"]))
            self.say("Recording a new game: %s." % _label(ev["state"]["rules"]))
        elif name in ("move", "resign"):
            self.fresh = False

    def on_game(self, game: dict[str, Any]) -> None:
        self.write(game)

    def on_note(self, text: str) -> None:
        self.say(text)

    def on_lost(self, reason: str) -> None:
        self.say("%s Waiting for it to come back; stop with Ctrl-C." % reason.rstrip())

    def wants(self, board_id: str, game_id: int) -> bool:
        """A game the log holds only unfinished, or one newer than the newest logged of this
        board."""
        held = self.logged.get((board_id, game_id))
        if held:
            return all(gamelog.is_unfinished(line) for line in held)
        mine = [gid for (bid, gid) in self.logged if bid == board_id]
        return bool(mine) and game_id > max(mine)

    def _counted(self, gid: Any) -> None:
        """Notice a board whose game ids went below the newest logged: its flash was wiped."""
        board_id = self.board.get("id")
        mine = [g for (b, g) in self.logged if b == board_id]
        if isinstance(board_id, str) and isinstance(gid, int) and mine and gid < max(mine) \
                and board_id not in self.wiped:
            self.wiped.add(board_id)
            self.say("This board counts its games from 1 again (its flash was wiped): its new "
                     "games are logged beside the old ones with the same numbers.")

    def _seats(self, players: int) -> list[Any]:
        """The seats as the board plays them: in demo mode every seat is the CPU."""
        if self.demo:
            return [{"kind": "cpu", "level": self.demo_level} for _ in range(players)]
        return list(self.config.get("seats") or [])[:players]

    # -- writing ------------------------------------------------------------------------
    def extra(self, game: dict[str, Any]) -> dict[str, Any]:
        """More fields for the game's log entry (the hub adds its tournament tag); none here."""
        return {}

    def write(self, game: dict[str, Any]) -> None:
        """Write one game the follower handed over (finished, or left under way), unless the
        log already has it as far."""
        key = (game["board_id"], game["game"]) if game["board_id"] and game["game"] is not None else None
        lines = self.logged.get(key, []) if key else []
        if gamelog.holds(lines, game["moves"], game["over"]):
            if game["over"]:
                self.say("Game %s of this board is in %s already; it is not written again."
                         % (game["game"], self.out))
            return
        # the line of this game written before (a stub), whose seats, start and times it keeps
        held = next((l for l in lines if gamelog.holds([{"moves": game["moves"]}], l["moves"], False)),
                    None)
        seats = self.seats.get(game["game"])
        if seats is None and held is not None:
            seats = held.get("seats")
        entry = gamelog.new_game(dict(self.board), game["rules"], seats, game["first"],
                                 started=game["started"] or (held or {}).get("started"),
                                 game_id=game["game"], base=game["base"])
        entry["moves"] = game["moves"]
        for mine, theirs in zip((held or {}).get("moves") or [], game["moves"]):
            if not same_move(mine, theirs):
                break
            for k in ("t", "by"):  # what the event gave the line it supersedes
                if k in mine and k not in theirs:
                    theirs[k] = mine[k]
        entry.update(self.extra(game))
        if game["over"] and any(not gamelog.is_unfinished(l) for l in lines) and \
                game["board_id"] not in self.wiped:
            entry["retaken"] = True  # taken back after its end and ended again
        state = game["state"]
        if game["over"]:
            entry["ended"] = game["ended"]
            entry["result"] = {"places": state["places"], "stores": state["stores"]}
        else:
            gamelog.mark_unfinished(entry, state)
        gamelog.check_game(entry)  # never write a line that does not replay
        gamelog.append_game(self.out, entry)
        if key:
            self.logged[key] = [l for l in lines if l is not held] + [entry]
        self.written += 1
        if game["over"]:
            self.say("Game %d written to %s: %d moves, stores %s, places %s." % (
                self.written, self.out, len(game["moves"]), state["stores"], state["places"]))
        else:
            self.unfinished += 1
            self.say("Game %d written to %s unfinished, as far as it went: %d moves, seat %s to "
                     "move." % (self.written, self.out, len(game["moves"]), state["turn"]))

    def close(self, game: dict[str, Any] | None) -> None:
        """At a stop: the game under way, written as far as it went (not one without moves)."""
        if game is not None and game["moves"] and not game["over"]:
            self.write(game)


STOP_SIGNALS = ("SIGINT", "SIGTERM", "SIGHUP")  # Ctrl-C, kill, the terminal window closed


class _Stop:
    """Ctrl-C, SIGTERM and SIGHUP stop record, so the game under way is still written.

    The first stop asks the follower to take in what the board did up to now (a move made on
    the pads just before the stop is kept); a second one ends that wait. The follower's thread
    writes the games, so a stop never lands between the engine's move and the log's. A signal
    that was ignored when record started (`nohup`, or `&` in a script) stays ignored, as the
    one who started it asked. Off the main thread, where signals never arrive, nothing is set.
    """

    def __init__(self, follower: Follower) -> None:
        self.follower = follower
        self.requested = False
        self._old: dict[int, Any] = {}
        if threading.current_thread() is not threading.main_thread():
            return
        for name in STOP_SIGNALS:
            signum = getattr(signal, name, None)  # Windows has no SIGHUP
            if signum is not None and signal.getsignal(signum) != signal.SIG_IGN:
                self._old[signum] = signal.signal(signum, self._arrived)

    def _arrived(self, signum, frame):
        self.follower.stop(catch_up=not self.requested)
        self.requested = True

    def restore(self) -> None:
        for signum, handler in self._old.items():
            signal.signal(signum, signal.SIG_DFL if handler is None else handler)
        self._old = {}


def follower_for(args: argparse.Namespace, recorder: Recorder) -> Follower:
    """The follower record uses (tests give one on a model of the board instead)."""
    return Follower(args.port, [recorder], timeout=args.timeout,
                    reconnect_timeout=args.reconnect_timeout)


def run(args: argparse.Namespace, recorder: Recorder | None = None) -> int:
    gamelog.check_appendable(args.out)  # before the board: a game recorded into nowhere is lost
    recorder = recorder or Recorder(args.out)
    follower = follower_for(args, recorder)
    stop = _Stop(follower)
    failure: BoardError | None = None
    try:
        follower.connect()
        follower.start()
        while follower.running and not recorder.synced.wait(0.1):
            pass
        recorder.say("Recording games from %s to %s; stop with Ctrl-C." % (follower.name, args.out))
        while follower.running:
            if args.games and recorder.written >= args.games:
                follower.stop()
            time.sleep(0.05)
        follower.wait()
    except BoardError as exc:
        if not follower.live and follower.hello == {}:
            raise  # the board was never there: that sentence alone
        failure = exc
    finally:
        stop.restore()
    if not (args.games and recorder.written >= args.games):
        recorder.close(follower.game())
    if failure is not None:
        raise BoardError("%s %d game(s) were written to %s." % (
            str(failure).rstrip(), recorder.written, args.out))
    if stop.requested:
        recorder.say("Stopped: %d game(s) written to %s%s." % (
            recorder.written, args.out,
            " (%d of them unfinished)" % recorder.unfinished if recorder.unfinished else ""))
    sys.stdout.flush()
    return 0
