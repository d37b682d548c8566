"""The classroom hub under faults: 15 virtual boards (unix port) play a round robin of CPU
players through `mancala-board class` (16 players: 120 games in 15 rounds), while faults
drawn from a fixed seed hit the room at times drawn from the same seed:
- `board`: a board's sim killed (SIGKILL: a power cut) and started again on its flash;
- `pty`: a board's pty link removed for 1 to 5 s, then put back (the device path gone and
  back; the line the hub has open stays open, as a pty's does);
- `hub`: the hub killed (SIGKILL), left down 1 to 8 s (games end meanwhile), and started
  again on the same folder;
- `wipe`: a board's sim killed, its flash emptied, and started again (a new board id, no
  game, default settings).

Reports:
- games: counted (with a result in the standings), logged (finished games of the tournament
  in the boards' logs), lost (counted and not logged, or logged and not counted, or logged
  with another result) and duplicated (a game key, or a pairing, logged finished twice);
  the target is 0 lost and 0 duplicated;
- the standings against a recount from the logs (points, store difference, games played);
- after each hub restart, the time from starting it to every tile live;
- the hub's CPU time (all its processes, summed) and its peak memory;
- the machine's load, since the boards and the hub share its cores with whatever else runs.

    .venv/bin/python bench/hub_chaos.py [--boards 15] [--players 16] [--faults 30] [--seed 32]
"""
import argparse
import glob
import json
import os
import pathlib
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.join(ROOT, "tests"), os.path.join(ROOT, "host_tools"),
                os.path.join(ROOT, "firmware", "lib")]

from hubsim import get, post, start_boards, start_hub, stop_hub, wait_tiles  # noqa: E402
from waits import wait_for  # noqa: E402

KINDS = ("board", "pty", "hub", "wipe")
LIVE_S = 120.0   # how long a restarted hub is given to have every tile live


def _proc(pid):
    """(CPU seconds of every thread, peak RSS MiB) of a running process."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    with open("/proc/%d/status" % pid) as f:
        peak = next(int(line.split()[1]) / 1024 for line in f if line.startswith("VmHWM"))
    return cpu, peak


def nice(board, value):
    """Every process of the board's session (the sim and its MicroPython) at nice `value`,
    also the session's autogroup: in a class each board is a computer of its own, not a share
    of the laptop's cores (bench/hub.py says why)."""
    os.setpriority(os.PRIO_PGRP, board.proc.pid, value)
    if os.path.exists("/proc/%d/autogroup" % board.proc.pid):
        with open("/proc/%d/autogroup" % board.proc.pid, "w") as f:
            f.write(str(value))


def schedule(seed, faults, boards, gap_s):
    """[(seconds from the start, kind, board index, down seconds)], the kinds in equal shares."""
    rng = random.Random(seed)
    kinds = [KINDS[i % len(KINDS)] for i in range(faults)]
    rng.shuffle(kinds)
    t, out = 0.0, []
    for kind in kinds:
        t += rng.uniform(*gap_s)
        down = rng.uniform(1, 8) if kind == "hub" else rng.uniform(1, 5)
        out.append((t, kind, rng.randrange(boards), down))
    return out


def recount(folder, tid):
    """The finished games of tournament tid in the logs: (rows by name, games, duplicates)."""
    games, keys, pairings, dup = [], set(), set(), []
    for path in sorted(glob.glob(os.path.join(str(folder), "board-*.jsonl"))):
        with open(path) as f:
            for line in f:
                try:
                    g = json.loads(line)
                except ValueError:
                    continue
                t = g.get("tournament") or {}
                if t.get("id") != tid or g.get("unfinished"):
                    continue
                key = ((g.get("board") or {}).get("id"), g.get("game"))
                pairing = (t["round"], frozenset(t["players"]))
                if (key[1] is not None and key in keys) or pairing in pairings:
                    dup.append((os.path.basename(path), key, t["round"], t["players"]))
                    continue
                keys.add(key)
                pairings.add(pairing)
                games.append(g)
    rows = {}
    for g in games:
        names, places, stores = g["tournament"]["players"], g["result"]["places"], g["result"]["stores"]
        for side in (0, 1):
            r = rows.setdefault(names[side], [0.0, 0, 0])
            r[0] += 0.5 if places[0] == places[1] else float(places[side] == 1)
            r[1] += stores[side] - stores[1 - side]
            r[2] += 1
    return rows, games, dup


