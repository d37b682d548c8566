"""`analyze` on a game recorded from the real firmware in the virtual board: seat 0 is played
from the host with `press` (by: human), seat 1 is the board's own CPU at level 3 (by: cpu; it
makes no random moves, so the game is the same every run), and seat 0 once plays a blunder
chosen by the reference player's alpha-beta (not the CPU's search), which analyze must flag.
Recording goes through record's GameTracker on the same line, so the log is exactly what
`mancala-board record` writes.
"""

import json

import pytest

import fakeport  # noqa: F401  (puts host_tools and firmware/lib on sys.path)
import reference_player
from mancala_host.commands import cli
from mancala_host.logs import gamelog
from mancala_host.logs.record import GameTracker
from mancala_host.link.session import open_client
from test_host_analyze import move_values
from test_host_sim import Sim
from waits import HANG_S


@pytest.fixture
def sim(tmp_path):
    board = Sim(tmp_path).start()
    yield board
    board.stop()


def test_analyze_a_game_recorded_from_the_board(sim, tmp_path, capsys):
    log = str(tmp_path / "board.jsonl")
    said = []
    client = open_client(sim.link, timeout=HANG_S)
    try:
        client.request("set_config", config={"animation_ms": 0, "seats": [
            {"kind": "human"}, {"kind": "cpu", "level": 3}]})
        tracker = GameTracker(log, say=said.append)
        tracker.attach(client)
        client.request("new_game", rules={"variant": "kalah", "seeds": 4}, first=0)
        planted = None
        while tracker.written < 1:
            ev = client.next_event(10.0)
            assert ev is not None, "the board went quiet: %s" % said
            tracker.on_event(ev)
            if tracker.game is None or client.events:
                continue  # play only once every event so far is in the tracker
            engine = tracker.engine
            if engine.over or engine.turn != 0 or ev.get("event") not in ("new_game", "move"):
                continue
            pit = reference_player.reference_move(engine, depth=2)
            if planted is None and len(tracker.game["moves"]) >= 2:
                values = move_values(engine)
                worst = min(values, key=values.get)
                if abs(max(values.values())) < 500 and max(values.values()) - values[worst] >= 8:
                    pit = worst
                    planted = len(tracker.game["moves"]) + 1
            client.request("press", seat=0, pit=pit)
    finally:
        client.close()
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
