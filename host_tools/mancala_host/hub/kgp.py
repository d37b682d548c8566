"""The hub's Kalah Game Protocol server (KGP 1.0.0, `freeplay` mode): students' bots join the
room as players, and where a bot is to move on a board the hub asks it and presses its pit.

    mancala-board class --kgp-port 2671 --kgp-time 5 --kgp-grace 60 --kgp-no-move random

The lobby keeps the room's bots by name and watches the boards: where a tournament's bot
entry is to move, it drives that turn (kgpturn.Turn: `state`, `move`/`yield`, `stop`, the
press on the board, the rule for no move, the grace). Each bot's line is a kgpturn.Session
(kgpline.Line: the KGP lines, names and tokens, pings, floods and over-long lines). The hub
runs no student code: a bot is a process of its own.

The room tells this module about its boards through `tile(key, tile)` (any thread); the hub
asks the board through Room.press and Room.resign, and knows which tournament entries are bots
from the tournament (`Name=bot`).
"""

from __future__ import annotations

import asyncio
import functools
import time
from typing import Any, Callable

from ..bots import wire
from ..errors import BoardError
from .kgpturn import Bot, Session, Turn, same

DEFAULT_PORT = 2671
MOVE_S = 5.0          # the class's time for one move
GRACE_S = 60.0        # how long a dropped bot may take to come back
MAX_BOTS = 128
MAX_NAME = 40
NO_MOVE = ("random", "forfeit")
MOVE_RANGE = (0.5, 600.0)
GRACE_RANGE = (0.0, 3600.0)
JOURNAL_KEY = "bots"   # the rules set on the page, in the journal's settings


def name_problem(name: str) -> str | None:
    if not name.strip() or len(name) > MAX_NAME:
        return "A bot's name has 1 to %d characters." % MAX_NAME
    if any(ord(c) < 32 or ord(c) == 127 for c in name) or "=" in name or name != name.strip():
        return "A bot's name has no control characters, no '=' and no spaces at its ends."
    if name == "CPU":
        return "CPU is the name of the hub's own player."
    return None