class Hub:
    """The hub process, started again after each kill; its CPU summed over its lives."""

    def __init__(self, folder, boards):
        self.folder, self.boards = folder, boards
        self.cpu = self.peak = 0.0
        self.live_after = []     # seconds from each restart to every tile live
        self.start()

    def start(self):
        """Seconds from the start to every tile live (None: not within LIVE_S; the tiles that
        were not are printed)."""
        t0 = time.monotonic()
        self.proc, self.url = start_hub(self.folder, self.boards)
        try:
            wait_tiles(self.url, "every tile live", lambda t: len(t) == len(self.boards) and
                       all(x["status"] == "live" for x in t.values()), deadline_s=LIVE_S)
        except AssertionError:
            for t in get(self.url)["tiles"]:
                if t["status"] != "live":
                    print("NOT LIVE %s: %s, %s" % (t["key"], t["status"], t["problem"]),
                          flush=True)
            return None
        return time.monotonic() - t0

    def sample(self):
        cpu, peak = _proc(self.proc.pid)
        self.last_cpu = cpu
        self.peak = max(self.peak, peak)

    def kill(self):
        self.sample()
        self.cpu += self.last_cpu
        self.proc.kill()
        self.proc.wait()

    def stop(self):
        self.sample()
        self.cpu += self.last_cpu
        stop_hub(self.proc)


