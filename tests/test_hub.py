"""`mancala-board class` on 6 virtual boards (unix port, each on its own pty, real pyserial):
every tile follows its board, one setting reaches all (a board's refusal on its own tile), a
round robin with CPU seats plays out and its standings match the games, a change made on a
locked board's own menu is put back, a board slow to answer keeps its line, a board killed and
restarted mid-game comes back with its game logged once (the hub stopping with a page open),
and a port held by another program marks its own tile only."""
import glob
import json
import os
import signal
import subprocess
import urllib.request

import pytest

from mancala import Game
from hubsim import get, post, start_boards, start_hub, stop_hub, tiles, wait_tiles
from waits import HANG_S, wait_for

N = 6


HUMANS = [{"kind": "human"}] * 2


def _live(url):
    wait_tiles(url, "every board live",
               lambda t: len(t) == N and all(x["status"] == "live" for x in t.values()))


@pytest.fixture(scope="module")
def _room(tmp_path_factory):
    """The boards, the hub's folder and [the hub, its url]: the last test of the module
    stops the hub, and `room` starts it again for a test that comes after."""
    tmp = tmp_path_factory.mktemp("hub")
    boards = start_boards(tmp, N)
    running = list(start_hub(tmp / "class", boards))
    try:
        _live(running[1])
        assert post(running[1], "settings", animation_ms=0)["ok"]
        yield boards, tmp / "class", running
    finally:
        if running[0].poll() is None:
            stop_hub(running[0])
        for b in boards:
            b.stop()


@pytest.fixture
def room(_room):
    """(boards, url, folder, hub), the hub running: make test's worksteal may run the tests
    of this module in any subset, and a test run alone or after the one that stops the hub
    gets a hub again, on the same boards and folder."""
    boards, folder, running = _room
    if running[0].poll() is not None:
        running[:] = start_hub(folder, boards)
        _live(running[1])
    return boards, running[1], folder, running[0]


def _all_ok(answer):
    assert answer["ok"], answer
    assert set(answer["results"].values()) == {"ok"}, answer
    return answer


def test_every_tile_follows_its_board(room):
    boards, url, _, _ = room
    for i, b in enumerate(boards):
        _all_ok(post(url, "label", board=b.key, label="table %d" % (i + 1)))
    _all_ok(post(url, "settings", variant="kalah", seeds=4, seats=HUMANS))
    _all_ok(post(url, "start"))
    # board i plays i + 1 moves on its pads: each tile must show its own board's position
    expected = {}
    for i, b in enumerate(boards):
        game = Game.from_dict(tiles(url)[b.key]["state"])
        for _ in range(i + 1):
            pit = game.legal_moves()[(i * 7 + game.turn) % len(game.legal_moves())]
            seat = game.turn
            game.play(pit)
            b.touch(seat, pit)
            want = game.to_dict()
            wait_tiles(url, "board %d's move on its tile" % i, lambda t: t[b.key]["state"] == want)
        expected[b.key] = game.to_dict()
    now = tiles(url)
    assert {k: now[k]["state"] for k in expected} == expected
    assert [now[b.key]["label"] for b in boards] == ["table %d" % (i + 1) for i in range(N)]
    assert [t["label"] for t in get(url)["tiles"]] == ["table %d" % (i + 1) for i in range(N)]


def test_one_setting_reaches_all_and_a_refusal_shows_on_the_tiles(room):
    boards, url, _, _ = room
    _all_ok(post(url, "settings", variant="kalah", seeds=5, move_time_limit=30, seats=HUMANS))
    _all_ok(post(url, "start"))
    t = wait_tiles(url, "every board's new game", lambda t: all(
        x["state"]["rules"]["seeds"] == 5 and sum(x["state"]["stores"]) == 0 and
        sum(map(sum, x["state"]["pits"])) == 60 for x in t.values()))
    assert len(t) == N
    # rules the engine plays and this board cannot seat: the board's own reason on its tile
    answer = post(url, "settings", boards=[boards[1].key], variant="basic", players=3)
    assert "cannot seat basic with 3 players" in answer["results"][boards[1].key]
    t = tiles(url)
    assert "cannot seat basic with 3 players" in t[boards[1].key]["problem"]
    assert [k for k, x in t.items() if x["problem"]] == [boards[1].key]
    _all_ok(post(url, "pause"))
    assert all(x["paused"] for x in tiles(url).values())
    _all_ok(post(url, "resume", boards=[boards[0].key]))
    t = tiles(url)
    assert [k for k, x in t.items() if not x["paused"]] == [boards[0].key]
    _all_ok(post(url, "resume"))
    _all_ok(post(url, "settings", seeds=4, move_time_limit=0))


