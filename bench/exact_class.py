"""The exact solver for a class, on the host machine: `hint --exact` on every position of a
recorded Kalah(6,4) game within the default time budget, and `analyze --exact` of the whole
game, with the opening book shipped in the package (solver/books, `make book`) and, when
`make book` wrote it, the full endgame table (build/book), on the shared solvers' threads.

    .venv/bin/python bench/exact_class.py [--preset kalah] [--level 3] [--seed 1] [--quick]

The game: the board's CPU (mancala.cpu, the given level and seed, 20,000 nodes a move, so the
same game on every machine) against itself under the preset, written to a game log as
`record` writes it. Then:
- hint: each position valued as `hint --exact` values it (logs.exact.hint_lines, the default
  budget, the shared solvers with the book), each on fresh tables as a new command has them;
  the time of each, and whether it answered or ran out of the budget;
- analyze: `mancala-board analyze LOG --exact` run as a command of its own, its wall time and
  the moves it valued.
The load average is printed before and after: the machine is shared, and the times grow with
the load. Targets: every position answered within the budget; the analysis at most 10 s.
Exits 1 if one is missed.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

from mancala import Game, Rules, cpu
from mancala_host import solver
from mancala_host.solver import book as opening
from mancala_host.logs import exact, gamelog

ANALYZE_S = 10.0
MOVE_NODES = 20000


def recorded_game(preset, level, seed):
    """(log entry, the state before each move) of one CPU-against-CPU game."""
    rules = Rules.from_dict({"preset": preset, "seeds": 4})
    game = Game(rules, first=0)
    entry = gamelog.new_game({"profile": "duo", "firmware": "bench"}, rules.to_dict(),
                             [{"kind": "cpu", "level": level}] * 2, 0)
    states = []
    while not game.over:
        states.append(game.to_dict())
        seat = game.turn
        pit = cpu.choose_move(game, level=level, budget_ms=10 ** 6, seed=seed + len(states),
                              max_nodes=MOVE_NODES)
        game.play(pit)
        entry["moves"].append({"seat": seat, "pit": pit, "by": "cpu"})
    state = game.to_dict()
    entry["result"] = {"places": state["places"], "stores": state["stores"]}
    return entry, states


def load():
    return "%.1f %.1f %.1f" % os.getloadavg()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--preset", default="kalah", choices=["kalah", "kalah-empty-capture"])
    p.add_argument("--level", type=int, default=3)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--quick", action="store_true", help="hint on the first 8 positions only")
    args, _ = p.parse_known_args()  # make bench gives every bench the same BENCHFLAGS
    budget = exact.Budget()
    failures = []
    entry, states = recorded_game(args.preset, args.level, args.seed)
    rules = Rules.from_dict(entry["rules"])
    book = opening.load(rules.capture == "always", rules.wipeout_capture)
    print("Kalah(6,4) %s, CPU level %d against itself (seed %d): %d moves; opening book: %d "
          "positions (%s); %d search thread(s); budget %g s a position; load average %s" % (
              args.preset, args.level, args.seed, len(states), len(book),
              opening.default_folder(), solver.THREADS, budget.seconds, load()))
    times, missed = [], []
    for number, state in enumerate(states[:8] if args.quick else states, 1):
        solver._SOLVERS.clear()  # a new command: fresh tables
        start = time.monotonic()
        cpu_start = time.process_time()
        answer, sentence = exact.hint_lines(state, budget)
        spent = time.monotonic() - start
        times.append(spent)
        if answer is None:
            missed.append(number)
        stones = sum(sum(row) for row in state["pits"])
        print("  move %2d: %2d stones in play, %6.2f s (%.2f s CPU) %s" % (
            number, stones, spent, time.process_time() - cpu_start,
            "value %+d, pits %s" % (answer["value"], answer["pits"]) if answer else
            "RAN OUT: " + sentence))
    print("hint --exact: %d of %d positions answered; median %.2f s, max %.2f s; load average "
          "%s" % (len(times) - len(missed), len(times), statistics.median(times), max(times),
                  load()))
    if missed:
        failures.append("hint --exact ran out of its budget at move(s) %s" % missed)

    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "game.jsonl")
        gamelog.append_game(log, entry)
        start = time.monotonic()
        done = subprocess.run([sys.executable, "-m", "mancala_host", "analyze", log, "--exact",
                               "--json"], capture_output=True, text=True)
        spent = time.monotonic() - start
    if done.returncode:
        failures.append("analyze --exact failed: %s" % done.stderr.strip())
    else:
        report = json.loads(done.stdout)["games"][0]
        valued = sum(1 for r in report["moves"] if r["before"] is not None)
        print("analyze --exact: %d of %d moves valued in %.1f s (target %g s); load average %s"
              % (valued, len(report["moves"]), spent, ANALYZE_S, load()))
        if valued < len(report["moves"]):
            failures.append("analyze --exact left moves %s without a value" % report["too_big"])
    if spent > ANALYZE_S:
        failures.append("analyze --exact took %.1f s, over %g s" % (spent, ANALYZE_S))
    for f in failures:
        print("MISSED: " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
