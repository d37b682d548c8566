"""The two editions side by side on the emulated Pico: heap and CPU think time of the same
firmware on stock MicroPython v1.28.0 (make deploy's .mpy files) and on stock CircuitPython
9.2.9 (deploy --circuitpython's .py files).

    .venv/bin/python bench/editions.py [--profile duo]

For each image: the board boots the game and answers `diag memory` (free heap after a
collection, and its low-water mark), then new_game and 8 seeded presses, and `diag memory`
again; then bench/think_probe.py runs in place of the entry point: three level-5 moves,
each a Search with a 1 s budget stepped in 7 ms slices, timed on the board's clock, and the
Kalah move at levels 1-4; then a Kalah game against a CPU seat at the edition's strongest
level (5 on MicroPython, 4 on CircuitPython, which refuses a level-5 seat), whose heap is read once the
board has collected its garbage after the CPU's moves (--levels: that game alone, at each
level given). --live N,...: whole games with every seat the CPU's at each level given (duo:
Kalah, quad: 4-player Basic), on bench/search_heap_probe.py, and the heap free during the
searches after a collection, over all of them and over those after the board let go of the
self-test (app.loop does once the boot gesture's window has closed); --games N plays N
games in a row on one boot; with --first-move, only the first move of the boot, with the
animations on, and its think time (the CPU's modules are loaded when the seats are set,
before it). A request the board refuses (a level above the edition's strongest,
app.autoplay.STRONGEST_LEVEL) stops the bench with the board's sentence; think_probe.py's
searches are not capped. Emulated time is
the RP2040's (rp2040js counts cycles), so the figures do not depend on this machine.
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "host_tools"))
sys.path.insert(0, os.path.join(ROOT, "firmware", "lib"))

from mancala import Game  # noqa: E402
from mancala_host.sim import rp2040  # noqa: E402

# Each edition with its strongest CPU level (app.autoplay.STRONGEST_LEVEL on that board).
IMAGES = (("MicroPython v1.28.0", None, 5),
          ("CircuitPython 9.2.9", "circuitpython-9.2.9-raspberry_pi_pico.uf2", 4))
PROBE = os.path.join(ROOT, "bench", "think_probe.py")
SEARCH_HEAP_PROBE = os.path.join(ROOT, "bench", "search_heap_probe.py")
# --live: the whole game each profile plays, every seat the CPU's.
LIVE_RULES = {"duo": {"variant": "kalah", "players": 2, "pits": 6, "seeds": 4},
              "quad": {"variant": "basic", "players": 4, "pits": 6, "seeds": 4}}


def start(image, flash, profile, main=None):
    argv = [sys.executable, "-m", "mancala_host", "sim", "--target", "rp2040", "--stdio",
            "--pace", "free", "--profile", profile, "--flash", flash]
    if image:
        argv += ["--image", os.path.join(rp2040.mirror(ROOT), image)]
    if main:
        argv += ["--main", main]
    return launch(argv, flash)


def launch(argv, flash):
    """The sim, its stderr kept beside its flash (booted() quotes it if the board never boots)."""
    os.makedirs(flash, exist_ok=True)
    path = os.path.join(flash, "sim-stderr.txt")
    with open(path, "wb") as err:
        proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=err, cwd=ROOT)
    proc.stderr_path = path
    return proc


def lines(proc):
    for raw in proc.stdout:
        # CircuitPython's console title (an escape sequence) may precede a line.
        at = raw.find(b"{")
        try:
            yield json.loads(raw[at:]) if at >= 0 else None
        except ValueError:
            continue


def booted(proc):
    """The board's lines, from after its boot event."""
    it = lines(proc)
    for obj in it:
        if obj and obj.get("event") == "boot":
            return it
    proc.wait()
    said = ""
    try:
        with open(proc.stderr_path, errors="replace") as f:
            said = [line.strip() for line in f if line.strip()][-1]
    except (AttributeError, OSError, IndexError):
        pass
    raise SystemExit("the board stopped before it booted" + (": " + said if said else ""))


def request(proc, it, cmd, **args):
    proc.stdin.write((json.dumps(dict(args, id=cmd, cmd=cmd)) + "\n").encode())
    proc.stdin.flush()
    for obj in it:
        if obj and obj.get("id") == cmd:
            if not obj.get("ok"):
                raise SystemExit("the board refused %s: %s"
                                 % (cmd, obj.get("error", {}).get("message")))
            return obj
    raise SystemExit("the board stopped before answering %s" % cmd)


