"""The board hands its games over (docs/protocol.md §4): its id, every game's id, and the
moves of the game in progress from any point, on the real firmware under the MicroPython unix
port. A SIGKILL of the board is a power cut; the same flash folder started again is the same
board. The CircuitPython edition's are in tests/test_circuitpython.py.
"""
import json
import os

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


# ------------------------------------------------------------------ the finished games
def finish(board, seed, moves=1000):
    """Plays the game in progress to its end with seeded legal moves, or resigns the seat to
    move after `moves` of them; its game_over event."""
    while True:
        state = board.ok("state")["state"]
        if state["over"]:
            return board.wait_event("game_over")
        if moves == 0:
            board.ok("resign")
            continue
        legal = Game.from_dict(state).legal_moves()
        board.ok("press", pit=legal[seed % len(legal)])
        seed = seed * 1103515245 + 12345 & 0x7FFFFFFF
        moves -= 1


def kept(board):
    return [g["game"] for g in board.ok("games")["games"]]


def test_the_last_four_finished_games_are_kept_through_a_power_cut(tmp_path):
    with Board("duo", flash=str(tmp_path)) as b:
        assert b.ok("games")["games"] == []
        ends = {}
        b.ok("new_game", rules={"variant": "kalah", "seeds": 3})  # game 2; game 1 never ends
        for seed in range(5):
            over = finish(b, seed, 1000 if seed < 2 else 3)
            whole = b.ok("state", since=0)
            ends[over["game"]] = whole
            if seed == 0:  # the game just finished, before any new game: fetchable
                assert b.ok("game", game=over["game"])["history"] == whole["history"]
            b.ok("new_game", rules={"variant": "kalah", "seeds": 3})
        assert sorted(ends) == [2, 3, 4, 5, 6]
        listed = b.ok("games")["games"]
        assert [g["game"] for g in listed] == [3, 4, 5, 6]  # the last four, oldest first
        for g in listed:
            state = ends[g["game"]]["state"]
            assert (g["moves"], g["places"], g["stores"]) == (
                ends[g["game"]]["moves"], state["places"], state["stores"])
        b.kill()
        b.start()
        assert kept(b) == [3, 4, 5, 6]
        for n in (3, 6):
            answer = b.ok("game", game=n)
            assert (answer["game"], answer["first"], answer["history"], answer["state"]) == (
                n, ends[n]["first"], ends[n]["history"], ends[n]["state"])
            assert answer["rules"] == ends[n]["state"]["rules"] and "base" not in answer
            assert replay(answer).to_dict() == answer["state"]
        for n, why in ((2, "not among"), (1, "not among"), (7, "game in progress"),
                       (99, "not among")):
            answer = b.request("game", game=n)
            assert answer["ok"] is False and answer["error"]["code"] == "unknown_game", answer
            assert why in answer["error"]["message"]
        for args in ({}, {"game": "3"}, {"game": 0}, {"game": -1}, {"game": True},
                     {"game": 3.0}, {"game": None}, {"game": 2 ** 31}):
            answer = b.request("game", **args)
            assert answer["ok"] is False and answer["error"]["code"] == "bad_request", args
        assert b.ok("games", extra=1)["games"] and "games" in b.ok("hello")["commands"]


def test_a_reopened_game_is_not_kept_and_a_game_from_a_position_keeps_its_base(tmp_path):
    with Board("duo", flash=str(tmp_path)) as b:
        gid = b.ok("new_game", state=POSITION)["game"]
        over = finish(b, 1)
        assert over["game"] == gid and kept(b) == [gid]
        answer = b.ok("game", game=gid)
        assert answer["base"] == POSITION and replay(answer).to_dict() == answer["state"]
        b.ok("undo")  # the game goes on: it is no finished game now
        assert kept(b) == []
        assert b.request("game", game=gid)["error"]["code"] == "unknown_game"
        b.ok("resign", seat=b.ok("state")["state"]["turn"])
        assert kept(b) == [gid] and b.ok("game", game=gid)["history"][-1] in "AB"


def test_a_game_that_ended_as_the_power_went_is_kept_at_power_up(tmp_path):
    flash = str(tmp_path)
    with Board("duo", flash=flash) as b:
        b.ok("new_game")
        b.ok("resign", seat=0)
        b.ok("new_game")
        b.ok("resign", seat=1)
        assert kept(b) == [2, 3]
        b.kill()
    # the cut came after game.json was saved and before game 3 was kept; the settings were
    # lost too
    os.remove(os.path.join(flash, "done1.json"))
    os.remove(os.path.join(flash, "settings.json"))
    with Board("duo", flash=flash) as b:
        assert (b.boot["game"], b.boot["resumed"]) == (3, True)
        assert kept(b) == [2, 3] and b.ok("game", game=3)["history"] == "B"
        assert b.ok("new_game")["game"] == 4
    # the game file and the settings lost: the kept games' ids are not given again
    for name in ("game.json", "settings.json"):
        os.remove(os.path.join(flash, name))
    with Board("duo", flash=flash) as b:
        assert b.boot["resumed"] is False and b.boot["game"] == 4 and kept(b) == [2, 3]
