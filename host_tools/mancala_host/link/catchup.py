"""What a follower knows of a board's games, and how it catches up after a gap.

`GameSync` keeps the game under way (a `BoardGame`) from the board's events, and hands each
game over once it will be followed no further. It reaches the line through two callables
that the follower gives it: `ask(cmd, fields, answered, fail)` sends a request whose answer
comes back later on the same thread, `tell(method, *args)` calls the listeners, and
`wants(board_id, game_id)` asks them whether a game nobody followed is to be fetched.

Catching up, on protocol 2: `state` with `since` k answers the board's game id and its moves
from index k. A heartbeat asks from the number of moves known, and takes the answer when the
moves known and the board's agree with its position; anything else (another game, moves taken
back, a board that restarted) asks again from 0, and the game is rebuilt from the board's own
history. When the game id moved on, `games` lists the finished games the board keeps, and
`game` fetches the one that was under way and any that came and went in the gap. On
protocol 1 there is nothing to ask for: a game whose events were missed is handed over as far
as it was followed, and the listeners are told why.
"""

from __future__ import annotations

from typing import Any, Callable

from .boardgame import BoardGame, encode
from ..errors import BoardRefused

OLD_FIRMWARE = ("The board on %s runs firmware of protocol 1, which cannot hand over the moves "
                "a host missed, so %s: update its firmware (mancala-board deploy).")


