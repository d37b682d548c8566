"""The hub's Kalah Game Protocol server (KGP 1.0.0, `freeplay` mode): students' bots join the
room as players, and where a bot is to move on a board the hub asks it and presses its pit.

    mancala-board class --kgp-port 2671 --kgp-time 5 --kgp-grace 60 --kgp-no-move random

A connection (asyncio, on the hub's loop):
- the hub sends `kgp 1 0 0`; the bot may `set info:name "..."` (and info:authors,
  info:description), then sends `mode freeplay` and is a player of the room under that name
  (or `bot-N`, which the hub gives it). Off loopback (`--host`) it first sends
  `set auth:token "<the hub's token>"`, or it is refused.
- where the bot is to move on a board, the hub sends `set game:id`, `set game:opponent`,
  `set time:mode relative`, `set time:clock S` and `ID state <board>` from the bot's side as
  south; the bot answers `@ID move n` (as often as it likes) and `@ID yield`; at the yield or at
  the time limit the hub sends `ID2@ID stop` and presses the last pit on the board, which
  sows it (the rings animate it) or refuses it. A refused pit gets `@ID error` and the bot is
  asked again with the time left. No legal pit by the limit: a random legal pit (the
  specification's rule) or the bot resigns that game (`--kgp-no-move forfeit`).
- a bot that drops may come back under the same name within the grace period and goes on;
  past it, it forfeits the game it is to move in (that game only).
- `ping` gets `pong`; the hub pings every PING_S and closes a line that has not answered two.
  A line that is not a command gets `error` and the line stays; a line over MAX_LINE bytes, or
  more lines than FLOOD_RATE a second (beyond a FLOOD_BURST), gets `error`, `goodbye` and is
  closed. The hub runs no student code: a bot is a process of its own.

The room tells this module about its boards through `tile(key, tile)` (any thread); the hub
asks the board through Room.press and Room.resign, and knows which tournament entries are bots
from the tournament (`Name=bot`).
"""

from __future__ import annotations

import asyncio
import functools
import hmac
import json
import random
import time
from typing import Any, Callable

from ..bots import wire
from ..errors import BoardError

DEFAULT_PORT = 2671
MOVE_S = 5.0          # the class's time for one move
GRACE_S = 60.0        # how long a dropped bot may take to come back
PING_S = 15.0
FLOOD_RATE = 50.0     # lines a second, on average
FLOOD_BURST = 400.0   # lines at once
LINGER_S = 2.0        # how long a cut line is read (and dropped) before it closes
MAX_BOTS = 128
MAX_NAME = 40
NO_MOVE = ("random", "forfeit")


class Gone(Exception):
    """The bot's line closed while it was asked."""


def name_problem(name: str) -> str | None:
    if not name.strip() or len(name) > MAX_NAME:
        return "A bot's name has 1 to %d characters." % MAX_NAME
    if any(ord(c) < 32 or ord(c) == 127 for c in name) or "=" in name or name != name.strip():
        return "A bot's name has no control characters, no '=' and no spaces at its ends."
    if name == "CPU":
        return "CPU is the name of the hub's own player."
    return None


class Ask:
    def __init__(self, ident: int, board: wire.Board) -> None:
        self.id, self.board = ident, board
        self.move: int | None = None
        self.done: asyncio.Future[int | None] = asyncio.get_running_loop().create_future()


