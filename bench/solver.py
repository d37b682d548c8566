"""The exact solver's targets, on the host machine: every start move of Kalah(6,3) and (6,4)
under both capture rules, positions with 24 stones in play, and the peak memory.

    .venv/bin/python bench/solver.py [--quick]

Each start move is valued by its own search (Exact.move_values, one MTD(f) per move) on one
solver per rule set, whose tables persist from move to move as they do in an analysis; the
time given is that move's. The 24-stone positions are seeded random positions, each valued
on a fresh solver (empty tables): the worst time is the figure; then, on the same solver,
each of its moves (an analysis's work), reported beside it. The peak
is the process's maximum resident set (ru_maxrss). --quick leaves out Kalah(6,4), which
takes several minutes a rule on a 2-core machine.

The check: (6,3) is +2 under the default rules (Irving, Donkers and Uiterwijk 2000), (6,4)
+8 with capture "nonempty" and +10 with capture "always" (Rawlings 2015), each move within
its target, and the peak under 4 GB. The bench exits 1 if one is missed.

Two long runs, each instead of the above (make bench SOLVERFLAGS=...):

    .venv/bin/python bench/solver.py --versus DIR    # beside CMancala (bench/solver_versus.py)
    .venv/bin/python bench/solver.py --six-five      # every start move of Kalah(6,5)

--six-five values the six start moves of Kalah(6,5) under both presets on --threads
threads (2) with a 20-stone endgame database (read from --db-folder, build/solver/, built
there first when missing and not counted) and a table of at most 2 GiB; the targets are the
published +10 and +12, an hour of wall time in all and 8 GB. docs/cpu.md section 10
estimates its nodes: many hours on a 2-core machine, so it is not run by default.
"""
import argparse
import os
import random
import resource
import sys
import time

from mancala import Game, Rules
from mancala_host.solver import Exact
from mancala_host.solver import database

import solver_versus

START_S = {3: 10.0, 4: 300.0}
POSITION_S = 1.0
PEAK_GB = 4.0
# The rule sets: the engine's two presets, the second being the rule page of empty captures.
PRESETS = ["kalah", "kalah-empty-capture"]
# The published best value for the first player, where one is known.
PUBLISHED = {(3, "kalah"): 2, (4, "kalah"): 8, (4, "kalah-empty-capture"): 10}
# Table sizes for the start positions: 2^26 entries of 16 bytes is 1 GiB.
TT_BITS = 26
# And for the positions with 24 stones, each on a fresh solver: 2^20 entries, 16 MiB.
POSITION_TT_BITS = 20


def start_moves(seeds, preset, failures):
    rules = Rules.from_dict({"preset": preset, "seeds": seeds})
    game = Game(rules)
    solver = Exact(rules, tt_bits=TT_BITS)
    values = {}
    print("Kalah(6,%d) %s (capture %s, wipe-out captures %s):" % (
        seeds, preset, rules.capture, "allowed" if rules.wipeout_capture else "refused"))
    for pit in reversed(game.legal_moves()):
        game.push(pit)
        nodes = solver.nodes
        t0 = time.perf_counter()
        value = solver.value(game)
        took = time.perf_counter() - t0
        v = value if game.turn == 0 else -value
        game.pop()
        values[pit] = v
        ok = took <= START_S[seeds]
        print("  pit %d: %+d   %7.2f s  %11d nodes%s" % (
            pit, v, took, solver.nodes - nodes, "" if ok else "   OVER %.0f s" % START_S[seeds]))
        if not ok:
            failures.append("Kalah(6,%d) %s pit %d took %.1f s" % (seeds, preset, pit, took))
        sys.stdout.flush()
    best = max(values.values())
    print("  best %+d with pit %s" % (best, ", ".join(
        str(p) for p in sorted(values) if values[p] == best)))
    published = PUBLISHED.get((seeds, preset))
    if published is not None and best != published:
        failures.append("Kalah(6,%d) %s is %+d, published %+d" % (seeds, preset, best, published))


def positions(stones, count, failures):
    rng = random.Random(24)
    for preset in PRESETS:
        rules = Rules.from_dict({"preset": preset})
        worst = worst_moves = 0.0
        for _ in range(count):
            while True:
                pits = [0] * 12
                for _ in range(stones):
                    pits[rng.randrange(12)] += 1
                if any(pits[:6]) and any(pits[6:]):
                    break
            solver = Exact(rules, tt_bits=POSITION_TT_BITS)
            t0 = time.perf_counter()
            solver.pits_value(tuple(pits))
            t1 = time.perf_counter()
            solver.pits_moves(tuple(pits))
            worst = max(worst, t1 - t0)
            worst_moves = max(worst_moves, time.perf_counter() - t1)
        ok = worst <= POSITION_S
        print("%d random positions with %d stones in play, %s: the value in at most %.3f s%s, "
              "then every move's in at most %.3f s" % (
                  count, stones, preset, worst, "" if ok else " (OVER 1 s)", worst_moves))
        if not ok:
            failures.append("%d stones, %s: %.2f s" % (stones, preset, worst))


