"""A bot's turn on a board: the hub asks the bot (a KGP `state`), takes its last `move` at its
`yield` or at the time limit (`stop`), and presses that pit on the board.

- The hub sends `set game:id`, `set game:opponent`, `set time:mode relative`,
  `set time:clock S` and `ID state <board>` from the bot's side as south; the bot answers
  `@ID move n` (as often as it likes) and `@ID yield`; at the yield or at the time limit the
  hub sends `ID2@ID stop` and presses the last pit on the board, which sows it (the rings
  animate it) or refuses it. A refused pit gets `@ID error` and the bot is asked again with
  the time left.
- No legal pit by the limit: a random legal pit (the specification's rule) or the bot resigns
  that game (`forfeit`).
- A bot that dropped may come back under the same name within the grace period and goes on;
  past it, it forfeits the game it is to move in (that game only). Each game gives it its own
  grace (kgp.Lobby.grace_end), so a bot that comes back plays its next game.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from typing import Any

from ..bots import wire
from ..errors import BoardError
from .kgpline import Line


class Gone(Exception):
    """The bot's line closed while it was asked."""


class Ask:
    def __init__(self, ident: int, board: wire.Board) -> None:
        self.id, self.board = ident, board
        self.move: int | None = None
        self.done: asyncio.Future[int | None] = asyncio.get_running_loop().create_future()


class Session(Line):
    """A bot's line, and the states it is asked."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.asks: dict[int, Ask] = {}
        self.asked: set[int] = set()
        self.last_ask: int | None = None

    def lost(self) -> None:
        for ask in self.asks.values():
            if not ask.done.done():
                ask.done.set_exception(Gone())
                ask.done.exception()   # taken by the ask that awaits it, if any

    def answered(self, cmd: wire.Command) -> None:
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
        self.waiting: set[str] = set()   # the boards whose games wait for it to come back
        self.moves = self.refused = self.late = self.forfeits = 0


class Turn:
    """One position where a bot is to move on a board (key), driven to a press, a random pit
    or a forfeit. `lobby` is kgp.Lobby: its room, bots, rules in force and what the boards
    show now."""

    def __init__(self, lobby: Any, key: str, state: dict[str, Any], seat: int, name: str,
                 opponent: str) -> None:
        self.lobby, self.key, self.state = lobby, key, state
        self.seat, self.name, self.opponent = seat, name, opponent

    async def run(self) -> None:
        lobby, key, state, seat = self.lobby, self.key, self.state, self.seat
        loop = asyncio.get_running_loop()
        bot = lobby.bots.get(self.name)
        if bot is None:   # listed in the tournament, never seen: the game's grace runs
            bot = lobby.bots[self.name] = Bot(self.name)
        board = wire.board_of(state, seat)
        game = "%s/%s" % (key, (lobby.latest.get(key) or {}).get("games", ""))
        while True:
            if bot.session is None:
                if not await lobby.came_back(bot, key):
                    if lobby.current(key, state):
                        await self._forfeit(bot, "did not come back in time")
                    return
                continue
            session = bot.session
            deadline = loop.time() + lobby.move_s
            pit: int | None = None
            while True:
                try:
                    pit = await session.ask(board, max(0.05, deadline - loop.time()), game,
                                            self.opponent)
                except Gone:
                    break
                if not lobby.current(key, state):
                    return          # the game moved on without the bot (a new game, a reset)
                if pit is None:
                    bot.late += 1
                    await self._no_move(bot)
                    return
                answered = loop.time()
                why = await self._press(pit)
                if why is None:
                    lobby.press_ms = (lobby.press_ms + [(loop.time() - answered) * 1000])[-10000:]
                    bot.moves += 1
                    lobby.on_change()
                    return
                bot.refused += 1
                session.refused(session.last_ask, "The board refused pit %d: %s" % (pit, why))
                if deadline - loop.time() <= 0:
                    await self._no_move(bot)
                    return
            # dropped while asked: wait for it to come back (the grace), then ask again

    async def _press(self, pit: int) -> str | None:
        """None when the board played the pit, else its reason."""
        lobby = self.lobby
        lobby.done[self.key] = lobby.position(self.key, self.state)
        try:
            await asyncio.wrap_future(lobby.room.press(self.key, self.seat, pit))
        except BoardError as exc:
            lobby.done.pop(self.key, None)
            return getattr(exc, "board_message", None) or str(exc)
        return None

    async def _no_move(self, bot: Bot) -> None:
        if self.lobby.no_move == "forfeit":
            await self._forfeit(bot, "had no legal move by the time limit")
            return
        state = self.state
        legal = [i + 1 for i, n in enumerate(state["pits"][self.seat]) if n]
        # seeded by the position, so a replayed class makes the same choice
        rng = random.Random(json.dumps([self.key, state["pits"], state["stores"]]))
        if legal:
            await self._press(rng.choice(legal))

    async def _forfeit(self, bot: Bot, why: str) -> None:
        lobby = self.lobby
        lobby.done[self.key] = lobby.position(self.key, self.state)
        bot.forfeits += 1
        lobby.on_change()
        try:
            await asyncio.wrap_future(lobby.room.resign(self.key, self.seat))
        except BoardError:
            lobby.done.pop(self.key, None)


def same(state: dict[str, Any]) -> str:
    """What makes two states the same position to a bot (a heartbeat's answer and an event
    may carry other fields)."""
    return json.dumps([state.get(k) for k in ("pits", "stores", "turn", "over")])