class Session:
    """One bot's TCP line."""

    def __init__(self, lobby: Lobby, reader: asyncio.StreamReader,
                 writer: asyncio.StreamWriter) -> None:
        self.lobby, self.reader, self.writer = lobby, reader, writer
        self.name: str | None = None
        self.info: dict[str, str] = {}
        self.token_ok = lobby.token is None
        self.joined = False
        self.asks: dict[int, Ask] = {}
        self.sent = 0            # the last id this side used
        self.asked: set[int] = set()
        self.last_ask: int | None = None
        self.allowance, self.stamp = FLOOD_BURST, time.monotonic()
        self.pinged: list[float] = []
        self.closed = False

    def send(self, name: str, *args: Any, ref: int | None = None, with_id: bool = False) -> int:
        ident = None
        if with_id:
            self.sent += 2
            ident = self.sent
        if not self.closed:
            self.writer.write(wire.line(name, *args, id=ident, ref=ref).encode())
        return ident or 0

    async def run(self) -> None:
        self.send("kgp", *wire.VERSION)
        pinger = asyncio.ensure_future(self._ping())
        try:
            while not self.closed:
                try:
                    raw = await self.reader.readuntil(b"\n")
                except asyncio.LimitOverrunError:
                    await self._cut("The line is longer than %d bytes." % wire.MAX_LINE)
                    break
                except (asyncio.IncompleteReadError, ConnectionError):
                    break
                if not self._allowed():
                    await self._cut("More than %d lines a second: the line is closed."
                                    % FLOOD_RATE)
                    break
                try:
                    cmd = wire.parse(raw.decode("utf-8"))
                except UnicodeDecodeError:
                    self.send("error", "The line is not UTF-8.")
                    continue
                except wire.BadLine as exc:
                    self.send("error", str(exc))
                    continue
                await self._take(cmd)
                await self.writer.drain()
        except ConnectionError:
            pass
        finally:
            pinger.cancel()
            self.closed = True
            for ask in self.asks.values():
                if not ask.done.done():
                    ask.done.set_exception(Gone())
                    ask.done.exception()   # taken by the ask that awaits it, if any
            self.lobby.left(self)
            self.writer.close()

    def _allowed(self) -> bool:
        now = time.monotonic()
        self.allowance = min(FLOOD_BURST, self.allowance + (now - self.stamp) * FLOOD_RATE)
        self.stamp = now
        self.allowance -= 1
        return self.allowance >= 0

    async def _cut(self, why: str) -> None:
        """Say why, then close the line so that the bot reads the why: the hub stops
        writing and reads (and drops) what the bot still sends for up to LINGER_S. A socket
        closed with unread input sends a reset, which throws away the bot's unread lines."""
        self.send("error", why)
        self.send("goodbye")
        self.closed = True
        try:
            await asyncio.wait_for(self._linger(), LINGER_S)
        except (asyncio.TimeoutError, ConnectionError):
            pass

    async def _linger(self) -> None:
        await self.writer.drain()
        if self.writer.can_write_eof():
            self.writer.write_eof()
        while await self.reader.read(65536):
            pass

    async def _ping(self) -> None:
        while not self.closed:
            await asyncio.sleep(PING_S)
            if len(self.pinged) >= 2:
                # run() is reading this line: no lingering read from here
                self.send("error", "No pong to two pings: the line is closed.")
                self.send("goodbye")
                self.closed = True
                self.writer.close()
                return
            self.pinged.append(time.monotonic())
            self.send("ping", with_id=True)

    async def _take(self, cmd: wire.Command) -> None:
        name, args = cmd.name, cmd.args
        if name == "pong":
            self.pinged.clear()
        elif name == "ping":
            self.send("pong", ref=cmd.id)
        elif name == "goodbye":
            self.closed = True
        elif name == "set":
            self._set(cmd)
        elif name == "mode":
            await self._mode(cmd)
        elif name in ("move", "yield"):
            self._answer(cmd)
        elif name in ("ok", "error"):
            pass
        else:
            self.send("error", "The hub does not take %s (freeplay: move, yield, set, ping, "
                               "pong, goodbye)." % name[:20], ref=cmd.id)

    def _set(self, cmd: wire.Command) -> None:
        if len(cmd.args) != 2 or not isinstance(cmd.args[0], str):
            self.send("error", "set takes an option and a value.", ref=cmd.id)
            return
        option, value = cmd.args[0], cmd.args[1]
        if option == "auth:token" and self.lobby.token is not None:
            self.token_ok = isinstance(value, str) and hmac.compare_digest(
                value.encode(), self.lobby.token.encode())
        elif option == "info:name":
            if self.joined:
                self.send("error", "The name is set before mode freeplay.", ref=cmd.id)
            else:
                self.name = str(value)
        elif option in ("info:authors", "info:description", "info:comment"):
            self.info[option[5:]] = str(value)[:200]
        # any other option is a hint the hub does not use (the specification: not an error)

    async def _mode(self, cmd: wire.Command) -> None:
        if self.joined:
            self.send("error", "The mode is chosen once.", ref=cmd.id)
            return
        if cmd.args != ("freeplay",):
            await self._cut("Unsupported activity: the hub plays freeplay.")
            return
        if not self.token_ok:
            await self._cut("This class needs its token: send set auth:token \"TOKEN\" before "
                            "mode freeplay (the hub prints the token at start).")
            return
        problem = self.lobby.join(self)
        if problem:
            await self._cut(problem)
            return
        self.joined = True

    def _answer(self, cmd: wire.Command) -> None:
        ref = cmd.ref
        if ref is None and len(self.asks) == 1:
            ref = next(iter(self.asks))
        ask = self.asks.get(ref) if ref is not None else None
        if ask is None:
            if ref not in self.asked:
                self.send("error", "%s refers to no state the hub sent." % cmd.name, ref=cmd.id)
            return   # after stop: ignored, as the specification says
        if cmd.name == "yield":
            self._stop(ask)
            return
        pit = cmd.args[0] if len(cmd.args) == 1 else None
        if not isinstance(pit, int) or isinstance(pit, bool) or not 1 <= pit <= len(ask.board.south):
            self.send("error", "move takes a pit from 1 to %d." % len(ask.board.south), ref=cmd.id)
            return
        ask.move = pit

    def _stop(self, ask: Ask) -> None:
        if self.asks.pop(ask.id, None) is not None:
            self.send("stop", with_id=True, ref=ask.id)
            if not ask.done.done():
                ask.done.set_result(ask.move)

    async def ask(self, board: wire.Board, limit: float, game: str, opponent: str) -> int | None:
        """The bot's pit for board (None: it sent none) at its yield or at the limit; Gone if
        its line closes first."""
        if self.closed:
            raise Gone()
        self.send("set", "game:id", game)
        self.send("set", "game:opponent", opponent)
        self.send("set", "time:mode", "relative")
        self.send("set", "time:clock", max(1, int(limit)))
        ident = self.send("state", board, with_id=True)
        ask = self.asks[ident] = Ask(ident, board)
        self.asked.add(ident)
        self.last_ask = ident
        try:
            return await asyncio.wait_for(asyncio.shield(ask.done), limit)
        except asyncio.TimeoutError:
            self._stop(ask)
            return ask.move
        finally:
            self.asks.pop(ident, None)

    def refused(self, ident: int | None, why: str) -> None:
        self.send("error", why, ref=ident)


