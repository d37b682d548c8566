"""The tournament dealt to the room's boards: which board plays which game, what the board's
own events and answers mean for it, and the journal that keeps it all through a restart.

The dealer knows the boards only by their keys and by what they report (ready, state,
new_game, game_over, gone); it asks a board for something through `send(key, cmd, fields)`,
which answers a Future, and it says a tile or the standings changed through `changed(key)`
(key "" for the standings). Every decision is written to the journal before it is acted on.

A dealt game is known on its board by the board's game id (protocol version 2; a version-1
board, which has none, is followed by its state alone). After a gap (the board away, or the
hub restarted) the board's ready answer says where the game stands:
- the same game, under way: it is followed to its end;
- the same game, over: it is scored from the board's state;
- another game: the dealt one is fetched from the board (`game`) and scored; a board that
  no longer has it (wiped, or reflashed) gets it dealt again, and its tile says so;
- dealt but never started: it is dealt again.
A board that refuses its game keeps the refusal on its tile and is not dealt to again until
the teacher asks (`redeal`); the game goes to the next free board.
"""

from __future__ import annotations

import concurrent.futures
import threading
from typing import Any, Callable

from ..errors import BoardError, BoardRefused
from .journal import Deal, Journal
from .tournament import Game, Tournament

UNKNOWN = -1   # the game id of a started game on a board that gives none (protocol 1)

Send = Callable[[str, str, dict[str, Any]], concurrent.futures.Future]


class TournamentRunning(BoardError):
    """start() without replace while a tournament runs (the server answers HTTP 409)."""


def game_id(answer: dict[str, Any]) -> int | None:
    """The board's id of the game in an answer or event (None from a protocol-1 board)."""
    for where in (answer, answer.get("state") or {}):
        if isinstance(where.get("game"), int) and not isinstance(where.get("game"), bool):
            return where["game"]
    return None


def result_of(answer: dict[str, Any]) -> tuple[list[int], list[int]] | None:
    """(places, stores) of a finished game in the board's `game` answer, else None."""
    for where in (answer, answer.get("game"), answer.get("result"), answer.get("state")):
        if isinstance(where, dict):
            for inner in (where, where.get("result"), where.get("state")):
                if isinstance(inner, dict) and isinstance(inner.get("places"), list) and \
                        None not in inner["places"] and isinstance(inner.get("stores"), list):
                    return list(inner["places"]), list(inner["stores"])
    return None


class Board:
    """What the dealer knows of one board: whether it is live, its id and its game's id."""

    def __init__(self) -> None:
        self.live = False
        self.board_id: str | None = None
        self.game: int | None = None
        self.problem = ""         # why its tournament game is not being played
        self.refused = False      # it refused its game: deal to it again only when asked
        self.finished: list[str] | None = None  # the players of the finished game it shows


