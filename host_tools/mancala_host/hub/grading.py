"""Report cards for the students' bots: every bot move of a finished Kalah game in the class's
logs, valued by the exact solver against perfect play (logs/exact.py's analyse_game).

A move's cost is the stones it threw away: the value of the best pit minus the value of the
pit played, both final store differences with perfect play from then on. Each position's
search has the exact commands' time budget (`--grade-seconds`, default logs.exact.SECONDS,
as `analyze --exact --seconds`; optionally `--grade-nodes` nodes for each pit, the same on
every machine); a position that needs more has no value: the card counts it as beyond the
solver (`beyond`) and never guesses. A card:

    {"name", "games", "points", "moves", "graded", "beyond", "thrown_away", "per_move",
     "worst": [{"game", "move", "position", "pit", "best", "cost"}, ...]}

`Cards` grades in a thread of its own, each finished game once, as the logs grow; `cards()`
answers at once with what is graded so far (and `pending`: games still to grade). `export`
writes bots.csv, bot-moves.csv and bots.png (stones thrown away per move, per bot).
"""

from __future__ import annotations

import csv
import glob
import os
import threading
from typing import Any, Callable

from ..logs import gamelog
from ..logs.exact import Budget, analyse_game

WORST = 5
CARD_FIELDS = ("name", "games", "points", "moves", "graded", "beyond", "thrown_away", "per_move")
MOVE_FIELDS = ("name", "game", "move", "position", "pit", "best", "cost")


def _position(state: dict[str, Any], seat: int) -> str:
    """The position from the mover's side: its pits and store, then the opponent's."""
    return "%s %d | %s %d" % (" ".join(map(str, state["pits"][seat])), state["stores"][seat],
                              " ".join(map(str, state["pits"][1 - seat])), state["stores"][1 - seat])


def grade_game(game: dict[str, Any], label: str, bots: set[str],
               budget: Budget | None = None) -> list[dict[str, Any]]:
    """One row per move a bot played in game (a finished 2-seat Kalah game with a tournament
    tag): its cost, or None beyond the budget (default: Budget(), the exact commands'), and
    the position before it."""
    names = (game.get("tournament") or {}).get("players") or []
    seats = [s for s, n in enumerate(names[:2]) if n in bots]
    if not seats or game["rules"].get("variant") != "kalah" or gamelog.is_unfinished(game):
        return []
    analysis = analyse_game(game, budget)
    engine = gamelog.start_engine(game)
    rows = []
    for number, (move, row) in enumerate(zip(game["moves"], analysis["moves"]), 1):
        state = engine.to_dict()
        if row["seat"] in seats and not row["resign"]:
            rows.append({"name": names[row["seat"]], "game": label, "move": number,
                         "position": _position(state, row["seat"]), "pit": row["pit"],
                         "best": row["best"], "cost": row["cost"]})
        gamelog.apply_move(engine, move, number)
    return rows


def _points(game: dict[str, Any], seat: int) -> float:
    places = game["result"]["places"]
    return 0.5 if places[0] == places[1] else float(places[seat] == 1)


