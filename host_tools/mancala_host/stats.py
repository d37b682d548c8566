"""`stats FILE...` tables (and `--plot PNG` figures) of logged games; `export --csv` of moves.

Only games that replay are counted; the others are named on stderr, counted, and skipped.
Figures, per variant:
- wins by seat (place 1; a shared first place is a draw);
- the first seat's advantage: how often the seat that started won, against the fair share 1/P;
- game length in moves;
- the average margin of decided games: in Kalah the winner's store minus the runner-up's; in
  Basic, where the first to shed all stones wins, the stones the runner-up still had in its
  pits when the game ended (only games that end at the first finish have one).
"""

import csv
import statistics
import sys

from . import gamelog
from .errors import BoardError
from .view import variant_key


def _collect(paths):
    bad = []
    games = list(gamelog.good_games(paths, lambda p, n, why: bad.append((p, n, why))))
    for path, number, why in bad:
        print("skipped %s line %d: %s." % (path, number, why), file=sys.stderr)
    return games, bad


def summarise(games):
    """Per variant: counts the tables and the plot are made of."""
    by = {}
    for _, _, game, _, final in games:
        places, stores = game["result"]["places"], game["result"]["stores"]
        players = len(places)
        v = by.setdefault(variant_key(game["rules"]), {
            "players": players, "games": 0, "wins": [0] * players, "draws": 0,
            "first_wins": 0, "lengths": [], "margins": []})
        v["games"] += 1
        winners = [s for s, p in enumerate(places) if p == 1]
        if len(winners) == 1:
            v["wins"][winners[0]] += 1
            if winners[0] == game["first"]:
                v["first_wins"] += 1
            ranked = sorted(range(players), key=lambda s: places[s] if places[s] is not None else 99)
            if game["rules"].get("variant") == "kalah":
                v["margins"].append(stores[ranked[0]] - stores[ranked[1]])
            elif sum(final["pits"][ranked[1]]):
                v["margins"].append(sum(final["pits"][ranked[1]]))
        else:
            v["draws"] += 1
        v["lengths"].append(sum(1 for m in game["moves"] if not m.get("resign")))
    return by


def _pct(n, d):
    return "%5.1f%%" % (100.0 * n / d) if d else "    -"


def tables(by):
    """The tables as lines of text, ready for a slide."""
    if not by:
        return ["No games to count."]
    out = []
    seats = max(v["players"] for v in by.values())
    head = "%-18s %6s " % ("variant", "games") + " ".join("%8s" % ("seat %d" % s) for s in range(seats)) + "  draws"
    out += ["Wins by seat and variant", head, "-" * len(head)]
    total_wins = [0] * seats
    for name in sorted(by):
        v = by[name]
        cells = []
        for s in range(seats):
            if s < v["players"]:
                cells.append("%8d" % v["wins"][s])
                total_wins[s] += v["wins"][s]
            else:
                cells.append("%8s" % "")
        out.append("%-18s %6d " % (name, v["games"]) + " ".join(cells) + "  %5d" % v["draws"])
    out.append("%-18s %6d " % ("all", sum(v["games"] for v in by.values())) +
               " ".join("%8d" % w for w in total_wins) + "  %5d" % sum(v["draws"] for v in by.values()))
    out += ["", "First player's advantage", "%-18s %6s %12s %12s" % ("variant", "games", "first wins", "fair share"),
            "-" * 51]
    for name in sorted(by):
        v = by[name]
        out.append("%-18s %6d %12s %12s" % (name, v["games"], _pct(v["first_wins"], v["games"]),
                                            _pct(1, v["players"])))
    out += ["", "Game length (moves)", "%-18s %6s %7s %7s %5s %5s" % ("variant", "games", "mean", "median", "min", "max"),
            "-" * 52]
    for name in sorted(by):
        ls = by[name]["lengths"]
        out.append("%-18s %6d %7.1f %7.1f %5d %5d" % (name, len(ls), statistics.mean(ls), statistics.median(ls),
                                                      min(ls), max(ls)))
    out += ["", "Average margin (Kalah: winner's store minus runner-up's; Basic: stones the runner-up had left)",
            "%-18s %8s %8s" % ("variant", "games", "margin"), "-" * 36]
    for name in sorted(by):
        ms = by[name]["margins"]
        out.append("%-18s %8d %8s" % (name, len(ms), "%.1f" % statistics.mean(ms) if ms else "-"))
    return out


