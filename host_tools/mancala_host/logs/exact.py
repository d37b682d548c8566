"""`analyze --exact` and `hint --exact`: Kalah games and positions valued by the exact solver.

Every value is the final store difference with perfect play (mancala_host.solver), for the
seat that moves: `before` with its best pit, `after` with the pit it played. A move's cost is
the stones it threw away against perfect play (before minus after, never a guess). A turning
point is a move after which the game's exact outcome is no longer what it was: a won game
drawn or lost, a drawn game lost.

Each position's search has a time budget (--seconds, a few seconds by default, and
optionally --exact-nodes nodes a move); a position that needs more is left without a value
and one sentence says so, naming the budget and how to raise it, so an analysis never spins.
The first plies of Kalah(6,3) and (6,4) come from the opening book (`make book`) at once.
Past half a second a progress line shows on a terminal (progress.py); Ctrl-C stops the
search with one sentence. Basic has no exact solver: analyze and hint say so in one sentence
and answer with the heuristic search.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import TYPE_CHECKING, Any

from . import gamelog
from .progress import Progress
from ..errors import BoardError

if TYPE_CHECKING:
    from mancala import Game

# The time each position's search may take when the user did not choose: a few seconds, which
# covers every Kalah(6,3) position and a Kalah(6,4) game from its middle on here
# (docs/host-tool.md section 14).
SECONDS = 5.0
# The exit code of a search stopped with Ctrl-C, as a shell gives a program SIGINT stopped.
INTERRUPTED = 130


def seconds_argument(text: str) -> float:
    """--seconds, --grade-seconds: a time budget in seconds, more than 0 (argparse's type)."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value <= 86400:
        raise argparse.ArgumentTypeError("%r is not a time budget: give seconds, more than 0 "
                                         "(for example 5 or 0.5)" % text)
    return value


class Budget:
    """How long each position's exact search may take: `seconds` (None: no limit) and
    optionally `nodes` for each move's search (a bound that does not depend on the machine)."""

    def __init__(self, seconds: float | None = SECONDS, nodes: int | None = None) -> None:
        self.seconds = seconds
        self.nodes = nodes

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> "Budget":
        """--seconds and --exact-nodes, checked: BoardError in one sentence if out of range."""
        seconds, nodes = getattr(args, "seconds", SECONDS), getattr(args, "exact_nodes", None)
        if seconds is not None and not seconds > 0:
            raise BoardError("--seconds must be more than 0 (for example --seconds 5).")
        if nodes is not None and nodes < 1:
            raise BoardError("--exact-nodes must be at least 1.")
        return cls(seconds, nodes)

    def deadline(self) -> float | None:
        return None if self.seconds is None else time.monotonic() + self.seconds

    def text(self) -> str:
        """'its 5-second budget', as the sentences say it."""
        parts = []
        if self.seconds is not None:
            parts.append("%g-second" % self.seconds)
        if self.nodes is not None:
            parts.append("%d-node" % self.nodes)
        return "its %s budget" % " and ".join(parts) if parts else "its budget"

    def raise_hint(self) -> str:
        """How to search longer: '--seconds 20 searches longer'."""
        more = "--seconds %g" % max(20, 4 * self.seconds) if self.seconds is not None else ""
        if self.nodes is None:
            return "%s searches longer" % more
        nodes = "--exact-nodes %d" % (4 * self.nodes)
        return "%s and %s search longer" % (more, nodes) if more else "%s searches further" % nodes

    def to_json(self) -> dict[str, Any]:
        return {"seconds": self.seconds, "nodes": self.nodes}


def _solver(rules):
    from ..solver import book, for_rules
    try:
        return for_rules(rules)
    except book.BookError as exc:
        raise BoardError(str(exc))


def exact_moves(engine: Game, budget: Budget | None = None,
                progress: Progress | None = None, what: str = "") -> dict[int, int] | None:
    """{pit: exact value for the seat to move} of each legal pit, or None when the position
    needs more than the budget."""
    from ..solver import TooBig
    budget = Budget() if budget is None else budget
    solver = _solver(engine.rules)
    if progress is not None:
        progress.start(what)
    try:
        return solver.move_values(engine, max_nodes=budget.nodes, deadline=budget.deadline())
    except TooBig:
        return None


def _outcome(value: int) -> int:
    return (value > 0) - (value < 0)


def analyse_game(game: dict[str, Any], budget: Budget | None = None,
                 progress: Progress | None = None, label: str = "") -> dict[str, Any]:
    """The exact analysis of one logged Kalah game: rows with before, after, cost and whether
    the move is a turning point; values for the seat that moves, None where the search ran
    out of its budget (those moves listed in too_big)."""
    engine = gamelog.start_engine(game)
    rows, too_big = [], []
    total = len(game["moves"])
    for number, move in enumerate(game["moves"], 1):
        seat = move.get("seat")
        row = {"move": number, "seat": seat, "by": move.get("by"), "pit": move.get("pit"),
               "resign": bool(move.get("resign")), "best": [], "before": None,
               "after": None, "cost": None, "turning": False}
        values = None
        if not row["resign"] and not engine.over:
            values = exact_moves(engine, budget, progress,
                                 "%smove %d of %d" % (label, number, total))
            if values is None:
                too_big.append(number)
        gamelog.apply_move(engine, move, number)
        if row["resign"]:
            row["pit"] = None
        elif values is not None:
            best = max(values.values())
            row["best"] = [p for p in sorted(values) if values[p] == best]
            row["before"], row["after"] = best, values[row["pit"]]
            row["cost"] = best - values[row["pit"]]
            row["turning"] = _outcome(row["after"]) != _outcome(best)
        rows.append(row)
    exact = [r for r in rows if r["before"] is not None]
    summary = []
    for seat in (0, 1):
        mine = [r for r in exact if r["seat"] == seat]
        summary.append({"seat": seat, "moves": len(mine),
                        "perfect": sum(1 for r in mine if r["cost"] == 0),
                        "thrown_away": sum(r["cost"] for r in mine),
                        "turning_points": [r["move"] for r in mine if r["turning"]]})
    return {"rules": game["rules"], "first": game["first"], "result": game["result"],
            "unfinished": gamelog.is_unfinished(game),
            "moves": rows, "summary": summary, "too_big": too_big}


def hint_lines(state: dict[str, Any], budget: Budget | None = None,
               progress: Progress | None = None) -> tuple[dict[str, Any] | None, str]:
    """(answer, sentence) for the board's state: the exact value for the seat to move and
    every pit that keeps it; answer None (and the sentence why) when there is none."""
    budget = Budget() if budget is None else budget
    from mancala import Game
    from ..solver import unsupported
    try:
        engine = Game.from_dict(state)
    except ValueError as exc:
        raise BoardError("The board's state is not one the engine accepts (%s); is its "
                         "firmware older than this tool?" % exc)
    if engine.over:
        raise BoardError("There is no move to hint: the game on the board is over; start one "
                         "with 'mancala-board new'.")
    reason = unsupported(engine.rules)
    if reason:
        return None, reason
    values = exact_moves(engine, budget, progress, "the board's position")
    if values is None:
        return None, ("The exact search ran out of %s on this position (%s)." % (
            budget.text(), budget.raise_hint()))
    best = max(values.values())
    pits = [p for p in sorted(values) if values[p] == best]
    seat = engine.turn
    outcome = ("wins by %d" % best if best > 0 else "loses by %d" % -best if best < 0
               else "draws")
    return ({"seat": seat, "value": best, "pits": pits, "moves": values},
            "Seat %d to move %s with perfect play (final stores %+d); %s %s keep%s it." % (
                seat, outcome, best, "pit" if len(pits) == 1 else "pits",
                ", ".join(map(str, pits)), "s" if len(pits) == 1 else ""))
