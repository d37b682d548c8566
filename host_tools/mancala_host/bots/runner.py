"""A student's bot: one function, `choose(position) -> pit`, in a file of its own.

    def choose(position):
        return position.legal_moves()[0]

`position` is a Position: the board from the bot's side, the bot to move.
- `pits`: the bot's pits, pit 1 first (pit 1 is the one farthest from its store);
- `their_pits`: the opponent's pits, their pit 1 first (it faces the bot's last pit);
- `store`, `their_store`: the stones in each store;
- `legal_moves()`: the pits it may play (1 to 6), ascending;
- `play(pit)`: (the Position after that move from the side of whoever moves next, and
  whether the bot moves again) -- for a search; `over` and `score()` (the store difference,
  the bot's minus the opponent's) say where a line of play ends.
The rules are Kalah (6 pits, a capture needs a non-empty opposite pit), the engine's own.

`Bot(path)` loads the file; `bot.move(position, seconds)` calls `choose` and answers the pit,
or raises BotError with one sentence that names the position (an exception, a pit that is not
legal, an answer later than the time). The runner (`play_hub`, `play_local`) is the only
network or CPU code a student needs.
"""

from __future__ import annotations

import os
import runpy
import socket
import threading
from typing import Any, Callable

from ..errors import MancalaError
from . import wire

RULES = {"variant": "kalah", "players": 2, "pits": 6, "seeds": 4, "capture": "nonempty",
         "wipeout_capture": True}


class BotError(MancalaError):
    """What the student's bot did wrong, in one sentence."""


