"""`stats --plot --exact`: one Kalah game's exact value, move by move, as a line a class reads.

The line is seat 0's exact value (the final store difference with perfect play, as
mancala_host.logs.exact computes it) before each move, ending at the game's real result. Above 0
seat 0 is winning and the area is in its colour, below 0 seat 1's. A turning point (a move
that changed the exact outcome) is a large ring with the move's number beside it. Moves past
the exact solver's budget leave a gap in the line, and the title says so.
"""

from __future__ import annotations

from typing import Any

from .plot import FONT, INK, _matplotlib, save
from ..render.view import SEAT_COLOURS

TURN = "#000000"


def series(analysis: dict[str, Any]) -> tuple[list[int], list[float]]:
    """(move numbers, seat 0's exact value) of the positions: before each move (x = moves
    played so far), then the result; nan where the solver had no value."""
    xs, ys = [], []
    for r in analysis["moves"]:
        xs.append(r["move"] - 1)
        v = r["before"]
        ys.append(float("nan") if v is None else float(v if r["seat"] == 0 else -v))
    stores = analysis["result"]["stores"]
    xs.append(len(analysis["moves"]))
    ys.append(float(stores[0] - stores[1]))
    return xs, ys


def turning_points(analysis: dict[str, Any]) -> list[tuple[int, float, int]]:
    """(x, seat 0's value after the move, move number) of each turning point."""
    out = []
    for r in analysis["moves"]:
        if r["turning"]:
            v = r["after"] if r["seat"] == 0 else -r["after"]
            out.append((r["move"], float(v), r["move"]))
    return out


def figure(analysis: dict[str, Any], title: str) -> tuple[Any, Any]:
    """(pyplot, the Figure) of one game's exact value line."""
    plt, MaxNLocator = _matplotlib()
    xs, ys = series(analysis)
    with plt.rc_context({"font.size": FONT, "axes.titlesize": FONT + 1, "axes.labelsize": FONT,
                         "xtick.labelsize": FONT - 2, "ytick.labelsize": FONT - 2,
                         "axes.spines.top": False, "axes.spines.right": False}):
        fig, ax = plt.subplots(figsize=(12.8, 6.4))
        ax.axhline(0, color=INK, linewidth=1)
        ax.fill_between(xs, ys, 0, where=[y > 0 for y in ys], color=SEAT_COLOURS[0], alpha=0.35,
                        interpolate=True, label="seat 0 wins with perfect play")
        ax.fill_between(xs, ys, 0, where=[y < 0 for y in ys], color=SEAT_COLOURS[1], alpha=0.35,
                        interpolate=True, label="seat 1 wins with perfect play")
        ax.plot(xs, ys, color=INK, linewidth=2.5, marker="o", markersize=4, zorder=3)
        for x, y, move in turning_points(analysis):
            ax.plot([x], [y], marker="o", markersize=16, markerfacecolor="none",
                    markeredgecolor=TURN, markeredgewidth=2.5, linestyle="none", zorder=4,
                    gid="turning-point")
            ax.annotate("move %d" % move, (x, y), textcoords="offset points", xytext=(10, 12),
                        fontsize=FONT - 1, color=TURN, zorder=5)
        ax.set_xlabel("moves played")
        ax.set_ylabel("seat 0's exact value (stones)")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlim(0, max(xs))
        gaps = len(analysis["too_big"])
        ax.set_title(title + ("\n(no value for %d move(s): past the solver's budget)" % gaps
                              if gaps else ""))
        ax.legend(loc="best", fontsize=FONT - 2, frameon=False)
        fig.tight_layout()
    return plt, fig


def draw(analysis: dict[str, Any], title: str, path: str) -> None:
    save(*figure(analysis, title), path)
