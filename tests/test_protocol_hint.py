"""The serial `hint` through the real firmware: its search runs in slices in the main loop, so
requests sent while it thinks are answered first, and its own answer comes when the search
ends; a change of the game before then answers it with hint_dropped (docs/protocol.md §4).

The requests of one case go to the board in one write: the main loop reads every waiting byte
before its next slice of search, so the order of the answers does not depend on timing."""
import json

import pytest

from boardsim import Board

from mancala import Game, Rules


@pytest.fixture(scope="module")
def board():
    with Board("duo") as b:
        b.ok("set_config", config={"animation_ms": 0})
        yield b


def send_together(b, *requests):
    """Sends the requests (cmd, fields) in one write; returns their ids."""
    ids = []
    data = b""
    for cmd, fields in requests:
        b._id += 1
        ids.append(b._id)
        data += json.dumps(dict(fields, id=b._id, cmd=cmd)).encode() + b"\n"
    b.send_raw(data)
    return ids


def lines_until_answered(b, ids):
    """Every line from the board until each of ids has an answer: [(kind, msg)] in order,
    kind "answer" or the event's name."""
    lines = []
    waiting = set(ids)
    while waiting:
        msg = b.next_line()
        if "event" in msg:
            lines.append((msg["event"], msg))
        else:
            assert msg["id"] in waiting, ("an answer to no waiting request", msg, ids)
            waiting.discard(msg["id"])
            lines.append(("answer", msg))
    return lines


def answer_to(lines, rid):
    (ans,) = [m for kind, m in lines if kind == "answer" and m["id"] == rid]
    return ans


def test_the_answer_comes_after_the_hint_event(board):
    board.ok("new_game", rules={"variant": "kalah"}, first=1)
    board.take_events()
    (hint,) = send_together(board, ("hint", {}))
    lines = lines_until_answered(board, [hint])
    ans = answer_to(lines, hint)
    assert ans["ok"] is True and ans["seat"] == 1
    assert ans["pit"] in Game(Rules.from_dict({"variant": "kalah"}), first=1).legal_moves()
    # The event goes out before the answer, as for every request (docs/protocol.md §7).
    assert [kind for kind, _ in lines] == ["hint", "answer"]
    assert {k: lines[0][1][k] for k in ("seat", "pit", "source")} == \
        {"seat": 1, "pit": ans["pit"], "source": "serial"}


def test_the_board_answers_other_requests_while_it_thinks(board):
    state = board.ok("new_game", rules={"variant": "kalah"}, first=0)["state"]
    board.take_events()
    hint, st, cfg, hello = send_together(
        board, ("hint", {}), ("state", {}), ("set_config", {"config": {"brightness": 50}}),
        ("hello", {}))
    lines = lines_until_answered(board, [hint, st, cfg, hello])
    order = [m["id"] for kind, m in lines if kind == "answer"]
    assert order == [st, cfg, hello, hint]  # a blocking hint would come first
    assert answer_to(lines, st)["state"] == state
    # A display setting does not change the game, so the hint still answers.
    ans = answer_to(lines, hint)
    assert ans["ok"] is True and ans["seat"] == 0 and 1 <= ans["pit"] <= 6
    board.ok("set_config", config={"brightness": 40})


def test_two_hints_at_once_both_get_the_one_suggestion(board):
    board.ok("new_game", rules={"variant": "kalah"}, first=0)
    first, second = send_together(board, ("hint", {}), ("hint", {}))
    lines = lines_until_answered(board, [first, second])
    a, b = answer_to(lines, first), answer_to(lines, second)
    assert a["ok"] and b["ok"] and (a["seat"], a["pit"]) == (b["seat"], b["pit"])


@pytest.mark.parametrize("cmd, fields", [
    ("press", {"pit": 1}),
    ("undo", {}),
    ("resign", {}),
    ("new_game", {"first": 0}),
    ("set_config", {"config": {"seats": [{"kind": "human"}, {"kind": "cpu", "level": 1}]}}),
])
def test_a_change_while_it_thinks_drops_the_hint(board, cmd, fields):
    board.ok("set_config", config={"seats": [{"kind": "human"}, {"kind": "human"}]})
    board.ok("new_game", rules={"variant": "kalah"}, first=0)
    board.ok("press", pit=2)  # something for undo to take back; seat 1 to move
    board.take_events()
    hint, change = send_together(board, ("hint", {}), (cmd, fields))
    lines = lines_until_answered(board, [hint, change])
    ans = answer_to(lines, hint)
    assert ans["ok"] is False and ans["error"]["code"] == "hint_dropped", ans
    assert ans["error"]["message"].endswith("send hint again."), ans
    assert answer_to(lines, change)["ok"] is True
    assert [m["id"] for kind, m in lines if kind == "answer"] == [hint, change]
    assert not [m for kind, m in lines if kind == "hint"]  # nothing pulses for a dropped hint
    # Exactly one answer: the dropped search answers nothing later. A new hint answers for
    # the position as it is now.
    board.ok("set_config", config={"seats": [{"kind": "human"}, {"kind": "human"}]})
    now = board.ok("state")["state"]
    if now["over"]:
        assert board.request("hint")["error"]["code"] == "illegal_move"
        return
    (again,) = send_together(board, ("hint", {}))
    lines = lines_until_answered(board, [again])
    ans = answer_to(lines, again)
    assert ans["ok"] is True and ans["seat"] == now["turn"]
    assert now["pits"][ans["seat"]][ans["pit"] - 1] > 0
