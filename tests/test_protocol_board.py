"""The board's serial protocol over the real firmware: errors, config, undo, resign, starter."""
import json
import random

import pytest

from boardsim import Board


@pytest.fixture(scope="module")
def _board():
    with Board("duo") as b:
        yield b


@pytest.fixture
def board(_board):
    """The module's board, without the events earlier tests left unread: a test may run
    alone, or after any others (make test's worksteal)."""
    _board.take_events()
    return _board


def _code(ans):
    assert ans["ok"] is False, ans
    assert ans["error"]["message"].endswith("."), ans
    return ans["error"]["code"]


def test_hello(board):
    h = board.ok("hello")
    assert (h["protocol"], h["board"], h["sides"], h["pits_per_side"]) == (2, "duo", 2, 7)
    assert set(h["variants"]) == {"kalah", "basic"}
    for cmd in ("hello", "get_config", "set_config", "new_game", "state", "press", "resign",
                "undo"):
        assert cmd in h["commands"]


def test_bad_lines_answered_and_change_nothing(board):
    board.ok("new_game", rules={"variant": "kalah"}, first=0)
    board.ok("press", pit=1)
    before = board.ok("state")
    board.take_events()
    config = board.ok("get_config")["config"]
    cases = [
        (b"not json\n", "bad_json"),
        (b"\n", "bad_json"),
        (b"\xff\xfe{}\n", "bad_json"),
        (b"[1, 2]\n", "bad_request"),
        (b'{"id": 5}\n', "bad_request"),
        (b'{"cmd": 7}\n', "bad_request"),
        (b'{"cmd": "dance"}\n', "unknown_cmd"),
        (b'{"cmd": "press"}\n', "bad_request"),
        (b'{"cmd": "press", "pit": "3"}\n', "bad_request"),
        (b'{"cmd": "press", "pit": 9}\n', "bad_request"),
        (b'{"cmd": "press", "pit": true}\n', "bad_request"),
        (b'{"cmd": "press", "seat": 5, "pit": 1}\n', "bad_request"),
        (b'{"cmd": "press", "seat": 0, "pit": 2}\n', "illegal_move"),  # seat 1's turn
        (b'{"cmd": "resign", "seat": 3}\n', "bad_request"),
        (b'{"cmd": "set_config"}\n', "bad_request"),
        (b'{"cmd": "set_config", "config": {"brightness": 101}}\n', "bad_config"),
        (b'{"cmd": "new_game", "first": 2}\n', "bad_request"),
        (b'{"cmd": "new_game", "rules": {"variant": "chess"}}\n', "bad_config"),
        (b"x" * 1025 + b"\n", "too_long"),
        (b'{"cmd": "hello", "pad": "' + b"y" * 2000 + b'"}\n', "too_long"),
    ]
    for line, code in cases:
        board.send_raw(line)
        ans = board.answer()
        assert _code(ans) == code, (line[:60], ans)
    # a line of exactly 1024 bytes is still read
    line = b'{"cmd": "state", "pad": "' + b"z" * (1024 - 27) + b'"}'
    assert len(line) == 1024
    board.send_raw(line + b"\r\n")
    assert board.answer()["ok"]
    assert board.ok("state") == dict(before, id=board._id)
    assert board.ok("get_config")["config"] == config
    assert board.take_events() == []


def test_ids_are_echoed(board):
    for rid in ["abc", 0, [1, {"x": None}], None, 2.5]:
        board.send({"id": rid, "cmd": "state"})
        assert board.answer()["id"] == rid
    board.send_raw(b'{"id": 1e999, "cmd": "state"}\n')
    assert board.answer()["id"] is None  # JSON cannot carry infinity back


def test_set_config_errors_name_the_key_and_apply_nothing(board):
    before = board.ok("get_config")["config"]
    bad = [
        ({"brightness": -1}, "brightness"),
        ({"brightness": True}, "brightness"),
        ({"animation_ms": 5000}, "animation_ms"),
        ({"power_limit_ma": 99999}, "power_limit_ma"),
        ({"power_limit_ma": 10}, "power_limit_ma"),
        ({"rotate_starter": 1}, "rotate_starter"),
        ({"move_time_limit": 45}, "move_time_limit"),
        ({"seats": [{"kind": "robot"}]}, "seats[0].kind"),
        ({"seats": [{"kind": "human"}] * 3}, "seats"),
        ({"seats": [{"kind": "cpu", "level": 9}]}, "seats[0].level"),
        ({"rules": {"variant": "kalah", "seeds": 7}}, "seeds"),
        ({"rules": {"variant": "basic", "players": 3}}, "3 players"),  # duo has 2 sides
        ({"colour": "red"}, "colour"),
        # one bad key spoils the whole change: brightness must stay as it was
        ({"brightness": 90, "animation_ms": "fast"}, "animation_ms"),
    ]
    for patch, key in bad:
        ans = board.request("set_config", config=patch)
        assert _code(ans) == "bad_config", (patch, ans)
        assert key in ans["error"]["message"], (patch, ans)
    board.send_raw(b'{"cmd": "set_config", "config": [1]}\n')
    assert _code(board.answer()) == "bad_config"
    assert board.ok("get_config")["config"] == before
    assert board.take_events("config") == []