def test_a_round_robin_with_cpu_seats_plays_out_and_the_standings_match(room):
    boards, url, folder, _ = room
    _all_ok(post(url, "settings", variant="kalah", seeds=3))
    players = ["P%d=cpu1" % i for i in range(1, 7)]
    answer = post(url, "tournament", players=players, style="round-robin", seeds=3)
    assert answer["ok"] and answer["results"]["rounds"] == 5, answer
    s = wait_for("the round robin to end", lambda: (lambda s: s if s and s["over"] else None)(
        get(url)["standings"]), deadline_s=300)
    games = s["games"]
    assert len(games) == 15
    assert {frozenset(g["seats"]) for g in games} == {
        frozenset(("P%d" % a, "P%d" % b)) for a in range(1, 7) for b in range(a + 1, 7)}
    # the standings, worked out again from the games the boards logged
    logged = []
    for path in glob.glob(str(folder / "board-*.jsonl")):
        with open(path) as f:
            logged += [g for g in map(json.loads, f) if "tournament" in g]
    assert len(logged) == 15 and not any(g.get("unfinished") for g in logged)
    points = dict.fromkeys(("P%d" % i for i in range(1, 7)), 0.0)
    diff = dict.fromkeys(points, 0)
    for g in logged:
        names, places, stores = g["tournament"]["players"], g["result"]["places"], g["result"]["stores"]
        for side in (0, 1):
            points[names[side]] += 0.5 if places[0] == places[1] else float(places[side] == 1)
            diff[names[side]] += stores[side] - stores[1 - side]
    rows = {r["name"]: r for r in s["standings"]}
    assert {n: (r["points"], r["stores"], r["played"]) for n, r in rows.items()} == \
        {n: (points[n], diff[n], 5) for n in points}
    order = [r["name"] for r in s["standings"]]
    assert order == sorted(order, key=lambda n: (-points[n], -diff[n], -(rows[n]["head_to_head"] or 0), n))
    firsts = [sum(g["seats"][0] == n for g in games) for n in points]
    assert set(firsts) <= {2, 3}  # seat 0 rotates


def test_a_change_made_on_a_locked_board_is_put_back(room):
    boards, url, _, _ = room
    b = boards[3]
    _all_ok(post(url, "settings", boards=[b.key], seats=HUMANS))
    _all_ok(post(url, "start", boards=[b.key]))
    _all_ok(post(url, "lock", boards=[b.key]))
    assert tiles(url)[b.key]["locked"]
    # on the board's own menu (hold the store, then pit 5) seat 0 goes to the CPU ...
    b.touch(0, 0, hold_s=1.3)
    b.touch(0, 5)
    # ... and the hub puts the locked seats back, saying so on the tile
    t = wait_tiles(url, "the seats put back", lambda t: t[b.key]["problem"].startswith("Locked")
                   and [s["kind"] for s in t[b.key]["seats"]] == ["human", "human"])
    assert t[b.key]["problem"] == "Locked: the change made on the board was put back."
    _all_ok(post(url, "unlock", boards=[b.key]))
    assert not tiles(url)[b.key]["locked"]


