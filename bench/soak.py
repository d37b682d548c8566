"""The soak: whole all-CPU games in a row on one boot of the emulated Pico, and whether the
heap drifts from the first game to the last.

    .venv/bin/python bench/soak.py [--way image|deploy|circuitpython] [--profile duo|quad]
                                   [--games 20] [--level N] [--quick]

Every seat is the CPU's at the way's strongest level (5 on MicroPython, 4 on CircuitPython),
animations off. duo plays Kalah (6 pits, 4 seeds); quad plays 4-player Basic on 4 pits with 3
seeds (about 75 moves a game; the 6-pit, 4-seed game takes about 200). The ways:

- image: the firmware image from `make firmware` (build/firmware/), modules frozen in flash;
- deploy: stock MicroPython v1.28.0 with `make deploy`'s files;
- circuitpython: stock CircuitPython 9.2.9 with `deploy --circuitpython`'s files.

Each game is started with `new_game` and ends with the board's game_over; then the soak
fetches it whole with `game`, as a host that follows the board does, and checks that it has
every move. Per game it reads:
- `min_free`: `diag memory`'s low-water mark over the game (reset at its start), which counts
  garbage not yet collected as used: the measure of the MicroPython budget, a third of the
  heap free through the whole app with a search (docs/architecture.md §10);
- `search_free` (deploy and circuitpython, which run bench/search_heap_probe.py in place of
  the entry point; the image runs its frozen main.py before any on the flash): the lowest
  free heap after a collection during the game's searches, the measure of CircuitPython's
  budget of at least 40 KB at the lowest point of a search;
- the longest think_ms.

It passes when no game reports an error (a MemoryError is one) or restarts the board, the
last game's lowest is within 1 KB of the first's (search_free where there is one, else
min_free), and the way's budget holds in every game. It exits 1 otherwise, saying which.
Emulated time is the RP2040's, so the figures do not depend on this machine; the host time
is long (minutes a game).
"""
import argparse
import os
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "host_tools"))
sys.path.insert(0, os.path.join(ROOT, "bench"))

from editions import booted, launch, request  # noqa: E402
from mancala_host.sim import rp2040  # noqa: E402

SEARCH_HEAP_PROBE = os.path.join(ROOT, "bench", "search_heap_probe.py")
CIRCUITPYTHON = "circuitpython-9.2.9-raspberry_pi_pico.uf2"
STRONGEST = {"image": 5, "deploy": 5, "circuitpython": 4}
RULES = {"duo": {"variant": "kalah", "players": 2, "pits": 6, "seeds": 4},
         "quad": {"variant": "basic", "players": 4, "pits": 4, "seeds": 3}}
DRIFT = 1024
MICROPYTHON_HEAP = 245888  # the stock v1.28.0 RPI_PICO image's, and the firmware image's
BUDGET = {"image": MICROPYTHON_HEAP // 3, "deploy": MICROPYTHON_HEAP // 3,
          "circuitpython": 40 * 1024}


def image_of(way):
    if way == "image":
        from mancala_host.flashing import imagebuild
        path = imagebuild.image_path(ROOT, imagebuild.project_version(ROOT))
        if not os.path.exists(path):
            raise SystemExit("%s is missing: run make firmware first" % path)
        return path
    if way == "circuitpython":
        return os.path.join(rp2040.mirror(ROOT), CIRCUITPYTHON)
    return None


def start(way, flash, profile, probe=True):
    """The board of the way on the emulated Pico; probe: bench/search_heap_probe.py in place
    of the entry point (not on the image, whose frozen main.py runs first)."""
    argv = [sys.executable, "-m", "mancala_host", "sim", "--target", "rp2040", "--stdio",
            "--pace", "free", "--profile", profile, "--flash", flash]
    image = image_of(way)
    if image:
        argv += ["--image", image]
    if probe and way != "image":
        argv += ["--main", SEARCH_HEAP_PROBE]
    return launch(argv, flash)


