"""CPU player figures: node rate, move times and heap on the emulated Pico, strength in matches.

    .venv/bin/python bench/cpu.py            # the full run
    .venv/bin/python bench/cpu.py --quick    # a small version of every figure
    .venv/bin/python bench/cpu.py --pico     # only the emulated Pico's figures
    .venv/bin/python bench/cpu.py --nodes kalah=2008,basic2=1792,basic4=1924   # matches only
    .venv/bin/python bench/cpu.py --fit basic 3000   # refit evaluate.py's tables (numpy)
    .venv/bin/python bench/cpu.py --openings 100     # make bench/cpu_openings.json again

Method (docs/cpu.md section 8 says the same):
1. On the emulated Pico (bench/pico_run.py: the stock v1.28.0 image, emulated time), in one
   run: level-5 searches of fixed node counts (the node rate), then level-5 moves searched
   as the app searches them (Search(game, 5, 1000), step(SLICE_MS), ~1 ms between slices
   for the rest of a main-loop pass): think_ms and the nodes a move gets. Without the
   emulator (no image or no Node.js) the unix port estimates the same figures, scaled by
   bench/calibration.py's add_test.
2. The matches then run in CPython, in parallel processes, with level 5 limited to the
   median nodes a move got on the Pico (jittered +-15% per move, as a real clock would be).
   Node counts do not depend on how busy this machine is, so the strength figures are
   reproducible. The reference matches start from bench/cpu_openings.json, each opening
   played once from each seat.
"""
import os
import subprocess
import sys
import time
from multiprocessing import Pool

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIB = os.path.join(ROOT, "firmware", "lib")
sys.path[:0] = [LIB, os.path.join(ROOT, "tests"), os.path.join(ROOT, "bench")]

from mancala import Game, Rules  # noqa: E402
from mancala.cpu import choose_move, Memory, Rng, TT_BITS  # noqa: E402
from mancala_fw.app.autoplay import SLICE_MS  # noqa: E402  the app's search slice
from mancala_fw.app.loop import PAD_MS  # noqa: E402  and the pad-poll interval it shares the CPU with
import reference_player  # noqa: E402
from engine import micropython_run, PICO_CAL_MS  # noqa: E402

KALAH = {"variant": "kalah"}
BASIC2 = {"variant": "basic"}
BASIC4 = {"variant": "basic", "players": 4}

_ref_cache = {}


def _ref_move(game):
    key = repr(game.to_dict())
    pit = _ref_cache.get(key)
    if pit is None:
        pit = reference_player.reference_move(game)
        _ref_cache[key] = pit
    return pit


def _opening(game, rng, moves=2):
    for _ in range(moves):
        if game.over:
            return
        legal = game.legal_moves()
        game.play(legal[rng.below(len(legal))])


def _budget(nodes, rng):
    return nodes * (85 + rng.below(31)) // 100


# Openings for the matches against the reference: OPENING_PLIES random moves, kept when a
# level-5 search of OPENING_NODES rates the position no more lopsided than the start
# position itself (the first player's edge). bench/cpu_openings.json holds them per rule set
# (`--openings` makes them again), so every run and every version plays the same ones.
OPENING_PLIES = 4
OPENING_NODES = 20000
OPENINGS_FILE = os.path.join(ROOT, "bench", "cpu_openings.json")
MATCHES = {"kalah": KALAH, "kalah3": {"variant": "kalah", "seeds": 3},
           "kalah5": {"variant": "kalah", "seeds": 5},
           "kalah-empty-capture": {"variant": "kalah", "capture": "always",
                                   "wipeout_capture": False},
           "basic2": BASIC2}


def _opening_value(args):
    """(pits of candidate k, its value for seat 0 by a deep search) for rules."""
    from mancala.cpu import Search
    rules, k = args
    game = Game(Rules.from_dict(rules), first=0)
    rng = Rng(1000 + k)
    pits = []
    for _ in range(OPENING_PLIES if k >= 0 else 0):
        if game.over:
            return pits, None
        legal = game.legal_moves()
        pits.append(legal[rng.below(len(legal))])
        game.play(pits[-1])
    if game.over:
        return pits, None
    s = Search(game, 5, 10 ** 7, seed=1, max_nodes=OPENING_NODES)
    s.run()
    return pits, s.score if game.turn == 0 else -s.score


