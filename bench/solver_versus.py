"""Our exact solver beside CMancala (github.com/LifesLight/CMancala, C, MIT), on the same work
in one run: the value of Kalah(6,4)'s start, each of its six start moves, and four 5-seed
midgame positions, all under the standard rule (`kalah`, the only one CMancala plays).

    .venv/bin/python bench/solver.py --versus DIR      (or CMANCALA_SRC=DIR)

DIR is CMancala's source: a folder, or its .tar.xz archive (unpacked into build/cmancala/).
Nothing of it is kept in this repository. bench/cmancala_driver.c (ours) is compiled with
CMancala's own sources but its src/main.c, with the flags of its CMake Release build
(-O3 -march=native -flto); it sets a position's cells directly (CMancala's hex board code
keeps only the low bits of a store) and times CMancala's unbounded MTD(f) search
(binarySearchRoot) with its default table (2^24 entries) and a 16-stone endgame database.

Ours searches on two threads sharing its tables (--threads), CMancala on one. Each row runs
in a fresh process for each solver, one after the other: CPU seconds (user + system, of
every thread), wall seconds, peak resident memory (the
process's, from wait4). The endgame databases are built once and not counted, on either
side: CMancala's (16 stones, in its ./EGDB/ folder) and ours (DB_STONES stones, in
build/solver/, bench/solver.py --db-folder). Their build times are printed when they are
built. The values of both must agree, and match the published +8 for the start.
"""

from __future__ import annotations

import glob
import os
import random
import subprocess
import sys
import tarfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BUILD = os.path.join(ROOT, "build", "cmancala")
# Ours: the endgame database's stones and the table's size (2^26 entries of 8 bytes,
# 512 MiB; with the 20-stone database's 226 MB, under the 1 GB target).
DB_STONES = 20
TT_BITS = 26
THREADS = 2
CMANCALA_EGDB = 16
CMANCALA_CACHE = 24
CMANCALA_FLAGS = ["-O3", "-march=native", "-flto=auto", "-std=gnu2x"]
PEAK_MB = 1000
MIDGAME_SEED = 5


def source(path: str) -> str:
    """CMancala's source folder: path itself, or the archive at path unpacked once."""
    if os.path.isdir(path):
        return path
    if not os.path.isfile(path):
        raise SystemExit("--versus: %s is neither CMancala's source folder nor its archive."
                         % path)
    os.makedirs(BUILD, exist_ok=True)
    with tarfile.open(path) as tar:
        top = tar.getnames()[0].split("/")[0]
        target = os.path.join(BUILD, top)
        if not os.path.isdir(target):
            tar.extractall(BUILD, filter="data")
    return target


def build_driver(src: str) -> str:
    """Compiles bench/cmancala_driver.c with CMancala's sources (all but src/main.c) into
    build/cmancala/driver, when either changed."""
    exe = os.path.join(BUILD, "driver")
    ours = os.path.join(HERE, "cmancala_driver.c")
    theirs = [f for f in sorted(glob.glob(os.path.join(src, "src", "**", "*.c"),
                                          recursive=True))
              if os.sep + "web" + os.sep not in f and not f.endswith(os.sep + "main.c")
              and os.sep + "memory" + os.sep not in f]
    theirs.append(os.path.join(src, "src", "logic", "solver", "egdb", "memory", "direct.c"))
    newest = max(os.path.getmtime(f) for f in theirs + [ours])
    if os.path.exists(exe) and os.path.getmtime(exe) > newest:
        return exe
    os.makedirs(BUILD, exist_ok=True)
    cmd = (["gcc"] + CMANCALA_FLAGS + ["-I", os.path.join(src, "include"),
                                       '-DMANCALA_VERSION="12.2"', '-DEGDB_BACKEND_NAME="RAM"']
           + theirs + [ours, "-o", exe, "-lm"])
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit("Building CMancala's driver failed:\n" + done.stderr[-2000:])
    return exe


def midgames(count: int = 4) -> list[tuple[int, ...]]:
    """Positions of Kalah(6,5) after random play from a fixed seed, with 40 to 42 stones in
    play, from the side to move."""
    from mancala import Game, Rules
    rules = Rules.from_dict({"preset": "kalah", "seeds": 5})
    rng = random.Random(MIDGAME_SEED)
    out: list[tuple[int, ...]] = []
    while len(out) < count:
        game = Game(rules)
        while not game.over:
            state = game.to_dict()
            if sum(state["pits"][0]) + sum(state["pits"][1]) <= 42:
                break
            game.play(rng.choice(game.legal_moves()))
        if game.over:
            continue
        state = game.to_dict()
        if sum(state["pits"][0]) + sum(state["pits"][1]) < 40:
            continue
        mover = game.turn
        out.append(tuple(state["pits"][mover]) + tuple(state["pits"][1 - mover]))
    return out


def start_children() -> list[tuple[int, int, int, tuple[int, ...]]]:
    """Kalah(6,4)'s six start moves: (pit, gain, status, the position after it)."""
    from mancala_host.solver._kalah import Solver
    solver = Solver(6, False, True, 16, 0)
    return [(pit,) + solver.play((4,) * 12, pit)[1:] + (solver.play((4,) * 12, pit)[0],)
            for pit in range(6, 0, -1)]