def after_collection(proc, it, polls=300):
    """diag memory read just after the board's loop has collected its garbage (it does so
    every 2 s while idle): the first reading whose alloc is below the one before. The host
    pauses between readings so that the board idles; the bound is reached only when it never
    collects."""
    last = request(proc, it, "diag", action="memory")
    for _ in range(polls):
        time.sleep(0.1)
        memory = request(proc, it, "diag", action="memory")
        if memory["alloc"] < last["alloc"]:
            return memory
        last = memory
    raise SystemExit("the board did not collect its garbage while idle")


def heap(image, profile):
    with tempfile.TemporaryDirectory() as tmp:
        proc = start(image, os.path.join(tmp, "flash"), profile)
        it = booted(proc)
        try:
            at_boot = request(proc, it, "diag", action="memory")
            state = request(proc, it, "new_game")["state"]
            game = Game.from_dict(state)
            rng = random.Random(1)
            for _ in range(8):
                pit = rng.choice(game.legal_moves())
                game.play(pit)
                request(proc, it, "press", pit=pit)
            played = request(proc, it, "diag", action="memory")
        finally:
            proc.kill()
            proc.wait()
    return at_boot, played


def cpu_game(image, profile, cpu_moves, level=5):
    """diag memory after cpu_moves moves of a CPU seat at level (seat 1) in a Kalah game, seat
    0 pressing a seeded random pit whenever it is to move. A reset of the board on the way
    (its boot event again: the watchdog, or a crash) stops the bench."""
    with tempfile.TemporaryDirectory() as tmp:
        proc = start(image, os.path.join(tmp, "flash"), profile)
        it = booted(proc)
        try:
            request(proc, it, "set_config", config={"seats": [{"kind": "human"},
                                                               {"kind": "cpu", "level": level}]})
            state = request(proc, it, "new_game", first=0)["state"]
            rng = random.Random(1)
            done = 0
            while done < cpu_moves and not state["over"]:
                if state["turn"] == 0:
                    pit = rng.choice([i + 1 for i, n in enumerate(state["pits"][0]) if n])
                    state = request(proc, it, "press", pit=pit)["state"]
                    continue
                for obj in it:
                    if obj and obj.get("event") == "boot":
                        raise SystemExit("the board restarted during the CPU's game")
                    if obj and obj.get("event") == "move":
                        state = obj["state"]
                        done += 1
                        break
            return after_collection(proc, it), done
        finally:
            proc.kill()
            proc.wait()


def live_game(image, profile, level, first_move=False, games=1):
    """A whole game (games of them in a row) with every seat a CPU seat at level, on the
    board's own entry point with bench/search_heap_probe.py's one addition: the heap free
    after a collection once each search has made its tables. Returns (the lowest of those,
    the lowest of the searches once the self-test was let go, searches, moves, longest
    think_ms, the board's level cap seen in the seats' searches). first_move: only the first
    move of the boot, with the board's animations on (the CPU's modules are compiled in it)."""
    rules = LIVE_RULES[profile]
    with tempfile.TemporaryDirectory() as tmp:
        proc = start(image, os.path.join(tmp, "flash"), profile, SEARCH_HEAP_PROBE)
        it = booted(proc)
        try:
            seats = [{"kind": "cpu", "level": level}] * rules["players"]
            config = {"seats": seats}
            if not first_move:
                # No animation: a search starts once the sowing has ended, so it does not
                # change the heap a search finds, and a whole game takes minutes less to
                # emulate.
                config["animation_ms"] = 0
            request(proc, it, "set_config", config=config)
            state = request(proc, it, "new_game", rules=rules, first=0)["state"]
            low, late, searches, moves, longest, plies = None, None, 0, 0, 0, set()
            for obj in it:
                if not obj:
                    continue
                if obj.get("event") == "boot":
                    raise SystemExit("the board restarted during the CPU's game")
                if obj.get("event") == "search_heap":
                    searches += 1
                    low = obj["free"] if low is None else min(low, obj["free"])
                    if not obj["selftest"]:
                        late = obj["free"] if late is None else min(late, obj["free"])
                    plies.add((obj["plies"], obj["table"]))
                elif obj.get("event") == "move":
                    moves += 1
                    sys.stderr.write("move %d (think %s ms), lowest free %s\r"
                                     % (moves, obj.get("think_ms"), low))
                    longest = max(longest, obj.get("think_ms") or 0)
                    state = obj["state"]
                    if first_move:
                        break
                    if state["over"]:
                        games -= 1
                        if not games:
                            break
                        request(proc, it, "new_game", rules=rules, first=0)
                elif obj.get("event") == "log" and obj.get("level") == "error":
                    raise SystemExit("the board reported an error: %s" % obj.get("message"))
            return low, late, searches, moves, longest, sorted(plies)
        finally:
            proc.kill()
            proc.wait()


