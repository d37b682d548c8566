"""LED frames captured from the virtual board (MANCALA_SIM_FRAMES): the counts the rings show
match the game's state, and no frame draws more current than the configured limit."""
import json
import os
import random

from mancala_fw import profile as profiles
from mancala_fw.display.reader import read_counts

from boardsim import Board, PROFILES
from waits import wait_for


def frames(b, prof):
    """Every whole-board frame so far: the chains' bytes after each transfer."""
    index = {pin: i for i, (pin, _) in enumerate(prof.chains)}
    chains = [bytearray(leds * 3) for _, leds in prof.chains]
    if not os.path.exists(b.frames_path):
        return
    with open(b.frames_path) as f:
        for line in f:
            if not line.endswith("\n"):
                break  # the board is still writing this one
            msg = json.loads(line)
            chains[index[msg["pin"]]] = bytearray.fromhex(msg["grb"])
            yield chains


def board_ma(prof, chains):
    """The current estimate of the profile's power model (as WLED/FastLED estimate it)."""
    lit = sum(sum(c) for c in chains)
    return prof.base_ma + prof.idle_ma_per_led * prof.total_leds + \
        lit * prof.ma_per_channel / 255


def shown(prof, seating, chains):
    """(pits per seat, stores) as the rings show them."""
    counts = read_counts(chains, [prof.ring[p] for p in prof.positions])
    by_id = dict(zip(prof.positions, counts))
    pits = [[by_id[seating.position(s, p)] for p in range(1, seating.pits + 1)]
            for s in range(seating.players)]
    stores = [by_id[seating.store(s)] for s in range(seating.players)]
    return pits, stores


def wait_for_counts(b, prof, seating, state):
    """The rings settle on the state once the animation has run; poll the captured frames."""
    def settled():
        last = None
        for last in frames(b, prof):
            pass
        return last is not None and shown(prof, seating, last) == (state["pits"], state["stores"])
    return wait_for("the rings to show %r" % ((state["pits"], state["stores"]),), settled,
                    interval_s=0.05)


def _play(b, prof, rules_and_limits, check):
    rng = random.Random(5)
    b.ok("set_config", config={"brightness": 100, "animation_ms": 20})
    for rules, limit in rules_and_limits:
        b.ok("set_config", config={"power_limit_ma": limit})
        # The chains on the wire when the limit changes were drawn for the old limit; chains go
        # out one at a time, so the new limit holds from the first whole frame drawn for it.
        start = sum(1 for _ in frames(b, prof)) + len(prof.chains)
        state = b.ok("new_game", rules=rules)["state"]
        r = state["rules"]
        seating = profiles.seating(prof, r["players"], r["pits"])
        assert wait_for_counts(b, prof, seating, state)
        for _ in range(6):
            seat = state["turn"]
            pit = rng.choice([i + 1 for i, n in enumerate(state["pits"][seat]) if n])
            state = b.ok("press", pit=pit)["state"]
            assert wait_for_counts(b, prof, seating, state), state
        check(limit, start)


QUAD = profiles.load(os.path.join(PROFILES, "quad.json"))
GAMES = (({"variant": "basic", "players": 4, "pits": 6}, QUAD.budget_ma),
         ({"variant": "kalah", "seeds": 5}, QUAD.min_budget_ma() + 200))


def test_rings_show_the_states_counts():
    with Board("quad", frames=True) as b:
        _play(b, QUAD, GAMES, lambda limit, start: None)


def test_no_frame_exceeds_the_power_limit():
    with Board("quad", frames=True) as b:
        def check(limit, start):
            ma = [board_ma(QUAD, c) for c in frames(b, QUAD)]
            assert len(ma) > start + 20, "too few frames to judge"
            assert max(ma[start:]) <= limit, (max(ma[start:]), limit)

        _play(b, QUAD, GAMES, check)
