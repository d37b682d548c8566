"""How much stronger the endgame tables make level 5 (docs/cpu.md section 11): the exact
solver judges every move, in CPython, at the node budget a level-5 move gets on the emulated
Pico (docs/cpu.md section 8), so the figures do not depend on this machine's load.

    .venv/bin/python bench/endgame_strength.py             (every part: about 2 minutes
                                                            in CPython here, then 7 on the
                                                            emulated Pico)
    .venv/bin/python bench/endgame_strength.py --quick     (a small version of every part)
    .venv/bin/python bench/endgame_strength.py --part covered|playouts|games|pico

Level 5 plays without a table, with the image's tables (8 stones in play) and with the
files `make deploy` copies (10 stones), the last two read at the root only, as the board
reads them:

1. covered: positions with 2 to 10 stones in play. The share of level-5 moves that keep the
   exact value (one move a position).
2. playouts: positions with 11 to 18 stones in play (N+1 to N+8 for deploy's N = 10), played
   to the end, level 5 for the seat to move against perfect play. Every level-5 move is
   judged; the stones it threw away are the position's exact value against the final store
   difference.
3. games: whole games of Kalah(6,4), level 5 against the 6-ply reference of bench/cpu.py,
   from its openings, 200 games a rule set.

4. pico: the think time with the tables, on the emulated Pico (`mancala-board sim --target
   rp2040 --profile duo --stdio`, emulated time): whole Kalah(6,4) games of the board's
   own app, seat 1 its level-5 CPU, seat 0 the reference's moves pressed over serial, once
   on the firmware image (its frozen 8-stone tables) and once on the stock image with
   deploy's files (the 10-stone files in /tables). Every CPU move's think_ms, split by
   whether the position was covered by that way's table. Left out, with one sentence, where
   the emulated Pico cannot run.

Positions are random: the stones in play fall into the 12 pits at random (neither side
empty), and the stores share the rest with neither past half, so that no store has won yet.
Each is made from a fixed seed, and level 5 searches with a seed of its own per move, so a
run gives the same figures again.
"""
import os
import random
import subprocess
import sys
import time
from multiprocessing import Pool

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.join(ROOT, "firmware", "lib"), os.path.join(ROOT, "tests"),
                os.path.join(ROOT, "bench"), os.path.join(ROOT, "host_tools")]

from mancala import Game, Rules  # noqa: E402
from mancala.cpu import Memory, Rng, Search  # noqa: E402
from mancala.endgame import Table  # noqa: E402
from mancala_host.flashing.imagebuild import IMAGE_TABLE_STONES  # noqa: E402
from mancala_host.solver import Exact, tables  # noqa: E402

NODES = 1972  # a level-5 Kalah move on the emulated Pico: docs/cpu.md section 8
TABLES = (None, IMAGE_TABLE_STONES, tables.STONES)  # no table, the image's (8), deploy's (10)
POSITIONS = 500
GAMES = 200
_cache = {}


def _label(stones):
    return "no table" if stones is None else "%d-stone table" % stones


def table(name, stones):
    """The preset's table of `stones` stones in play, built once per process."""
    if stones is None:
        return None
    key = (name, stones)
    if key not in _cache:
        always, wipeout = tables.PRESETS[name]
        _cache[key] = Table(tables.build(always, wipeout, stones))
    return _cache[key]


def solver(name):
    if name not in _cache:
        _cache[name] = Exact(Rules.from_dict({"preset": name}))
    return _cache[name]


def positions(name, count, seed, stones):
    """`count` undecided positions of the preset (Kalah(6,4): 48 stones) with stones[0] to
    stones[1] stones in play, the seat to move alternating."""
    from test_solver import game_at, random_position
    rules = Rules.from_dict({"preset": name})
    rng = random.Random(seed)
    out = []
    for k in range(count):
        mine, theirs = random_position(rng, rng.randint(*stones))
        rest = 48 - sum(mine) - sum(theirs)
        lead = rng.randint(max(0, rest - 24), min(24, rest))
        out.append(game_at(rules, [mine, theirs], turn=k % 2,
                           stores=(lead, rest - lead)).to_dict())
    return out


