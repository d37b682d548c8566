"""The classroom hub under load: 15 virtual boards (unix port) playing CPU against CPU through
`mancala-board class`, with the grid page open in headless Chromium at 1920x1080.

Reports:
- the page's update latency, from the hub taking in a game event (a move, a game's end, a new
  game) to the animation frame that drew its tile: median, 99th percentile and maximum over
  every event the page drew (the page's window.hubLatency, taken out every 2 s);
- the hub's CPU time and memory (its process, from /proc: every thread's user + system time,
  peak and last resident set);
- the machine's load (os.getloadavg, sampled every 2 s), since the boards, the hub and the
  browser share its cores with whatever else runs;
- the games, checked against the boards' own game ends: every game a board ended (the final
  position the board sent, seen on its tile, which stays there until the bench starts the
  next game) must be in that board's log once, in order, with moves that replay to that very
  position; the game under way at the stop must be there once, unfinished, with as many
  moves as the board itself counts (asked directly once the hub has let go of the port) and
  the board's position. Anything else is a lost or a duplicated game, and the exit status is 1.

    .venv/bin/python bench/hub.py --minutes 10 [--boards 15] [--level 1] [--board-nice 10]
"""
import argparse
import collections
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import pathlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.join(ROOT, "tests"), os.path.join(ROOT, "host_tools"),
                os.path.join(ROOT, "firmware", "lib")]

from hubsim import get, post, start_boards, start_hub, stop_hub, wait_tiles  # noqa: E402
from waits import wait_for  # noqa: E402
from projector import chromium  # noqa: E402
from mancala_host.link import transport  # noqa: E402
from mancala_host.logs import gamelog  # noqa: E402
from mancala_host.link.client import Client  # noqa: E402

POLL_S = 2.0