def test_set_config_applies_saves_and_announces(board):
    board.ok("new_game", rules={"variant": "kalah"})   # a Kalah game in progress
    ans = board.ok("set_config", config={"brightness": 70, "animation_ms": 0,
                                          "rules": {"variant": "basic", "pits": 4}})
    c = ans["config"]
    assert c["brightness"] == 70 and c["animation_ms"] == 0
    assert c["rules"]["variant"] == "basic" and c["rules"]["pits"] == 6  # adjusted by the engine
    assert ans["warnings"] and "pits" in ans["warnings"][0]
    (ev,) = board.take_events("config")
    assert ev["config"] == c
    saved = json.load(open(board.flash + "/settings.json"))
    assert saved["config"] == c
    # the game in progress keeps its rules until the next new game
    assert board.ok("state")["state"]["rules"]["variant"] == "kalah"
    assert board.ok("new_game")["state"]["rules"]["variant"] == "basic"
    board.ok("set_config", config={"rules": {"variant": "kalah"}, "animation_ms": 120})


def test_undo_and_resign(board):
    start = board.ok("new_game", rules={"variant": "kalah"}, first=0)["state"]
    assert _code(board.request("undo")) == "nothing_to_undo"
    a = board.ok("press", pit=1)["state"]
    b = board.ok("press", pit=6)["state"]
    assert board.ok("state")["moves"] == 2
    assert board.ok("undo")["state"] == a
    assert board.ok("undo")["state"] == start
    assert _code(board.request("undo")) == "nothing_to_undo"
    assert len(board.take_events("undo")) == 2
    board.ok("press", pit=1)
    r = board.ok("resign", seat=0)
    assert r["record"]["kind"] == "resign" and r["state"]["over"]
    assert r["state"]["places"] == [2, 1]
    (ev,) = board.take_events("resign")
    assert ev["seat"] == 0
    (over,) = board.take_events("game_over")
    assert over["places"] == [2, 1]
    assert _code(board.request("resign", seat=1)) == "illegal_move"
    # a resignation is taken back like a move
    assert board.ok("undo")["state"] == a
    assert b != a


def test_starter_rotates_after_every_game(board):
    board.ok("set_config", config={"rotate_starter": True})
    firsts = []
    for _ in range(3):
        ans = board.ok("new_game", rules={"variant": "kalah"})
        firsts.append(ans["first"])
        assert ans["state"]["turn"] == ans["first"]
    assert firsts[1] == (firsts[0] + 1) % 2 and firsts[2] == firsts[0]
    board.ok("set_config", config={"rotate_starter": False})
    assert [board.ok("new_game")["first"] for _ in range(2)] == [0, 0]
    board.ok("set_config", config={"rotate_starter": True})
    assert board.ok("new_game", first=1)["first"] == 1
    assert board.ok("new_game")["first"] == 0


def test_rules_the_board_cannot_seat():
    with Board("quad") as b:
        ans = b.request("new_game", rules={"variant": "basic", "players": 2, "pits": 7})
        assert _code(ans) == "bad_config"
        assert "cannot seat" in ans["error"]["message"]
        four = b.ok("new_game", rules={"variant": "basic", "players": 4, "pits": 4})
        assert four["state"]["rules"]["players"] == 4 and four["first"] == 1
        # starter rotation goes round all four seats and wraps
        assert [b.ok("new_game")["first"] for _ in range(4)] == [2, 3, 0, 1]


def test_undo_reaches_back_to_the_start_of_a_long_game(board):
    # the board keeps only a few engine snapshots; older take-backs replay the moves
    states = [board.ok("new_game", rules={"variant": "basic", "players": 2, "pits": 7},
                       first=0)["state"]]
    rng = random.Random(3)
    for _ in range(30):
        s = states[-1]
        if s["over"]:
            break
        pit = rng.choice([i + 1 for i, n in enumerate(s["pits"][s["turn"]]) if n])
        states.append(board.ok("press", pit=pit)["state"])
    assert len(states) > 20
    for expected in reversed(states[:-1]):
        assert board.ok("undo")["state"] == expected
    assert board.request("undo")["error"]["code"] == "nothing_to_undo"
    board.ok("set_config", config={"rules": {"variant": "kalah"}})