def make_openings(count):
    """count balanced openings per rule set of MATCHES, written to OPENINGS_FILE."""
    import json
    out = {}
    with Pool(os.cpu_count() or 2) as pool:
        for name, rules in sorted(MATCHES.items()):
            edge = max(8, abs(_opening_value((rules, -1))[1]))
            kept = []
            k = 0
            while len(kept) < count:
                for pits, v in pool.map(_opening_value, [(rules, k + i) for i in range(64)]):
                    if v is not None and abs(v) <= edge and len(kept) < count:
                        kept.append(pits)
                k += 64
            out[name] = kept
            print(name, "edge", edge, "candidates", k, "kept", len(kept), flush=True)
    with open(OPENINGS_FILE + ".new", "w") as f:
        json.dump(out, f, separators=(",", ":"), sort_keys=True)
        f.write("\n")
    os.replace(OPENINGS_FILE + ".new", OPENINGS_FILE)


def openings(name):
    import json
    with open(OPENINGS_FILE) as f:
        return json.load(f)[name]


def play_vs_reference(args):
    """One game: level 5 (node budget) against the reference from an opening (a list of
    pits). Returns level 5's points x2. Games come in pairs, the same opening with level 5
    on one seat and then the other, so an opening that favours a seat favours each player
    once."""
    rules, g, nodes, opening = args
    game = Game(Rules.from_dict(rules), first=0)
    for pit in opening:
        game.play(pit)
    rng = Rng(1000 + g)
    seat = g % 2
    memory = Memory()  # level 5's, kept from move to move as the board keeps it
    while not game.over:
        if game.turn == seat:
            pit = choose_move(game, 5, 10 ** 6, seed=rng.below(1 << 20),
                              max_nodes=_budget(nodes, rng), memory=memory)
        else:
            pit = _ref_move(game)
        game.play(pit)
    return _points(game, seat)


def _points(game, seat):
    mine = game.places[seat]
    theirs = min(game.places[s] for s in range(game.players) if s != seat)
    return 2 if mine < theirs else (1 if mine == theirs else 0)


