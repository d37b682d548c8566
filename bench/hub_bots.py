"""Students' bots on the classroom hub: N virtual boards (unix port) and N bots over KGP (the
tests' client, kgpclient.py, each bot a thread of this process answering its first legal pit
at once) in a Swiss tournament through `mancala-board class`.

Reports:
- the time from a bot's answer (its yield, as the hub reads it) to the board's answer to the
  press of that pit: median and maximum over every bot move (the hub's own count, /bots.json
  press_ms, measured on the hub's event loop);
- the hub's CPU time and peak memory (its process, from /proc), and the machine's load
  average at the end, since the boards, the hub and the bots share its cores;
- the games played and the bot moves, checked against the boards' logs (every bot move a
  press there, by "human"); a mismatch is exit status 1.

    .venv/bin/python bench/hub_bots.py [--boards 15] [--rounds 1] [--quick]
"""
import argparse
import glob
import json
import os
import re
import sys
import tempfile
import threading
import pathlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.join(ROOT, "tests"), os.path.join(ROOT, "host_tools"),
                os.path.join(ROOT, "firmware", "lib")]

from hubsim import get, next_line, post, start_boards, start_hub, stop_hub, wait_tiles  # noqa: E402
from kgpclient import Kgp  # noqa: E402
from waits import wait_for  # noqa: E402
from hub import _proc  # noqa: E402


def bot(port, name):
    c = Kgp(port)
    c.send('set info:name "%s"' % name)
    c.send("mode freeplay")

    def play():
        while True:
            try:
                ident, board = c.state()
            except (AssertionError, OSError):
                return
            pit = next(i + 1 for i, n in enumerate(board["south"]) if n)
            c.send("@%d move %d" % (ident, pit))
            c.send("@%d yield" % ident)
    threading.Thread(target=play, daemon=True).start()
    return c


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--boards", type=int, default=15)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--quick", action="store_true", help="4 boards and 4 bots")
    args = ap.parse_args()
    n = 4 if args.quick else args.boards
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        boards = start_boards(tmp, n)
        hub, url = start_hub(tmp / "class", boards, "--kgp-time", "30", "--grade-nodes", "1000")
        try:
            port = int(re.search(r":(\d+); ", next_line(hub, 1)).group(1))
            wait_tiles(url, "every board live", lambda t: len(t) == n and
                       all(x["status"] == "live" for x in t.values()), deadline_s=300)
            post(url, "settings", animation_ms=0)
            names = ["bot%02d" % (i + 1) for i in range(n)]
            clients = [bot(port, name) for name in names]
            wait_for("every bot joined", lambda: sum(b["connected"] for b in
                                                      get(url, "bots.json")["bots"]) == n)
            answer = post(url, "tournament", players=[m + "=bot" for m in names], style="swiss",
                          rounds=args.rounds, seeds=3)
            assert answer["ok"], answer
            s = wait_for("the tournament to end", lambda: (lambda s: s if s and s["over"] else None)(
                get(url)["standings"]), deadline_s=1800)
            listing = get(url, "bots.json")
            cpu, peak, _ = _proc(hub.pid)
            logged = []
            for path in glob.glob(str(tmp / "class" / "board-*.jsonl")):
                with open(path) as f:
                    logged += [g for g in map(json.loads, f) if "tournament" in g]
            pressed = sum(1 for g in logged for m in g["moves"]
                          if g["tournament"]["players"][m["seat"]] in names and m["by"] == "human")
            moves = sum(b["moves"] for b in listing["bots"])
            press = listing["press_ms"]
            print("%d boards, %d bots, %d games (%d logged), %d bot moves (%d presses in the logs)"
                  % (n, n, len(s["games"]), len(logged), moves, pressed))
            print("bot answer to the board's press answer: median %.0f ms, max %.0f ms over %d moves"
                  % (press["median"], press["max"], press["n"]))
            print("hub: %.1f s CPU, peak RSS %.0f MiB; load average at the end %.1f"
                  % (cpu, peak, os.getloadavg()[0]))
            for c in clients:
                c.close()
            return 0 if pressed == moves and len(logged) == len(s["games"]) else 1
        finally:
            stop_hub(hub)
            for b in boards:
                b.stop()


if __name__ == "__main__":
    sys.exit(main())
