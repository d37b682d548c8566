"""`stats --plot`: the four figures of `stats` drawn for a projector.

Made to be read from the back of a classroom: large type, a value on every bar, whole numbers
on every count axis, and a bar of 0 drawn as a visible stub labelled "0". The seat colours are
the board's own (the firmware's palette); everything that is not a seat (draws, the starting
seat's share, its fair share, margins) is drawn in greys and black, so it cannot be taken for
one. A panel with nothing to show says "no data for ..." instead of an empty axis.
"""

from __future__ import annotations

from typing import Any

from ..errors import BoardError
from ..render.view import SEAT_COLOURS

FONT = 15  # points, at 100 dpi on a 1280 px wide figure
INK = "#222222"  # text, the fair-share marks, bar edges
NEUTRAL = "#6b6b6b"  # the starting seat's share, margins: not any seat's colour
DRAW = "#bdbdbd"  # draws
STUB = 0.012  # a bar of 0 is drawn this share of the axis high, so it can be seen
WIDE = 3  # up to this many variants share a row of two panels


def _matplotlib():
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.ticker import MaxNLocator
    except ImportError:
        raise BoardError("--plot needs matplotlib: pip install matplotlib (make venv installs it).")
    return plt, MaxNLocator


def _bars(ax, xs, values, width, colour, top, text, hatch=None):
    """Bars with their value written above each; a 0 is a stub, still labelled."""
    heights = [v if v else top * STUB for v in values]
    ax.bar(xs, heights, width, color=colour, edgecolor=INK, linewidth=1.2, hatch=hatch, zorder=2)
    for x, v, h in zip(xs, values, heights):
        ax.text(x, h + top * 0.015, text(v), ha="center", va="bottom", fontsize=FONT - 2,
                color=INK, zorder=3)


def _wins(ax, by, names, MaxNLocator):
    seats = max(by[n]["players"] for n in names)
    top = max(max(by[n]["wins"] + [by[n]["draws"]]) for n in names) or 1
    top_axis = top * 1.2
    group = 0.84
    for i, name in enumerate(names):
        v = by[name]
        columns = v["players"] + (1 if v["draws"] else 0)
        width = group / max(columns, 2)
        left = i - group / 2 + width / 2
        for s in range(v["players"]):
            _bars(ax, [left + s * width], [v["wins"][s]], width, SEAT_COLOURS[s % len(SEAT_COLOURS)],
                  top_axis, str)
        if v["draws"]:
            _bars(ax, [left + v["players"] * width], [v["draws"]], width, DRAW, top_axis, str, hatch="//")
    ax.set_ylim(0, top_axis * 1.08)
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xticks(range(len(names)), [_tick(by, n) for n in names])
    ax.set_xlim(-0.5, len(names) - 0.5)
    ax.set_ylabel("games won")
    ax.set_title("Wins by seat")
    import matplotlib.patches as mpatches

    handles = [mpatches.Patch(facecolor=SEAT_COLOURS[s % len(SEAT_COLOURS)], edgecolor=INK,
                              label="seat %d" % s) for s in range(seats)]
    if any(by[n]["draws"] for n in names):
        handles.append(mpatches.Patch(facecolor=DRAW, edgecolor=INK, hatch="//", label="draws"))
    return handles


def _first(ax, by, names):
    share = [100.0 * by[n]["first_wins"] / by[n]["games"] for n in names]
    heights = [v if v else 100.0 * STUB for v in share]
    ax.bar(range(len(names)), heights, 0.55, color=NEUTRAL, edgecolor=INK, linewidth=1.2, zorder=2)
    for i, n in enumerate(names):
        fair = 100.0 / by[n]["players"]
        ax.plot([i - 0.36, i + 0.36], [fair, fair], color=INK, linewidth=3, linestyle=(0, (4, 2)), zorder=4)
        ax.text(i + 0.38, fair, "fair\n%.0f%%" % fair, ha="left", va="center", fontsize=FONT - 4, color=INK)
        # the value above both the bar and the fair-share line, so neither hides it
        ax.text(i, max(heights[i], fair) + 2.5, "%.0f%%" % share[i], ha="center", va="bottom",
                fontsize=FONT - 2, color=INK, zorder=5)
    ax.set_ylim(0, 115)
    ax.set_yticks([0, 25, 50, 75, 100])
    ax.set_xticks(range(len(names)), [_tick(by, n) for n in names])
    ax.set_xlim(-0.5, len(names) - 0.5)
    ax.set_ylabel("% of games")
    ax.set_title("The seat that started won (dashed: fair share)")