# Kalah(6,5), --six-five: the endgame database's stones and the table's size (2^28 entries of 8
# bytes, 2 GiB); the published values of the game (Rawlings 2015 and CMancala's README for
# "kalah"; Rawlings for the empty-capture rule).
SIX_FIVE_DB = 20
SIX_FIVE_TT_BITS = 28
SIX_FIVE_PUBLISHED = {"kalah": 10, "kalah-empty-capture": 12}
SIX_FIVE_WALL_S = 3600
SIX_FIVE_PEAK_GB = 8.0


def loadavg():
    return "%.1f %.1f %.1f" % os.getloadavg()


def six_five(failures, folder, threads):
    """Every start move of Kalah(6,5) under both presets, each by its own MTD(f) on one solver
    per preset (tables shared from move to move; the endgame database read from folder, built
    there first when missing, its build not counted)."""
    t_all = time.monotonic()
    for preset in PRESETS:
        rules = Rules.from_dict({"preset": preset, "seeds": 5})
        always, wipeout = rules.capture == "always", rules.wipeout_capture
        print("Kalah(6,5) %s on %d thread(s), load average %s:" % (preset, threads, loadavg()))
        solver, built = database.solver_with(folder, 6, always, wipeout, SIX_FIVE_DB,
                                             SIX_FIVE_TT_BITS, threads)
        if built is not None:
            print("  endgame database of %d stones built in %.1f s CPU (not counted)" % (
                SIX_FIVE_DB, built))
        start = (5,) * 12
        values, guess = {}, 0
        t_preset = time.monotonic()
        for pit in range(6, 0, -1):
            after, gain, status = solver.play(start, pit)
            nodes, c0, w0 = solver.nodes, time.process_time(), time.monotonic()
            if status == 1:    # an extra move: the same seat moves again
                value = gain + solver.value(after, guess=guess - gain)
            else:
                value = gain - solver.value(after, guess=gain - guess)
            guess = values[pit] = value
            print("  pit %d: %+d   %8.1f s CPU  %8.1f s wall  %13d nodes  load %s" % (
                pit, value, time.process_time() - c0, time.monotonic() - w0,
                solver.nodes - nodes, loadavg()))
            sys.stdout.flush()
        best = max(values.values())
        print("  best %+d with pit %s; %.1f s wall for the six" % (best, ", ".join(
            str(p) for p in sorted(values) if values[p] == best), time.monotonic() - t_preset))
        if best != SIX_FIVE_PUBLISHED[preset]:
            failures.append("Kalah(6,5) %s is %+d, published %+d" % (
                preset, best, SIX_FIVE_PUBLISHED[preset]))
        del solver
    took = time.monotonic() - t_all
    print("Kalah(6,5): %.1f s wall in all (target %d s)" % (took, SIX_FIVE_WALL_S))
    if took > SIX_FIVE_WALL_S:
        failures.append("Kalah(6,5) took %.0f s wall" % took)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="leave out Kalah(6,4)")
    parser.add_argument("--six-five", action="store_true",
                        help="only solve every start move of Kalah(6,5) under both presets "
                             "(long: many hours on 2 cores, docs/cpu.md section 10; "
                             "targets an hour and %g GB)" % SIX_FIVE_PEAK_GB)
    parser.add_argument("--versus", metavar="DIR", default=os.environ.get("CMANCALA_SRC"),
                        help="only run the side-by-side bench against CMancala, from its "
                             "source folder or archive DIR (or $CMANCALA_SRC); "
                             "bench/solver_versus.py")
    parser.add_argument("--versus-worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--db-stones", type=int, default=solver_versus.DB_STONES,
                        help=argparse.SUPPRESS)
    parser.add_argument("--db-folder", default=os.path.join("build", "solver"),
                        help="where the endgame databases are kept (build/solver)")
    parser.add_argument("--threads", type=int, default=solver_versus.THREADS,
                        help="threads our search runs on in --versus and --six-five (%d)"
                        % solver_versus.THREADS)
    args = parser.parse_args(argv)
    failures = []
    peak_gb = PEAK_GB
    if args.versus_worker:
        return solver_versus.worker(args.db_folder, args.db_stones, args.threads)
    if args.versus:
        solver_versus.main(args.versus, args.db_folder, failures, args.threads)
    elif args.six_five:
        six_five(failures, args.db_folder, args.threads)
        peak_gb = SIX_FIVE_PEAK_GB
    else:
        positions(24, 40, failures)
        for seeds in (3,) if args.quick else (3, 4):
            for preset in PRESETS:
                start_moves(seeds, preset, failures)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 / 1024  # KiB on Linux
    print("peak memory %.2f GiB" % peak)
    if peak > peak_gb:
        failures.append("peak memory %.2f GiB" % peak)
    for f in failures:
        print("MISSED: " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