def plot(by, path):
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise BoardError("--plot needs matplotlib: pip install matplotlib (make venv installs it).")
    from .view import SEAT_COLOURS

    names = sorted(by)
    fig, axes = plt.subplots(2, 2, figsize=(12, 8))
    ax = axes[0][0]
    seats = max(by[n]["players"] for n in names) if names else 2
    width = 0.8 / (seats + 1)
    for s in range(seats):
        vals = [by[n]["wins"][s] if s < by[n]["players"] else 0 for n in names]
        ax.bar([i + s * width for i in range(len(names))], vals, width, label="seat %d" % s, color=SEAT_COLOURS[s % 4])
    ax.bar([i + seats * width for i in range(len(names))], [by[n]["draws"] for n in names], width,
           label="draws", color="#999999")
    ax.set_xticks([i + 0.4 - width / 2 for i in range(len(names))], names)
    ax.set_title("Wins by seat")
    ax.set_ylabel("games")
    ax.set_ylim(0, max([max(by[n]["wins"] + [by[n]["draws"]]) for n in names] + [1]) * 1.45)  # room for the legend
    ax.legend(ncol=3, fontsize=8, loc="upper right")
    ax = axes[0][1]
    first = [100.0 * by[n]["first_wins"] / by[n]["games"] for n in names]
    fair = [100.0 / by[n]["players"] for n in names]
    ax.bar(range(len(names)), first, 0.6, color="#0072B2", label="first seat won")
    ax.scatter(range(len(names)), fair, color="#D55E00", marker="_", s=900, linewidths=3, label="fair share", zorder=3)
    ax.set_xticks(range(len(names)), names)
    ax.set_ylim(0, 100)
    ax.set_ylabel("% of games")
    ax.set_title("First player's advantage")
    ax.legend()
    ax = axes[1][0]
    ax.boxplot([by[n]["lengths"] for n in names])
    ax.set_xticks(range(1, len(names) + 1), names)
    ax.set_ylabel("moves")
    ax.set_title("Game length")
    ax = axes[1][1]
    means = [statistics.mean(by[n]["margins"]) if by[n]["margins"] else 0 for n in names]
    ax.bar(range(len(names)), means, 0.6, color="#009E73")
    ax.set_xticks(range(len(names)), names)
    ax.set_ylabel("stones")
    ax.set_title("Average margin (Kalah: stores; Basic: runner-up's stones left)")
    fig.suptitle("%d games" % sum(by[n]["games"] for n in names))
    fig.tight_layout()
    try:
        fig.savefig(path, dpi=100)
    except OSError as exc:
        raise BoardError("Could not write the plot %s: %s." % (path, exc.strerror or exc))
    finally:
        plt.close(fig)


def run(args):
    games, bad = _collect(args.files)
    for line in tables(summarise(games)):
        print(line)
    print("")
    print("%d game(s) counted, %d skipped because they do not replay." % (len(games), len(bad)))
    if args.plot:
        if not games:
            raise BoardError("There are no games to plot.")
        plot(summarise(games), args.plot)
        print("Plot written to %s." % args.plot)
    return 0


COLUMNS = ["game", "file", "line", "variant", "players", "pits", "seeds", "first", "started",
           "move", "seat", "action", "pit", "by", "t", "stones", "last", "capture", "extra",
           "finished", "stores_after"]


def run_export(args):
    games, bad = _collect(args.files)
    try:
        stream = open(args.out, "w", newline="", encoding="utf-8") if args.out else sys.stdout
    except OSError as exc:
        raise BoardError("Could not write %s: %s." % (args.out, exc.strerror or exc))
    try:
        writer = csv.writer(stream)
        writer.writerow(COLUMNS)
        for n, (path, number, game, records, _) in enumerate(games, 1):
            engine = gamelog.start_engine(game)
            rules = game["rules"]
            for i, (move, rec) in enumerate(zip(game["moves"], records), 1):
                gamelog.apply_move(engine, move, i)
                sown = rec.get("sown") or []
                last = ""
                if sown:
                    last = "store %d" % sown[-1][0] if sown[-1][1] == 0 else "seat %d pit %d" % tuple(sown[-1])
                cap = rec.get("capture")
                writer.writerow([n, path, number, rules.get("variant"), rules.get("players"), rules.get("pits"),
                                 rules.get("seeds"), game["first"], game.get("started"), i, move["seat"],
                                 "resign" if move.get("resign") else "sow", move.get("pit", ""),
                                 move.get("by", ""), move.get("t", ""), rec.get("stones", ""), last,
                                 cap.get("stones") if cap else 0, int(bool(rec.get("extra"))),
                                 " ".join(str(s) for s in rec.get("finished") or []),
                                 " ".join(str(s) for s in engine.to_dict()["stores"])])
    finally:
        if args.out:
            stream.close()
    print("%d game(s) exported, %d skipped because they do not replay." % (len(games), len(bad)), file=sys.stderr)
    return 0