def soak(way, profile, games, level, out):
    rules = RULES[profile]
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        proc = start(way, os.path.join(tmp, "flash"), profile)
        it = booted(proc)
        try:
            request(proc, it, "set_config", config={
                "animation_ms": 0, "seats": [{"kind": "cpu", "level": level}] * rules["players"]})
            for n in range(1, games + 1):
                began = time.monotonic()
                request(proc, it, "diag", action="memory", reset=True)
                request(proc, it, "new_game", rules=rules, first=0)
                search_free, moves, longest = None, 0, 0
                for obj in it:
                    if not obj:
                        continue
                    event = obj.get("event")
                    if event == "boot":
                        raise SystemExit("%s %s: the board restarted in game %d" % (way, profile, n))
                    if event == "log" and obj.get("level") == "error":
                        raise SystemExit("%s %s: game %d: the board reported an error: %s"
                                         % (way, profile, n, obj.get("message")))
                    if event == "search_heap":
                        search_free = obj["free"] if search_free is None else min(search_free,
                                                                                   obj["free"])
                    elif event == "move":
                        moves += 1
                        longest = max(longest, obj.get("think_ms") or 0)
                    elif event == "game_over":
                        break
                else:
                    raise SystemExit("%s %s: the board stopped in game %d" % (way, profile, n))
                # the finished game handed over, within the game's low-water mark
                kept = request(proc, it, "game", game=obj["game"])
                if len(kept["history"]) != moves:
                    raise SystemExit("%s %s: game %d was not handed over whole: %s"
                                     % (way, profile, n, str(kept)[:200]))
                memory = request(proc, it, "diag", action="memory")
                result = {"game": n, "moves": moves, "min_free": memory["min_free"],
                          "search_free": search_free, "think_ms": longest,
                          "host_s": round(time.monotonic() - began)}
                results.append(result)
                out.write("%s %s game %2d: %3d moves, min_free %s, search_free %s, longest "
                          "think %d ms (%d host s)\n" % (way, profile, n, moves, memory["min_free"],
                                                        search_free, longest, result["host_s"]))
                out.flush()
        finally:
            proc.kill()
            proc.wait()
    return results


def verdict(way, results):
    """The sentences that say what failed; empty when the soak passed."""
    key = "search_free" if all(r["search_free"] is not None for r in results) else "min_free"
    first, last = results[0][key], results[-1][key]
    failed = []
    if last < first - DRIFT:
        failed.append("the last game's lowest %s (%d) is %d bytes below the first's (%d)"
                      % (key, last, first - last, first))
    budget_key = "search_free" if way == "circuitpython" and key == "search_free" else "min_free"
    low = min(r[budget_key] for r in results)
    if low < BUDGET[way]:
        failed.append("the lowest %s (%d) is under the budget of %d" % (budget_key, low,
                                                                        BUDGET[way]))
    return failed


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--way", choices=sorted(STRONGEST), action="append",
                   help="the way the board is made (default: all three)")
    p.add_argument("--profile", choices=sorted(RULES), action="append",
                   help="duo or quad (default: quad, and duo for circuitpython too)")
    p.add_argument("--games", type=int, default=20)
    p.add_argument("--level", type=int, help="the seats' level (default: the strongest)")
    p.add_argument("--quick", action="store_true",
                   help="(make bench BENCHFLAGS=--quick) 2 games of each way instead of --games")
    args = p.parse_args(argv)
    if args.quick:
        args.games = min(args.games, 2)
    failed = []
    for way in args.way or sorted(STRONGEST):
        for profile in args.profile or (["duo", "quad"] if way == "circuitpython" else ["quad"]):
            results = soak(way, profile, args.games, args.level or STRONGEST[way], sys.stdout)
            said = verdict(way, results)
            key = "search_free" if all(r["search_free"] is not None for r in results) \
                else "min_free"
            print("%s %s: %d games, lowest %s first %d, last %d, least %d; min_free least %d; "
                  "longest think %d ms: %s" % (
                      way, profile, len(results), key, results[0][key], results[-1][key],
                      min(r[key] for r in results), min(r["min_free"] for r in results),
                      max(r["think_ms"] for r in results), "; ".join(said) or "passed"))
            failed += said
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