class Dealer:
    def __init__(self, journal: Journal, send: Send, changed: Callable[[str], None]) -> None:
        self.journal, self.send, self.changed = journal, send, changed
        self.lock = threading.RLock()
        self.tournament: Tournament | None = None
        self.tid: int | None = None
        self.deals: dict[str, tuple[Game, Deal]] = {}   # board key -> its game, where it stands
        self.boards: dict[str, Board] = {}
        self.ended: dict[str, dict[str, Any]] = {}   # board key -> the tag of its last game
        kept = journal.current()
        if kept is not None:
            self.tid, spec, games, deals = kept
            self.tournament = Tournament.restore(spec, games)
            self.tournament.id = self.tid
            for g in self.tournament.games:
                deal = deals.get((g.round, g.slot))
                if deal is not None:
                    self.deals[deal.board] = (g, deal)

    def _board(self, key: str) -> Board:
        return self.boards.setdefault(key, Board())

    # -- the teacher's requests -----------------------------------------------------------
    def start(self, tournament: Tournament, replace: bool = False) -> None:
        """See Room.start_tournament."""
        with self.lock:
            old = self.tournament
            if old is not None and not old.over and not replace:
                raise TournamentRunning(
                    "A tournament is running (round %d of %d): confirm to replace it; its "
                    "games so far stay in the logs." % (old.round, old.total_rounds))
            self.tid = tournament.id = self.journal.new_tournament(tournament.spec(),
                                                                   tournament.games)
            self.tournament = tournament
            keys = set(self.deals) | {k for k, b in self.boards.items() if b.problem}
            self.deals.clear()
            for b in self.boards.values():
                b.problem, b.refused = "", False
        for key in keys:
            self.changed(key)
        self.changed("")
        self.deal_all()

    def redeal(self, key: str) -> str:
        """The teacher's "deal again" on a tile: the board's game (the one it refused or
        lost) is dealt to it again; "ok", or why not."""
        with self.lock:
            if self.tournament is None:
                return "There is no tournament to deal from."
            board = self._board(key)
            if not board.live:
                return "The board is not live: it is dealt to when it is back."
            entry = self.deals.pop(key, None)
            if entry is not None and entry[0].places is None:
                self._give_back(entry[0])
            board.problem, board.refused = "", False
        self.changed(key)
        self.deal(key)
        return "ok"

    # -- what the boards report -----------------------------------------------------------
    def ready(self, key: str, board_id: str | None, answer: dict[str, Any]) -> None:
        """The board's line is (again) open; answer is its `state` answer."""
        with self.lock:
            board = self._board(key)
            board.live, board.board_id, board.game = True, board_id, game_id(answer)
            entry = self.deals.get(key)
            if self.tournament is None:
                return
            if entry is None:
                self.deal(key)
                return
            game, deal = entry
            if deal.board_id and board_id and deal.board_id != board_id:
                self._again(key, "The board came back as another board (wiped, or another "
                                 "one on this port): its tournament game was dealt again.")
                return
            if not deal.started:
                if board.game is not None and deal.prior is not None and board.game != deal.prior:
                    self._started(key, board.game)   # it started while the hub was away
                else:
                    self._send_deal(key, game)
                    return
            self._caught_up(key, deal, answer, versioned=board_id is not None)

    def _caught_up(self, key: str, deal: Deal, answer: dict[str, Any], versioned: bool) -> None:
        """A started game after a gap. versioned: the board names its games (protocol 2)."""
        state = answer.get("state") or {}
        now = game_id(answer)
        if versioned and now is None:   # no game at all: wiped
            self._lost(key, deal.game)
            return
        if now is None or deal.game == UNKNOWN or now == deal.game:
            if state.get("over") and (now is not None or answer.get("moves")):
                self._finish(key, state.get("places") or [], state.get("stores") or [])
            return   # under way: followed to its end by the board's events
        wanted = deal.game
        fut = self.send(key, "game", {"game": wanted})

        def fetched(f: concurrent.futures.Future) -> None:
            exc = f.exception()
            if isinstance(exc, BoardRefused) and exc.code == "unknown_game":
                self._lost(key, wanted)
            elif exc is None:
                result = result_of(f.result())
                if result is not None:
                    self._finish(key, *result, game=wanted)
                else:  # the board dropped it unfinished for another game
                    self._lost(key, wanted)
            # off line again: caught up at the next ready
        fut.add_done_callback(fetched)

    def _lost(self, key: str, wanted: int | None) -> None:
        with self.lock:
            entry = self.deals.get(key)
            if entry is None or entry[1].game != wanted:
                return
            self._again(key, "The board came back without its tournament game (wiped, or "
                             "another game was started over it): dealt again.")

    def state(self, key: str, answer: dict[str, Any]) -> None:
        """A heartbeat's `state` answer: a dealt game that ended unseen is scored; a free
        board is dealt to."""
        with self.lock:
            board = self._board(key)
            board.live = True    # it answers (again, after a deal that failed)
            board.game = game_id(answer) if game_id(answer) is not None else board.game
            entry = self.deals.get(key)
            if entry is None:
                self.deal(key)
            elif entry[1].started:
                state = answer.get("state") or {}
                if state.get("over") and (entry[1].game in (UNKNOWN, board.game)):
                    self._finish(key, state.get("places") or [], state.get("stores") or [])

    def new_game(self, key: str, ev: dict[str, Any]) -> None:
        with self.lock:
            board = self._board(key)
            board.game = game_id(ev)
            board.finished = None
            entry = self.deals.get(key)
            if entry is None:
                return
            game, deal = entry
            if not deal.started:
                self._started(key, board.game)
            elif board.game is None or board.game != deal.game:
                self._again(key, "A new game was started on the board before the tournament "
                                 "game ended: it is dealt again.")

    def game_over(self, key: str, ev: dict[str, Any]) -> None:
        with self.lock:
            entry = self.deals.get(key)
            if entry is None or not entry[1].started:
                return
            over = game_id(ev)
            if over is not None and entry[1].game not in (UNKNOWN, over):
                return
            self._finish(key, ev.get("places") or [], ev.get("stores") or [])

    def handed_over(self, key: str, game: dict[str, Any]) -> None:
        """A game the board's follower handed over (link.Listener.board_game): one that ended,
        also while the hub was away, is scored if it is the dealt one; the dealt one left
        under way (the board started another, or was wiped) is dealt again."""
        gid = game.get("game")
        with self.lock:
            entry = self.deals.get(key)
            if entry is None or not entry[1].started or gid is None or entry[1].game != gid:
                return
        state = game.get("state") or {}
        if game.get("over"):
            self._finish(key, state.get("places") or [], state.get("stores") or [], game=gid)
        else:
            self._lost(key, gid)

    def gone(self, key: str) -> None:
        """The board's line dropped: nothing is dealt to it until it is back."""
        with self.lock:
            self._board(key).live = False

    # -- for the tiles and the logs -------------------------------------------------------
    def tag(self, key: str, game: int | None, board_id: str | None = None
            ) -> dict[str, Any] | None:
        """The log's tournament tag for the game `game` starting (or found under way) on the
        board key: {"id", "round", "players"}, or None when it is not a tournament game."""
        with self.lock:
            entry = self.deals.get(key)
            board = self.boards.get(key)
            if entry is not None and self.tid is not None:
                g, deal = entry
                if deal.started:
                    mine = deal.game in (UNKNOWN, game)
                else:   # its new game is to come: newer than the board's game at the deal
                    mine = game is None or deal.prior is None or game > deal.prior
                if mine:
                    return {"id": self.tid, "round": g.round, "players": list(g.names)}
            if game is None:   # protocol 1: the game that just ended here
                return self.ended.get(key)
            # a game handed over before the board's ready (fetched at a reconnect) names its
            # board's id itself
            board_id = board_id or (board.board_id if board is not None else None)
        return self.journal.tag(board_id, game) if board_id else None

    def tile(self, key: str) -> dict[str, Any]:
        """The tile's tournament fields: the dealt players, and why the board has no game."""
        with self.lock:
            entry = self.deals.get(key)
            board = self.boards.get(key)
            return {"players": list(entry[0].names) if entry is not None else None,
                    # the board plays the dealt game (until then its state is the game before)
                    "started": entry is not None and entry[1].started,
                    "finished_players": board.finished if board is not None else None,
                    "deal_problem": board.problem if board is not None else "",
                    "redeal": bool(board is not None and board.refused)}

    def standings(self) -> dict[str, Any] | None:
        with self.lock:
            t = self.tournament
            return t.to_dict() if t is not None else None

    # -- dealing --------------------------------------------------------------------------
    def deal_all(self) -> None:
        for key in sorted(self.boards):
            self.deal(key)

    def deal(self, key: str) -> None:
        """Give the free live board `key` the next game of the round."""
        with self.lock:
            t, board = self.tournament, self._board(key)
            if t is None or not board.live or board.refused or key in self.deals:
                return
            game = t.next_game(key)
            if game is None:
                return
            deal = Deal(key, board.board_id, board.game)
            self.journal.dealt(self._tid(), game, deal)
            self.deals[key] = (game, deal)
            self._send_deal(key, game)
        self.changed(key)

    def _send_deal(self, key: str, game: Game) -> None:
        t = self.tournament
        assert t is not None
        seats = [t.seat(game.names[0]), t.seat(game.names[1])]

        def failed(f: concurrent.futures.Future) -> None:
            exc = f.exception()
            if exc is not None:
                self._undeal(key, game, exc)
        for fut in (self.send(key, "set_config", {"config": {"seats": seats, "paused": False}}),
                    self.send(key, "new_game", {"rules": t.rules, "first": 0})):
            fut.add_done_callback(failed)

    def _undeal(self, key: str, game: Game, exc: BaseException) -> None:
        """Its deal failed: a refusal stays on the tile; the game goes back to the queue."""
        with self.lock:
            entry = self.deals.get(key)
            if entry is None or entry[0] is not game or entry[1].started:
                return
            del self.deals[key]
            self._give_back(game)
            board = self._board(key)
            if isinstance(exc, BoardRefused):
                board.refused = True
                board.problem = "Refused its tournament game (%s v %s): %s" % (
                    game.names[0], game.names[1], exc.board_message)
            elif board.live:
                board.problem = "Could not start its tournament game: %s" % exc
                # its line is away or silent (a request fails at once between the line's drop
                # and the board's `gone`): no deal to it until it answers again (ready, or a
                # heartbeat's state), or deal_all below deals to it again at once, and again
                # (a RecursionError that cut the dealer's work short, seen under bench load)
                board.live = False
        self.changed(key)
        self.deal_all()

    def _give_back(self, game: Game) -> None:
        assert self.tournament is not None
        self.tournament.give_back(game)
        self.journal.dealt(self._tid(), game, None)

    def _again(self, key: str, why: str) -> None:
        """The board's game is lost to it: deal it again (to this board, first in line)."""
        entry = self.deals.pop(key, None)
        if entry is not None:
            self._give_back(entry[0])
        self._board(key).problem = why
        self.changed(key)
        self.deal(key)

    def _started(self, key: str, board_game: int | None) -> None:
        game, deal = self.deals[key]
        deal.game = UNKNOWN if board_game is None else board_game
        self.journal.dealt(self._tid(), game, deal)
        self.changed(key)   # the tile's game is the dealt one now (a bot's turn may start)

    def _finish(self, key: str, places: list[int], stores: list[int],
                game: int | None = None) -> None:
        with self.lock:
            entry = self.deals.get(key)
            t = self.tournament
            if entry is None or t is None or (game is not None and entry[1].game != game):
                return
            g = entry[0]
            if len(places) != 2 or len(stores) != 2:
                return
            del self.deals[key]
            self.ended[key] = {"id": self.tid, "round": g.round, "players": list(g.names)}
            self._board(key).finished = list(g.names)  # the tile names them until a new game
            following = t.finish(g, places, stores)
            self.journal.finished(self._tid(), g, following)
            self._board(key).problem = ""
        self.changed(key)
        self.changed("")
        self.deal_all()

    def _tid(self) -> int:
        assert self.tid is not None
        return self.tid
