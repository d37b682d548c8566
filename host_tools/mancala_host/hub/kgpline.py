"""One bot's line to the hub's KGP server (kgp.py): reading and writing KGP lines, and keeping
the hub safe from what a bot sends.

- the hub sends `kgp 1 0 0`; the bot may `set info:name "..."` (and info:authors,
  info:description), then sends `mode freeplay` and the lobby makes it a player. Off loopback
  (`--host`) it first sends `set auth:token "<the hub's token>"`, or it is refused.
- `ping` gets `pong`; the hub pings every PING_S and closes a line that has not answered two.
- A line that is not a command gets `error` and the line stays. A line over wire.MAX_LINE
  bytes, or more lines than FLOOD_RATE a second (beyond a FLOOD_BURST), gets `error`,
  `goodbye`, and the line is closed after lingering (`_cut`).

`move` and `yield` go to `answered` (kgpturn.Session's: the bot's answers to a state).
"""

from __future__ import annotations

import asyncio
import hmac
import time
from typing import Any, Protocol

from ..bots import wire

PING_S = 15.0
FLOOD_RATE = 50.0     # lines a second, on average
FLOOD_BURST = 400.0   # lines at once
LINGER_S = 2.0        # how long a cut line is read (and dropped) before it closes


class Door(Protocol):
    """What a line asks of the lobby (kgp.Lobby is one)."""

    token: str | None

    def join(self, line: Any) -> str | None: ...

    def left(self, line: Any) -> None: ...


class Line:
    """One bot's TCP line: its name and the hub's side of the conversation."""

    def __init__(self, lobby: Door, reader: asyncio.StreamReader,
                 writer: asyncio.StreamWriter) -> None:
        self.lobby, self.reader, self.writer = lobby, reader, writer
        self.name: str | None = None
        self.info: dict[str, str] = {}
        self.token_ok = lobby.token is None
        self.joined = False
        self.sent = 0            # the last id this side used
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
            self.lost()
            self.lobby.left(self)
            self.writer.close()

    def answered(self, cmd: wire.Command) -> None:
        """A `move` or `yield` from the bot."""

    def lost(self) -> None:
        """The line has closed."""

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
        name = cmd.name
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
            self.answered(cmd)
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
