"""The board's figures on the emulated Pico (`sim --target rp2040`: the stock MicroPython
v1.28.0 image on rp2040js, the firmware on its flash as deploy puts it there), each beside
its unix-port estimate and the ratio of the two.

    .venv/bin/python bench/pico.py [--quick] [--jobs N] [--keep DIR] [--markdown FILE]

--jobs: emulated Picos at once (2); --keep DIR: each run's result saved there with its
commit, and taken from there instead of run again (delete a file to measure that part anew),
so a table can be brought up to date part by part, each row naming its commit.

Emulated time counts Cortex-M0+ cycles, so every emulated figure is deterministic: one run
each. What is measured, and how:
- engine moves/s: Kalah random playouts through the public Game.play(), and the CPU's lean
  path (the search loop making every move 6 plies deep), 1 s each; and the time to build one
  move record, the engine's Record beside the plain dict it stands for (bench/pico_script.py,
  run as main.py by bench/pico_run.py, as every script the benches run on the board);
- the level-5 CPU: nodes per move and think ms (from the search's start to its last slice,
  stepped in the app's SLICE_MS slices), median and maximum over whole games in which every
  seat is level 5: Kalah, Basic 2 players, Basic 4 players;
- touch to first LED change, on quad, over a whole human game played by pad touches: from
  the moment a finger lands (a timed touch line, as the MPR121 model applies it; the model's
  response as the driver configures it, bench/board.py's mpr121_response_ms(), is inside the figure)
  to the end of the first LED frame that changes that pit's ring, both from --trace;
- animation frame time on quad: the time of one display tick that repaints while a sowing
  animation runs (Display.tick with an LED output that takes no CPU; the PIO and DMA send);
- heap: diag memory after boot, min_free over that whole human game, and min_free over a
  4-player Basic game on quad with three level-5 CPU seats (the human seat presses over
  serial). Its CPU moves' think_ms (from the move events: the app's own figure, with the
  pad polls between slices) are printed too.
The unix-port estimates: the same script under .venv/bin/micropython, scaled by add_test
(bench/calibration.py); the touch and frame estimates are bench/board.py's; the heap
estimates are the same games on the unix target with the Pico's heap size (-X heapsize).
"""
import argparse
import json
import multiprocessing
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
from concurrent.futures import ProcessPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(ROOT, "bench")
# bench/ last: its drivers.py must not stand in for the firmware's drivers package
sys.path[:0] = [os.path.join(ROOT, "tests"), os.path.join(ROOT, "firmware", "lib"),
                os.path.join(ROOT, "host_tools")]
sys.path.append(BENCH)

import board as board_bench  # noqa: E402  the unix-port estimates of touch and frame time
import calibration  # noqa: E402
import pico_run  # noqa: E402
from boardsim import Board, MICROPYTHON, PROFILES  # noqa: E402
from mancala_fw import profile as profiles  # noqa: E402
from mancala_fw.app.autoplay import SLICE_MS  # noqa: E402

PICO_HEAP = 245888  # the stock v1.28.0 RPI_PICO image's GC heap
TOUCH_GAP_US = 4000000  # between a move and the next touch: the sowing animation has ended
TIMEOUT = 3600.0
# How long a game waits for the board's next move before calling it broken: a hang guard only.
# A move 4 emulated seconds after the last, animated, can take minutes of a busy host's time.
MOVE_WAIT_S = 1800.0


def _script(what, scale, max_moves):
    with open(os.path.join(ROOT, "tests", "mp", "perft.py")) as f:
        perft = f.read()
    with open(os.path.join(BENCH, "pico_script.py")) as f:
        body = f.read()
    head = "SCALE = %r\nWHAT = %r\nSLICE_MS = %d\nMAX_MOVES = %d\n" % (
        scale, tuple(what), SLICE_MS, max_moves)
    return head + perft + "\n" + body


def _lines(lines, where):
    """The script's figures: each "R name values..." line as [name, values...]; the script
    must have run to its END line."""
    if not lines or lines[-1] != pico_run.END:
        raise SystemExit("the bench script stopped early %s:\n%s" % (where, "\n".join(lines[-30:])))
    return [line.split()[1:] for line in lines if line.startswith("R ")]