class Lobby:
    """The bots of the room and their turns on the boards."""

    def __init__(self, room: Any, token: str | None = None, move_s: float = MOVE_S,
                 grace_s: float = GRACE_S, no_move: str = "random") -> None:
        self.room, self.token = room, token
        self.move_s, self.grace_s, self.no_move = MOVE_S, GRACE_S, "random"
        self.set_rules(move_s, grace_s, no_move, keep=False)
        self.bots: dict[str, Bot] = {}
        self.given = 0
        self.loop: asyncio.AbstractEventLoop | None = None
        self.server: asyncio.AbstractServer | None = None
        self.port = 0
        self.latest: dict[str, dict[str, Any]] = {}
        self.drivers: dict[str, asyncio.Task] = {}
        self.done: dict[str, str] = {}       # board key -> the position it last pressed in
        self.sessions: set[Session] = set()
        self.on_change: Callable[[], None] = lambda: None
        self.closing = False
        self.press_ms: list[float] = []   # from a bot's answer to the board's press answer
        self.games: dict[str, tuple[Any, float]] = {}   # board key -> (its game, first seen)
        self.now: Callable[[], float] = time.monotonic   # the loop's clock once started

    # -- the rules in force -----------------------------------------------------------------
    def set_rules(self, move_s: float | None = None, grace_s: float | None = None,
                  no_move: str | None = None, keep: bool = True) -> dict[str, Any]:
        """The class's time for a move, the grace for a bot that dropped and the rule for no
        move (any thread: the page's POST /api/bots, checked by schema.BotRules). A turn asked
        already keeps its time; a bot's wait for a dropped bot takes the new grace at once.
        keep: into the journal, so a hub started again on the folder has them."""
        if move_s is not None and not MOVE_RANGE[0] <= move_s <= MOVE_RANGE[1]:
            raise BoardError("A bot's time for a move is %g to %g seconds, not %g."
                             % (MOVE_RANGE + (move_s,)))
        if grace_s is not None and not GRACE_RANGE[0] <= grace_s <= GRACE_RANGE[1]:
            raise BoardError("The grace for a bot that dropped is %g to %g seconds, not %g."
                             % (GRACE_RANGE + (grace_s,)))
        if no_move is not None and no_move not in NO_MOVE:
            raise BoardError("With no legal pit by the time limit a bot gets a random pit "
                             "(random) or forfeits (forfeit), not %r." % no_move)
        if move_s is not None:
            self.move_s = float(move_s)
        if grace_s is not None:
            self.grace_s = float(grace_s)
        if no_move is not None:
            self.no_move = no_move
        rules = self.rules()
        journal = getattr(self.room, "journal", None)
        if keep and journal is not None:
            journal.keep_setting(rules, key=JOURNAL_KEY)
        if keep:
            self.on_change()
        return rules

    def restore_rules(self, move_s: float | None = None, grace_s: float | None = None,
                      no_move: str | None = None) -> dict[str, Any]:
        """At start: the rules the page set last in this folder (the journal's), and over
        them the ones given (the command line's; None: not given)."""
        journal = getattr(self.room, "journal", None)
        kept = (journal.setting(JOURNAL_KEY) if journal is not None else None) or {}
        try:
            self.set_rules(kept.get("move_s"), kept.get("grace_s"), kept.get("no_move"),
                           keep=False)
        except BoardError:
            pass   # kept by a hub with other bounds: the defaults
        return self.set_rules(move_s, grace_s, no_move, keep=False)

    def rules(self) -> dict[str, Any]:
        return {"move_s": self.move_s, "grace_s": self.grace_s, "no_move": self.no_move}

    # -- the server -----------------------------------------------------------------------
    async def start(self, host: str, port: int) -> None:
        self.loop = asyncio.get_running_loop()
        self.now = self.loop.time
        try:
            self.server = await asyncio.start_server(self._connected, host, port,
                                                     limit=wire.MAX_LINE + 2)
        except OSError as exc:
            raise BoardError("Could not serve KGP on %s:%d: %s; choose another --kgp-port "
                             "(0: any free one)." % (host, port, exc.strerror or exc))
        self.port = self.server.sockets[0].getsockname()[1]
        told = self.room.on_change

        def both(key: str, tile: dict[str, Any]) -> None:
            told(key, tile)
            self.tile(key, tile)
        self.room.on_change = both
        self._poller = asyncio.ensure_future(self._poll())

    async def _poll(self) -> None:
        """Every board's tile once a second too, so a tile change that came before the hook
        (or a tournament's bot entry named after its deal) is seen."""
        while True:
            for tile in self.room.tiles():
                self._tile(tile["key"], tile)
            await asyncio.sleep(1.0)

    async def close(self) -> None:
        self.closing = True
        if getattr(self, "_poller", None) is not None:
            self._poller.cancel()
        if self.server is not None:
            self.server.close()
        for s in list(self.sessions):
            s.send("goodbye")
            s.closed = True
            s.writer.close()
        tasks = list(self.drivers.values()) + [getattr(self, "_poller", None)]
        for t in tasks:
            if t is not None:
                t.cancel()
        await asyncio.gather(*[t for t in tasks if t is not None], return_exceptions=True)

    async def _connected(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if len(self.sessions) >= MAX_BOTS:
            writer.write(wire.line("error", "The class has %d bots already." % MAX_BOTS).encode())
            writer.write(wire.line("goodbye").encode())
            writer.close()
            return
        session = Session(self, reader, writer)
        self.sessions.add(session)
        try:
            await session.run()
        finally:
            self.sessions.discard(session)

    def join(self, session: Session) -> str | None:
        if session.name is None:
            self.given += 1
            while "bot-%d" % self.given in self.bots:
                self.given += 1
            session.name = "bot-%d" % self.given
        problem = name_problem(session.name)
        if problem:
            return problem
        bot = self.bots.get(session.name)
        if bot is not None and bot.session is not None:
            return "A bot named %s is already in the class." % session.name
        if bot is None:
            if len(self.bots) >= MAX_BOTS:
                return "The class has %d bots already." % MAX_BOTS
            bot = self.bots[session.name] = Bot(session.name)
        bot.session, bot.left = session, None
        bot.back.set()
        self.on_change()
        return None

    def left(self, session: Session) -> None:
        bot = self.bots.get(session.name or "")
        if bot is not None and bot.session is session:
            bot.session, bot.left = None, self.now()
            bot.back.clear()
            self.on_change()

    # -- the page -------------------------------------------------------------------------
    def listing(self) -> dict[str, Any]:
        now = self.now()
        bots = []
        for b in sorted(self.bots.values(), key=lambda b: b.name.lower()):
            s = b.session
            # away: the grace left in the game that waits for it (the soonest), else since
            # it dropped
            ends = [self.grace_end(b, key) for key in b.waiting] or \
                ([] if b.left is None else [b.left + self.grace_s])
            bots.append({"name": b.name, "connected": s is not None,
                         "authors": s.info.get("authors", "") if s else "",
                         "description": s.info.get("description", "") if s else "",
                         "grace_left": None if s is not None or not ends else
                         max(0.0, round(min(ends) - now, 1)),
                         "moves": b.moves, "refused": b.refused, "late": b.late,
                         "forfeits": b.forfeits})
        ms = sorted(self.press_ms)
        press = {"n": len(ms), "median": ms[len(ms) // 2] if ms else None,
                 "max": ms[-1] if ms else None}
        return dict(self.rules(), port=self.port, press_ms=press, bots=bots)

    # -- the grace --------------------------------------------------------------------------
    def grace_end(self, bot: Bot, key: str) -> float:
        """When the bot's grace ends for the game on board key: each game gives a bot that is
        away its own grace, from its drop for the game it dropped in, else from when this
        lobby first saw the game (a bot that stays away forfeits each of its games after
        the grace, and may come back for any later game)."""
        seen = self.games.get(key)
        start = seen[1] if seen is not None else self.now()
        if bot.left is not None:
            start = max(start, bot.left)
        return start + self.grace_s

    async def came_back(self, bot: Bot, key: str) -> bool:
        """Wait for bot to join again within its grace for the game on board key. The end is
        read again every second, so a grace the teacher changes applies at once."""
        bot.waiting.add(key)
        try:
            while not bot.back.is_set():
                left = self.grace_end(bot, key) - self.now()
                if left <= 0:
                    return False
                try:
                    await asyncio.wait_for(bot.back.wait(), min(left, 1.0))
                except asyncio.TimeoutError:
                    pass
            return True
        finally:
            bot.waiting.discard(key)

    # -- the boards -----------------------------------------------------------------------
    def tile(self, key: str, tile: dict[str, Any]) -> None:
        """A board's tile changed (any thread)."""
        if self.loop is not None and key:
            self.loop.call_soon_threadsafe(self._tile, key, tile)

    def _bot_to_move(self, tile: dict[str, Any]) -> tuple[int, str, str] | None:
        state, players = tile.get("state"), tile.get("players")
        t = getattr(self.room, "tournament", None)
        if tile.get("status") != "live" or not state or not players or t is None:
            return None
        if tile.get("started") is False:
            return None     # dealt, and the board still shows the game before it
        seat = state.get("turn")
        if state.get("over") or seat not in (0, 1) or len(state.get("pits") or []) != 2:
            return None
        player = t.players.get(players[seat])
        if player is None or not getattr(player, "bot", False):
            return None
        return seat, players[seat], players[1 - seat]

    def _tile(self, key: str, tile: dict[str, Any]) -> None:
        if self.closing:
            return
        before = self.latest.get(key)
        if before is not None and tile.get("seq", 0) < before.get("seq", 0):
            return     # an older tile queued before the one the poll read: not news
        self.latest[key] = tile
        game = (tile.get("games"), tuple(tile.get("players") or ()))
        if self.games.get(key, (None,))[0] != game:
            self.games[key] = (game, self.now())
        if key in self.drivers:
            return
        turn = self._bot_to_move(tile)
        if turn is None or self.done.get(key) == self.position(key, tile["state"]):
            return
        task = asyncio.ensure_future(Turn(self, key, tile["state"], *turn).run())
        self.drivers[key] = task
        task.add_done_callback(functools.partial(self._driven, key))

    def _driven(self, key: str, _task: Any = None) -> None:
        self.drivers.pop(key, None)
        if key in self.latest:
            self._tile(key, self.latest[key])

    def position(self, key: str, state: dict[str, Any]) -> str:
        """The state in the board's game as this lobby knows it: a turn played (or forfeited)
        in a position is not asked again, but the same position in a later game is (a next
        game's opening, after a forfeit at the opening)."""
        return repr((self.games.get(key, (None,))[0], same(state)))

    def current(self, key: str, state: dict[str, Any]) -> bool:
        """Whether the board still shows state (the turn is still to be played)."""
        tile = self.latest.get(key) or {}
        return tile.get("status") == "live" and same(tile.get("state") or {}) == same(state)
