"""`analyze --exact`, the command: the exact analysis of logged Kalah games as a table a person
reads (or JSON), one row per move, from exact.py's values. Kept apart from exact.py, the
library that analyze.py's heuristic report and hint also use, so neither imports the other.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from . import analyze
from .exact import INTERRUPTED, Budget, analyse_game
from .progress import Progress
from ..errors import BoardError


def _value_text(value):
    return "-" if value is None else "%+d" % value if value else "0"


def game_lines(index: int, line: int, path: str, analysis: dict[str, Any],
               budget: Budget) -> list[str]:
    from ..render.view import rules_label
    lines = analyze._wrap("Game %d (line %d of %s): %s; seat %d starts; %d moves; %s." % (
        index, line, path, rules_label(analysis["rules"]), analysis["first"],
        len(analysis["moves"]), analyze._result_text(analysis["rules"], analysis["result"],
                                             analysis["unfinished"])))
    lines.append("")
    lines.append("%5s  %4s  %-8s %4s  %-11s %6s  %6s  %s" % (
        "move", "seat", "by", "pit", "best", "before", "after", "thrown away"))
    for r in analysis["moves"]:
        if r["resign"]:
            lines.append("%5d  %4d  %-8s resigns" % (r["move"], r["seat"], r["by"] or "-"))
            continue
        cost = ""
        if r["cost"]:
            cost = "%d stone%s" % (r["cost"], "" if r["cost"] == 1 else "s")
        if r["turning"]:
            cost += (" " if cost else "") + "<- turning point"
        lines.append(("%5d  %4d  %-8s %4s  %-11s %6s  %6s  %s" % (
            r["move"], r["seat"], r["by"] or "-", r["pit"],
            ",".join(str(p) for p in r["best"]) or "-", _value_text(r["before"]),
            _value_text(r["after"]), cost)).rstrip())
    lines.append("")
    if analysis["too_big"]:
        lines += analyze._wrap(
            "Moves %s: the exact search ran out of %s a position, so they have no "
            "value (%s; the heuristic analysis without --exact covers them)." % (
                _ranges(analysis["too_big"]), budget.text(), budget.raise_hint()))
    for s in analysis["summary"]:
        turning = s["turning_points"]
        lines += analyze._wrap(
            "Seat %d: %d move(s) valued, %d perfect, %d stone(s) thrown away in all%s." % (
                s["seat"], s["moves"], s["perfect"], s["thrown_away"],
                "; turning point(s) at move %s" % ", ".join(map(str, turning))
                if turning else "; no turning point"))
    return lines


def _ranges(numbers: list[int]) -> str:
    """'1-6, 9' for [1, 2, 3, 4, 5, 6, 9]."""
    runs: list[list[int]] = []
    for n in numbers:
        if runs and n == runs[-1][1] + 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    return ", ".join("%d" % a if a == b else "%d-%d" % (a, b) for a, b in runs)


LEGEND = ("How to read it: one row per move, values exact (perfect play by both seats from "
          "there on): the final store difference for the seat that moves, + ahead, - behind. "
          "'best' lists every pit that keeps the value; 'before' is the value with those, "
          "'after' with the pit played; 'thrown away' is before minus after, in stones. A "
          "turning point is a move that changes the exact outcome (a win into a draw or a "
          "loss, a draw into a loss).")


def run_analyze(args: argparse.Namespace) -> int:
    """analyze --exact: the exact analysis of the chosen games; Basic games get the
    heuristic one, after one sentence saying so."""
    budget = Budget.from_args(args)
    as_json = getattr(args, "json", False) or getattr(args, "json_out", False)
    chosen, skipped = analyze._chosen(args.file, args.game)
    kalah = [c for c in chosen if c[2]["rules"].get("variant") == "kalah"]
    if not kalah:
        print("The exact solver covers Kalah only; these games are analysed with the heuristic "
              "search instead.", file=sys.stderr)
        args.exact = False
        return analyze.run(args)
    if len(kalah) < len(chosen):
        print("The exact solver covers Kalah only: %d Basic game(s) left out (analyze them "
              "without --exact)." % (len(chosen) - len(kalah)), file=sys.stderr)
    if not as_json:
        for text in analyze._wrap(LEGEND):
            print(text)
    from ..solver import searched
    progress = Progress(searched, budget.seconds)

    def lines(index: int, line: int, analysis: dict[str, Any]) -> list[str]:
        progress.clear()
        return game_lines(index, line, args.file, analysis, budget)

    where = {"game": 0}

    def analyse(game: dict[str, Any]) -> dict[str, Any]:
        where["game"] += 1
        return analyse_game(game, budget, progress, "game %d, " % where["game"]
                            if len(kalah) > 1 else "")

    try:
        with progress:
            games = analyze.report_games(kalah, analyse, None if as_json else lines)
    except KeyboardInterrupt:
        raise BoardError("Stopped: Ctrl-C ended the exact analysis of %s (game %d of %d)."
                         % (args.file, where["game"], len(kalah)), exit_code=INTERRUPTED)
    if as_json:
        print(json.dumps({"log": args.file, "exact": budget.to_json(), "games": games,
                          "skipped": [{"line": l, "reason": r} for l, r in skipped]},
                         sort_keys=True))
    if skipped:
        print("\n".join(analyze._wrap(analyze._skipped_sentence(args.file, skipped))),
              file=sys.stderr if as_json else sys.stdout)
    return 0
