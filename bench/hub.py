"""The classroom hub under load: 15 virtual boards (unix port) playing CPU against CPU through
`mancala-board class`, with the grid page open in headless Chromium.

Reports the page's update latency from a move event read by the hub to the tile drawn
(median and maximum, over every move the page showed), the hub's CPU time and peak memory
(its process, from /proc), and the games: every game that started on a board must be in the
folder once (finished or, for those still under way at the stop, unfinished).

    .venv/bin/python bench/hub.py --minutes 10 [--boards 15] [--level 1]
"""
import argparse
import glob
import json
import os
import statistics
import sys
import tempfile
import time
import pathlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.join(ROOT, "tests"), os.path.join(ROOT, "host_tools"),
                os.path.join(ROOT, "firmware", "lib")]

from hubsim import get, post, start_boards, start_hub, stop_hub, wait_tiles  # noqa: E402
from projector import chromium  # noqa: E402


def _proc(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    cpu = (int(fields[11]) + int(fields[12])) / ticks
    with open("/proc/%d/status" % pid) as f:
        peak = [line for line in f if line.startswith("VmHWM")][0].split()[1]
    return cpu, int(peak) / 1024


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--minutes", type=float, default=10.0)
    p.add_argument("--boards", type=int, default=15)
    p.add_argument("--level", type=int, default=1, help="the CPU level of every seat")
    args = p.parse_args(argv)
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="bench-hub-"))
    boards = start_boards(tmp, args.boards)
    hub, url = start_hub(tmp / "class", boards)
    driver = None
    try:
        wait_tiles(url, "every board live", lambda t: len(t) == args.boards and
                   all(x["status"] == "live" for x in t.values()))
        cpu_seat = {"kind": "cpu", "level": args.level}
        post(url, "settings", variant="kalah", seeds=4, animation_ms=0, seats=[cpu_seat, cpu_seat])
        driver = chromium(str(tmp / "chromium"), 1920, 1080)
        driver.get(url)
        cpu0, _ = _proc(hub.pid)
        t0 = time.monotonic()
        post(url, "start")
        end = t0 + args.minutes * 60
        started = 0
        while time.monotonic() < end:
            time.sleep(2)
            # a board whose game is over starts the next (as a teacher's "new game" would)
            over = [t["key"] for t in get(url)["tiles"] if t["state"] and t["state"]["over"]]
            if over:
                post(url, "start", boards=over)
                started += len(over)
        lat = driver.execute_script("return window.hubLatency")
        cpu1, _ = _proc(hub.pid)
        wall = time.monotonic() - t0
        _, peak = _proc(hub.pid)
    finally:
        if driver is not None:
            driver.quit()
        stop_hub(hub)
        for b in boards:
            b.stop()
    games = []
    for path in glob.glob(str(tmp / "class" / "board-*.jsonl")):
        with open(path) as f:
            games += [json.loads(line) for line in f if line.strip()]
    keys = [(g["board"].get("port"), g["started"], json.dumps(g["moves"])) for g in games]
    finished = sum(1 for g in games if not g.get("unfinished"))
    unfinished = len(games) - finished
    expected = args.boards + started   # every game started: the first on each board and each restart
    print("boards %d, %.1f min, CPU level %d" % (args.boards, wall / 60, args.level))
    print("moves shown on the page: %d; latency move event -> tile: median %.1f ms, max %.1f ms"
          % (len(lat), statistics.median(lat) * 1000, max(lat) * 1000))
    print("hub CPU: %.1f s in %.1f s (%.0f%% of one core); peak memory (VmHWM) %.1f MiB"
          % (cpu1 - cpu0, wall, 100 * (cpu1 - cpu0) / wall, peak))
    print("games started %d; logged %d (%d finished, %d unfinished at the stop); duplicates %d; lost %d"
          % (expected, len(games), finished, unfinished, len(keys) - len(set(keys)),
             expected - len(set(keys))))
    return 0 if len(set(keys)) == len(keys) == expected else 1


if __name__ == "__main__":
    sys.exit(main())
