"""`analyze LOG [--game N]`: every move of logged games next to what a deeper search prefers.

Each position of a game is searched once with the board's own CPU player (`mancala.cpu`,
level 5) on CPython, where a node limit rather than the clock stops it, so the same log gives
the same analysis on any machine. From those searches every move gets: the pit the search
prefers, the evaluation before (with the best play) and after (the move played), both from
the mover's point of view, and its cost. In 3-4 player Basic the CPU's search is paranoid
(docs/cpu.md), whose values belong to the seat at the root and cannot be turned into another
seat's view, so there only the preferred pit is shown.

Values are in the unit the board's evaluation counts in (mancala.evaluate.unit): in Kalah
and 7-pit Basic stones (Kalah: stones ahead in the store, the seeds in the pits weighed as
the search weighs them; Basic: stones left to shed, the rival's minus the mover's); in
2-player, 6-pit Basic, whose evaluation is a fitted estimate of the log-odds of winning, the
mover's chance to win in percent, and costs in points of that percentage.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import textwrap
from typing import TYPE_CHECKING, Any, Callable, Iterable, Union

from . import gamelog
from ..errors import BoardError
from ..render.view import rules_label

if TYPE_CHECKING:
    from mancala import Game

    # A position's value for a seat: a number in the game's unit, WINS or LOSES when the
    # search sees the end, None where there is none (3-4 players).
    Value = Union[float, str, None]
    # A move's cost: a number in the game's unit, GIVES_UP_WIN or WALKS_INTO_LOSS, or None.
    Cost = Union[float, str, None]

WIDTH = 100
LEVEL = 5
STONES, CHANCE = "stones", "percent"
# By unit: a move costing MISTAKE gets "?", BLUNDER "??"; one costing less than ACCURATE
# counts as accurate.
MISTAKE = {STONES: 2.0, CHANCE: 10.0}
BLUNDER = {STONES: 5.0, CHANCE: 25.0}
ACCURATE = {STONES: 1.0, CHANCE: 3.0}
# How each unit reads, in the text: the values, then the costs.
VALUES = {STONES: "stones", CHANCE: "the mover's chance to win in %"}
COSTS = {STONES: "stones", CHANCE: "points of chance to win"}
WINS, LOSES = "wins", "loses"
GIVES_UP_WIN, WALKS_INTO_LOSS = "the win", "the game"
# The exact solver's search nodes a move where the heuristic analysis asks it (about a second
# on this machine's kind of host, unloaded): --exact-nodes' default there. analyze --exact and
# the other exact commands are bounded by time (--seconds) instead.
EXACT_NODES = 1_000_000


def _cpu():
    try:
        from mancala import cpu, evaluate
        evaluate.unit
    except (ImportError, AttributeError):
        raise BoardError("The rules engine (package 'mancala') is not installed: run 'make venv' "
                         "or 'pip install -e .' in the repository.")
    return cpu, evaluate


def negate(value: Value, unit: str = STONES) -> Value:
    """The same value from the other seat's side (2 players)."""
    if value is None:
        return None
    if isinstance(value, str):  # WINS or LOSES
        return LOSES if value == WINS else WINS
    return round(100.0 - value, 1) if unit == CHANCE else 0.0 - value


