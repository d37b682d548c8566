"""`stats FILE...` tables (and `--plot PNG` figures) of logged games; `export --csv` of moves.

Only games that replay are counted; the others are named on stderr, counted, and skipped.
Figures, per variant:
- wins by seat (place 1; a shared first place is a draw);
- the first seat's advantage: how often the seat that started won, against the fair share 1/P;
- game length in moves;
- the average margin of decided games: in Kalah the winner's store minus the runner-up's; in
  Basic, where the first to shed all stones wins, the stones the runner-up still had in its
  pits at the move the winner finished (replayed from the log, so games that play on for
  every place have one too).
Unfinished games (recording stopped before the end) are counted as unfinished and nowhere else.
"""

from __future__ import annotations

import argparse
import csv
import os
import statistics
import sys
from typing import Any, Iterable

from . import gamelog
from ..errors import BoardError
from ..render.view import variant_key


def _once(found):
    """The games in order, each game once across all the files, by the rule a log is read
    with (gamelog.latest): two logs of one board may both hold a game."""
    found = list(found)
    kept, _ = gamelog.latest([(i, item[2], None) for i, item in enumerate(found)])
    return [found[i] for i, _, _ in kept]


def _collect(paths):
    """Every game that replays, unfinished ones included; bad lines and files named on stderr."""
    bad = []
    games = _once(gamelog.good_games(paths, lambda p, n, why: bad.append((p, n, why)), unfinished=True))
    if len(bad) == 1 and not games and bad[0][1] is None:
        raise BoardError(bad[0][2])  # the one file given is not a game log: just that sentence
    for path, number, why in bad:
        if number is None:  # a whole file that is not a game log: its own sentence
            print(why, file=sys.stderr)
        else:
            print("skipped %s line %d: %s." % (path, number, why), file=sys.stderr)
    if not games and bad and all(number is None for _, number, _ in bad):
        raise BoardError("None of the %d files is a game log." % len(bad))
    return games, bad


def summarise(games: Iterable[tuple[str, int, dict[str, Any], list[Any], dict[str, Any]]]
              ) -> dict[str, Any]:
    """Per variant: counts the tables and the plot are made of."""
    by: dict[str, Any] = {}
    for _, _, game, _, final in games:
        places, stores = game["result"]["places"], game["result"]["stores"]
        players = len(places)
        v = by.setdefault(variant_key(game["rules"]), {
            "players": players, "games": 0, "wins": [0] * players, "draws": 0,
            "first_wins": 0, "lengths": [], "margins": [], "unfinished": 0})
        if gamelog.is_unfinished(game):  # no winner, no length: only counted as unfinished
            v["unfinished"] += 1
            continue
        v["games"] += 1
        winners = [s for s, p in enumerate(places) if p == 1]
        if len(winners) == 1:
            v["wins"][winners[0]] += 1
            if winners[0] == game["first"]:
                v["first_wins"] += 1
            ranked = sorted(range(players), key=lambda s: places[s] if places[s] is not None else 99)
            if game["rules"].get("variant") == "kalah":
                v["margins"].append(stores[ranked[0]] - stores[ranked[1]])
            else:
                v["margins"].append(_left_when_won(game, ranked[0], ranked[1]))
        else:
            v["draws"] += 1
        v["lengths"].append(sum(1 for m in game["moves"] if not m.get("resign")))
    return by


def _left_when_won(game, winner, runner_up):
    """Basic: the stones in the runner-up's pits at the move the winner finished."""
    engine = gamelog.start_engine(game)
    for number, move in enumerate(game["moves"], 1):
        gamelog.apply_move(engine, move, number)
        state = engine.to_dict()
        if state["places"][winner] == 1:
            return sum(state["pits"][runner_up])
    return sum(engine.to_dict()["pits"][runner_up])


def finished(by: dict[str, Any]) -> dict[str, Any]:
    """The variants with at least one finished game, by name."""
    return dict((name, v) for name, v in by.items() if v["games"])


def _pct(n, d):
    return "%5.1f%%" % (100.0 * n / d) if d else "    -"