class Position:
    def __init__(self, pits, their_pits, store: int = 0, their_store: int = 0) -> None:
        self.pits, self.their_pits = list(pits), list(their_pits)
        self.store, self.their_store = store, their_store

    @classmethod
    def from_board(cls, board: wire.Board) -> Position:
        return cls(board.south, board.north, board.south_store, board.north_store)

    def _game(self) -> Any:
        from mancala import Game
        # the seeds a pit had at the start: every stone is still on the board or in a store
        stones = sum(self.pits) + sum(self.their_pits) + self.store + self.their_store
        rules = dict(RULES, pits=len(self.pits), seeds=stones // (2 * len(self.pits)))
        state = {"rules": rules, "pits": [self.pits, self.their_pits],
                 "stores": [self.store, self.their_store], "turn": 0, "active": [0, 1],
                 "places": [None, None], "over": False}
        return Game.from_dict(state)

    def legal_moves(self) -> list[int]:
        return [i + 1 for i, n in enumerate(self.pits) if n]

    @property
    def over(self) -> bool:
        return not self.legal_moves()

    def score(self) -> int:
        """The bot's store minus the opponent's (at the end: who won, and by how much)."""
        return self.store + (sum(self.pits) if self.over else 0) - self.their_store - \
            (sum(self.their_pits) if self.over else 0)

    def play(self, pit: int) -> tuple[Position, bool]:
        """(the Position after `pit`, from the side of the seat to move next; True when that
        is the bot again). At the end of the game the position has no legal moves."""
        game = self._game()
        game.play(pit)
        d = game.to_dict()
        me = 0 if game.over or game.turn == 0 else 1
        return Position(d["pits"][me], d["pits"][1 - me], d["stores"][me], d["stores"][1 - me]), me == 0

    def __repr__(self) -> str:
        return "pits %s, store %d; theirs %s, store %d" % (self.pits, self.store,
                                                           self.their_pits, self.their_store)


class Bot:
    def __init__(self, path: str) -> None:
        if not os.path.isfile(path):
            raise BotError("There is no bot file %s." % path)
        self.path, self.name = path, os.path.splitext(os.path.basename(path))[0]
        try:
            module = runpy.run_path(path)
        except BaseException as exc:   # the student's file, whatever it raises
            raise BotError("%s could not be loaded: %s." % (path, _what(exc)))
        choose = module.get("choose")
        if not callable(choose):
            raise BotError("%s has no function choose(position); write one that returns a pit."
                           % path)
        self.choose: Callable[[Position], Any] = choose

    def move(self, position: Position, seconds: float) -> int:
        box: dict[str, Any] = {}

        def call() -> None:
            try:
                box["pit"] = self.choose(Position(position.pits, position.their_pits,
                                                  position.store, position.their_store))
            except BaseException as exc:
                box["error"] = exc
        worker = threading.Thread(target=call, daemon=True)
        worker.start()
        worker.join(seconds)
        if worker.is_alive():
            raise BotError("choose() took more than %g s in the position %r." % (seconds, position))
        if "error" in box:
            raise BotError("choose() raised %s in the position %r." % (_what(box["error"]), position))
        pit, legal = box.get("pit"), position.legal_moves()
        if isinstance(pit, bool) or not isinstance(pit, int) or pit not in legal:
            raise BotError("choose() returned %r, not a legal pit (%s), in the position %r."
                           % (pit, ", ".join(map(str, legal)), position))
        return pit


def _what(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return "%s%s" % (type(exc).__name__, ": " + text if text else "")


# -- against the CPU, on this computer -------------------------------------------------------
def play_local(bot: Bot, level: int, games: int = 2, seconds: float = 5.0, seed: int = 1,
               say: Callable[[str], Any] = print) -> dict[str, Any]:
    """games against the CPU at `level` (the bot sows first in the even ones); the report,
    printed with say. A BotError ends the match."""
    from mancala import Game, Rules
    from mancala import cpu

    rules = Rules.from_dict(RULES)
    won = drawn = lost = 0
    for n in range(games):
        me = n % 2
        game = Game(rules)
        while not game.over:
            if game.turn == me:
                d = game.to_dict()
                pos = Position(d["pits"][me], d["pits"][1 - me], d["stores"][me], d["stores"][1 - me])
                game.play(bot.move(pos, seconds))
            else:
                game.play(cpu.choose_move(game, level, budget_ms=200, seed=seed + n,
                                          max_nodes=20000))
        d = game.to_dict()
        mine, theirs = d["stores"][me], d["stores"][1 - me]
        result = "won" if mine > theirs else "drew" if mine == theirs else "lost"
        won, drawn, lost = won + (result == "won"), drawn + (result == "drew"), lost + (result == "lost")
        say("Game %d (%s first): %s %d to %d against CPU level %d." % (
            n + 1, "the bot" if me == 0 else "the CPU", result, mine, theirs, level))
    say("%s: %d won, %d drawn, %d lost of %d against CPU level %d." % (bot.name, won, drawn, lost,
                                                                       games, level))
    return {"won": won, "drawn": drawn, "lost": lost}


# -- on a hub, over KGP ---------------------------------------------------------------------
def play_hub(bot: Bot, host: str, port: int, name: str, token: str | None = None,
             say: Callable[[str], Any] = print) -> int:
    """Join the hub's class under name and play every position it sends, until it says
    goodbye or closes the line. A BotError is said (one sentence) and the hub's rule plays
    for that move; the bot plays on."""
    try:
        sock = socket.create_connection((host, port), timeout=10)
    except OSError as exc:
        raise BotError("Could not reach the hub at %s:%d: %s." % (host, port, exc.strerror or exc))
    sock.settimeout(None)
    f = sock.makefile("rwb")

    def send(text: str) -> None:
        f.write(text.encode())
        f.flush()
    clock = 5.0
    first = True
    for raw in f:
        try:
            cmd = wire.parse(raw.decode("utf-8", "replace"))
        except wire.BadLine:
            continue
        if first:
            first = False
            if cmd.name != "kgp" or cmd.args[:1] != (1,):
                raise BotError("%s:%d does not speak KGP 1 (it sent %r)." % (host, port, raw[:40]))
            if token:
                send(wire.line("set", "auth:token", token))
            send(wire.line("set", "info:name", name))
            send(wire.line("mode", "freeplay"))
            say("%s joined the class at %s:%d." % (name, host, port))
        elif cmd.name == "ping":
            send(wire.line("pong", ref=cmd.id))
        elif cmd.name == "set" and cmd.args[:1] == ("time:clock",) and isinstance(cmd.args[1], int):
            clock = float(cmd.args[1])
        elif cmd.name == "state" and cmd.args and isinstance(cmd.args[0], wire.Board):
            pos = Position.from_board(cmd.args[0])
            try:
                pit = bot.move(pos, max(0.1, clock - 0.3))
            except BotError as exc:
                say(str(exc))
                continue
            send(wire.line("move", pit, ref=cmd.id))
            send(wire.line("yield", ref=cmd.id))
        elif cmd.name == "error":
            say("The hub: %s" % (str(cmd.args[0]) if cmd.args else "error"))
        elif cmd.name == "goodbye":
            break
    say("The hub closed the line.")
    return 0