class Cards:
    def __init__(self, folder: str, bot_names: Callable[[], set[str]],
                 budget: Budget | None = None, interval: float = 2.0) -> None:
        self.folder, self.bot_names, self.interval = folder, bot_names, interval
        self.budget = Budget() if budget is None else budget
        self.lock = threading.Lock()
        self.graded: dict[Any, tuple[dict[str, Any], list[dict[str, Any]]]] = {}
        self.pending = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True, name="grading")

    def start(self) -> None:
        self.thread.start()

    def close(self) -> None:
        self.stop.set()

    def _games(self) -> list[tuple[Any, str, dict[str, Any]]]:
        found = []
        for path in sorted(glob.glob(os.path.join(self.folder, "board-*.jsonl"))):
            try:
                games = [g for _, _, g, _, _ in gamelog.good_games(
                    [path], report=lambda *a: None, unfinished=False)]
            except gamelog.NotAGameLog:
                continue
            board = os.path.basename(path)[6:-6]
            for i, g in enumerate(games):
                if g.get("tournament"):
                    found.append((gamelog.game_key(g) or (board, i), "%s #%d" % (board, i + 1), g))
        return found

    def grade_now(self) -> None:
        """Grade every finished bot game not graded yet (the thread's loop, and tests)."""
        bots = self.bot_names()
        todo = [(k, label, g) for k, label, g in self._games() if k not in self.graded]
        todo = [t for t in todo if set((t[2]["tournament"].get("players") or [])[:2]) & bots]
        self.pending = len(todo)
        for key, label, game in todo:
            if self.stop.is_set():
                return
            try:
                rows = grade_game(game, label, bots, self.budget)
            except (ValueError, KeyError, TypeError):
                rows = []
            with self.lock:
                self.graded[key] = (game, rows)
            self.pending -= 1

    def _run(self) -> None:
        while not self.stop.is_set():
            self.grade_now()
            self.stop.wait(self.interval)

    def cards(self) -> list[dict[str, Any]]:
        bots = self.bot_names()
        with self.lock:
            graded = list(self.graded.values())
        cards: dict[str, dict[str, Any]] = {}
        for game, rows in graded:
            names = game["tournament"]["players"]
            for seat, name in enumerate(names[:2]):
                if name not in bots:
                    continue
                c = cards.setdefault(name, {"name": name, "games": 0, "points": 0.0, "moves": 0,
                                            "graded": 0, "beyond": 0, "thrown_away": 0,
                                            "per_move": None, "worst": []})
                c["games"] += 1
                c["points"] += _points(game, seat)
            for r in rows:
                c = cards[r["name"]]
                c["moves"] += 1
                if r["cost"] is None:
                    c["beyond"] += 1
                else:
                    c["graded"] += 1
                    c["thrown_away"] += r["cost"]
                    c["worst"].append(r)
        for c in cards.values():
            c["per_move"] = c["thrown_away"] / c["graded"] if c["graded"] else None
            c["worst"] = sorted((r for r in c["worst"] if r["cost"] > 0),
                                key=lambda r: (-r["cost"], r["game"], r["move"]))[:WORST]
        return sorted(cards.values(), key=lambda c: c["name"].lower())

    def rows(self) -> list[dict[str, Any]]:
        with self.lock:
            return [r for _, rows in self.graded.values() for r in rows]

    def export(self, out: str) -> None:
        """bots.csv (the cards), bot-moves.csv (every bot move) and bots.png in out."""
        cards = self.cards()
        with open(os.path.join(out, "bots.csv"), "w", newline="", encoding="utf-8") as f:
            w = csv.DictWriter(f, fieldnames=CARD_FIELDS, extrasaction="ignore")
            w.writeheader()
            w.writerows(cards)
        with open(os.path.join(out, "bot-moves.csv"), "w", newline="", encoding="utf-8") as f:
            w = csv.DictWriter(f, fieldnames=MOVE_FIELDS)
            w.writeheader()
            for r in self.rows():
                w.writerow(dict(r, best=" ".join(map(str, r["best"])),
                                cost="" if r["cost"] is None else r["cost"]))
        if cards:
            _plot(cards, os.path.join(out, "bots.png"))


def _plot(cards: list[dict[str, Any]], path: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(max(4, 1.2 * len(cards) + 2), 4))
    names = [c["name"] for c in cards]
    values = [c["per_move"] or 0 for c in cards]
    ax.bar(names, values, color="#4a7fb5")
    for i, c in enumerate(cards):
        ax.annotate("%d of %d moves graded" % (c["graded"], c["moves"]), (i, values[i]),
                    ha="center", va="bottom", fontsize=8)
    ax.set_ylabel("stones thrown away per graded move")
    ax.set_title("Bots against perfect play (exact solver)")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