def tables(by: dict[str, Any]) -> list[str]:
    """The tables as lines of text, ready for a slide."""
    unfinished = sum(v["unfinished"] for v in by.values())
    note = ["", "%d unfinished game(s) (recording stopped before the end) are not counted above." % unfinished] \
        if unfinished else []
    by = finished(by)
    if not by:
        return ["No finished games to count."] + note[1:]
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
    out += ["", "Average margin (Kalah: winner's store minus runner-up's; Basic: stones the runner-up had "
            "left when the winner finished)",
            "%-18s %8s %8s" % ("variant", "games", "margin"), "-" * 36]
    for name in sorted(by):
        ms = by[name]["margins"]
        out.append("%-18s %8d %8s" % (name, len(ms), "%.1f" % statistics.mean(ms) if ms else "-"))
    return out + note


# Formats the plot can be saved in; anything else is refused before any work is done.
PLOT_FORMATS = ("png", "svg", "pdf")


def plot_path(path: str) -> str:
    """The file the plot will be written to: PATH itself, or PATH.png when it has no extension.
    An extension that is not a format we write is one sentence listing the ones we do."""
    ext = os.path.splitext(path)[1]
    if not ext:
        return path + ".png"
    if ext[1:].lower() not in PLOT_FORMATS:
        raise BoardError("--plot cannot write %s: a plot is saved as %s; give the file one of "
                         "those extensions." % (path, ", ".join("." + f for f in PLOT_FORMATS)))
    return path


def run(args: argparse.Namespace) -> int:
    path = plot_path(args.plot) if args.plot else None
    if getattr(args, "exact", False) and not path:
        raise BoardError("--exact draws the exact value line beside the plot: give --plot FILE too.")
    games, bad = _collect(args.files)
    by = summarise(games)
    for line in tables(by):
        print(line)
    print("")
    unfinished = sum(v["unfinished"] for v in by.values())
    print("%d game(s) counted, %d skipped because they do not replay%s." % (
        len(games) - unfinished, sum(1 for b in bad if b[1] is not None),
        "; %d unfinished game(s) not counted" % unfinished if unfinished else ""))
    if path:
        if not finished(by):
            raise BoardError("There are no finished games to plot.")
        from .plot import draw

        draw(finished(by), path)
        print("Plot written to %s." % path)
        if getattr(args, "exact", False):
            _plot_exact(args, games, path)
    return 1 if bad and not games else 0  # every game skipped: a failure, as replay says it


def _plot_exact(args: argparse.Namespace, games: list[Any], path: str) -> None:
    """stats --plot --exact: the exact value line of one finished Kalah game (exactplot.py),
    beside the plot as NAME-exact.EXT."""
    from . import exact, exactplot
    from ..render.view import rules_label
    kalah = [g for g in games if g[2]["rules"].get("variant") == "kalah"
             and not gamelog.is_unfinished(g[2])]
    if not kalah:
        print("The exact solver covers Kalah only, and these logs hold no finished Kalah game: "
              "no exact value line drawn.")
        return
    number = args.exact_game
    if not 1 <= number <= len(kalah):
        raise BoardError("The logs hold %d finished Kalah game(s); --exact-game must be from 1 to "
                         "%d." % (len(kalah), len(kalah)))
    file, line, game = kalah[number - 1][:3]
    analysis = exact.analyse_game(game, exact.Budget.from_args(args))
    stem, ext = os.path.splitext(path)
    out = stem + "-exact" + ext
    exactplot.draw(analysis, "Kalah game %d (%s line %d): %s" % (
        number, os.path.basename(file), line, rules_label(game["rules"])), out)
    print("Exact value line of Kalah game %d written to %s (%d turning point(s)%s)." % (
        number, out, sum(1 for r in analysis["moves"] if r["turning"]),
        "; %d move(s) past the solver's budget" % len(analysis["too_big"])
        if analysis["too_big"] else ""))


COLUMNS = ["game", "file", "line", "variant", "players", "pits", "seeds", "first", "started",
           "move", "seat", "action", "pit", "by", "t", "stones", "last", "capture", "extra",
           "finished", "stores_after", "unfinished", "board_id", "board_game"]


def run_export(args: argparse.Namespace) -> int:
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
                                 " ".join(str(s) for s in engine.to_dict()["stores"]),
                                 int(gamelog.is_unfinished(game)),
                                 (game.get("board") or {}).get("id", ""), game.get("game", "")])
    finally:
        if args.out:
            stream.close()
    print("%d game(s) exported, %d skipped because they do not replay." % (
        len(games), sum(1 for b in bad if b[1] is not None)), file=sys.stderr)
    return 1 if bad and not games else 0
