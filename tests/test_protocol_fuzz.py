"""Fuzzing the board's serial line: a million random bytes and thousands of random JSON
requests. The board must stay up, answer every complete line, and keep its game intact."""
import json
import random

from mancala import Game

from boardsim import Board

REPL_BYTES = {1, 2, 3, 4}  # Ctrl-A..Ctrl-D belong to the REPL (docs/protocol.md §1)


def _setup(b):
    b.ok("new_game", rules={"variant": "kalah"}, first=0)
    for pit in (3, 1):
        b.ok("press", pit=pit)
    b.take_events()
    return b.ok("state")


def test_a_million_random_bytes():
    rng = random.Random(99)
    allowed = bytes(x for x in range(256) if x not in REPL_BYTES)
    data = bytes(rng.choices(allowed, k=1_000_000)) + b"\n"
    with Board("duo") as b:
        before = _setup(b)
        b.send_raw(data)
        answers = 0
        for _ in range(data.count(b"\n")):
            ans = b.answer()
            assert ans["ok"] is False, ans
            assert ans["error"]["code"] in ("bad_json", "too_long", "bad_request",
                                            "unknown_cmd"), ans
            answers += 1
        assert answers == data.count(b"\n") > 3000
        after = b.ok("state")
        assert after["state"] == before["state"] and after["moves"] == before["moves"]
        assert b.take_events() == []
        # the main loop kept feeding the (virtual) watchdog through the flood
        assert "WDT not fed" not in b.stderr_text()


def _value(rng, depth=0):
    kind = rng.randrange(9 if depth < 3 else 6)
    if kind == 0:
        return None
    if kind == 1:
        return rng.choice([True, False])
    if kind == 2:
        return rng.choice([0, 1, -1, 2, 3, 6, 7, 100, 2**40, -(2**70)]) + rng.randrange(3)
    if kind == 3:
        return rng.choice([0.5, -1.25, 1e300, 3.0])
    if kind == 4:
        return "".join(rng.choice("ab ü\"\\\t{}[]") for _ in range(rng.randrange(8)))
    if kind == 5:
        return rng.choice(["kalah", "basic", "human", "cpu", "nonempty", "always"])
    if kind == 6:
        return [_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    keys = ["variant", "players", "pits", "seeds", "capture", "kind", "level", "brightness",
            "x"]
    return {rng.choice(keys): _value(rng, depth + 1) for _ in range(rng.randrange(4))}


def _request(rng):
    cmds = ["hello", "get_config", "set_config", "new_game", "state", "press", "resign",
            "undo", "", "PRESS", "nope"]
    req = {}
    if rng.random() < 0.9:
        req["cmd"] = rng.choice(cmds) if rng.random() < 0.9 else _value(rng)
    for key in ("id", "pit", "seat", "first", "rules", "config"):
        if rng.random() < 0.3:
            req[key] = _value(rng)
    if rng.random() < 0.2:
        req["config"] = {rng.choice(["brightness", "animation_ms", "rules", "seats",
                                     "rotate_starter", "power_limit_ma", "move_time_limit",
                                     "junk"]): _value(rng)}
    if rng.random() < 0.15 and req.get("cmd") == "press":
        req["pit"] = rng.randrange(1, 8)
    return req


def test_random_json_requests_keep_the_game_consistent():
    rng = random.Random(7)
    with Board("quad") as b:
        state = _setup(b)["state"]
        answered = 0
        batch = [json.dumps(_request(rng)).encode() for _ in range(3000)]
        for i in range(0, len(batch), 100):
            chunk = batch[i:i + 100]
            b.send_raw(b"\n".join(chunk) + b"\n")
            for _ in chunk:
                ans = b.answer()
                answered += 1
                if ans["ok"] and "state" in ans:
                    state = ans["state"]
                    Game.from_dict(state)  # every state the board reports is a real position
                elif not ans["ok"]:
                    assert ans["error"]["code"] in ("bad_json", "bad_request", "unknown_cmd",
                                                    "illegal_move", "nothing_to_undo",
                                                    "bad_config", "too_long"), ans
        assert answered == 3000
        assert b.ok("state")["state"] == state
        # nothing the fuzz did broke the config: it is still a valid one
        config = b.ok("get_config")["config"]
        assert b.ok("set_config", config=config)["config"] == config