def run_on_pico(what, max_moves, profile="duo"):
    """Runs pico_script as main.py on the emulated Pico (bench/pico_run.py); returns its R
    lines."""
    why = pico_run.available()
    if why:
        raise SystemExit("bench/pico.py measures on the emulated Pico, which cannot run here: "
                         + why)
    try:
        lines = list(pico_run.run_script(_script(what, None, max_moves), profile))
    except RuntimeError as e:
        raise SystemExit(str(e))
    return _lines(lines + [pico_run.END], "on the emulated Pico")


def run_on_unix(what, max_moves):
    """The same script under the unix port, its CPU on a Pico clock; returns (R lines, the
    calibration ms)."""
    env = dict(os.environ, MICROPYPATH=os.path.join(ROOT, "firmware", "lib"))
    probe = calibration.source() + "\nprint('R cal', min(calibrate() for _ in range(3)))\n" \
        "print('END')\n"
    out = subprocess.run([MICROPYTHON, "-c", probe], env=env, capture_output=True, text=True,
                         timeout=TIMEOUT)
    cal = float(_lines(out.stdout.splitlines(), "under the unix port")[0][1])
    out = subprocess.run([MICROPYTHON, "-X", "heapsize=4M", "-c",
                          _script(what, cal, max_moves)], env=env, capture_output=True,
                         text=True, timeout=TIMEOUT)
    return _lines((out.stdout + out.stderr).splitlines(), "under the unix port"), cal


def script_figures(lines):
    fig = {}
    for f in lines:
        if f[0].startswith("engine_"):
            fig[f[0]] = int(f[1])
        elif f[0] == "record_us":
            fig[f[0]] = (float(f[1]), float(f[2]))
        elif f[0] == "cpu":
            fig.setdefault(("nodes", f[1]), []).append(int(f[2]))
            fig.setdefault(("think", f[1]), []).append(int(f[3]))
        elif f[0] == "game":
            fig[("moves", f[1])] = (int(f[2]), f[3] == "1")
    return fig


# ------------------------------------------------------------------ the app on the board
def _ring_bytes(prof, chains, pos):
    chain, start, leds = prof.ring[pos]
    return bytes(chains[chain][3 * start:3 * (start + leds)])


def human_game_by_pads(target, rng_seed=7, max_moves=400):
    """A whole Kalah game on quad, every move a touch of a legal pit TOUCH_GAP_US after the
    last move, at a seeded moment within a pad-poll interval. Returns (latencies in ms, diag
    memory after boot, diag memory at the end, moves, the MPR121 response in ms that the
    latencies include)."""
    rng = random.Random(rng_seed)
    prof = profiles.load(os.path.join(PROFILES, "quad.json"))
    folder = tempfile.mkdtemp(prefix="mancala-bench-")
    trace = os.path.join(folder, "trace.jsonl")
    kwargs = {"target": target, "touch": True, "trace": trace} if target == "rp2040" else \
        {"heapsize": str(PICO_HEAP), "touch": True}
    b = Board("quad", flash=os.path.join(folder, "flash"), **kwargs)
    os.makedirs(b.flash, exist_ok=True)
    try:
        b.start()
        booted = b.ok("diag", action="memory")
        state = b.ok("state")["state"]
        seating = profiles.seating(prof, state["rules"]["players"], state["rules"]["pits"])
        touched = []  # (position id, finger time in µs or None)
        moves = 0
        while not state["over"] and moves < max_moves:
            seat = state["turn"]
            pits = [i + 1 for i, n in enumerate(state["pits"][seat]) if n]
            pit = rng.choice(pits)
            pos = seating.position(seat, pit)
            addr, electrode = prof.pad[pos]
            delay = TOUCH_GAP_US + rng.randrange(8000)
            b.take_events()
            if target == "unix":  # its heap only: the same moves over serial
                state = b.ok("press", pit=pit)["state"]
                moves += 1
                continue
            with open(b.touch_path, "a") as f:
                f.write("+%d %x %d 1\n+%d %x %d 0\n" % (delay, addr, electrode, 120000, addr,
                                                         electrode))
            move = b.wait_event("move", timeout=MOVE_WAIT_S)
            assert move["source"] == "pad" and move["pit"] == pit, move
            state = move["state"]
            touched.append(pos)
            moves += 1
        end = b.ok("diag", action="memory")
    finally:
        b.close()
    latencies = _touch_latencies(prof, trace, touched) if target == "rp2040" else []
    shutil.rmtree(folder, ignore_errors=True)
    return latencies, booted, end, moves, board_bench.MPR121_MS