class Bot:
    def __init__(self, name: str) -> None:
        self.name = name
        self.session: Session | None = None
        self.since = time.time()
        self.left: float | None = None   # loop time it dropped
        self.back = asyncio.Event()
        self.moves = self.refused = self.late = self.forfeits = 0


class Lobby:
    """The bots of the room and their turns on the boards."""

    def __init__(self, room: Any, token: str | None = None, move_s: float = MOVE_S,
                 grace_s: float = GRACE_S, no_move: str = "random") -> None:
        if no_move not in NO_MOVE:
            raise BoardError("--kgp-no-move is random or forfeit, not %r." % no_move)
        self.room, self.token = room, token
        self.move_s, self.grace_s, self.no_move = move_s, grace_s, no_move
        self.bots: dict[str, Bot] = {}
        self.given = 0
        self.loop: asyncio.AbstractEventLoop | None = None
        self.server: asyncio.AbstractServer | None = None
        self.port = 0
        self.latest: dict[str, dict[str, Any]] = {}
        self.drivers: dict[str, asyncio.Task] = {}
        self.done: dict[str, str] = {}       # board key -> the state it last pressed in
        self.sessions: set[Session] = set()
        self.on_change: Callable[[], None] = lambda: None
        self.closing = False
        self.press_ms: list[float] = []   # from a bot's answer to the board's press answer

    # -- the server -----------------------------------------------------------------------
    async def start(self, host: str, port: int) -> None:
        self.loop = asyncio.get_running_loop()
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
            bot.session, bot.left = None, asyncio.get_running_loop().time()
            bot.back.clear()
            self.on_change()

    # -- the page -------------------------------------------------------------------------
    def listing(self) -> dict[str, Any]:
        now = asyncio.get_running_loop().time() if self.loop else 0
        bots = []
        for b in sorted(self.bots.values(), key=lambda b: b.name.lower()):
            s = b.session
            bots.append({"name": b.name, "connected": s is not None,
                         "authors": s.info.get("authors", "") if s else "",
                         "description": s.info.get("description", "") if s else "",
                         "grace_left": None if b.left is None else
                         max(0.0, round(self.grace_s - (now - b.left), 1)),
                         "moves": b.moves, "refused": b.refused, "late": b.late,
                         "forfeits": b.forfeits})
        ms = sorted(self.press_ms)
        press = {"n": len(ms), "median": ms[len(ms) // 2] if ms else None,
                 "max": ms[-1] if ms else None}
        return {"port": self.port, "move_s": self.move_s, "press_ms": press, "grace_s": self.grace_s,
                "no_move": self.no_move, "bots": bots}

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
        if key in self.drivers:
            return
        turn = self._bot_to_move(tile)
        if turn is None or self.done.get(key) == _same(tile["state"]):
            return
        task = asyncio.ensure_future(self._drive(key, tile["state"], *turn))
        self.drivers[key] = task
        task.add_done_callback(functools.partial(self._driven, key))

    def _driven(self, key: str, _task: Any = None) -> None:
        self.drivers.pop(key, None)
        if key in self.latest:
            self._tile(key, self.latest[key])

    def _current(self, key: str, state: dict[str, Any]) -> bool:
        tile = self.latest.get(key) or {}
        return tile.get("status") == "live" and _same(tile.get("state") or {}) == _same(state)

    async def _drive(self, key: str, state: dict[str, Any], seat: int, name: str,
                     opponent: str) -> None:
        loop = asyncio.get_running_loop()
        bot = self.bots.get(name)
        if bot is None:
            bot = self.bots[name] = Bot(name)
            bot.left = loop.time()    # listed in the tournament, never seen: the grace runs
        board = wire.board_of(state, seat)
        game = "%s/%s" % (key, (self.latest.get(key) or {}).get("games", ""))
        while True:
            if bot.session is None:
                wait = self.grace_s - (loop.time() - (bot.left or loop.time()))
                try:
                    await asyncio.wait_for(bot.back.wait(), max(0.0, wait))
                except asyncio.TimeoutError:
                    if self._current(key, state):
                        await self._forfeit(key, state, seat, bot, "did not come back in time")
                    return
                continue
            session = bot.session
            deadline = loop.time() + self.move_s
            pit: int | None = None
            while True:
                try:
                    pit = await session.ask(board, max(0.05, deadline - loop.time()), game,
                                            opponent)
                except Gone:
                    break
                if not self._current(key, state):
                    return          # the game moved on without the bot (a new game, a reset)
                if pit is None:
                    bot.late += 1
                    await self._no_move(key, state, seat, bot)
                    return
                answered = loop.time()
                why = await self._press(key, seat, pit, state)
                if why is None:
                    self.press_ms = (self.press_ms + [(loop.time() - answered) * 1000])[-10000:]
                    bot.moves += 1
                    self.on_change()
                    return
                bot.refused += 1
                session.refused(session.last_ask, "The board refused pit %d: %s" % (pit, why))
                if deadline - loop.time() <= 0:
                    await self._no_move(key, state, seat, bot)
                    return
            # dropped while asked: wait for it to come back (the grace), then ask again

    async def _press(self, key: str, seat: int, pit: int, state: dict[str, Any]) -> str | None:
        """None when the board played the pit, else its reason."""
        self.done[key] = _same(state)
        try:
            await asyncio.wrap_future(self.room.press(key, seat, pit))
        except BoardError as exc:
            self.done.pop(key, None)
            return getattr(exc, "board_message", None) or str(exc)
        return None

    async def _no_move(self, key: str, state: dict[str, Any], seat: int, bot: Bot) -> None:
        if self.no_move == "forfeit":
            await self._forfeit(key, state, seat, bot, "had no legal move by the time limit")
            return
        legal = [i + 1 for i, n in enumerate(state["pits"][seat]) if n]
        # seeded by the position, so a replayed class makes the same choice
        rng = random.Random(json.dumps([key, state["pits"], state["stores"]]))
        if legal:
            await self._press(key, seat, rng.choice(legal), state)

    async def _forfeit(self, key: str, state: dict[str, Any], seat: int, bot: Bot,
                       why: str) -> None:
        self.done[key] = _same(state)
        bot.forfeits += 1
        self.on_change()
        try:
            await asyncio.wrap_future(self.room.resign(key, seat))
        except BoardError:
            self.done.pop(key, None)


def _same(state: dict[str, Any]) -> str:
    """What makes two states the same position to a bot (a heartbeat's answer and an event
    may carry other fields)."""
    return json.dumps([state.get(k) for k in ("pits", "stores", "turn", "over")])