def level5(game, name, stones, seed, memory):
    return Search(game, 5, 10 ** 6, seed=seed, max_nodes=NODES, memory=memory,
                  endgame=table(name, stones)).run()


def perfect(values):
    """A pit that keeps the exact value, of several the one nearest the store."""
    best = max(values.values())
    return max(pit for pit, v in values.items() if v == best)


def covered_one(args):
    """1 when level 5's move in the position keeps its exact value, else 0."""
    name, stones, k, state = args
    game = Game.from_dict(state)
    values = solver(name).move_values(game)
    pit = level5(game, name, stones, 1 + k, Memory())
    return int(values[pit] == max(values.values()))


def playout_one(args):
    """Level 5 for the seat to move against perfect play, to the end: (level 5's moves, those
    that kept the exact value, 1 if its first move did, the stones it threw away)."""
    name, stones, k, state = args
    game = Game.from_dict(state)
    exact = solver(name)
    seat = game.turn
    start = exact.value(game)
    memory = Memory()  # level 5's, kept from move to move as the board keeps it
    rng = Rng(7000 + k)
    moves = kept = first_kept = 0
    while not game.over:
        values = exact.move_values(game)
        if game.turn == seat:
            pit = level5(game, name, stones, rng.below(1 << 20), memory)
            good = values[pit] == max(values.values())
            kept += good
            if moves == 0:
                first_kept = good
            moves += 1
        else:
            pit = perfect(values)
        game.play(pit)
    final = game.stones(seat, 0) - game.stones(1 - seat, 0)
    return moves, kept, first_kept, start - final


def game_one(args):
    """One whole game against the 6-ply reference (bench/cpu.py's), level 5 with the table
    of `stones` stones: (level 5's points x2, its final store lead)."""
    import cpu
    name, stones, g, opening = args
    game = Game(Rules.from_dict(cpu.MATCHES[name]), first=0)
    for pit in opening:
        game.play(pit)
    rng = Rng(1000 + g)  # the seeds of cpu.play_vs_reference: no table plays its games
    seat = g % 2
    memory = Memory()
    while not game.over:
        if game.turn == seat:
            pit = Search(game, 5, 10 ** 6, seed=rng.below(1 << 20),
                         max_nodes=cpu._budget(NODES, rng), memory=memory,
                         endgame=table(name, stones)).run()
        else:
            pit = cpu._ref_move(game)
        game.play(pit)
    return cpu._points(game, seat), game.stones(seat, 0) - game.stones(1 - seat, 0)


def pico_games(count):
    """Part 4: every CPU move's think_ms in `count` whole games a rule set and way."""
    import shutil
    import tempfile
    import reference_player
    from image_heap import Board
    print("4. Think time on the emulated Pico, the board's level-5 seat against the 6-ply "
          "reference, %d whole games a rule set and way (seat 0 or 1 first in turn):" % count)
    from mancala_host.flashing import imagebuild
    image = imagebuild.image_path(ROOT, imagebuild.project_version(ROOT))
    for way, covers in (("image", IMAGE_TABLE_STONES), ("deploy", tables.STONES)):
        if way == "image" and not os.path.exists(image):
            print("  the image is left out: %s is not built (make firmware)" %
                  os.path.relpath(image, ROOT), flush=True)
            continue
        flash = tempfile.mkdtemp(prefix="mancala-endgame-")
        b = Board(way, flash, profile="duo")
        try:
            b.ok("set_config", config={"seats": [{"kind": "human"},
                                                 {"kind": "cpu", "level": 5}],
                                       "animation_ms": 0})
            for name in sorted(tables.PRESETS):
                t = time.time()
                thinks = {True: [], False: []}
                for g in range(count):
                    state = b.ok("new_game", rules={"preset": name}, first=g % 2)["state"]
                    while not state["over"]:
                        if state["turn"] == 0:
                            b.events = []
                            pit = reference_player.reference_move(Game.from_dict(state))
                            state = b.ok("press", pit=pit)["state"]
                        else:
                            in_play = sum(state["pits"][0]) + sum(state["pits"][1])
                            move = b.event("move")
                            if move.get("think_ms") is not None:
                                thinks[in_play <= covers].append(move["think_ms"])
                            state = move["state"]
                every = thinks[True] + thinks[False]
                print("  %-6s %-20s %d CPU moves, think_ms max %d; %d in covered positions "
                      "(max %s ms), %d searched (max %s ms) [%.0fs]" % (
                          way, name, len(every), max(every), len(thinks[True]),
                          max(thinks[True] or ["-"]), len(thinks[False]),
                          max(thinks[False] or ["-"]), time.time() - t), flush=True)
        finally:
            b.close()
            shutil.rmtree(flash, ignore_errors=True)