def _proc(pid):
    """(CPU seconds of every thread, peak RSS MiB, RSS MiB) of a running process."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    mem = {}
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(("VmHWM", "VmRSS")):
                mem[line.split(":")[0]] = int(line.split()[1]) / 1024
    return cpu, mem["VmHWM"], mem["VmRSS"]


def _uptime():
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def _read_events(url, out):
    """In a thread: the hub's own share of the latency, from taking a game event in to its
    line arriving on a second /events stream (read here, beside the page's)."""
    last = {}
    with urllib.request.urlopen(url + "events", timeout=60) as r:
        for raw in r:
            if not raw.startswith(b"data: "):
                continue
            now = time.time()
            d = json.loads(raw[6:])
            for t in (d["snapshot"]["tiles"] if "snapshot" in d else []):
                last[t["key"]] = t["t_event"]
            t = d.get("tile")
            if t and t["t_event"] and last.get(t["key"]) != t["t_event"]:
                last[t["key"]] = t["t_event"]
                out.append(now - t["t_event"])


def _board_now(link):
    """The board's own game, asked on its line: (state, moves)."""
    client = Client(transport.SerialTransport(link), timeout=10)
    try:
        client.hello()
        answer = client.request("state")
    finally:
        client.close()
    return answer["state"], answer["moves"]


def _logged(folder, key):
    path = folder / ("board-%s.jsonl" % key)
    if not path.exists():
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def check_games(ends, logged, now, moves_now):
    """One board: the problems (an empty list when every game is there once).

    ends: the final positions the board sent, in order; logged: its log's games, in order;
    now, moves_now: the board's own position and move count after the stop."""
    problems = []
    finals = []
    for g in logged:
        try:
            finals.append((gamelog.is_unfinished(g), gamelog.check_game(g)[0].to_dict(), len(g["moves"])))
        except ValueError as exc:
            problems.append("a logged game does not replay: %s" % exc)
    want = [(False, s) for s in ends]
    if moves_now and not now["over"]:
        want.append((True, now))
    got = [(u, s) for u, s, _ in finals]
    if got != want:
        count = collections.Counter(json.dumps(g, sort_keys=True) for g in got)
        lost = 0
        for w in want:
            k = json.dumps(w, sort_keys=True)
            if count[k]:
                count[k] -= 1
            else:
                lost += 1
        problems.append("%d game(s) lost and %d duplicated or unexpected of the %d it played "
                        "(or they are out of order)" % (lost, sum(count.values()), len(want)))
    elif want and want[-1][0] and finals[-1][2] != moves_now:
        problems.append("the unfinished game has %d moves, the board %d" % (finals[-1][2], moves_now))
    return problems, len(want), len(got)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--minutes", type=float, default=10.0)
    p.add_argument("--boards", type=int, default=15)
    p.add_argument("--level", type=int, default=1, help="the CPU level of every seat")
    p.add_argument("--board-nice", type=int, default=10,
                   help="the virtual boards' nice value, also their sessions' autogroup nice "
                        "(default 10: in a class each board is a computer of its own, not a "
                        "share of the laptop's cores; 0: they compete with the hub as equals)")
    p.add_argument("--quick", action="store_true", help="one minute (make bench BENCHFLAGS=--quick)")
    args = p.parse_args(argv)
    if args.quick:
        args.minutes = 1.0
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="bench-hub-"))
    folder = tmp / "class"
    print("start: %s" % _uptime(), flush=True)
    boards = start_boards(tmp, args.boards)
    for b in boards:   # every process of the board's session: the sim and its MicroPython
        os.setpriority(os.PRIO_PGRP, b.proc.pid, args.board_nice)
        # with the kernel's autogroups, a session's share of the cores is its group's nice
        if os.path.exists("/proc/%d/autogroup" % b.proc.pid):
            with open("/proc/%d/autogroup" % b.proc.pid, "w") as f:
                f.write(str(args.board_nice))
    hub, url = start_hub(folder, boards)
    driver = None
    lat, sse, loads = [], [], []
    now = notes = None
    ends = {b.key: [] for b in boards}     # the final positions each board sent, in order
    seen_end = {}                          # key -> the t_event of the end already counted
    restarted = refused = 0
    try:
        wait_tiles(url, "every board live", lambda t: len(t) == args.boards and
                   all(x["status"] == "live" for x in t.values()))
        def all_ok(action, **body):
            answer = post(url, action, **body)
            assert answer["ok"] and set(answer["results"].values()) == {"ok"}, (action, answer)

        def poll(restart):
            """Count the games the boards ended since the last poll; start the next on them
            (as a teacher's "new game" would). An end is counted once: by its event's time."""
            over = []
            for t in get(url)["tiles"]:
                st = t["state"]
                if st and st["over"] and t["status"] == "live" and seen_end.get(t["key"]) != t["t_event"]:
                    seen_end[t["key"]] = t["t_event"]
                    ends[t["key"]].append(st)
                    over.append(t["key"])
            if over and restart:
                return post(url, "start", boards=over)["results"].values()
            return []

        # paused while the seats change, so no game starts before the bench watches it
        all_ok("pause")
        cpu_seat = {"kind": "cpu", "level": args.level}
        all_ok("settings", variant="kalah", seeds=4, animation_ms=0, seats=[cpu_seat, cpu_seat])
        all_ok("start")
        driver = chromium(str(tmp / "chromium"), 1920, 1080)
        driver.set_script_timeout(60)
        driver.get(url)
        wait_for("the grid", lambda: driver.execute_script(
            "return document.querySelectorAll('.tile').length") == args.boards)
        threading.Thread(target=_read_events, args=(url, sse), daemon=True).start()
        cpu0, _, _ = _proc(hub.pid)
        t0 = time.monotonic()
        all_ok("resume")
        end = t0 + args.minutes * 60
        while time.monotonic() < end:
            time.sleep(POLL_S)
            loads.append(os.getloadavg()[0])
            lat += driver.execute_script("return window.hubLatency.splice(0)")
            results = poll(True)
            restarted += sum(v == "ok" for v in results)
            refused += sum(v != "ok" for v in results)
        # paused before the stop, so the board's own count of moves after it is the logged one
        all_ok("pause")
        poll(False)
        lat += driver.execute_script("return window.hubLatency.splice(0)")
        notes = {b.key: get(url, "board/%s/snapshot" % b.key)["notes"] for b in boards}
        cpu1, peak, rss = _proc(hub.pid)
        wall = time.monotonic() - t0
    finally:
        try:
            if driver is not None:
                driver.quit()
            stop_hub(hub)
            # the board's own game, asked on its line once the hub has let go of it
            now = {b.key: _board_now(b.link) for b in boards}
        finally:
            for b in boards:
                b.stop()
    print("end:   %s" % _uptime())
    played = logged = wrong = 0
    problems = []
    for b in boards:
        state, moves = now[b.key]
        why, want, got = check_games(ends[b.key], _logged(folder, b.key), state, moves)
        played, logged = played + want, logged + got
        problems += ["%s: %s" % (b.key, w) for w in why]
        wrong += bool(why)
        if why:   # what the hub said about the board's games lately (its last notes), for the reason
            problems += ["%s said: %s" % (b.key, n) for n in notes[b.key]
                         if not n.startswith(("Seat ", "Game ", "Recording a new game"))]
    lat.sort()
    print("boards %d (nice %d), %.1f min, CPU level %d, Kalah(6,4), no sowing animation"
          % (args.boards, args.board_nice, wall / 60, args.level))
    print("machine load (1-min average, sampled every %g s): mean %.1f, min %.1f, max %.1f on %d cores"
          % (POLL_S, statistics.mean(loads), min(loads), max(loads), os.cpu_count()))
    print("game events drawn on the page: %d; latency event -> tile drawn: median %.1f ms, "
          "99th percentile %.1f ms, max %.1f ms"
          % (len(lat), statistics.median(lat) * 1000, lat[int(0.99 * (len(lat) - 1))] * 1000,
             lat[-1] * 1000))
    sse.sort()
    print("the hub's share, event -> its line on a second /events stream (%d events): median "
          "%.1f ms, 99th percentile %.1f ms, max %.1f ms"
          % (len(sse), statistics.median(sse) * 1000, sse[int(0.99 * (len(sse) - 1))] * 1000,
             sse[-1] * 1000))
    print("hub CPU: %.1f s in %.1f s (%.0f%% of one core); memory: peak %.1f MiB, at the end %.1f MiB"
          % (cpu1 - cpu0, wall, 100 * (cpu1 - cpu0) / wall, peak, rss))
    print("games: %d ended on the boards and %d under way at the stop = %d played; %d logged; "
          "new games started by the bench %d (refused %d)"
          % (sum(map(len, ends.values())), played - sum(map(len, ends.values())), played, logged,
             restarted, refused))
    for w in problems:
        print("PROBLEM " + w)
    print("lost or duplicated: %s" % ("none" if not wrong else "%d board(s) wrong" % wrong))
    print("(the folder: %s)" % folder)
    return 0 if not problems and not refused else 1


if __name__ == "__main__":
    sys.exit(main())