class GameSync:
    def __init__(self, ask: Callable[..., None], tell: Callable[..., None],
                 wants: Callable[[str | None, int], bool]) -> None:
        self._ask, self._tell, self._wants = ask, tell, wants
        self.name = "?"
        self.protocol: int | None = None
        self.board_id: str | None = None
        self.game: BoardGame | None = None
        self.last_id: int | None = None  # the newest game id followed on this board
        self.syncing = 0                 # `state` answers awaited by a catch-up
        self._handed: set[tuple[str | None, int]] = set()

    def current(self) -> dict[str, Any] | None:
        return None if self.game is None else self.game.as_dict(self.board_id)

    # -- the line opened ----------------------------------------------------------------
    def connected(self, name: str, protocol: int | None, board_id: str | None) -> None:
        self.name, self.syncing = name, 0
        if self.game is not None and (board_id != self.board_id or protocol != self.protocol):
            left, self.game, self.last_id = self.game, None, None
            if not self._is_handed(left):
                self._note("The board on %s is not the one followed before (or it was wiped), "
                           "so its game is handed over as far as it was followed." % name)
                self._hand_over(left)
        self.protocol, self.board_id = protocol, board_id

    def catch_up(self, full: bool = True, fresh: bool = False, anyway: bool = False) -> None:
        """Ask the board's `state`: from move 0 when full, else from the moves known. Not
        while an answer is awaited, unless `fresh` (the line was just opened) or `anyway` (a
        stop: the answer must be newer than the stop)."""
        if self.syncing and not (fresh or anyway):
            return
        fields: dict[str, Any] = {}
        if self.protocol != 1:
            fields["since"] = 0 if full or self.game is None else len(self.game.moves)
        self.syncing += 1
        self._ask("state", fields, lambda a: self._synced(a, fresh),
                  lambda exc: self._unsynced(exc, fields.get("since")))

    def _unsynced(self, exc: BaseException, since: int | None) -> None:
        self.syncing = max(0, self.syncing - 1)
        if isinstance(exc, BoardRefused):
            if since:  # the board has fewer moves than were known (taken back): ask from 0
                self.catch_up(full=True)
            else:
                self._note("The board on %s refused to hand over its game (%s)." % (self.name, exc))

    # -- events -------------------------------------------------------------------------
    def take(self, ev: dict[str, Any]) -> None:
        """One event: into the game, then to the listeners, then a game it ended."""
        name, done = ev.get("event"), None
        if name == "new_game":
            done = self._new_game(ev)
        elif name in ("move", "resign", "undo"):
            done = self._move(ev)
        elif name == "boot":
            self.catch_up(full=True)  # it restarted: events may have been lost with the power
        self._tell("on_event", ev)
        if done is not None:
            self._hand_over(done)

    def _new_game(self, ev):
        gid, state, cur = ev.get("game"), ev.get("state"), self.game
        dropped = cur if cur is not None and cur.moves and not cur.over and \
            (gid is None or gid != cur.id) else None
        if dropped is not None:
            self._note("A new game was started on the board on %s before the one under way ended."
                       % self.name)
        prev, self.game = self.last_id, None
        try:
            self.game = BoardGame.from_start(gid, state, ev.get("first", state.get("turn")))
        except (ValueError, TypeError, KeyError, AttributeError):
            self.catch_up(full=True)
        if isinstance(gid, int):
            if prev is not None and gid < prev:
                self._wiped()
                prev = None
            self.last_id = gid
            if prev is not None and gid > prev + 1:  # games came and went unseen
                self._ask("games", {}, lambda a: self._listed(a, None, prev))
        return dropped

    def _move(self, ev):
        cur = self.game
        if cur is None or (self.protocol != 1 and ev.get("game") != cur.id):
            if self.protocol != 1:
                self.catch_up(full=True)
            return None
        was_over = cur.over
        try:
            cur.follow(ev)
        except ValueError as exc:
            if not self.syncing:
                if self.protocol == 1:
                    self._note(OLD_FIRMWARE % (self.name, "a game whose events did not fit (%s) "
                                               "is handed over as far as it was followed" % exc))
                    self.game = None
                    return None if self._is_handed(cur) else cur
                self.catch_up(full=True)
            return None
        if was_over and not cur.over:  # taken back after its end: it will end again
            cur.handed = False
            self._handed.discard((self.board_id, cur.id))
        return cur if cur.over and not self._is_handed(cur) else None

    # -- answers ------------------------------------------------------------------------
    def _synced(self, answer: dict[str, Any], fresh: bool) -> None:
        self.syncing = max(0, self.syncing - 1)
        if not isinstance(answer.get("state"), dict):
            return
        if self.protocol == 1:
            self._synced_old(answer, fresh)
        else:
            self._synced_new(answer, fresh)
        self._tell("on_state", answer)

    def _synced_new(self, answer, fresh):
        gid, cur = answer.get("game"), self.game
        since, history = answer.get("since"), answer.get("history")
        if not isinstance(history, str) or not isinstance(since, int):
            self._note("The board on %s did not hand over its moves." % self.name)
            return
        if cur is not None and cur.id == gid:
            if since > len(cur.moves):
                self.catch_up(full=True)
                return
            whole = dict(answer, history=encode(cur.moves[:since]) + history)
            try:
                game = BoardGame.from_board(whole, known=cur)
            except ValueError as exc:
                if since:  # the known moves do not lead there: ask for them all
                    self.catch_up(full=True)
                else:
                    self._note("The board's game on %s does not replay (%s); it is not followed."
                               % (self.name, exc))
                    self.game = None
                return
            game.handed = cur.handed and game.over and len(game.moves) == len(cur.moves)
            self.game = game
            if game.over and not self._is_handed(game):
                self._hand_over(game)
            return
        if since:  # another game than the one known: its moves from the start
            self.catch_up(full=True)
            return
        try:
            game = BoardGame.from_board(answer)
        except ValueError as exc:
            self._note("The board's game on %s does not replay (%s); it is not followed."
                       % (self.name, exc))
            return
        prev, left = self.last_id, cur
        self.game, self.last_id = game, gid
        if isinstance(gid, int) and prev is not None and gid < prev:
            prev = None  # the counter went back (a wiped board that kept its id)
            self._wiped()
        if game.over:  # ended before it was followed: handed over only if owed, and once
            if self._owed(gid, prev):
                self._hand_over(game)
            game.handed = True
        if left is not None or fresh:
            self._ask("games", {}, lambda a: self._listed(a, left, prev, gid))

    def _owed(self, gid, prev):
        """Whether a finished game this follower did not follow is to be handed over."""
        if (self.board_id, gid) in self._handed:
            return False
        if prev is not None and gid > prev:
            return True
        return self._wants(self.board_id, gid)

    def _synced_old(self, answer, fresh):
        state, moves, cur = answer["state"], answer.get("moves"), self.game
        if cur is not None and cur.state() == state and moves == len(cur.moves):
            return
        if cur is not None:
            self.game = None
            if not self._is_handed(cur):
                self._note(OLD_FIRMWARE % (self.name, "the game followed so far is handed over "
                                           "unfinished"))
                self._hand_over(cur)
        if moves == 0 and not state.get("over"):
            self.game = BoardGame.from_start(None, state, answer.get("first", state.get("turn")))
        elif fresh and moves and not state.get("over"):
            self._note(OLD_FIRMWARE % (self.name, "the game under way (%d moves) is not followed; "
                                       "games started from now on are" % moves))

    def _listed(self, answer, left, prev, current=None):
        ids: list[int] = sorted(g["game"] for g in answer.get("games") or []
                                if isinstance(g, dict) and isinstance(g.get("game"), int))
        for gid in ids:
            if gid == current or (self.board_id, gid) in self._handed:
                continue
            known = left if left is not None and left.id == gid else None
            if known is not None or self._owed(gid, prev):
                self._fetch(gid, known)
        if left is not None and left.id not in ids and not self._is_handed(left):
            if not left.over:
                self._note("The board on %s no longer keeps game %s, so it is handed over as far "
                           "as it was followed." % (self.name, left.id))
            self._hand_over(left)

    def _fetch(self, gid, known):
        def fetched(answer):
            try:
                game = BoardGame.from_board(answer, known=known)
            except ValueError as exc:
                self._note("Game %s of the board on %s does not replay (%s)." % (gid, self.name, exc))
                return
            if not self._is_handed(game):
                self._hand_over(game)

        def refused(exc):
            if known is not None and not self._is_handed(known):
                self._hand_over(known)

        self._ask("game", {"game": gid}, fetched, refused)

    # -- handing over -------------------------------------------------------------------
    def _wiped(self) -> None:
        """The board counts its games from 1 again: the ids handed over name old games."""
        self._handed = {k for k in self._handed if k[0] != self.board_id}

    def _note(self, text: str) -> None:
        self._tell("on_note", text)

    def _is_handed(self, game: BoardGame) -> bool:
        return game.handed or (game.id is not None and (self.board_id, game.id) in self._handed)

    def _hand_over(self, game: BoardGame) -> None:
        if not game.over and not game.moves:
            return  # left before its first move: there is nothing to hand over
        game.handed = game.over
        if game.over and game.id is not None:
            self._handed.add((self.board_id, game.id))
        self._tell("on_game", game.as_dict(self.board_id))
