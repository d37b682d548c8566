"""Draws the `stats --plot` pictures in docs/host-tool.md from two seeded classes of games:
a 3-player Basic class and a Kalah class, played by the board's own CPU player at mixed
levels. Run from anywhere:

    .venv/bin/python docs/img/make_stats_plots.py

The games are seeded and every search is capped by nodes, not time, so the same commit draws
the same pictures. The logs go through `mancala-board stats --plot` itself, so the pictures
are exactly what the tool draws.
"""
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
for p in (os.path.join(ROOT, "host_tools"), os.path.join(ROOT, "firmware", "lib")):
    sys.path.insert(0, p)

from mancala import Game, Rules  # noqa: E402
from mancala.cpu import choose_move  # noqa: E402
from mancala_host.commands import cli  # noqa: E402
from mancala_host.logs import gamelog  # noqa: E402

CLASSES = {
    "stats-basic-3p.png": ({"variant": "basic", "players": 3}, 24),
    "stats-kalah.png": ({"variant": "kalah"}, 30),
}
LEVELS = (1, 2, 3)


def play(rules, first, seed):
    """One game as a log entry: each seat a CPU of a level picked by the seed."""
    r = Rules.from_dict(rules)
    levels = [LEVELS[(seed + 2 * s) % len(LEVELS)] for s in range(r.players)]
    seats = [{"kind": "cpu", "level": lv} for lv in levels]
    entry = gamelog.new_game({"profile": "quad" if r.players > 2 else "duo", "firmware": "docs"},
                             r.to_dict(), seats, first, started="2026-05-04T09:00:00Z")
    game = Game(r, first=first)
    n = 0
    while not game.over:
        n += 1
        seat = game.turn
        pit = choose_move(game, levels[seat], seed=seed * 1000 + n, max_nodes=400)
        game.play(pit)
        entry["moves"].append({"seat": seat, "pit": pit, "by": "cpu"})
    state = game.to_dict()
    entry["ended"] = "2026-05-04T09:10:00Z"
    entry["result"] = {"places": state["places"], "stores": state["stores"]}
    return entry


def main():
    with tempfile.TemporaryDirectory() as tmp:
        for name, (rules, count) in CLASSES.items():
            log = os.path.join(tmp, name + ".jsonl")
            players = Rules.from_dict(rules).players
            for i in range(count):
                gamelog.append_game(log, play(rules, i % players, seed=i + 1))
            out = os.path.join(HERE, name)
            code = cli.main(["stats", log, "--plot", out])
            if code:
                return code
    return 0


if __name__ == "__main__":
    sys.exit(main())