def rows() -> list[tuple[str, list[tuple[int, ...]]]]:
    # The shortest first, so that a busy machine still gives some rows soon.
    return [("four 5-seed midgames (40-42 stones)", midgames()),
            ("Kalah(6,4) start, the value", [(4,) * 12]),
            ("Kalah(6,4), all six start moves", [c[3] for c in start_children()])]


def run(cmd: list[str], text: str, cwd: str | None = None) -> tuple[str, float, float, float]:
    """Runs cmd with text on stdin; its stdout, CPU seconds, wall seconds, peak MB."""
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                            cwd=cwd)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(text)
    proc.stdin.close()
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)    # not proc.wait(): wait4 gives its usage
    proc.returncode = status
    wall = time.monotonic() - t0
    if status:
        raise SystemExit("%s failed (status %d):\n%s" % (cmd[0], status, out[-2000:]))
    return out, usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss / 1024


def worker(db_folder: str, stones: int, threads: int) -> int:
    """The process that times our side of a row: positions on stdin (12 numbers a line), one
    solver for them all (as CMancala's driver keeps its table) on threads threads, each value
    on stdout."""
    from mancala_host.solver import database
    solver, built = database.solver_with(db_folder, 6, False, True, stones, TT_BITS, threads,
                                         mapped=True)
    if built is not None:
        print("built %.1f" % built)
    for line in sys.stdin:
        pits = tuple(int(x) for x in line.split())
        print(solver.value(pits), solver.nodes)
        sys.stdout.flush()
    return 0


def main(path: str, db_folder: str, failures: list[str], threads: int = THREADS) -> None:
    from mancala_host.solver import database
    src = source(path)
    driver = build_driver(src)
    print("CMancala from %s, driver %s" % (src, os.path.relpath(driver, ROOT)))
    # The databases, once, outside the timed rows.
    out, cpu, wall, _ = run([driver, "--egdb", str(CMANCALA_EGDB), "--cache", "10"], "",
                            cwd=BUILD)
    print("CMancala's %d-stone endgame database: %s s CPU (%s)" % (
        CMANCALA_EGDB, out.split()[1], "built now" if float(out.split()[1]) > 1 else
        "built before, loaded"))
    ours = database.path_for(db_folder, 6, False, True, DB_STONES)
    if not os.path.exists(ours):
        took = database.build(ours, 6, False, True, DB_STONES)
        print("our %d-stone endgame database: built now in %.1f s CPU" % (DB_STONES, took))
    else:
        print("our %d-stone endgame database: built before, %s" % (
            DB_STONES, os.path.relpath(ours, ROOT)))
    print("ours on %d thread(s); load average %.1f %.1f %.1f" % ((threads,) + os.getloadavg()))
    print("%-38s %-9s %9s %9s %8s   %s" % ("work", "solver", "CPU s", "wall s", "peak MB",
                                          "values"))
    for name, positions in rows():
        text = "".join(" ".join(str(x) for x in p) + "\n" for p in positions)
        out, c_cpu, c_wall, c_mb = run([driver, "--egdb", str(CMANCALA_EGDB), "--cache",
                                        str(CMANCALA_CACHE)], text, cwd=BUILD)
        theirs = [int(line.split()[0]) for line in out.splitlines()[1:]]
        out, o_cpu, o_wall, o_mb = run([sys.executable, os.path.join(HERE, "solver.py"),
                                        "--versus-worker", "--db-folder", db_folder,
                                        "--db-stones", str(DB_STONES),
                                        "--threads", str(threads)], text)
        mine = [int(line.split()[0]) for line in out.splitlines()
                if not line.startswith("built")]
        print("%-38s %-9s %9.2f %9.2f %8.0f   %s" % (name, "CMancala", c_cpu, c_wall, c_mb,
                                                   theirs))
        print("%-38s %-9s %9.2f %9.2f %8.0f   %s   (CPU %.2fx, wall %.2fx CMancala's)" % (
            "", "ours", o_cpu, o_wall, o_mb, mine, o_cpu / c_cpu, o_wall / c_wall))
        sys.stdout.flush()
        if name.startswith("Kalah(6,4) start") and mine != [8]:
            failures.append("Kalah(6,4) is %s here, published +8" % mine)
        if mine != theirs:
            failures.append("%s: the values differ, ours %s, CMancala's %s" % (
                name, mine, theirs))
        if o_cpu > c_cpu:
            failures.append("%s: %.2f s CPU, CMancala %.2f s" % (name, o_cpu, c_cpu))
        if o_wall > c_wall / 2:
            failures.append("%s: %.2f s wall, over half CMancala's %.2f s" % (
                name, o_wall, c_wall))
        if o_mb > PEAK_MB:
            failures.append("%s: peak %.0f MB" % (name, o_mb))
    print("load average %.1f %.1f %.1f" % os.getloadavg())