def _touch_latencies(prof, trace, touched):
    """ms from each finger landing to the end of the first frame that changes its ring."""
    index = {pin: i for i, (pin, _) in enumerate(prof.chains)}
    chains = [bytearray(leds * 3) for _, leds in prof.chains]
    downs = []
    frames = []
    with open(trace) as f:
        for line in f:
            m = json.loads(line)
            if m["kind"] == "pad" and m["on"]:
                downs.append(m["t_us"])
            elif m["kind"] == "frame":
                frames.append((m["t_us"], index[m["pin"]], bytes.fromhex(m["grb"])))
    frames.sort(key=lambda x: x[0])
    out = []
    k = 0
    for down, pos in zip(downs, touched):
        while k < len(frames) and frames[k][0] < down:
            t, c, grb = frames[k]
            chains[c][:len(grb)] = grb
            k += 1
        before = _ring_bytes(prof, chains, pos)
        j = k
        while j < len(frames):
            t, c, grb = frames[j]
            chains[c][:len(grb)] = grb
            j += 1
            if _ring_bytes(prof, chains, pos) != before:
                out.append((t - down) / 1000.0)
                break
        k = j
    return out


def cpu_game_on_quad(target, seed=9, max_cpu_moves=10 ** 6):
    """A 4-player Basic game on quad, seats 1-3 level-5 CPU, seat 0 pressing over serial
    (until max_cpu_moves CPU moves). Returns (diag memory at the end, the CPU moves'
    think_ms, whether the game ended)."""
    rng = random.Random(seed)
    folder = tempfile.mkdtemp(prefix="mancala-bench-")
    kwargs = {"target": target} if target == "rp2040" else {"heapsize": str(PICO_HEAP)}
    b = Board("quad", flash=os.path.join(folder, "flash"), **kwargs)
    os.makedirs(b.flash, exist_ok=True)
    thinks = []
    try:
        b.start()
        cpu = {"kind": "cpu", "level": 5}
        b.ok("set_config", config={"seats": [{"kind": "human"}, cpu, cpu, cpu],
                                   "animation_ms": 0})
        state = b.ok("new_game", rules={"variant": "basic", "players": 4}, first=0)["state"]
        while not state["over"] and len(thinks) < max_cpu_moves:
            if state["turn"] == 0:
                pits = [i + 1 for i, n in enumerate(state["pits"][0]) if n]
                b.take_events()
                state = b.ok("press", pit=rng.choice(pits))["state"]
                continue
            move = b.wait_event("move", timeout=MOVE_WAIT_S)
            if move["by"] == "cpu":
                thinks.append(move["think_ms"])
            state = move["state"]
        end = b.ok("diag", action="memory")
    finally:
        b.close()
        shutil.rmtree(folder, ignore_errors=True)
    return end, thinks, state["over"]


# ------------------------------------------------------------------ the table
def _ratio(a, b):
    return "%.2f" % (a / b) if a and b else "-"


def _commit():
    """The commit measured: HEAD's short hash, "+changes" when the tree differs from it."""
    def git(*argv):
        return subprocess.run(["git", "-C", ROOT] + list(argv), capture_output=True,
                              text=True).stdout.strip()
    head = git("rev-parse", "--short", "HEAD") or "unknown"
    return head + ("+changes" if git("status", "--porcelain", "--untracked-files=no") else "")


