"""`analyze` on a game recorded from the real firmware in the virtual board: seat 0 is played
from the host with `press` (by: human), seat 1 is the board's own CPU at level 3 (by: cpu; it
makes no random moves, so the game is the same every run), and seat 0 once plays a blunder
chosen by the reference player's alpha-beta (not the CPU's search), which analyze must flag.
Recording goes through record's Recorder on the same follower, so the log is exactly what
`mancala-board record` writes.
"""

import json

import pytest

import fakeport  # noqa: F401  (puts host_tools and firmware/lib on sys.path)
import reference_player
from mancala_host.commands import cli
from mancala_host.logs import gamelog
from mancala import Game
from mancala_host.link.follower import Follower, Listener
from mancala_host.logs.record import Recorder
from test_host_analyze import move_values
from test_host_sim import Sim
from waits import HANG_S, wait_for


@pytest.fixture
def sim(tmp_path):
    board = Sim(tmp_path).start()
    yield board
    board.stop()


class Player(Listener):
    """Seat 0 from the host: after each event that leaves seat 0 to move, a press chosen by
    the reference player, once a blunder it plants."""

    def __init__(self):
        self.follower = None
        self.planted = None
        self.failed = []

    def on_event(self, ev):
        if ev.get("event") not in ("new_game", "move"):
            return
        game = self.follower.game()
        if game is None or game["over"] or game["state"]["turn"] != 0:
            return
        engine = Game.from_dict(game["state"])
        pit = reference_player.reference_move(engine, depth=2)
        if self.planted is None and len(game["moves"]) >= 2:
            values = move_values(engine)
            worst = min(values, key=values.get)
            if abs(max(values.values())) < 500 and max(values.values()) - values[worst] >= 8:
                pit = worst
                self.planted = len(game["moves"]) + 1
        self.follower.request("press", seat=0, pit=pit).add_done_callback(
            lambda fut: fut.exception() and self.failed.append(fut.exception()))


def test_analyze_a_game_recorded_from_the_board(sim, tmp_path, capsys):
    log = str(tmp_path / "board.jsonl")
    said = []
    recorder, player = Recorder(log, say=said.append), Player()
    follower = Follower(sim.link, [recorder, player], timeout=HANG_S)
    player.follower = follower
    follower.connect()
    follower.start()
    try:
        follower.ask("set_config", config={"animation_ms": 0, "seats": [
            {"kind": "human"}, {"kind": "cpu", "level": 3}]})
        follower.ask("new_game", rules={"variant": "kalah", "seeds": 4}, first=0)
        wait_for("the game to be written (%s)" % said, lambda: recorder.written or player.failed)
    finally:
        follower.stop()
        follower.wait(HANG_S)
    assert not player.failed, player.failed
    planted = player.planted
    assert planted, "no blunder could be planted in this game"

    entries = [g for _, g, _ in gamelog.read_log(log)]
    assert len(entries) == 1 and entries[0] is not None
    code = cli.main(["analyze", log, "--json", "--nodes", "2500", "--budget-ms", "60000"])
    out, err = capsys.readouterr()
    assert code == 0, err
    (game,) = json.loads(out)["games"]
    rows = game["moves"]
    assert {(r["seat"], r["by"]) for r in rows} == {(0, "human"), (1, "cpu")}
    assert rows[planted - 1]["seat"] == 0 and rows[planted - 1]["mark"] == "??", rows[planted - 1]
