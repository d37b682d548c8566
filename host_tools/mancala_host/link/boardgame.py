"""One game as a follower knows it: the board's id for it, its rules, first seat and starting
position, and its moves so far, each checked by the shared engine.

The board hands a game over as a `history` string, one character a move: "1".."7" is a play
of that pit by the seat to move, "A".."D" a resignation of seat 0..3 (docs/protocol.md).
`BoardGame.from_board` rebuilds a game from such an answer and checks that the engine reaches
the board's own state; moves the follower saw live keep their time (`t`) and `by`, moves that
were only handed over have neither. Nothing here is guessed: a history that does not replay
to the board's state is refused with a `ValueError`.
"""

from __future__ import annotations

import time
from typing import Any

RESIGN_CHARS = "ABCD"


def utc_now() -> str:
    """ISO 8601 UTC time to the second."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def _engine(rules: dict[str, Any], first: int, base: dict[str, Any] | None) -> Any:
    from mancala import Game, Rules

    if base is not None:
        return Game.from_dict(base)
    return Game(Rules.from_dict(rules), first=first)


def decode(history: str, engine: Any) -> list[dict[str, Any]]:
    """Play `history` on `engine`; the moves as the game log writes them (seat and pit, or
    seat and resign). ValueError names the first character that does not fit."""
    moves = []
    for i, ch in enumerate(history):
        seat = engine.turn
        if engine.over or seat is None:
            raise ValueError("move %d (%r) comes after the end of the game" % (i + 1, ch))
        if "1" <= ch <= "9":
            engine.play(int(ch))
            moves.append({"seat": seat, "pit": int(ch)})
        elif ch in RESIGN_CHARS:
            engine.resign(RESIGN_CHARS.index(ch))
            moves.append({"seat": RESIGN_CHARS.index(ch), "resign": True})
        else:
            raise ValueError("move %d is %r, which is no move" % (i + 1, ch))
    return moves


def encode(moves: list[dict[str, Any]]) -> str:
    """The history string of logged moves (the inverse of decode)."""
    return "".join(RESIGN_CHARS[m["seat"]] if m.get("resign") else str(m["pit"]) for m in moves)


def same_move(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Whether two logged moves are the same play or resignation (their t and by aside)."""
    return a.get("seat") == b.get("seat") and a.get("pit") == b.get("pit") and \
        bool(a.get("resign")) == bool(b.get("resign"))


def is_opening(state: dict[str, Any], first: int) -> bool:
    """Whether `state` is the opening position of its rules with `first` to move."""
    try:
        return _engine(state["rules"], first, None).to_dict() == state
    except (ValueError, TypeError, KeyError):
        return False


class BoardGame:
    """A game on one board, from its first move. `id` is the board's game id (None on a
    protocol-1 board)."""

    def __init__(self, game_id: int | None, rules: dict[str, Any], first: int,
                 base: dict[str, Any] | None = None, seen_start: bool = False) -> None:
        self.id = game_id
        self.rules = rules
        self.first = first
        self.base = base
        self.engine = _engine(rules, first, base)
        self.moves: list[dict[str, Any]] = []
        self.handed = False  # handed to the listeners as finished
        self.started = utc_now() if seen_start else None
        self.ended: str | None = None
        self._t0 = time.monotonic() if seen_start else None

    @classmethod
    def from_start(cls, game_id: int | None, state: dict[str, Any], first: int) -> BoardGame:
        """A game whose start the follower sees now (a new_game event, or a state with no moves)."""
        base = None if is_opening(state, first) else state
        game = cls(game_id, state["rules"], first, base, seen_start=True)
        if game.engine.to_dict() != state:
            raise ValueError("the board's new game is not a position of its rules")
        return game

    @classmethod
    def from_board(cls, answer: dict[str, Any], known: BoardGame | None = None) -> BoardGame:
        """The game of a `state` answer with `since` 0, or of a `game` answer: replayed from its
        start and checked against the board's state. The moves of `known` (the same game as
        followed live) that agree keep their `t` and `by`, and its start time is kept."""
        state = answer["state"]
        game = cls(answer.get("game"), state["rules"], answer["first"], answer.get("base"))
        game.moves = decode(answer.get("history") or "", game.engine)
        if game.engine.to_dict() != state:
            raise ValueError("the board's moves do not lead to its own position")
        if isinstance(answer.get("moves"), int) and answer["moves"] != len(game.moves):
            raise ValueError("the board counts %d moves but handed over %d"
                             % (answer["moves"], len(game.moves)))
        if known is not None and known.id == game.id:
            game.started, game._t0, game.ended = known.started, known._t0, known.ended
            for mine, theirs in zip(known.moves, game.moves):
                if not same_move(mine, theirs):
                    break
                theirs.update(mine)
        return game

    # -- live moves ---------------------------------------------------------------------
    def follow(self, ev: dict[str, Any]) -> None:
        """Take a move, resign or undo event; ValueError when it does not fit this game."""
        name, engine = ev.get("event"), self.engine
        try:
            if name == "move":
                if ev.get("seat") != engine.turn:
                    raise ValueError("seat %s moved, but it was seat %s's turn" % (ev.get("seat"), engine.turn))
                engine.play(ev["pit"])
                move = {"seat": ev["seat"], "pit": ev["pit"]}
                if ev.get("by"):
                    move["by"] = ev["by"]
            elif name == "resign":
                engine.resign(ev["seat"])
                move = {"seat": ev["seat"], "resign": True}
            else:
                engine.undo()
                self.moves.pop()
                self.ended = None
                self._check(ev)
                return
        except (KeyError, TypeError, IndexError) as exc:
            raise ValueError("its %s event is not whole (%s)" % (name, exc))
        if isinstance(ev.get("state"), dict) and ev["state"] != engine.to_dict():
            engine.undo()  # as it was: the catch-up starts from the moves that did fit
            raise ValueError("after its %s event the board's position differs from the engine's"
                             % name)
        if self._t0 is not None:
            move["t"] = round(time.monotonic() - self._t0, 1)
        self.moves.append(move)
        if engine.over:
            self.ended = utc_now()

    def _check(self, ev):
        if isinstance(ev.get("state"), dict) and ev["state"] != self.engine.to_dict():
            raise ValueError("after its %s event the board's position differs from the engine's"
                             % ev.get("event"))

    # -- what listeners get -------------------------------------------------------------
    @property
    def over(self) -> bool:
        return bool(self.engine.over)

    def state(self) -> dict[str, Any]:
        return self.engine.to_dict()

    def as_dict(self, board_id: str | None) -> dict[str, Any]:
        """The game for listeners: a new dict they may keep."""
        return {"board_id": board_id, "game": self.id, "rules": self.rules, "first": self.first,
                "base": self.base, "moves": [dict(m) for m in self.moves], "state": self.state(),
                "over": self.over, "started": self.started,
                "ended": self.ended}