def apply(fault, hub, boards, board_nice):
    _, kind, i, down = fault
    b = boards[i]
    if kind == "board":
        b.kill()
        b.start()
        nice(b, board_nice)
    elif kind == "wipe":
        b.kill()
        for name in os.listdir(str(b.flash)):
            path = os.path.join(str(b.flash), name)
            shutil.rmtree(path) if os.path.isdir(path) else os.remove(path)
        b.start()
        nice(b, board_nice)
    elif kind == "pty":
        target = os.readlink(b.link)
        os.remove(b.link)
        time.sleep(down)
        os.symlink(target, b.link)
    else:
        hub.kill()
        time.sleep(down)
        hub.live_after.append(hub.start())


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--boards", type=int, default=15)
    p.add_argument("--players", type=int, default=16)
    p.add_argument("--faults", type=int, default=30)
    p.add_argument("--seed", type=int, default=32)
    p.add_argument("--gap", type=float, nargs=2, default=(4.0, 14.0), metavar=("MIN", "MAX"),
                   help="seconds between faults, drawn uniformly (default 4 14)")
    p.add_argument("--stone-ms", type=int, default=20, help="the sowing animation per stone")
    p.add_argument("--level", type=int, default=1, help="every player's CPU level")
    p.add_argument("--board-nice", type=int, default=10,
                   help="the virtual boards' nice value (default 10, as bench/hub.py)")
    p.add_argument("--quick", action="store_true",
                   help="6 boards, 6 players, 8 faults (make bench BENCHFLAGS=--quick)")
    args = p.parse_args(argv)
    if args.quick:
        args.boards, args.players, args.faults = 6, 6, 8
    faults = schedule(args.seed, args.faults, args.boards, args.gap)
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="bench-chaos-"))
    folder = tmp / "class"
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    print("commit %s; start: load %.2f %.2f %.2f on %d cores" % ((commit,) + os.getloadavg() +
                                                                (os.cpu_count(),)), flush=True)
    boards = start_boards(tmp, args.boards)
    for b in boards:
        nice(b, args.board_nice)
    hub = None
    loads, done = [], []
    try:
        hub = Hub(folder, boards)
        answer = post(hub.url, "settings", animation_ms=args.stone_ms)
        assert answer["ok"], answer
        players = ["P%02d=cpu%d" % (i + 1, args.level) for i in range(args.players)]
        answer = post(hub.url, "tournament", players=players, style="round-robin")
        assert answer["ok"], answer
        t0 = time.monotonic()
        pending = list(faults)
        while True:
            s = get(hub.url)["standings"]
            if s["over"] and not pending:
                break
            now = time.monotonic() - t0
            if pending and now >= pending[0][0]:
                fault = pending.pop(0)
                print("%6.1f s  %-5s %s" % (now, fault[1], boards[fault[2]].key), flush=True)
                apply(fault, hub, boards, args.board_nice)
                done.append(fault)
                continue
            loads.append(os.getloadavg()[0])
            if now > 3600:
                raise AssertionError("the tournament did not end within an hour")
            time.sleep(0.5)
        wall = time.monotonic() - t0
        standings = get(hub.url)["standings"]
        hub.stop()
    finally:
        if hub is not None and hub.proc.poll() is None:
            hub.proc.kill()
        for b in boards:
            b.stop()
    counted = {(g["round"], frozenset(g["seats"])): (g["places"], g["stores"])
               for g in standings["games"] if g["places"] is not None}
    rows, games, dup = recount(folder, standings["id"])
    logged = {(g["tournament"]["round"], frozenset(g["tournament"]["players"])):
              (g["result"]["places"], g["result"]["stores"]) for g in games}
    lost = [k for k in counted if k not in logged] + [k for k in logged if k not in counted]
    wrong = [k for k in counted if k in logged and counted[k] != logged[k]]
    table = {r["name"]: (r["points"], r["stores"], r["played"]) for r in standings["standings"]}
    again = {n: tuple(v) for n, v in rows.items()}
    same = table == {n: again.get(n, (0.0, 0, 0)) for n in table}
    print("end: load %.2f %.2f %.2f" % os.getloadavg())
    print("%d boards (nice %d), %d CPU players (level %d), round robin of %d rounds, %d ms a "
          "stone; %.1f min" % (args.boards, args.board_nice, args.players, args.level,
                               standings["rounds"], args.stone_ms, wall / 60))
    print("faults (seed %d): %d applied: %s" % (args.seed, len(done), ", ".join(
        "%d %s" % (sum(f[1] == k for f in done), k) for k in KINDS)))
    print("machine load (1-min average, every 0.5 s): mean %.1f, max %.1f"
          % (statistics.mean(loads), max(loads)))
    print("games: %d counted, %d logged, %d lost, %d logged with another result, %d duplicated"
          % (len(counted), len(logged), len(lost), len(wrong), len(dup)))
    print("standings %s the recount from the logs" % ("equal" if same else "DIFFER FROM"))
    if hub.live_after:
        timed = [s for s in hub.live_after if s is not None]
        print("every tile live after a hub restart: %s s (max %s)" % (
            ", ".join("%.1f" % s if s is not None else "not within %g" % LIVE_S
                      for s in hub.live_after),
            "%.1f s" % max(timed) if timed else "-"))
    print("hub CPU: %.1f s in %.1f s over %d processes (%.0f%% of one core); peak memory "
          "%.1f MiB" % (hub.cpu, wall, 1 + len(hub.live_after), 100 * hub.cpu / wall, hub.peak))
    for k in lost:
        print("LOST round %d %s" % (k[0], " v ".join(sorted(k[1]))))
    for d in dup:
        print("DUPLICATED %s" % (d,))
    if not same:
        print("standings %s\nrecount   %s" % (table, again))
    print("(the folder: %s)" % folder)
    late = sum(s is None for s in hub.live_after)
    return 0 if not lost and not wrong and not dup and same and not late else 1


if __name__ == "__main__":
    sys.exit(main())
