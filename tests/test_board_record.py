"""The board hands its games over (docs/protocol.md §4): its id, every game's id, and the
moves of the game in progress from any point, on the real firmware under the MicroPython unix
port. A SIGKILL of the board is a power cut; the same flash folder started again is the same
board. The CircuitPython edition's are in tests/test_circuitpython.py.
"""
import json
import os
import shutil

from mancala import Game, Rules

from boardsim import Board

KALAH = {"variant": "kalah"}
# A Kalah endgame, seat 0 to move:
#        p6 p5 p4 p3 p2 p1
#   [20]  0  1  0  0  3  0         seat 1
#         1  0  2  0  0  1  [20]   seat 0
#        p1 p2 p3 p4 p5 p6
POSITION = {"rules": Rules.from_dict(KALAH).to_dict(),
            "pits": [[1, 0, 2, 0, 0, 1], [0, 3, 0, 0, 1, 0]], "stores": [20, 20], "turn": 0,
            "active": [0, 1], "places": [None, None], "over": False}


def replay(answer):
    """The game a state answer with history describes, replayed by the engine."""
    state = answer["state"]
    if "base" in answer:
        g = Game.from_dict(answer["base"])
    else:
        g = Game(Rules.from_dict(state["rules"]), answer["first"])
    for c in answer["history"]:
        if "1" <= c <= "7":
            g.play(int(c))
        else:
            g.resign(ord(c) - ord("A"))
    return g


def play_some(board, n, seed):
    """n moves of the game in progress, each the lowest or highest legal pit by turn."""
    for i in range(n):
        state = board.ok("state")["state"]
        if state["over"]:
            return
        g = Game.from_dict(state)
        legal = g.legal_moves()
        board.ok("press", pit=legal[(i * seed) % len(legal)])


def test_board_id_is_the_flash_folders_and_kept_through_a_power_cut(tmp_path):
    one, two = str(tmp_path / "one"), str(tmp_path / "two")
    os.mkdir(one)
    os.mkdir(two)
    with Board("duo", flash=one) as a, Board("duo", flash=two) as b:
        ha, hb = a.ok("hello"), b.ok("hello")
        assert ha["protocol"] == 2 and "state" in ha["commands"]
        for h in (ha, hb):
            assert len(h["board_id"]) == 16 and int(h["board_id"], 16) >= 0
        assert ha["board_id"] != hb["board_id"]  # two flashes, two boards
        a.kill()
        a.start()
        assert a.ok("hello")["board_id"] == ha["board_id"]


def test_game_ids_count_up_and_are_never_given_twice(tmp_path):
    flash = str(tmp_path)
    with Board("duo", flash=flash) as b:
        assert b.boot["game"] == 1 and b.boot["resumed"] is False
        assert b.ok("state")["game"] == 1
        b.ok("press", pit=3)
        assert [e["game"] for e in b.take_events("move")] == [1]
        answer = b.ok("new_game", rules=KALAH, first=1)
        (event,) = b.take_events("new_game")
        assert answer["game"] == event["game"] == 2
        b.ok("press", pit=1)
        b.ok("undo")
        b.ok("press", pit=2)
        b.ok("resign", seat=0)
        assert [(e["event"], e["game"]) for e in b.take_events()] == [
            ("move", 2), ("undo", 2), ("move", 2), ("resign", 2), ("game_over", 2)]
        assert b.ok("new_game", state=POSITION)["game"] == 3
        b.ok("press", pit=6)
        b.kill()  # a power cut: the game in progress comes back with its id
        b.start()
        assert (b.boot["game"], b.boot["resumed"]) == (3, True)
        assert b.ok("state")["game"] == 3
        assert b.ok("new_game")["game"] == 4
        b.kill()  # cut right after a new game: its id is not given again
        b.start()
        assert b.boot["game"] == 4
        assert b.ok("new_game")["game"] == 5
    # A reflash: another build of the firmware (its sources rather than the .mpy files) on
    # the same flash is the same board, and goes on counting.
    with Board("duo", flash=flash, source=True) as b:
        assert b.boot["game"] == 5 and b.ok("new_game")["game"] == 6


def test_ids_survive_lost_settings_and_are_given_to_games_saved_without_one(tmp_path):
    flash = str(tmp_path)
    with Board("duo", flash=flash) as b:
        for _ in range(6):
            b.ok("new_game")
        board_id = b.ok("hello")["board_id"]
        assert b.ok("state")["game"] == 7
    # settings.json lost (corrupt): the saved game's id keeps the counter from going back
    with open(os.path.join(flash, "settings.json"), "w") as f:
        f.write("{not json")
    with Board("duo", flash=flash) as b:
        assert (b.boot["game"], b.boot["resumed"]) == (7, True)
        assert b.ok("new_game")["game"] == 8
        assert b.ok("hello")["board_id"] == board_id
        b.ok("press", pit=2)
    # a game saved by firmware without ids (no "game" in game.json) gets the next id
    path = os.path.join(flash, "game.json")
    with open(path) as f:
        saved = json.load(f)
    del saved["game"]
    with open(path, "w") as f:
        json.dump(saved, f)
    with Board("duo", flash=flash) as b:
        assert (b.boot["game"], b.boot["resumed"]) == (9, True)
        assert b.ok("state", since=0)["history"] == "2"
        assert b.ok("new_game")["game"] == 10


def test_state_since_gives_the_moves_from_any_point(tmp_path):
    flash = str(tmp_path)
    with Board("duo", flash=flash) as b:
        b.ok("new_game", rules={"variant": "kalah", "seeds": 3}, first=1)
        play_some(b, 9, 5)
        whole = b.ok("state", since=0)
        n = whole["moves"]
        assert n == len(whole["history"]) >= 9 and whole["since"] == 0 and "base" not in whole
        assert replay(whole).to_dict() == whole["state"]
        for k in (0, 4, n):
            part = b.ok("state", since=k)
            assert (part["since"], part["history"]) == (k, whole["history"][k:])
        assert "history" not in b.ok("state")  # without since: as in version 1
        b.ok("resign", seat=b.ok("state")["state"]["turn"])
        after = b.ok("state", since=n)
        assert len(after["history"]) == 1 and after["history"] in "AB"
        b.ok("undo")
        assert b.ok("state", since=0)["history"] == whole["history"]
        for bad in (n + 1, -1, "1", 1.0, True, None, [0]):
            answer = b.request("state", since=bad)
            assert answer["ok"] is False and answer["error"]["code"] == "bad_request", answer
            assert "since" in answer["error"]["message"]
        # through a power cut, the whole game again
        b.kill()
        b.start()
        again = b.ok("state", since=0)
        assert (again["game"], again["history"]) == (whole["game"], whole["history"])


def test_state_since_of_a_game_from_a_position_carries_its_base(tmp_path):
    with Board("duo", flash=str(tmp_path)) as b:
        b.ok("new_game", state=POSITION)
        b.ok("press", pit=6)  # the last stone lands in the store: seat 0 again
        b.ok("press", pit=1)
        answer = b.ok("state", since=0)
        assert answer["base"] == POSITION and answer["history"] == "61"
        assert replay(answer).to_dict() == answer["state"]
        assert b.ok("state", since=2)["history"] == ""
        assert "base" in b.ok("state", since=1) and "base" not in b.ok("state")
