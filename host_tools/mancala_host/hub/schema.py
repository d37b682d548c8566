"""The bodies the hub's POSTs take, declared with pydantic (v2, strict): every field's type
and bounds, no field that is not listed, and the rules checked by the engine's own
Rules.from_dict. `read(model, body)` gives the checked request, or raises BadRequest with one
sentence that names the field; the server answers that with HTTP 400 before anything changes.

Strict means no guessing: "3" is not a number, 2.0 is not a whole number, true is not 1.
The bounds are a classroom's, with room to spare: at most MAX_BOARDS boards named, MAX_PLAYERS
entrants of at most MAX_NAME characters each, a Swiss tournament of at most as many rounds as
entrants, CPU levels 1-5 (the board's), and the rules the engine plays (seeds 3, 4 or 5 for
Kalah, 3 or 4 for Basic). The body itself is at most MAX_BODY bytes (server.py).
"""

from __future__ import annotations

import json
from typing import Annotated, Any, List, Literal, Optional, Type, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from pydantic_core import ErrorDetails

from mancala.rules import Rules

from ..errors import BoardError

MAX_BODY = 16 * 1024   # the largest real request (64 names of 40 characters) is under 4 KiB
MAX_BOARDS = 64
MAX_PLAYERS = 64
MAX_NAME = 40          # an entry as typed: the name, and "=cpu2" if the CPU plays for it
MAX_KEY = 200          # a board's key: its USB serial number or its port's path, made safe
MAX_LABEL = 24         # as the board keeps it (docs/protocol.md, config `label`)


class BadRequest(BoardError):
    """A request the hub does not take (HTTP 400): nothing was changed."""


