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
"""
import argparse
import random
import resource
import sys
import time

from mancala import Game, Rules
from mancala_host.solver import Exact

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


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="leave out Kalah(6,4)")
    args = parser.parse_args(argv)
    failures = []
    positions(24, 40, failures)
    for seeds in (3,) if args.quick else (3, 4):
        for preset in PRESETS:
            start_moves(seeds, preset, failures)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 / 1024  # KiB on Linux
    print("peak memory %.2f GiB" % peak)
    if peak > PEAK_GB:
        failures.append("peak memory %.2f GiB" % peak)
    for f in failures:
        print("MISSED: " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