def play_levels(args):
    """One game between two levels (or level 5 against three level-1 seats in 4-player
    Basic). Returns (points x2 of the first level, its place)."""
    rules, g, a, b, nodes = args
    rng = Rng(5000 + g)
    r = Rules.from_dict(rules)
    # Every seat plays every starting position in turn: seat cycles fastest, then first.
    game = Game(r, first=(g // r.players) % r.players)
    _opening(game, rng)
    seat = g % r.players
    memories = [Memory() for _ in range(r.players)]  # each seat its own, as on a board
    while not game.over:
        level = a if game.turn == seat else b
        game.play(choose_move(game, level, 10 ** 6, seed=rng.below(1 << 20),
                              max_nodes=_budget(nodes, rng), memory=memories[game.turn]))
    return _points(game, seat), game.places[seat]


MP_SCRIPT = r"""
import gc, time
gc.collect()
base = gc.mem_alloc()
from mancala import Game, Rules
from mancala.cpu import Search, Rng, Memory
gc.collect()
code = gc.mem_alloc() - base
memory = Memory()
# calibrate() is bench/calibration.py's (the published add_test), put before this script
# by micropython_run.
def cal():
    return calibrate()
VARIANTS = (("kalah", {"variant": "kalah"}), ("basic2", {"variant": "basic"}),
            ("basic4", {"variant": "basic", "players": 4}))
def cal_short():
    return calibrate(100000) * 1000 / 1000000  # us per add_test pass
c = min(cal() for _ in range(3))
print("CAL", c)
# Node rate: fixed-node searches on positions from random games, fastest of 3 runs each
# (the least disturbed by other processes), median over the positions.
for name, rules in VARIANTS:
    rng = Rng(3)
    for pos in range(6):
        g = Game(Rules.from_dict(rules))
        for _ in range(2 + 3 * pos):
            if not g.over:
                legal = g.legal_moves()
                g.play(legal[rng.below(len(legal))])
        if g.over:
            continue
        for rep in range(3):
            # A short calibration right before and after each search: the ratio of the two
            # holds even when other processes slow this one down for a while.
            c1 = cal_short()
            t = time.ticks_us()
            memory.clear()
            s = Search(g, 5, 10 ** 6, seed=1, max_nodes=3000, memory=memory)
            s.run()
            dt = time.ticks_diff(time.ticks_us(), t)
            c2 = cal_short()
            if s.nodes:
                print("RATE", name, dt / s.nodes, (c1 + c2) / 2)
c = min([c] + [cal() for _ in range(3)])
print("CAL", c)
print("CODE", code)
# Move times: the search reads an RP2040 clock, this machine's ticks_us slowed down by the
# calibration ratio, so budget_ms = 1000 and the slices of SLICE_MS are the Pico's (the real
# ticks_ms ticks once per ~90 RP2040-ms here, too coarse to test a deadline with). Integer
# arithmetic only, so the clock allocates nothing and the heap figures stay clean.
import mancala.cpu as CPU, mancala.negamax as NEG
T0 = time.ticks_us()
CAL_US = int(c * 1000)
def pico_ms():
    return (time.ticks_diff(time.ticks_us(), T0) * %(pico)d // CAL_US) & 0x3FFFFFFF
CPU.ticks_ms = pico_ms
NEG.ticks_ms = pico_ms
# Move times and heap: level 5 with one RP2040-second, playing against random replies. Each
# search runs twice from the same table state's successor; the faster run counts (the one
# less disturbed by other processes on this shared machine), and the slower is printed too.
for name, rules in VARIANTS:
    rng = Rng(7)
    for g in range(%(games)d):
        game = Game(Rules.from_dict(rules))
        memory = Memory()
        while not game.over:
            seed = rng.below(999)
            best = None
            for rep in range(2):
                gc.collect()
                before = gc.mem_alloc()
                t = pico_ms()
                s = Search(game, 5, 1000, seed=seed, memory=memory)
                peak = gc.mem_alloc() - before
                while not s.step(%(slice)d):
                    used = gc.mem_alloc() - before
                    if used > peak:
                        peak = used
                ms = time.ticks_diff(pico_ms(), t)
                gc.collect()
                kept = gc.mem_alloc() - before
                row = (ms, s.nodes, peak, s.depth, kept)
                if best is None or ms < best[0]:
                    slow = best[0] if best else ms
                    best = row
                else:
                    slow = ms
            if s.nodes:
                print("MOVE", name, *(best + (slow,)))
            game.play(s.best)
            if not game.over:
                legal = game.legal_moves()
                game.play(legal[rng.below(len(legal))])
"""


def measure_on_micropython(games):
    out = micropython_run(MP_SCRIPT % {"pico": PICO_CAL_MS, "games": games, "slice": SLICE_MS})
    cals = []
    rates = {}
    moves = {}
    code = 0
    for line in out.splitlines():
        f = line.split()
        if not f:
            continue
        if f[0] == "CAL":
            cals.append(float(f[1]))
        elif f[0] == "CODE":
            code = int(f[1])
        elif f[0] == "RATE":
            # microseconds per node here / microseconds per calibration pass here
            rates.setdefault(f[1], []).append(float(f[2]) / float(f[3]))
        elif f[0] == "MOVE":
            moves.setdefault(f[1], []).append([int(x) for x in f[2:]])
    return cals[-1], rates, code, moves


def verdict(met):
    return "MET" if met else "MISSED"


def _median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2]


def selfplay_positions(args):
    """One self-play game (level 5, ~500 nodes a move, 2-6 random opening moves): each
    position as the mover's 6 pits, the other's 6 pits, the store difference (mover's
    minus other's), and the mover's result (2 won, 1 drawn, 0 lost)."""
    rules, g = args
    memory = Memory()  # each game on its own, so the games do not depend on the pool's order
    rng = Rng((55555 if rules is KALAH else 77777) + g)
    game = Game(Rules.from_dict(rules), first=g % 2)
    _opening(game, rng, 2 + rng.below(5))
    rows = []
    while not game.over:
        t = game.turn
        d = game.to_dict()
        rows.append((t, d["pits"][t] + d["pits"][1 - t] + [d["stores"][t] - d["stores"][1 - t]]))
        game.play(choose_move(game, 5, 10 ** 6, seed=rng.below(1 << 20),
                              max_nodes=_budget(500, rng), memory=memory))
    return [row + [_points(game, t)] for t, row in rows]


def fit_table(variant, games):
    """evaluate.py's table for variant ("kalah" or "basic", 2 players): a logistic
    regression of the result on one-hot (pit, min(stones, cap)) features of both sides (and
    in Kalah the store difference). Basic uses the positions with fewer than 20 stones on
    the sides (earlier ones the stones do not predict) that the leaf rule does not already
    score (all the mover's stones in its last pit, at most 8). Prints the rows as
    evaluate.py holds them: +128, in its units (Basic 32 per unit of log-odds, Kalah
    KALAH_STORE per seed of store difference)."""
    import numpy as np
    rules, cap = (KALAH, 12) if variant == "kalah" else (BASIC2, 10)
    with Pool(os.cpu_count() or 2) as pool:
        per_game = pool.map(selfplay_positions, [(rules, g) for g in range(games)])
    a = np.array([r for rows in per_game for r in rows], dtype=np.int64)
    first_test = sum(len(rows) for rows in per_game[:games * 4 // 5])  # last fifth: test
    x, store, y = a[:, :12], a[:, 12].astype(float), a[:, 13] / 2.0
    keep = np.ones(len(a), bool)
    if rules is BASIC2:
        store[:] = 0
        keep = (x.sum(1) < 20) & ~((x[:, 5] == x[:, :6].sum(1)) & (x[:, 5] <= 8))
    f = 12 * cap  # features, then the bias, then the store difference's weight
    ix = np.arange(12) * cap + np.minimum(x, cap - 1)
    train = keep & (np.arange(len(a)) < first_test)

    def logit(w, sel):
        return w[ix[sel]].sum(1) + w[f] + w[f + 1] * store[sel]

    def fit(sel, steps=2500, lr=0.05, l2=1e-4):
        w = np.zeros(f + 2)  # Adam on the mean log loss
        m = np.zeros(f + 2)
        v = np.zeros(f + 2)
        for i in range(1, steps + 1):
            r = 1 / (1 + np.exp(-logit(w, sel))) - y[sel]
            g = np.bincount(ix[sel].ravel(), np.repeat(r, 12), f + 2) / len(r) + l2 * w
            g[f] = r.mean()
            g[f + 1] = (r * store[sel]).mean()
            m = 0.9 * m + 0.1 * g
            v = 0.999 * v + 0.001 * g * g
            w -= lr * m / (1 - 0.9 ** i) / (np.sqrt(v / (1 - 0.999 ** i)) + 1e-8)
        return w

    w = fit(train)
    test = keep & ~train
    p = np.clip(1 / (1 + np.exp(-logit(w, test))), 1e-9, 1 - 1e-9)
    print("%d positions used, test log loss %.4f (0.6931 = no prediction)" % (
        keep.sum(), -np.mean(y[test] * np.log(p) + (1 - y[test]) * np.log(1 - p))))
    w = fit(keep)
    scale = 32 if rules is BASIC2 else 4 / w[f + 1]
    t = w[:f].reshape(12, cap)
    bias = w[f] + t[:, 0].sum()
    t = np.round((t - t[:, :1]) * scale).astype(int)
    assert abs(t).max() < 128, "a value does not fit evaluate.py's bytes: more games"
    for row in t:
        print('    b"' + "".join("\\x%02x" % (c + 128) for c in row) + '"   # ' +
              " ".join("%d" % c for c in row))
    print("bias %d (Basic: _PIT_BIAS = %d - 12 * 128); units per unit of log-odds %.1f"
          % (round(bias * scale), round(bias * scale), scale))


# Level 5 on the emulated Pico: the node rate (fixed-node searches, as the unix-port estimate
# measures it) and then moves searched as the app searches them: Search(game, 5, 1000) with
# step(SLICE_MS), and between two slices the rest of a main-loop pass (a pad poll and the
# touch layer, ~1 ms: POLL_US), against random replies. One Memory per game, as the app keeps.
POLL_US = 1000
PICO_SCRIPT = r"""
import gc, time
gc.collect()
base = gc.mem_alloc()
from mancala import Game, Rules
from mancala.cpu import Search, Rng, Memory
gc.collect()
print("CODE", gc.mem_alloc() - base)
VARIANTS = (("kalah", {"variant": "kalah"}), ("basic2", {"variant": "basic"}),
            ("basic4", {"variant": "basic", "players": 4}))
memory = Memory()
for name, rules in VARIANTS:
    rng = Rng(3)
    for pos in range(4):
        g = Game(Rules.from_dict(rules))
        for _ in range(2 + 3 * pos):
            if not g.over:
                legal = g.legal_moves()
                g.play(legal[rng.below(len(legal))])
        memory.clear()
        t = time.ticks_us()
        s = Search(g, 5, 10 ** 6, seed=1, max_nodes=2000, memory=memory)
        s.run()
        print("RATE", name, s.nodes, time.ticks_diff(time.ticks_us(), t))
memory = None
for name, rules in VARIANTS:
    rng = Rng(7)
    game = Game(Rules.from_dict(rules))
    memory = Memory()
    moves = 0
    while not game.over and moves < %(moves)d:
        t = time.ticks_ms()
        s = Search(game, 5, 1000, seed=rng.below(999), memory=memory)
        while not s.step(%(slice)d):
            time.sleep_us(%(poll_us)d)
        ms = time.ticks_diff(time.ticks_ms(), t)
        if s.nodes:
            moves += 1
            print("MOVE", name, ms, s.nodes, s.depth)
        game.play(s.best)
        if not game.over:
            legal = game.legal_moves()
            game.play(legal[rng.below(len(legal))])
    s = None
    gc.collect()
    held = gc.mem_alloc()
    memory = None
    gc.collect()
    print("MEMORY", name, held - gc.mem_alloc())
print("END")
"""


def measure_on_pico(moves):
    """{variant: [nodes/s per position]}, {variant: [(ms, nodes, depth) per move]}, code
    bytes, {variant: bytes a Memory keeps} from one run on the emulated Pico."""
    import pico_run as pico
    rates, per_move, memory = {}, {}, {}
    code = 0
    script = PICO_SCRIPT % {"moves": moves, "slice": SLICE_MS, "poll_us": POLL_US}
    for line in pico.run_script(script):
        f = line.split()
        if f[:1] == ["CODE"]:
            code = int(f[1])
        elif f[:1] == ["RATE"]:
            rates.setdefault(f[1], []).append(int(f[2]) * 1000000 // int(f[3]))
        elif f[:1] == ["MOVE"]:
            per_move.setdefault(f[1], []).append(tuple(int(x) for x in f[2:5]))
        elif f[:1] == ["MEMORY"]:
            memory[f[1]] = int(f[2])
    return rates, per_move, code, memory


def main(argv):
    quick = "--quick" in argv
    if "--openings" in argv:  # --openings COUNT
        make_openings(int(argv[argv.index("--openings") + 1]))
        return
    if "--fit" in argv:  # --fit kalah|basic GAMES
        at = argv.index("--fit")
        fit_table(argv[at + 1], int(argv[at + 2]))
        return
    if "--times" in argv:  # only the MicroPython part: node rate, move times, heap
        cal, rates, code, moves = measure_on_micropython(2)
        for name, rows in sorted(moves.items()):
            ms = sorted(r[0] for r in rows)
            print(name, "median", _median(ms), "worst", ms[-3:], "slow worst",
                  max(r[5] for r in rows), "moves", len(ms))
        return
    if "--pico" in argv:  # only the emulated Pico's figures: node rate, move times, heap
        import pico_run as pico
        why = pico.available()
        if why:
            print("The emulated Pico cannot run here: %s." % why)
            return 1
        pico_figures(6 if quick else int(argv[argv.index("--moves") + 1])
                     if "--moves" in argv else 60)
        return
    t0 = time.time()
    if "--nodes" in argv:  # --nodes kalah=N,basic2=N,basic4=N: the matches alone, at these
        nodes = dict((k, int(v)) for k, v in (  # budgets (from an earlier --pico run)
            item.split("=") for item in argv[argv.index("--nodes") + 1].split(",")))
        play_matches(nodes, quick, t0)
        return
    import pico_run as pico
    why = pico.available()
    if why is None:
        nodes = pico_figures(6 if quick else 60)
    else:
        print("The emulated Pico cannot run here (%s): unix-port estimates instead." % why)
        nodes = unix_estimates(quick)
    play_matches(nodes, quick, t0)


def pico_figures(moves):
    """Prints the emulated Pico's figures; returns the nodes a level-5 move searches there
    (median over the measured moves) per variant, the matches' budgets."""
    print("measuring on the emulated Pico (stock v1.28.0 image, --pace free): node rate, "
          "%d level-5 moves per variant as the app searches them ..." % moves, flush=True)
    rates, per_move, code, memory = measure_on_pico(moves)
    nodes = {}
    worst = 0
    for name in sorted(per_move):
        rows = per_move[name]
        ms = [r[0] for r in rows]
        worst = max([worst] + ms)
        nodes[name] = _median([r[1] for r in rows])
        print("  %-7s level 5: %d nodes per emulated second (median of %d fixed-node "
              "searches); a move as the app searches it: median %d nodes, think_ms median "
              "%d, max %d over %d moves, depth median %d; its Memory keeps %d bytes"
              % (name, _median(rates[name]), len(rates[name]), nodes[name], _median(ms),
                 max(ms), len(ms), _median([r[2] for r in rows]), memory.get(name, 0)))
    print("  max think_ms over every move: %d (target <= 1000: %s); engine + cpu code on the "
          "heap: %d bytes" % (worst, verdict(worst <= 1000), code))
    return nodes


def unix_estimates(quick):
    print("measuring under MicroPython (calibration, node rate, move times, heap) ...",
          flush=True)
    cal, rates, code, moves = measure_on_micropython(2 if quick else 4)
    scale = PICO_CAL_MS / cal
    budget = max(1, int(1000 * cal // PICO_CAL_MS))
    print("calibration (add_test) %d ms here (fastest run) -> RP2040 = %.0f x slower; "
          "1 s there = %d ms here" % (cal, scale, budget))
    nodes = {}
    for name in sorted(rates):
        # an add_test pass takes 7.984 us on a Pico, so RP2040 us per node = ratio * 7.984
        us = _median(rates[name]) * PICO_CAL_MS / 1000.0
        # The search stops 1/25 of its budget early (cpu.py), and on the board it gets SLICE_MS
        # of every PAD_MS (the main loop polls the pads in between: bench/board.py measures
        # that pass at about 1 ms), so a move gets 96% x 7/8 of that.
        nodes[name] = int(1e6 / us * 24 / 25 * SLICE_MS / PAD_MS)
        print("  %-7s level 5: %.0f calibration passes per node, %d nodes per RP2040-second,"
              " %d searched per move" % (name, _median(rates[name]), int(1e6 / us), nodes[name]))
    worst_peak = 0
    worst_kept = 0
    peaks = []
    for name, rows in sorted(moves.items()):
        ms = [r[0] for r in rows]
        slow = [r[5] for r in rows]
        worst_peak = max([worst_peak] + [r[2] for r in rows])
        peaks += [r[2] for r in rows]
        worst_kept = max([worst_kept] + [r[4] for r in rows])
        print("  %-7s level-5 move time (RP2040 clock, setup included): median %4.0f ms, "
              "worst %4.0f ms, budget 1000 ms; %d moves, depth median %d (the slower of two "
              "runs on this shared machine: median %d, worst %d ms)"
              % (name, _median(ms), max(ms), len(ms), _median([r[3] for r in rows]),
                 _median(slow), max(slow)))
    print("  heap (unix x64 port; words are 8 bytes, the RP2040's 4): during a level-5 search "
          "gc.mem_alloc() rises by %d bytes at most (the first search of a board shape, "
          "which allocates the shared arrays; garbage not yet collected included), median "
          "%d; after gc.collect() a search keeps %d bytes; the transposition table (%d KB, "
          "allocated once) and the engine+cpu code (%d bytes) come on top"
          % (worst_peak, _median(peaks), worst_kept, (8 << TT_BITS) // 1024, code))
    print("  budget: the whole app must leave a third of the Pico's ~228 KB free, "
          "i.e. use <= 152 KB")
    return nodes


# (label, name in MATCHES, variant whose node budget it gets, target or None: reported)
REFERENCE_MATCHES = (("Kalah(6,4)", "kalah", "kalah", 90), ("Basic 2p", "basic2", "basic2", 95),
                     ("Kalah(6,3)", "kalah3", "kalah", None),
                     ("Kalah(6,5)", "kalah5", "kalah", None),
                     ("Kalah(6,4) empty capture", "kalah-empty-capture", "kalah", None))


def play_matches(nodes, quick, t0):
    n_ref = 24 if quick else 200
    n_lvl = 16 if quick else 200
    n_four = 24 if quick else 200
    results = []
    with Pool(os.cpu_count() or 2) as pool:
        for label, name, key, target in REFERENCE_MATCHES:
            t = time.time()
            opens = openings(name)
            pts = pool.map(play_vs_reference, [(MATCHES[name], g, nodes[key], opens[g // 2])
                                               for g in range(n_ref)])
            score = sum(pts) / 2 / n_ref
            w = pts.count(2)
            dr = pts.count(1)
            line = "level 5 vs reference (6 plies), %s: %d games at %d nodes a move, %d won " \
                   "%d drawn %d lost: score %.1f%% (%s)" % (
                       label, n_ref, nodes[key], w, dr, n_ref - w - dr, 100 * score,
                       "target >= %d%%: %s" % (target, verdict(100 * score >= target))
                       if target else "measured")
            results.append(line)
            print(line, "[%.0fs]" % (time.time() - t), flush=True)
        t = time.time()
        res = pool.map(play_levels, [(BASIC4, g, 5, 1, nodes["basic4"]) for g in range(n_four)])
        firsts = sum(1 for _, place in res if place == 1)
        line = "4-player Basic, level 5 vs three level-1 seats: first place in %d of %d " \
               "games = %.1f%% (target >= 70%%: %s)" % (
                   firsts, n_four, 100.0 * firsts / n_four, verdict(firsts >= 0.7 * n_four))
        results.append(line)
        print(line, "[%.0fs]" % (time.time() - t), flush=True)
        for label, rules, key in (("Kalah", KALAH, "kalah"), ("Basic 2p", BASIC2, "basic2")):
            for a in (2, 3, 4, 5):
                t = time.time()
                res = pool.map(play_levels, [(rules, g, a, a - 1, nodes[key])
                                             for g in range(n_lvl)])
                score = sum(p for p, _ in res) / 2 / n_lvl
                line = "levels %s: %d vs %d over %d games: %.1f%% (target > 60%%: %s)" % (
                    label, a, a - 1, n_lvl, 100 * score, verdict(score > 0.6))
                results.append(line)
                print(line, "[%.0fs]" % (time.time() - t), flush=True)
    print("\n== CPU summary (%s, %.0f s)" % ("quick" if quick else "full", time.time() - t0))
    for line in results:
        print("  " + line)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
