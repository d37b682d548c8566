"""The board's figures on the emulated Pico (`sim --target rp2040`: the stock MicroPython
v1.28.0 image on rp2040js, the firmware on its flash as deploy puts it there), each beside
its unix-port estimate and the ratio of the two.

    .venv/bin/python bench/pico.py [--quick] [--markdown FILE]

Emulated time counts Cortex-M0+ cycles, so every emulated figure is deterministic: one run
each. What is measured, and how:
- engine moves/s: Kalah random playouts through the public Game.play(), and the CPU's lean
  path (the search loop making every move 6 plies deep), 1 s each (bench/pico_script.py);
- the level-5 CPU: nodes per move and think ms (from the search's start to its last slice,
  stepped in the app's SLICE_MS slices), median and maximum over whole games in which every
  seat is level 5: Kalah, Basic 2 players, Basic 4 players;
- touch to first LED change, on quad, over a whole human game played by pad touches: from
  the moment a finger lands (a timed touch line, as the MPR121 model applies it; the model's
  response as the driver configures it, MPR121_MS, is inside the figure) to the end of the
  first LED frame that changes that pit's ring, both from --trace;
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
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(ROOT, "bench")
# bench/ last: its drivers.py must not stand in for the firmware's drivers package
sys.path[:0] = [os.path.join(ROOT, "tests"), os.path.join(ROOT, "firmware", "lib"),
                os.path.join(ROOT, "host_tools")]
sys.path.append(BENCH)

import calibration  # noqa: E402
from boardsim import Board, MICROPYTHON, PROFILES  # noqa: E402
from mancala import Game, Rules  # noqa: E402
from mancala_fw import profile as profiles  # noqa: E402
from mancala_fw.app.autoplay import SLICE_MS  # noqa: E402
from mancala_fw.display.reader import read_counts  # noqa: E402

PICO_HEAP = 245888  # the stock v1.28.0 RPI_PICO image's GC heap
MPR121_MS = 5  # SFI 4 samples x ESI 1 ms + 1 debounce sample, as drivers/mpr121.py sets it
TOUCH_GAP_US = 4000000  # between a move and the next touch: the sowing animation has ended
TIMEOUT = 3600.0


def _script(what, scale, max_moves):
    with open(os.path.join(ROOT, "tests", "mp", "perft.py")) as f:
        perft = f.read()
    with open(os.path.join(BENCH, "pico_script.py")) as f:
        body = f.read()
    head = "SCALE = %r\nWHAT = %r\nSLICE_MS = %d\nMAX_MOVES = %d\n" % (
        scale, tuple(what), SLICE_MS, max_moves)
    return head + perft + "\n" + body


def _lines(text):
    out = []
    for line in text.splitlines():
        if line.startswith("R "):
            out.append(line.split()[1:])
    if not out or out[-1] != ["done"]:
        raise SystemExit("the bench script failed:\n" + text[-3000:])
    return out


def run_on_pico(what, max_moves, profile="duo"):
    """Runs pico_script as main.py on the emulated Pico; returns its R lines."""
    from mancala_host.sim import launcher
    from mancala_host.sim.devices import Devices

    folder = tempfile.mkdtemp(prefix="mancala-bench-")
    try:
        main = os.path.join(folder, "bench_main.py")
        with open(main, "w") as f:
            f.write(_script(what, None, max_moves))
        flash = os.path.join(folder, "flash")
        setup = launcher.Setup(launcher._parser().parse_args(
            ["--target", "rp2040", "--stdio", "--flash", flash, "--profile", profile,
             "--main", main]))
        env = dict(setup.env)
        devices = Devices(env, None, flash)
        try:
            text = _until_done(setup, env, devices)
        finally:
            devices.stop()
        return _lines(text)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _until_done(setup, env, devices):
    """The board's serial output up to the script's last line (the harness runs until its
    stdin closes, so it is stopped then)."""
    proc = subprocess.Popen(setup.argv + ["--pace", "free"], cwd=setup.flash, env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, pass_fds=devices.fds)
    devices.handed_over()
    text = []
    failing = False
    for raw in iter(proc.stdout.readline, b""):
        line = raw.decode("utf-8", "replace")
        text.append(line)
        if line.startswith("R done"):
            break
        if failing and not line.startswith(" "):
            break  # the exception's own line ends the traceback
        failing = failing or line.startswith("Traceback")
    proc.stdin.close()
    proc.kill()
    proc.wait()
    return "".join(text)


def run_on_unix(what, max_moves):
    """The same script under the unix port, its CPU on a Pico clock; returns (R lines, the
    calibration ms)."""
    env = dict(os.environ, MICROPYPATH=os.path.join(ROOT, "firmware", "lib"))
    probe = calibration.source() + "\nprint('R cal', min(calibrate() for _ in range(3)))\n" \
        "print('R done')\n"
    out = subprocess.run([MICROPYTHON, "-c", probe], env=env, capture_output=True, text=True,
                         timeout=TIMEOUT)
    cal = float(_lines(out.stdout)[0][1])
    out = subprocess.run([MICROPYTHON, "-X", "heapsize=4M", "-c",
                          _script(what, cal, max_moves)], env=env, capture_output=True,
                         text=True, timeout=TIMEOUT)
    return _lines(out.stdout + out.stderr), cal


def script_figures(lines):
    fig = {}
    for f in lines:
        if f[0].startswith("engine_"):
            fig[f[0]] = int(f[1])
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
    memory after boot, diag memory at the end)."""
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
            move = b.wait_event("move")
            assert move["source"] == "pad" and move["pit"] == pit, move
            state = move["state"]
            touched.append(pos)
            moves += 1
        end = b.ok("diag", action="memory")
    finally:
        b.close()
    latencies = _touch_latencies(prof, trace, touched) if target == "rp2040" else []
    shutil.rmtree(folder, ignore_errors=True)
    return latencies, booted, end, moves


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
            move = b.wait_event("move")
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


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true",
                    help="cap the CPU games at 12 moves each (not whole games)")
    ap.add_argument("--markdown", metavar="FILE", help="also write the table there")
    args = ap.parse_args(argv)
    cap = 12 if args.quick else 10 ** 6
    rows = []

    def row(what, pico, est, unit, note=""):
        rows.append((what, pico, est, unit, note))
        print("%-58s %12s %12s %-8s %s" % (what, pico, est, unit, note), flush=True)

    print("%-58s %12s %12s %-8s %s" % ("figure", "emulated", "unix est.", "unit", "ratio"))
    what = ("engine", "kalah", "basic2", "basic4")
    unix, cal = run_on_unix(what, cap)
    est = script_figures(unix)
    scale = cal / calibration.PICO_MS  # unix ms per Pico ms
    pico = script_figures(run_on_pico(what, cap))
    for key, label in (("engine_public", "engine: Kalah playouts, public play()"),
                       ("engine_lean", "engine: the CPU's lean path (search loop)")):
        e = int(est[key] * scale)
        row(label, pico[key], e, "moves/s", _ratio(pico[key], e))
    for name, label in (("kalah", "Kalah"), ("basic2", "Basic 2p"), ("basic4", "Basic 4p")):
        n_moves, over = pico[("moves", name)]
        whole = "whole game, %d moves" % n_moves if over else "first %d moves" % n_moves
        for kind, unit in (("nodes", "nodes"), ("think", "ms")):
            p = pico[(kind, name)]
            u = est[(kind, name)]
            for stat, fn in (("median", statistics.median), ("max", max)):
                row("level 5, %s: %s per move, %s (%s)" % (label, "nodes" if kind == "nodes"
                                                           else "think", stat, whole),
                    int(fn(p)), int(fn(u)), unit, _ratio(fn(p), fn(u)))
    lat, booted, end, moves = human_game_by_pads("rp2040")
    _, ubooted, uend, umoves = human_game_by_pads("unix")
    import board as board_bench  # the unix-port estimates of touch and frame time
    m = board_bench.probe(3)
    utouch = board_bench.report_touch("a move", m["touch_us"], m["i2c_hz"])[0]
    uframe = statistics.median(m["frame_ms"]) * calibration.PICO_MS / m["calibration_ms"]
    row("touch to first LED, quad, median (MPR121 %d ms inside)" % MPR121_MS,
        "%.1f" % statistics.median(lat), "-", "ms", "%d touches" % len(lat))
    row("touch to first LED, quad, max (MPR121 %d ms inside)" % MPR121_MS,
        "%.1f" % max(lat), "%.1f" % utouch, "ms", _ratio(max(lat), utouch))
    pframe = pico_frame_ms()
    row("animation frame, quad (median)", "%.1f" % pframe, "%.1f" % uframe, "ms",
        _ratio(pframe, uframe))
    row("heap free after boot (stock image)", booted["free"], ubooted["free"], "bytes",
        _ratio(booted["free"], ubooted["free"]))
    row("min_free, a whole human game (%d moves by pad)" % moves, end["min_free"],
        uend["min_free"], "bytes", _ratio(end["min_free"], uend["min_free"]))
    cend, thinks, over = cpu_game_on_quad("rp2040", max_cpu_moves=cap)
    ucend, _, _ = cpu_game_on_quad("unix", max_cpu_moves=cap)
    row("min_free, 4p Basic on quad, 3 level-5 CPU seats (%s)"
        % ("whole game" if over else "first %d CPU moves" % len(thinks)), cend["min_free"],
        ucend["min_free"], "bytes", _ratio(cend["min_free"], ucend["min_free"]))
    row("  its CPU moves' think_ms from the move events, median / max",
        "%d/%d" % (statistics.median(thinks), max(thinks)), "-", "ms",
        "%d moves" % len(thinks))
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write("| figure | emulated Pico | unix-port estimate | unit | ratio / note |\n"
                    "|---|---|---|---|---|\n")
            for r in rows:
                f.write("| %s | %s | %s | %s | %s |\n" % r)
    return 0


def pico_frame_ms():
    lines = run_on_pico(("frame",), 0, "quad")
    for f in lines:
        if f[0] == "frame_ms":
            return float(f[1])
    raise SystemExit("no frame figure from the board")


if __name__ == "__main__":
    sys.exit(main())
