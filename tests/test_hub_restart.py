"""The classroom hub survives its own restart (4 virtual boards, unix port, a round robin of
4 CPU players: 6 games in 3 rounds):
- a second tournament posted without `replace: true` is refused and changes nothing;
- the hub is killed (SIGKILL) mid-round, one dealt game ends while it is down, and a hub
  started again on the same folder carries on: the game that ended is counted once, the
  others are followed to their end;
- a board wiped mid-game (its flash emptied) gets its game dealt again, and its tile says so;
- at the end the standings equal a recount from the boards' game logs, and no game is
  logged twice.
"""
import glob
import json
import os
import shutil

import pytest

from hubsim import get, post, start_boards, start_hub, stop_hub, tiles, wait_tiles
from mancala_host.link.session import open_client
from waits import HANG_S, wait_for

N = 4
PLAYERS = ["P%d=cpu1" % i for i in range(1, 5)]
STONE_MS = 40   # the sowing shown: a game lasts long enough to be cut in the middle


def _standings(url):
    return get(url)["standings"]


def _under_way(url):
    """The tiles whose dealt game has begun and not ended."""
    return {k: t for k, t in tiles(url).items() if t["players"] and t["state"] and
            not t["state"]["over"] and sum(t["state"]["stores"]) > 0}


def _logged(folder):
    """The finished tournament games in the boards' logs, as [(key, game)]."""
    out = []
    for path in glob.glob(os.path.join(str(folder), "board-*.jsonl")):
        with open(path) as f:
            for line in f:
                g = json.loads(line)
                if "tournament" in g and not g.get("unfinished"):
                    out.append(((g["board"].get("id"), g.get("game")), g))
    return out


@pytest.fixture
def run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("restart")
    boards = start_boards(tmp, N)
    hubs = []
    try:
        hub, url = start_hub(tmp / "class", boards)
        hubs.append(hub)
        wait_tiles(url, "every board live", lambda t: len(t) == N and
                   all(x["status"] == "live" for x in t.values()))
        assert post(url, "settings", animation_ms=STONE_MS)["ok"]
        yield {"boards": boards, "hubs": hubs, "url": url, "folder": tmp / "class"}
    finally:
        for hub in hubs:
            if hub.poll() is None:
                stop_hub(hub)
        for b in boards:
            b.stop()


def _a_second_tournament_without_confirmation_is_refused(run):
    url = run["url"]
    answer = post(url, "tournament", players=PLAYERS)
    assert answer["ok"] and answer["results"]["rounds"] == 3, answer
    first = _standings(url)
    answer = post(url, "tournament", players=["X", "Y"])
    assert answer["ok"] is False and "confirm to replace it" in answer["error"], answer
    assert _standings(url)["id"] == first["id"]
    assert [r["name"] for r in _standings(url)["standings"]] == ["P1", "P2", "P3", "P4"]


def _a_hub_killed_mid_round_carries_on_after_a_restart(run):
    boards, hubs, url = run["boards"], run["hubs"], run["url"]
    going = wait_for("a tournament game under way", lambda: _under_way(url))
    before = _standings(url)
    hubs[-1].kill()             # SIGKILL: no chance to write anything
    hubs[-1].wait()
    # one dealt game ends while the hub is down (read from the board itself)
    key = sorted(going)[0]
    board = next(b for b in boards if b.key == key)
    client = open_client(board.link, timeout=HANG_S)
    try:
        wait_for("the game to end on the board", lambda: client.request("state")["state"]["over"])
    finally:
        client.close()
    hub, url = start_hub(run["folder"], boards)
    hubs.append(hub)
    run["url"] = url
    after = _standings(url)
    assert after["id"] == before["id"] and after["round"] >= before["round"]
    wait_for("the game that ended while the hub was down to be counted", lambda: sum(
        r["played"] for r in _standings(url)["standings"]) > sum(
        r["played"] for r in before["standings"]))


def _a_wiped_board_gets_its_game_dealt_again(run):
    boards, url = run["boards"], run["url"]
    going = wait_for("a tournament game under way", lambda: _under_way(url))
    key = sorted(going)[0]
    board = next(b for b in boards if b.key == key)
    board.kill()
    for name in os.listdir(str(board.flash)):
        path = os.path.join(str(board.flash), name)
        shutil.rmtree(path) if os.path.isdir(path) else os.remove(path)
    board.start()
    t = wait_tiles(url, "the wiped board's tile to say its game was dealt again",
                   lambda t: "dealt again" in t[key]["problem"])
    assert t[key]["players"] == going[key]["players"]


def _the_tournament_ends_and_the_standings_equal_a_recount_from_the_logs(run):
    url, folder = run["url"], run["folder"]
    s = wait_for("the tournament to end", lambda: (lambda s: s if s["over"] else None)(
        _standings(url)), deadline_s=300)
    logged = [(k, g) for k, g in _logged(folder) if g["tournament"]["id"] == s["id"]]
    keys = [k for k, _ in logged]
    assert len(keys) == len(set(keys)), "a game logged twice: %s" % keys
    assert len(logged) == 6
    points = {"P%d" % i: 0.0 for i in range(1, 5)}
    diff = dict.fromkeys(points, 0)
    played = dict.fromkeys(points, 0)
    for _, g in logged:
        names, places, stores = g["tournament"]["players"], g["result"]["places"], g["result"]["stores"]
        for side in (0, 1):
            points[names[side]] += 0.5 if places[0] == places[1] else float(places[side] == 1)
            diff[names[side]] += stores[side] - stores[1 - side]
            played[names[side]] += 1
    assert {r["name"]: (r["points"], r["stores"], r["played"]) for r in s["standings"]} == \
        {n: (points[n], diff[n], played[n]) for n in points}
    assert {frozenset(g["tournament"]["players"]) for _, g in logged} == {
        frozenset(("P%d" % a, "P%d" % b)) for a in range(1, 5) for b in range(a + 1, 5)}


def test_the_hub_survives_its_restart_and_a_wiped_board(run):
    # The steps of one story on one hub and its boards, in this order, in one test: as
    # separate tests, make test's processes could take a later step away to a fresh fixture.
    _a_second_tournament_without_confirmation_is_refused(run)
    _a_hub_killed_mid_round_carries_on_after_a_restart(run)
    _a_wiped_board_gets_its_game_dealt_again(run)
    _the_tournament_ends_and_the_standings_equal_a_recount_from_the_logs(run)