class Runs:
    """Each run's result, by name. With a folder (--keep), every result is saved there as
    NAME.json with the commit it was measured at, and a result already there is taken instead
    of running it again: delete one file to measure that part again at the current commit."""

    def __init__(self, folder, commit, quick):
        self.folder = folder
        self.commit = commit
        self.quick = quick
        self.commits = {}  # run name -> the commit its result was measured at
        if folder:
            os.makedirs(folder, exist_ok=True)

    def _path(self, name):
        return os.path.join(self.folder, name + ".json")

    def saved(self, name):
        if not self.folder or not os.path.exists(self._path(name)):
            return None
        try:
            with open(self._path(name)) as f:
                kept = json.load(f)
            commit, quick, result = kept["commit"], kept["quick"], kept["result"]
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise SystemExit("%s cannot be read (%s): delete it to measure that part again."
                             % (self._path(name), e))
        if quick != self.quick:
            raise SystemExit("%s was measured %s --quick: delete it, or run %s --quick."
                             % (self._path(name), "with" if quick else "without",
                                "with" if quick else "without"))
        self.commits[name] = commit
        return result

    def put(self, name, result):
        self.commits[name] = self.commit
        if self.folder:
            with open(self._path(name) + ".tmp", "w") as f:
                json.dump({"commit": self.commit, "quick": self.quick, "result": result}, f)
            os.replace(self._path(name) + ".tmp", self._path(name))
        return json.loads(json.dumps(result))  # as it reads back: lists, not tuples


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true",
                    help="cap the CPU games at 12 moves each (not whole games)")
    ap.add_argument("--jobs", type=int, default=2,
                    help="emulated Picos running at once (default 2): each is a process of "
                         "its own, and the emulated figures do not depend on it")
    ap.add_argument("--keep", metavar="DIR",
                    help="save each run's result in DIR with its commit, and take the runs "
                         "already saved there instead of running them again (delete a file "
                         "to measure that part again); the table names each row's commit")
    ap.add_argument("--markdown", metavar="FILE", help="also write the table there")
    args = ap.parse_args(argv)
    cap = 12 if args.quick else 10 ** 6
    games = ("kalah", "basic2", "basic4")
    runs = Runs(args.keep, _commit(), args.quick)
    # The emulated Pico's runs, longest first, in the background: their figures are the
    # chip's own cycle counts, so they may share the host with each other and the estimates.
    on_pico = (("basic4", run_on_pico, (("basic4",), cap), {}),
               ("quad_cpu", cpu_game_on_quad, ("rp2040",), {"max_cpu_moves": cap}),
               ("basic2", run_on_pico, (("basic2",), cap), {}),
               ("kalah", run_on_pico, (("kalah",), cap), {}),
               ("human", human_game_by_pads, ("rp2040",), {}),
               ("engine", run_on_pico, (("engine",), cap), {}),
               ("frame", run_on_pico, (("frame",), 0, "quad"), {}))
    pool = ProcessPoolExecutor(max(1, args.jobs), mp_context=multiprocessing.get_context("fork"))
    try:
        done = {}
        waiting = {}
        for name, fn, a, kw in on_pico:
            done[name] = runs.saved(name)
            if done[name] is None:
                waiting[name] = pool.submit(fn, *a, **kw)

        def on_unix(name, fn, *a, **kw):
            # The unix-port estimates meanwhile, one at a time: their times are the host's.
            kept = runs.saved(name)
            return kept if kept is not None else runs.put(name, fn(*a, **kw))

        unix, cal = on_unix("unix_script", run_on_unix, ("engine",) + games, cap)
        _, ubooted, uend, _, _ = on_unix("unix_human", human_game_by_pads, "unix")
        ucend, _, _ = on_unix("unix_quad_cpu", cpu_game_on_quad, "unix", max_cpu_moves=cap)
        utouch, uframe = on_unix("unix_board", _board_estimates)
        for name, future in waiting.items():
            done[name] = runs.put(name, future.result())
    finally:
        pool.shutdown(cancel_futures=True)
    est = script_figures(unix)
    scale = cal / calibration.PICO_MS  # unix ms per Pico ms
    pico = {}
    for name in ("engine",) + games:
        pico.update(script_figures(done[name]))
    lat, booted, end, moves, mpr121_ms = done["human"]
    pframe = _frame_ms(done["frame"])
    cend, thinks, over = done["quad_cpu"]

    rows = []

    def row(what, pico, est, unit, note, *names):
        commits = sorted(set(runs.commits[n] for n in names))
        rows.append((what, pico, est, unit, note, ", ".join(commits)))

    for key, label in (("engine_public", "engine: Kalah playouts, public play()"),
                       ("engine_lean", "engine: the CPU's lean path (search loop)")):
        e = int(est[key] * scale)
        row(label, pico[key], e, "moves/s", _ratio(pico[key], e), "engine", "unix_script")
    for i, label in ((0, "engine: one move record built, the engine's Record"),
                     (1, "engine: one move record built, were it a plain dict")):
        p, e = pico["record_us"][i], est["record_us"][i] / scale
        row(label, "%.0f" % p, "%.0f" % e, "us", _ratio(p, e), "engine", "unix_script")
    for name, label in (("kalah", "Kalah"), ("basic2", "Basic 2p"), ("basic4", "Basic 4p")):
        n_moves, over_ = pico[("moves", name)]
        whole = "whole game, %d moves" % n_moves if over_ else "first %d moves" % n_moves
        for kind, unit in (("nodes", "nodes"), ("think", "ms")):
            p = pico[(kind, name)]
            u = est[(kind, name)]
            for stat, fn in (("median", statistics.median), ("max", max)):
                row("level 5, %s: %s per move, %s (%s)" % (label, "nodes" if kind == "nodes"
                                                           else "think", stat, whole),
                    int(fn(p)), int(fn(u)), unit, _ratio(fn(p), fn(u)), name, "unix_script")
    mpr121 = "MPR121 response %d ms inside" % mpr121_ms
    row("touch to first LED, quad, median (%s)" % mpr121,
        "%.1f" % statistics.median(lat), "-", "ms", "%d touches" % len(lat), "human")
    row("touch to first LED, quad, max (%s)" % mpr121,
        "%.1f" % max(lat), "%.1f" % utouch, "ms", _ratio(max(lat), utouch), "human",
        "unix_board")
    row("animation frame, quad (median)", "%.1f" % pframe, "%.1f" % uframe, "ms",
        _ratio(pframe, uframe), "frame", "unix_board")
    row("heap free after boot (stock image)", booted["free"], ubooted["free"], "bytes",
        _ratio(booted["free"], ubooted["free"]), "human", "unix_human")
    row("min_free, a whole human game (%d moves by pad)" % moves, end["min_free"],
        uend["min_free"], "bytes", _ratio(end["min_free"], uend["min_free"]), "human",
        "unix_human")
    row("min_free, 4p Basic on quad, 3 level-5 CPU seats (%s)"
        % ("whole game" if over else "first %d CPU moves" % len(thinks)), cend["min_free"],
        ucend["min_free"], "bytes", _ratio(cend["min_free"], ucend["min_free"]), "quad_cpu",
        "unix_quad_cpu")
    row("  its CPU moves' think_ms from the move events, median / max",
        "%d/%d" % (statistics.median(thinks), max(thinks)), "-", "ms",
        "%d moves" % len(thinks), "quad_cpu")

    commits = sorted(set(runs.commits.values()))
    print("\nThe board on the emulated RP2040 (stock MicroPython v1.28.0 image) beside the "
          "unix-port estimate, at commit %s%s\n" % (" and ".join(commits),
                                                    " (--quick)" if args.quick else ""))
    width = max(len(r[0]) for r in rows)
    form = "%-" + str(width) + "s %12s %12s %-8s %-14s" + (" %s" if len(commits) > 1 else "")
    print((form % ("figure", "emulated", "unix est.", "unit", "ratio", "commit")).rstrip())
    for r in rows:
        print((form % (r if len(commits) > 1 else r[:5])).rstrip(), flush=True)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write("Measured at commit %s%s.\n\n" % (" and ".join(commits),
                                                     " (--quick)" if args.quick else ""))
            if len(commits) > 1:
                f.write("| figure | emulated Pico | unix-port estimate | unit | ratio / note "
                        "| commit |\n|---|---|---|---|---|---|\n")
                for r in rows:
                    f.write("| %s | %s | %s | %s | %s | %s |\n" % r)
            else:
                f.write("| figure | emulated Pico | unix-port estimate | unit | ratio / note |\n"
                        "|---|---|---|---|---|\n")
                for r in rows:
                    f.write("| %s | %s | %s | %s | %s |\n" % r[:5])
    return 0


def _board_estimates():
    """bench/board.py's unix-port estimates: the touch worst case and a frame, in Pico ms."""
    m = board_bench.probe(3)
    touch = board_bench.report_touch("a move", m["touch_us"], m["i2c_hz"])[0]
    frame = statistics.median(m["frame_ms"]) * calibration.PICO_MS / m["calibration_ms"]
    return touch, frame


def _frame_ms(lines):
    for f in lines:
        if f[0] == "frame_ms":
            return float(f[1])
    raise SystemExit("no frame figure from the board")


if __name__ == "__main__":
    sys.exit(main())