def covered(pool, count):
    print("1. Positions with 2 to %d stones in play (%d a rule set), one level-5 move each "
          "at %d nodes:" % (tables.STONES, count, NODES))
    for name in sorted(tables.PRESETS):
        states = positions(name, count, 77, (2, tables.STONES))
        for stones in TABLES:
            t = time.time()
            kept = sum(pool.map(covered_one, [(name, stones, k, s)
                                              for k, s in enumerate(states)]))
            print("  %-20s %-15s %4d of %d moves keep the exact value (%.1f%%) [%.0fs]" % (
                name, _label(stones), kept, count, 100.0 * kept / count, time.time() - t),
                flush=True)


def playouts(pool, count):
    low, high = tables.STONES + 1, tables.STONES + 8
    print("2. Positions with %d to %d stones in play (%d a rule set), played to the end: "
          "level 5 at %d nodes for the seat to move, perfect play for the other:"
          % (low, high, count, NODES))
    for name in sorted(tables.PRESETS):
        states = positions(name, count, 78, (low, high))
        for stones in TABLES:
            t = time.time()
            rows = pool.map(playout_one, [(name, stones, k, s) for k, s in enumerate(states)])
            moves = sum(r[0] for r in rows)
            kept = sum(r[1] for r in rows)
            first = sum(r[2] for r in rows)
            lost = sum(r[3] for r in rows)
            perfect_games = sum(1 for r in rows if r[3] == 0)
            print("  %-20s %-15s first move keeps the value in %d of %d; all level-5 moves "
                  "%d of %d (%.1f%%); stones thrown away %d (%.2f a position); no stone "
                  "lost in %d of %d [%.0fs]" % (
                      name, _label(stones), first, count, kept, moves, 100.0 * kept / moves,
                      lost, float(lost) / count, perfect_games, count, time.time() - t),
                  flush=True)


def games(pool, count):
    import cpu
    print("3. Whole games of Kalah(6,4) against the 6-ply reference, %d a rule set, level 5 "
          "at %d nodes a move (+-15%%), from bench/cpu_openings.json:" % (count, NODES))
    for name in sorted(tables.PRESETS):
        opens = cpu.openings(name)
        for stones in TABLES:
            t = time.time()
            rows = pool.map(game_one, [(name, stones, g, opens[g // 2]) for g in range(count)])
            pts = [r[0] for r in rows]
            won, drawn = pts.count(2), pts.count(1)
            print("  %-20s %-15s %d won, %d drawn, %d lost: score %.1f%%; mean store lead "
                  "%+.2f [%.0fs]" % (name, _label(stones), won, drawn, count - won - drawn,
                                     100.0 * sum(pts) / 2 / count,
                                     float(sum(r[1] for r in rows)) / count,
                                     time.time() - t), flush=True)


def main(argv):
    quick = "--quick" in argv
    parts = ("covered", "playouts", "games", "pico")
    if "--part" in argv:
        parts = (argv[argv.index("--part") + 1],)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                            capture_output=True, text=True).stdout.strip()
    print("Level 5 and the endgame tables, judged by the exact solver (CPython, commit %s)"
          % commit)
    with Pool(os.cpu_count() or 2) as pool:
        if "covered" in parts:
            covered(pool, 40 if quick else POSITIONS)
        if "playouts" in parts:
            playouts(pool, 20 if quick else POSITIONS)
        if "games" in parts:
            games(pool, 8 if quick else GAMES)
    if "pico" in parts:
        from pico_run import available
        why = available()
        if why:
            print("4. The think time on the emulated Pico is left out: %s." % why.rstrip("."))
        else:
            pico_games(1 if quick else 4)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
