"""Students' bots on virtual boards (unix port): `mancala-board class` with its KGP server, two
bots written from the specification (kgpclient.py) and a CPU level in a round robin; every
bot move is a press on the board, the standings match the games the boards logged, and the
bots tab lists the bots with the rule in force."""
import glob
import json
import re
import threading

import pytest

from hubsim import get, post, start_boards, start_hub, stop_hub, wait_tiles
from kgpclient import Kgp
from waits import wait_for


def _bot(port, name, pick):
    c = Kgp(port)
    c.send('set info:name "%s"' % name)
    c.send("mode freeplay")
    moves = []

    def play():
        while True:
            try:
                ident, board = c.state()
            except AssertionError:
                return
            pit = pick(board)
            moves.append((board, pit))
            c.send("@%d move %d" % (ident, pit))
            c.send("@%d yield" % ident)
    threading.Thread(target=play, daemon=True).start()
    return c, moves


def test_two_bots_and_a_cpu_play_a_round_robin_on_the_boards(tmp_path):
    boards = start_boards(tmp_path, 2)
    hub, url = start_hub(tmp_path / "class", boards, "--kgp-time", "20")
    try:
        line = hub.stdout.readline()
        port = int(re.search(r":(\d+); ", line).group(1))
        wait_tiles(url, "both boards live",
                   lambda t: len(t) == 2 and all(x["status"] == "live" for x in t.values()))
        assert post(url, "settings", animation_ms=0)["ok"]
        first = lambda b: next(i + 1 for i, n in enumerate(b["south"]) if n)
        last = lambda b: max(i + 1 for i, n in enumerate(b["south"]) if n)
        ann, ann_moves = _bot(port, "ann", first)
        bob, bob_moves = _bot(port, "bob", last)
        answer = post(url, "tournament", players=["ann=bot", "bob=bot", "cpu=cpu1"], seeds=3)
        assert answer["ok"], answer
        s = wait_for("the round robin to end", lambda: (lambda s: s if s and s["over"] else None)(
            get(url)["standings"]), deadline_s=300)
        logged = []
        for path in glob.glob(str(tmp_path / "class" / "board-*.jsonl")):
            with open(path) as f:
                logged += [g for g in map(json.loads, f) if "tournament" in g]
        assert len(logged) == len(s["games"]) == 6   # 3 players and the CPU's gap: 6 games
        pressed = {"ann": 0, "bob": 0}
        for g in logged:
            names = g["tournament"]["players"]
            for m in g["moves"]:
                who = names[m["seat"]]
                if who in pressed:
                    pressed[who] += 1
                    assert m["by"] == "human"        # a press, as a touch would be
        bots = get(url, "bots.json")
        # every move the hub counts as a bot's is in the logs as a press, and the other way round
        assert pressed == {b["name"]: b["moves"] for b in bots["bots"]}
        # and each is one the bot sent (a bot may be asked a position again if the board's
        # answer came late, never fewer times than it played)
        assert len(ann_moves) >= pressed["ann"] > 0 and len(bob_moves) >= pressed["bob"] > 0
        points = {r["name"]: r["points"] for r in s["standings"]}
        recount = dict.fromkeys(points, 0.0)
        for g in logged:
            places = g["result"]["places"]
            for side in (0, 1):
                name = g["tournament"]["players"][side]
                if name in recount:
                    recount[name] += 0.5 if places[0] == places[1] else float(places[side] == 1)
        assert points == recount
        assert [(b["name"], b["connected"]) for b in bots["bots"]] == [("ann", True), ("bob", True)]
        assert bots["no_move"] == "random"
    finally:
        stop_hub(hub)
        for b in boards:
            b.stop()