def test_a_board_slow_to_answer_keeps_its_line(room):
    boards, url, _, _ = room
    b = boards[4]
    _all_ok(post(url, "settings", boards=[b.key], seats=HUMANS))
    _all_ok(post(url, "start", boards=[b.key]))
    game = Game.from_dict(wait_tiles(url, "a new game", lambda t: _fresh(t[b.key]["state"]))[b.key]["state"])
    seat, pit = game.turn, game.legal_moves()[0]
    game.play(pit)
    b.touch(seat, pit)
    want = game.to_dict()
    opened = wait_tiles(url, "the move on the tile", lambda t: t[b.key]["state"] == want)[b.key]["opened"]
    os.killpg(b.proc.pid, signal.SIGSTOP)   # the board stops answering, its port still open
    try:
        answer = post(url, "start", boards=[b.key])   # back once the hub's request times out
    finally:
        os.killpg(b.proc.pid, signal.SIGCONT)
    assert "did not answer 'new_game'" in answer["results"][b.key], answer
    # the board carries the request out late; its new game comes on the line the hub kept
    # (closing it would lose the events sent meanwhile: the start of a game)
    t = wait_tiles(url, "the late new game", lambda t: _fresh(t[b.key]["state"]))
    assert t[b.key]["status"] == "live" and t[b.key]["opened"] == opened


def _fresh(state):
    """A game with no move yet."""
    return not state["over"] and all(c == state["rules"]["seeds"] for row in state["pits"] for c in row)


def _logged(folder, key):
    path = os.path.join(str(folder), "board-%s.jsonl" % key)
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def test_a_board_killed_and_restarted_mid_game_comes_back_with_its_game_logged_once(room):
    boards, url, folder, hub = room
    b = boards[2]
    _all_ok(post(url, "settings", boards=[b.key], seats=HUMANS))
    _all_ok(post(url, "start", boards=[b.key]))
    game = Game.from_dict(wait_tiles(url, "a new game", lambda t: sum(t[b.key]["state"]["stores"]) == 0
                                     and not t[b.key]["state"]["over"])[b.key]["state"])
    for _ in range(3):
        seat, pit = game.turn, game.legal_moves()[-1]
        game.play(pit)
        b.touch(seat, pit)
        want = game.to_dict()
        wait_tiles(url, "the move on the tile", lambda t: t[b.key]["state"] == want)
    before = len(_logged(folder, b.key))
    b.kill()
    wait_tiles(url, "the tile off line", lambda t: t[b.key]["status"] == "offline")
    b.start()
    t = wait_tiles(url, "the board back", lambda t: t[b.key]["status"] == "live")
    assert t[b.key]["state"] == game.to_dict()  # the board's own saved game, resynchronised
    seat, pit = game.turn, game.legal_moves()[0]
    game.play(pit)
    b.touch(seat, pit)
    want = game.to_dict()
    wait_tiles(url, "a move after the restart", lambda t: t[b.key]["state"] == want)
    # a page still open on the grid does not hold up the stop
    with urllib.request.urlopen(url + "events", timeout=HANG_S) as stream:
        assert stream.readline().startswith(b"data: ")
        stop_hub(hub)  # the hub writes the game under way, once, unfinished
    after = _logged(folder, b.key)[before:]
    assert len(after) == 1, after
    assert after[0]["unfinished"] is True and len(after[0]["moves"]) == 4


def test_a_held_port_shows_on_its_own_tile_only(tmp_path):
    boards = start_boards(tmp_path, 2)
    holder = subprocess.Popen(["sh", "-c", "exec sleep 300 < '%s'" % boards[0].link])
    hub = None
    try:
        wait_for("the holder to open the port", lambda: os.path.exists("/proc/%d/fd/0" % holder.pid)
                 and os.path.realpath("/proc/%d/fd/0" % holder.pid) == os.path.realpath(boards[0].link))
        hub, url = start_hub(tmp_path / "class", boards)
        t = wait_tiles(url, "one tile held, the other live",
                       lambda t: t[boards[0].key]["status"] == "held" and t[boards[1].key]["status"] == "live")
        assert "sleep" in t[boards[0].key]["problem"] and "close it" in t[boards[0].key]["problem"]
        assert t[boards[1].key]["problem"] == ""
        holder.kill()
        holder.wait()
        wait_tiles(url, "the tile live once the port is free", lambda t: t[boards[0].key]["status"] == "live")
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait()
        if hub is not None:
            stop_hub(hub)
        for b in boards:
            b.stop()