class Ask(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")


BoardKey = Annotated[str, Field(min_length=1, max_length=MAX_KEY)]


class Boards(Ask):
    """start, pause, resume, lock, unlock: the boards (null or absent: every board)."""
    boards: Optional[List[BoardKey]] = Field(None, max_length=MAX_BOARDS)


class Seat(Ask):
    kind: Literal["human", "cpu"]
    level: Optional[int] = Field(None, ge=1, le=5)

    @model_validator(mode="after")
    def _level_for_cpu(self) -> "Seat":
        if self.kind == "human" and self.level is not None:
            raise ValueError("A seat's level is for the CPU; a human seat has none")
        return self


def _check_rules(rules: dict[str, Any]) -> None:
    """The engine's own check of a rules dict, so the hub takes what a board's engine takes."""
    given = {k: v for k, v in rules.items() if v is not None}
    if given:
        Rules.from_dict(dict({"variant": "kalah"}, **given))


class Settings(Boards):
    """One setting for all (or the named) boards; each field is optional."""
    variant: Optional[Literal["kalah", "basic"]] = None
    players: Optional[int] = Field(None, ge=2, le=4)
    seeds: Optional[int] = Field(None, ge=3, le=5)
    move_time_limit: Optional[Literal[0, 30, 60]] = None
    animation_ms: Optional[int] = Field(None, ge=0, le=1000)
    seats: Optional[List[Seat]] = Field(None, min_length=1, max_length=4)

    @model_validator(mode="after")
    def _rules(self) -> "Settings":
        if self.variant is not None or self.players is not None or self.seeds is not None:
            _check_rules({"variant": self.variant, "players": self.players, "seeds": self.seeds})
        return self

    def setting(self) -> dict[str, Any]:
        return self.model_dump(exclude_none=True, exclude={"boards"})


class Label(Ask):
    board: BoardKey
    label: str = Field(max_length=MAX_LABEL)


class Redeal(Ask):
    """Deal a board's tournament game to it again (after it refused the game)."""
    board: BoardKey


class Tournament(Ask):
    players: List[str] = Field(min_length=2, max_length=MAX_PLAYERS)
    style: Literal["round-robin", "swiss"] = "round-robin"
    rounds: Optional[int] = Field(None, ge=1, le=MAX_PLAYERS)
    cpu_level: int = Field(1, ge=1, le=5)
    variant: Optional[Literal["kalah", "basic"]] = None
    seeds: Optional[int] = Field(None, ge=3, le=5)
    replace: bool = False

    @model_validator(mode="after")
    def _fits(self) -> "Tournament":
        for i, entry in enumerate(self.players):
            if not entry.strip() or len(entry) > MAX_NAME or any(ord(c) < 32 or ord(c) == 127 for c in entry):
                raise ValueError("Player %d should be a name of 1 to %d characters with no control "
                                 "characters, not %s" % (i + 1, MAX_NAME, _show(entry)))
        if self.rounds is not None:
            if self.style != "swiss":
                raise ValueError("rounds is for a Swiss tournament; a round robin plays every "
                                 "pair once")
            if self.rounds > len(self.players):
                raise ValueError("A Swiss tournament of %d players has at most %d rounds, not %d"
                                 % (len(self.players), len(self.players), self.rounds))
        _check_rules({"variant": self.variant, "players": 2, "seeds": self.seeds})
        return self

    def rules(self) -> dict[str, Any] | None:
        rules = {k: v for k, v in (("variant", self.variant), ("seeds", self.seeds)) if v is not None}
        return rules or None


class BotRules(Ask):
    """The bots' rules (kgp.Lobby.set_rules): seconds for a move, seconds of grace for a bot
    that dropped, and what a bot with no legal pit by the limit gets; each optional."""
    move_s: Optional[float] = Field(None, ge=0.5, le=600)
    grace_s: Optional[float] = Field(None, ge=0, le=3600)
    no_move: Optional[Literal["random", "forfeit"]] = None

    @model_validator(mode="after")
    def _some(self) -> "BotRules":
        if self.move_s is None and self.grace_s is None and self.no_move is None:
            raise ValueError("Give at least one of move_s, grace_s or no_move")
        return self


class Empty(Ask):
    """export: no fields."""


M = TypeVar("M", bound=Ask)


def read(model: Type[M], body: bytes) -> M:
    """The request checked against `model`, or BadRequest in one sentence."""
    if not body.strip():
        body = b"{}"
    try:
        return model.model_validate_json(body)
    except ValidationError as exc:
        errors = exc.errors(include_url=False)
        more = len(errors) - 1
        raise BadRequest(sentence(model, errors[0]) +
                         (" (and %d more problem%s)" % (more, "s" if more > 1 else "") if more else "")
                         + ".")


def _show(value: Any) -> str:
    text = json.dumps(value, default=str)
    return text if len(text) <= 40 else text[:37] + "..."


def _where(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        out += "[%d]" % part if isinstance(part, int) else ("." if out else "") + str(part)
    return out or "the request"


def sentence(model: Type[Ask], error: ErrorDetails) -> str:
    """One error of pydantic's in words (no final stop), naming the field and the value."""
    kind, where, ctx = error["type"], _where(error["loc"]), error.get("ctx") or {}
    if kind == "json_invalid":
        return "The request is not JSON: %s" % ctx.get("error", "it does not parse")
    if kind == "model_type" and not error["loc"]:
        return "The request must be a JSON object, such as {\"boards\": null}"
    if kind == "missing":
        return "The request needs %s" % where
    if kind == "extra_forbidden":
        return "%s is not part of this request, which takes %s" % (
            where, ", ".join(model.model_fields) or "no fields")
    if kind in ("too_long", "too_short"):
        return "%s should have %s %d item%s, not %d" % (
            where, "at most" if kind == "too_long" else "at least",
            ctx.get("max_length", ctx.get("min_length", 0)),
            "" if ctx.get("max_length", ctx.get("min_length")) == 1 else "s",
            ctx.get("actual_length", 0))
    msg = str(error["msg"])
    if msg.startswith("Value error, "):
        return msg[len("Value error, "):]
    if msg.startswith("Input should"):
        msg = where + msg[len("Input"):]
    elif where != "the request":
        msg = where + ": " + msg[:1].lower() + msg[1:]
    return "%s, not %s" % (msg, _show(error.get("input")))