def think(image, profile):
    with tempfile.TemporaryDirectory() as tmp:
        proc = start(image, os.path.join(tmp, "flash"), profile, PROBE)
        try:
            for obj in lines(proc):
                if obj and obj.get("event") == "think_probe":
                    return obj
        finally:
            proc.kill()
            proc.wait()
    raise SystemExit("the think probe printed nothing")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--profile", default="duo")
    p.add_argument("--only", choices=("micropython", "circuitpython"),
                   help="measure one edition only")
    p.add_argument("--cpu-moves", type=int, default=10,
                   help="moves of the CPU seat (at the edition's strongest level) before "
                        "its game's diag memory")
    p.add_argument("--levels", metavar="N,N,...",
                   help="only the CPU's game, once at each of these levels (e.g. 1,2,3,4,5), "
                        "and the heap free after a collection when it has made its moves")
    p.add_argument("--live", metavar="N,N,...",
                   help="only whole games with every seat the CPU's (duo: Kalah, quad: "
                        "4-player Basic), once at each of these levels, and the lowest heap "
                        "free during a search (after a collection, the search's tables "
                        "made)")
    p.add_argument("--games", type=int, default=1,
                   help="with --live: this many whole games in a row on one boot")
    p.add_argument("--first-move", action="store_true",
                   help="with --live: only the first CPU move of a boot, animations on, and "
                        "its think time")
    args = p.parse_args(argv)
    for name, image, strongest in IMAGES:
        if args.only and not name.lower().startswith(args.only):
            continue
        if args.live:
            for level in [int(n) for n in args.live.split(",")]:
                low, late, searches, moves, longest, plies = live_game(
                    image, args.profile, level, args.first_move, args.games)
                if args.first_move:
                    print("%s (%s): the first move of a boot, every seat at level %d, "
                          "animations on: think %d ms; free during its search %s; (plies, "
                          "table) %s" % (name, args.profile, level, longest, low, plies))
                    continue
                print("%s (%s): every seat at level %d, %d moves, %d searches: free during a "
                      "search at least %s (%s in the searches after the self-test was let "
                      "go); longest think %d ms; searches (plies, table) %s"
                      % (name, args.profile, level, moves, searches, low, late, longest, plies))
            continue
        if args.levels:
            for level in [int(n) for n in args.levels.split(",")]:
                cpu, moves = cpu_game(image, args.profile, args.cpu_moves, level)
                print("%s (%s): Kalah against a level-%d CPU seat, %d CPU moves: free %d "
                      "after a collection (low %d) of %d"
                      % (name, args.profile, level, moves, cpu["free"], cpu["min_free"],
                         cpu["free"] + cpu["alloc"]))
            continue
        booted, played = heap(image, args.profile)
        probe = think(image, args.profile)
        cpu, moves = cpu_game(image, args.profile, args.cpu_moves, strongest)
        print("%s (%s):" % (name, args.profile))
        print("  heap free after boot %d (low %d); after 8 moves %d (low %d)"
              % (booted["free"], booted["min_free"], played["free"], played["min_free"]))
        print("  Kalah against a level-%d CPU seat, %d CPU moves: free %d after a collection "
              "(low %d)" % (strongest, moves, cpu["free"], cpu["min_free"]))
        for r in probe["results"]:
            print("  level %d, %-8s %5d ms  %5d nodes  depth %2d  heap kept by the search %d"
                  % (r["level"], r["game"], r["ms"], r["nodes"], r["depth"], r["kept"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