class Analyst:
    """Values positions with a fixed amount of search; remembers each position it valued."""

    def __init__(self, nodes: int = 15000, budget_ms: int = 500,
                 exact_nodes: int = EXACT_NODES) -> None:
        self.cpu, self.evaluate = _cpu()
        self.win = self.evaluate.WIN
        self.nodes = nodes
        self.budget_ms = budget_ms
        self.exact_nodes = exact_nodes  # Kalah: the exact solver's budget where words are said
        self.searched = 0
        self._seen: dict[str, tuple[int, Value]] = {}

    def unit(self, engine: Game) -> str:
        """STONES or CHANCE: what the values of this game's positions are in."""
        kind, _ = self.evaluate.unit(engine.kalah, engine.players, engine.pits)
        return CHANCE if kind == self.evaluate.LOG_ODDS else STONES

    def _value(self, engine, score):
        """The search's score (evaluate.py's units) in stones or percent, or wins/loses."""
        if score >= self.win // 2:
            return WINS
        if score <= -(self.win // 2):
            return LOSES
        kind, scale = self.evaluate.unit(engine.kalah, engine.players, engine.pits)
        if kind == self.evaluate.LOG_ODDS:
            return round(100.0 / (1.0 + math.exp(-score / float(scale))), 1)
        return round(score / float(scale), 2) + 0.0  # no -0.0

    def position(self, engine: Game) -> tuple[int, Value]:
        """(preferred pit, value for the seat to move); value is None in 3-4 player games."""
        key = json.dumps(engine.to_dict(), sort_keys=True)
        if key not in self._seen:
            self._seen[key] = self._search(engine)
        return self._seen[key]

    def _search(self, engine):
        moves = engine.legal_moves()
        if len(moves) == 1:
            # The CPU answers a forced move at once, without a score: value what follows.
            seat = engine.turn
            engine.play(moves[0])
            try:
                return moves[0], self.after(engine, seat)
            finally:
                engine.undo()
        # Each search has a Memory of its own, so that a position's value does not depend on
        # what was searched before it (the same game analysed alone or in a whole log agrees).
        search = self.cpu.Search(engine, level=LEVEL, budget_ms=self.budget_ms, seed=1,
                                 max_nodes=self.nodes)
        best = search.run()
        self.searched += 1
        if best not in moves:
            raise BoardError("The CPU search (mancala.cpu) chose pit %r where seat %d can play only "
                             "%s; that is a bug in the search, please report it."
                             % (best, engine.turn, moves))
        if engine.players > 2:
            return best, None
        return best, self._value(engine, search.score)

    def best(self, engine: Game) -> tuple[int, Value]:
        """(preferred pit, value for the seat to move after playing it). The value is taken
        after the move, exactly as the played move's is, so a move's cost compares two
        positions searched alike (a position and its child differ by one ply of depth, and
        that alone swings the evaluation, most of all in Basic)."""
        pit, value = self.position(engine)
        seat = engine.turn
        if value is None or seat is None:
            return pit, None
        engine.play(pit)
        try:
            return pit, self.after(engine, seat)
        finally:
            engine.undo()

    def after(self, engine: Game, seat: int) -> Value:
        """The value of the current position for `seat` (the seat that just moved)."""
        if engine.over:
            places = engine.places
            if engine.players > 2:
                return None
            if places[seat] == 1:
                return 0.0 if places == [1, 1] else WINS
            return LOSES
        value = self.position(engine)[1]
        return value if engine.turn == seat else negate(value, self.unit(engine))


def cost_of(played: int | None, best: int | None, before: Value, after: Value,
            unit: str = STONES) -> tuple[Cost, str]:
    """(cost, mark): cost in the unit's numbers, or GIVES_UP_WIN / WALKS_INTO_LOSS; mark "",
    "?" or "??"."""
    if before is None or after is None:
        return None, ""
    if played == best or before == LOSES or after == WINS:
        return 0.0, ""
    if isinstance(before, str):  # WINS (LOSES has cost nothing above)
        return GIVES_UP_WIN, "??"
    if isinstance(after, str):  # LOSES (WINS has cost nothing above)
        return WALKS_INTO_LOSS, "??"
    cost = round(max(0.0, before - after), 2)
    return cost, "??" if cost >= BLUNDER[unit] else "?" if cost >= MISTAKE[unit] else ""


def exact_moves(engine: Game, nodes: int = EXACT_NODES) -> dict[int, int] | None:
    """{pit: exact value for the seat to move} of each legal pit (the final store difference
    with perfect play), or None when the position needs more than `nodes` nodes for one of
    them: a bound in nodes, not time, so the analysis is the same on any machine."""
    from .exact import Budget, exact_moves as moves
    return moves(engine, Budget(None, nodes))


def exact_cost(before: int, after: int) -> tuple[Cost, str]:
    """(cost, mark) of a move whose exact values are before (with the best pit) and after."""
    if before > 0 >= after:
        return GIVES_UP_WIN, "??"
    if before >= 0 > after:
        return WALKS_INTO_LOSS, "??"
    return cost_of(None, 0, float(before), float(after))


def analyse_game(game: dict[str, Any], analyst: Analyst) -> dict[str, Any]:
    """The analysis of one logged game (a dict that gamelog.check_game accepts): rows and
    a summary per seat, JSON-ready.

    Where the search sees the end of a Kalah game (a value of 'wins' or 'loses'), its horizon
    may still be wrong about it; there the exact solver values the position, when it can
    within analyst.exact_nodes, and the row takes its values (marked exact), so the words
    'wins', 'gives up the win' and so on agree with `analyze --exact`."""
    engine = gamelog.start_engine(game)
    unit = analyst.unit(engine)
    exact = engine.kalah and engine.players == 2 and analyst.exact_nodes > 0
    rows = []
    for number, move in enumerate(game["moves"], 1):
        seat = move.get("seat")
        row = {"move": number, "seat": seat, "by": move.get("by"), "pit": move.get("pit"),
               "resign": bool(move.get("resign")), "best": None, "before": None,
               "after": None, "cost": None, "mark": "", "exact": False}
        if not row["resign"] and not engine.over:
            row["best"], row["before"] = analyst.best(engine)
        gamelog.apply_move(engine, move, number)
        if row["resign"]:
            row["pit"] = None
            rows.append(row)
            continue
        row["after"] = analyst.after(engine, seat)
        values = None
        # A move that ends the game is valued by its result, already exact.
        if exact and not engine.over and (isinstance(row["before"], str)
                                          or isinstance(row["after"], str)):
            engine.undo()
            values = exact_moves(engine, analyst.exact_nodes)
            gamelog.apply_move(engine, move, number)
        if values is not None:
            top = max(values.values())
            keep = [p for p in sorted(values) if values[p] == top]
            row["best"] = row["best"] if row["best"] in keep else keep[0]
            row["before"], row["after"] = float(top), float(values[row["pit"]])
            row["cost"], row["mark"] = exact_cost(top, values[row["pit"]])
            row["exact"] = True
        else:
            row["cost"], row["mark"] = cost_of(row["pit"], row["best"], row["before"],
                                               row["after"], unit)
        rows.append(row)
    return {"rules": game["rules"], "seats": game.get("seats"), "first": game["first"],
            "result": game["result"], "unfinished": gamelog.is_unfinished(game), "unit": unit,
            "moves": rows, "summary": summary(rows, engine.players, unit)}


def summary(rows: list[dict[str, Any]], players: int, unit: str = STONES) -> list[dict[str, Any]]:
    out = []
    for seat in range(players):
        plays = [r for r in rows if r["seat"] == seat and not r["resign"]]
        costs = [r["cost"] for r in plays if r["cost"] is not None]
        entry = {"seat": seat, "moves": len(plays),
                 "mistakes": sum(1 for r in plays if r["mark"] == "?"),
                 "blunders": sum(1 for r in plays if r["mark"] == "??"),
                 "loss": round(sum(c for c in costs if not isinstance(c, str)), 2),
                 "accuracy": None}
        if costs:
            good = sum(1 for c in costs if not isinstance(c, str) and c < ACCURATE[unit])
            entry["accuracy"] = round(100.0 * good / len(costs), 1)
        out.append(entry)
    return out


# ---- text -------------------------------------------------------------------------------

def _wrap(text):
    return textwrap.wrap(text, WIDTH)


def legend(analyst: Analyst) -> list[str]:
    return _wrap(
        "How to read it: one row per move. 'best' is the pit a level-5 search of %d nodes "
        "prefers (at most %d ms a position). 'before' is how the game stands for the seat that "
        "moves if it plays that best pit, 'after' how it stands for that seat after the pit it "
        "played. Each game says its unit above its table: in stones, + means that seat is "
        "ahead, - that it is behind; as a chance to win, 50%% is even. 'wins' or 'loses' means "
        "the search sees the end of the game. 'cost' is before minus after: '?' marks a "
        "mistake that costs %g stones (%g points of chance) or more, '??' a blunder that costs "
        "%g stones (%g points) or more, or the win. Accuracy is the share of a seat's moves "
        "that cost less than %g stone (%g points). In Kalah, where the search sees the end, "
        "the exact solver values the position when it can, and a value marked * is exact: the "
        "final store difference with perfect play, as analyze --exact gives it, so 'wins' and "
        "'gives up the win' come from perfect play."
        % (analyst.nodes, analyst.budget_ms, MISTAKE[STONES], MISTAKE[CHANCE], BLUNDER[STONES],
           BLUNDER[CHANCE], ACCURATE[STONES], ACCURATE[CHANCE]))


def unit_sentence(rules: dict[str, Any], unit: str) -> str:
    """What the values of a game with these rules (a dict) are, in one sentence."""
    if unit == CHANCE:
        return ("Values: the mover's chance to win in %, as the CPU's evaluation estimates it "
                "(50% is even); costs in points of that %.")
    if rules.get("variant") == "kalah":
        return ("Values: stones, the mover's store against the other's, with the seeds still "
                "in the pits counted as the search weighs them; costs in stones.")
    return ("Values: stones left to shed, the rival's minus the mover's (a stone far from the "
            "store counts a little more); costs in stones.")


def _value_text(value, unit=STONES, exact=False):
    if value is None:
        return "-"
    if isinstance(value, str):
        return value
    if unit == CHANCE:
        return "%.0f%%" % value
    if exact:
        return "%+d*" % value if value else "0*"
    return "%+.1f" % value if round(value, 1) else "0.0"


def _cost_text(cost, mark):
    if cost is None:
        return ""
    if cost == GIVES_UP_WIN:
        return "gives up the win ??"
    if cost == WALKS_INTO_LOSS:
        return "walks into a loss ??"
    return ("%.1f %s" % (cost, mark)).rstrip() if cost else ""


def _seat_text(seat, played_by=()):
    """Who played a seat, as its rows say it: the moves' own `by` (what the board reported for
    each move) wins over the seats logged at the start, which a change of the board's config
    during the game leaves behind."""
    kinds = set(played_by) - {None}
    logged_cpu = isinstance(seat, dict) and seat.get("kind") == "cpu"
    if kinds == {"cpu"} or (not kinds and logged_cpu):
        return "CPU level %s" % seat.get("level", "?") if logged_cpu else "CPU"
    if kinds == {"human"} or not kinds:
        return "human"
    return "human and CPU"


def _result_text(rules, result, unfinished=False):
    places, stores = result["places"], result["stores"]
    if unfinished:
        return "unfinished (recording stopped before the end)"
    score = rules.get("variant") == "kalah"  # Basic is decided by who sheds first, not stores
    if len(places) == 2:
        if places == [1, 1]:
            return "a draw, %d to %d" % (stores[0], stores[1])
        winner = places.index(1)
        if not score:
            return "seat %d won" % winner
        return "seat %d won, %d to %d" % (winner, stores[winner], stores[1 - winner])
    order = sorted(range(len(places)), key=lambda s: (places[s] or 99, s))
    return "places: " + ", ".join("%d. seat %d" % (places[s], s) for s in order if places[s])


def game_lines(index: int, line: int, path: str, analysis: dict[str, Any]) -> list[str]:
    seats = analysis["seats"] or []
    head = "Game %d (line %d of %s): %s; %s; seat %d starts; %d moves; %s." % (
        index, line, path, rules_label(analysis["rules"]),
        ", ".join("seat %d %s" % (s, _seat_text(k, [r["by"] for r in analysis["moves"]
                                                    if r["seat"] == s]))
                  for s, k in enumerate(seats)) or "seats not logged",
        analysis["first"], len(analysis["moves"]), _result_text(analysis["rules"], analysis["result"],
                                                                   analysis.get("unfinished")))
    lines = _wrap(head)
    unit = analysis.get("unit", STONES)
    if analysis["rules"].get("players", 2) > 2:
        lines += _wrap("With 3 or 4 players the CPU's search is paranoid (everyone against the "
                       "seat to move), so only the pit it prefers is shown, not values or costs.")
    else:
        lines += _wrap(unit_sentence(analysis["rules"], unit))
    lines.append("")
    lines.append("%5s  %4s  %-8s %4s  %4s  %7s  %7s  %s" % (
        "move", "seat", "by", "pit", "best", "before", "after",
        "cost (%s)" % COSTS[unit] if analysis["rules"].get("players", 2) == 2 else "cost"))
    for r in analysis["moves"]:
        if r["resign"]:
            lines.append("%5d  %4d  %-8s resigns" % (r["move"], r["seat"], r["by"] or "-"))
            continue
        lines.append(("%5d  %4d  %-8s %4s  %4s  %7s  %7s  %s" % (
            r["move"], r["seat"], r["by"] or "-", r["pit"], r["best"],
            _value_text(r["before"], unit, r.get("exact")),
            _value_text(r["after"], unit, r.get("exact")), _cost_text(r["cost"], r["mark"]))).rstrip())
    lines.append("")
    for s in analysis["summary"]:
        if s["accuracy"] is None:
            lines.append("Seat %d: %d moves." % (s["seat"], s["moves"]))
            continue
        lines += _wrap("Seat %d: %d moves, %d mistake(s) ?, %d blunder(s) ??, %.1f %s lost in "
                       "all, accuracy %.0f%%." % (s["seat"], s["moves"], s["mistakes"],
                                                 s["blunders"], s["loss"], COSTS[unit],
                                                 s["accuracy"]))
    return lines


# ---- the command ------------------------------------------------------------------------

def _chosen(path, number):
    """[(index, line, game)] to analyse and [(line, reason)] skipped."""
    entries = gamelog.latest(gamelog.read_log(path))[0]  # one line per game
    if number is not None and not 1 <= number <= len(entries):
        raise BoardError("%s has %d game(s); --game must be from 1 to %d."
                         % (path, len(entries), len(entries)))
    chosen, skipped = [], []
    for index, (line, game, reason) in enumerate(entries, 1):
        if number is not None and index != number:
            continue
        if game is not None:
            try:
                gamelog.check_game(game)
            except ValueError as exc:
                reason = str(exc)
        if reason and number is not None:
            raise BoardError("Game %d (line %d of %s) cannot be analysed: %s." % (number, line, path, reason))
        if reason:
            skipped.append((line, reason))
        else:
            chosen.append((index, line, game))
    return chosen, skipped


def _skipped_sentence(path, skipped):
    return ("Skipped %d line(s) of %s that are not games that replay (%s %s); 'mancala-board "
            "replay %s' says why." % (len(skipped), path, "line" if len(skipped) == 1 else "lines",
                                      ", ".join(str(l) for l, _ in skipped), path))


def report_games(chosen: list, analyse: Callable[[Any], dict],
                 lines: Callable[[int, int, dict], Iterable[str]] | None) -> list[dict]:
    """Each chosen (index, line, game) analysed in turn: printed as soon as it is done, a
    blank line and lines(index, line, analysis), or with lines None (--json) collected, each
    with its game index and log line, and returned."""
    games = []
    for index, line, game in chosen:
        analysis = analyse(game)
        if lines is None:
            analysis.update(game=index, line=line)
            games.append(analysis)
            continue
        print("")
        for text in lines(index, line, analysis):
            print(text)
        sys.stdout.flush()
    return games


def run(args: argparse.Namespace) -> int:
    """analyze without --exact (the command line sends --exact to exactreport.run_analyze, which
    comes back here for Basic games)."""
    if args.nodes < 1 or args.budget_ms < 1:
        raise BoardError("--nodes and --budget-ms must be at least 1.")
    as_json = getattr(args, "json", False) or getattr(args, "json_out", False)
    chosen, skipped = _chosen(args.file, args.game)
    if not chosen:
        raise BoardError("%s holds no game that replays (%d line(s) skipped), so there is nothing "
                         "to analyse; 'mancala-board replay %s' says why." % (args.file, len(skipped), args.file))
    # Where the search sees the end, the exact solver's peek is bounded by nodes (--exact-nodes,
    # else EXACT_NODES), not by --seconds: the same log gives the same analysis anywhere.
    analyst = Analyst(args.nodes, args.budget_ms, getattr(args, "exact_nodes", None) or EXACT_NODES)
    if not as_json:
        for text in legend(analyst):
            print(text)
    games = report_games(chosen, lambda game: analyse_game(game, analyst),
                         None if as_json else lambda index, line, analysis: game_lines(
                             index, line, args.file, analysis))
    if as_json:
        print(json.dumps({"log": args.file, "search": {"level": LEVEL, "nodes": args.nodes,
                                                       "budget_ms": args.budget_ms},
                          "games": games,
                          "skipped": [{"line": l, "reason": r} for l, r in skipped]}, sort_keys=True))
    if skipped:
        print("\n".join(_wrap(_skipped_sentence(args.file, skipped))),
              file=sys.stderr if as_json else sys.stdout)
    return 0


def add_exact_arguments(p: argparse.ArgumentParser, exact_help: str,
                        nodes_help: str = "") -> None:
    """--exact (with the command's own help), --seconds and --exact-nodes, as every command
    that offers the exact solver (logs/exact.py) takes them; nodes_help: what --exact-nodes
    does without --exact, if anything."""
    from .exact import SECONDS, seconds_argument
    p.add_argument("--exact", action="store_true", help=exact_help)
    p.add_argument("--seconds", type=seconds_argument, default=SECONDS, metavar="S",
                   help="with --exact: the time each position's exact search may take before "
                        "it gives up (default %g)" % SECONDS)
    p.add_argument("--exact-nodes", type=int, default=None, metavar="N",
                   help="with --exact: also stop each move's search after N nodes, the same on "
                        "any machine (default: no limit)" + nodes_help)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="LOG", help="a game log, as record writes it (docs/game-log.md)")
    p.add_argument("--game", type=int, default=None,
                   help="only this game, counted from 1 as replay counts them (default: every game)")
    p.add_argument("--nodes", type=int, default=15000,
                   help="search nodes per position (default 15000; more is deeper and slower)")
    p.add_argument("--budget-ms", type=int, default=500,
                   help="at most this many ms per position, whatever --nodes says (default 500)")
    p.add_argument("--json", dest="json_out", action="store_true", help="one JSON object, for scripts")
    add_exact_arguments(p, "Kalah: exact values with perfect play, stones thrown away, turning "
                           "points", "; without --exact: the exact solver's nodes for a "
                           "position where the heuristic search sees the end (default %d)"
                        % EXACT_NODES)