def _lengths(ax, by, names, MaxNLocator):
    box = ax.boxplot([by[n]["lengths"] for n in names], positions=range(len(names)), widths=0.5,
                     patch_artist=True, medianprops={"color": INK, "linewidth": 2.5})
    for patch in box["boxes"]:
        patch.set(facecolor="#e6e6e6", edgecolor=INK)
    for i, n in enumerate(names):
        ls = by[n]["lengths"]
        ax.text(i + 0.3, sorted(ls)[len(ls) // 2], "median %g" % _median(ls), ha="left", va="center",
                fontsize=FONT - 4, color=INK)
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xticks(range(len(names)), [_tick(by, n) for n in names])
    ax.set_xlim(-0.5, len(names) - 0.5)
    ax.set_ylabel("moves")
    ax.set_title("Game length")


MARGIN = {"kalah": "store lead", "basic": "stones left"}


def _why_no_margin(name):
    return "no data for\n%s:\nevery game\nwas a draw" % name


def _margins(ax, by, names):
    have = [n for n in names if by[n]["margins"]]
    ax.set_title("Average margin of the decided games")
    means = dict((n, sum(by[n]["margins"]) / float(len(by[n]["margins"]))) for n in have)
    top = max(list(means.values()) + [1.0])
    xs = [i for i, n in enumerate(names) if n in have]
    if xs:
        _bars(ax, xs, [means[names[i]] for i in xs], 0.55, NEUTRAL, top * 1.2, lambda v: "%.1f" % v)
    for i, n in enumerate(names):
        if n not in have:
            ax.text(i, top * 0.6, _why_no_margin(n), ha="center", va="center", fontsize=FONT - 2, color=INK)
    ax.set_ylim(0, top * 1.3)
    ax.set_xticks(range(len(names)), ["%s\n%s" % (_name(n), MARGIN[n.split()[0].split("-")[0]]) for n in names])
    ax.set_xlim(-0.5, len(names) - 0.5)
    ax.set_ylabel("stones")
    if not xs:
        ax.set_yticks([])


def _median(values):
    s = sorted(values)
    mid = len(s) // 2
    return s[mid] if len(s) % 2 else (s[mid - 1] + s[mid]) / 2.0


def _tick(by, name):
    return "%s\n%d game%s" % (_name(name), by[name]["games"], "" if by[name]["games"] == 1 else "s")


def _name(name):
    """'basic 3p 6x4' on two lines ('basic 3p', '6x4'), so neighbouring labels do not meet."""
    head, _, size = name.rpartition(" ")
    return "%s\n%s" % (head, size) if head else name


def draw(by: dict[str, Any], path: str) -> None:
    """Draw the figures of `by` (stats.summarise, finished variants only) into path."""
    save(*figure(by), path)


def save(plt: Any, fig: Any, path: str) -> None:
    """Write fig to path and close it; a file that cannot be written is one sentence."""
    try:
        fig.savefig(path, dpi=100)
    except (OSError, ValueError) as exc:
        raise BoardError("Could not write the plot %s: %s." % (path, getattr(exc, "strerror", None) or exc))
    finally:
        plt.close(fig)


def figure(by: dict[str, Any]) -> tuple[Any, Any]:
    """(pyplot, the Figure) of `by`; its axes are wins, first seat, length, margin."""
    plt, MaxNLocator = _matplotlib()
    names = sorted(by)
    with plt.rc_context({"font.size": FONT, "axes.titlesize": FONT + 1, "axes.labelsize": FONT,
                         "xtick.labelsize": FONT - 2, "ytick.labelsize": FONT - 2,
                         "axes.spines.top": False, "axes.spines.right": False}):
        if len(names) <= WIDE:
            fig, axes = plt.subplots(2, 2, figsize=(12.8, 9.2))
            axes = [axes[0][0], axes[0][1], axes[1][0], axes[1][1]]
        else:  # many variants: one panel a row, so every group keeps room for its labels
            fig, axes = plt.subplots(4, 1, figsize=(12.8, 20))
        handles = _wins(axes[0], by, names, MaxNLocator)
        _first(axes[1], by, names)
        _lengths(axes[2], by, names, MaxNLocator)
        _margins(axes[3], by, names)
        total = sum(by[n]["games"] for n in names)
        head = 0.65 / fig.get_figheight()  # the title and the legend take the top 0.65 inch
        fig.suptitle("%d finished game%s" % (total, "" if total == 1 else "s"), fontsize=FONT + 4,
                     y=1 - 0.05 / fig.get_figheight())
        fig.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 1 - 0.42 / fig.get_figheight()),
                   ncol=len(handles), fontsize=FONT, frameon=False)
        fig.tight_layout(rect=(0, 0, 1, 1 - head - 0.1 / fig.get_figheight()))
    return plt, fig
