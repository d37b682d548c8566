"""The default power limit is safe for a computer's USB port: a maker's
first power-on is often the Pico's USB cable alone. A maker with the board's own supply raises
power_limit_ma up to the profile's budget (docs/profiles.md §4, hardware/README.md §3)."""
import os
import random

import pytest

from mancala_fw import profile as profiles
from mancala_fw.app import config

from boardsim import Board, PROFILES
from test_board_frames import board_ma, frames, wait_for_counts

DUO = profiles.load(os.path.join(PROFILES, "duo.json"))
QUAD = profiles.load(os.path.join(PROFILES, "quad.json"))


def test_the_duo_starts_within_a_usb_2_port():
    assert config.USB_MA == 500
    assert config.defaults(DUO)["power_limit_ma"] == 500


def test_the_quad_starts_as_low_as_it_can_show_its_counts():
    # Its 480 LEDs take 540 mA dark, so no limit keeps it within 500 mA; its default is the
    # lowest one, which a USB 3 port (900 mA) still carries.
    assert QUAD.idle_ma() > config.USB_MA
    assert config.defaults(QUAD)["power_limit_ma"] == config.least_ma(QUAD) == 820 < 900


@pytest.mark.parametrize("prof", [DUO, QUAD], ids=["duo", "quad"])
def test_the_limit_goes_from_the_lowest_up_to_the_profiles_budget(prof):
    old = config.defaults(prof)
    low, high = config.least_ma(prof), prof.budget_ma
    assert config.check(old, {"power_limit_ma": high}, prof)[0]["power_limit_ma"] == high
    assert config.check(old, {"power_limit_ma": low}, prof)[0]["power_limit_ma"] == low
    for wrong in (low - 1, high + 1, 1500.0, "1500", True):
        with pytest.raises(ValueError) as e:
            config.check(old, {"power_limit_ma": wrong}, prof)
        assert str(e.value).startswith(
            "power_limit_ma must be an integer from %d to %d, got " % (low, high))


def test_a_saved_higher_limit_is_kept_at_boot():
    # A board set up for its supply keeps that limit; the new default is only a default.
    saved = dict(config.defaults(DUO), power_limit_ma=1500)
    restored, problems = config.restore(saved, DUO)
    assert restored["power_limit_ma"] == 1500 and problems == []


def test_no_frame_of_a_fresh_duo_takes_more_than_a_usb_port():
    """Through the real firmware at full brightness: the limiter holds the whole board,
    base_ma and the dark LEDs included, within 500 mA, and the counts still read back."""
    with Board("duo", frames=True) as b:
        assert b.ok("get_config")["config"]["power_limit_ma"] == 500
        b.ok("set_config", config={"brightness": 100, "animation_ms": 20})
        state = b.ok("new_game", rules={"variant": "kalah"}, first=0)["state"]
        seating = profiles.seating(DUO, 2, 6)
        assert wait_for_counts(b, DUO, seating, state)
        rng = random.Random(3)
        for _ in range(6):
            pits = state["pits"][state["turn"]]
            state = b.ok("press", pit=rng.choice([i + 1 for i, n in enumerate(pits) if n]))["state"]
            assert wait_for_counts(b, DUO, seating, state), state
        drawn = [board_ma(DUO, c) for c in frames(b, DUO)]
        assert len(drawn) > 20, "too few frames to judge"
        assert max(drawn) <= 500, max(drawn)
        # The same board on its own supply, raised to the profile's budget, is brighter.
        b.ok("set_config", config={"power_limit_ma": DUO.budget_ma})
        before = len(drawn) + len(DUO.chains)
        assert b.ok("state")["state"] == state
        b.ok("press", pit=[i + 1 for i, n in enumerate(state["pits"][state["turn"]]) if n][0])
        state = b.ok("state")["state"]
        assert wait_for_counts(b, DUO, seating, state)
        assert max(board_ma(DUO, c) for c in list(frames(b, DUO))[before:]) > 500


def test_the_build_guide_gives_each_boards_default():
    # hardware/README.md names the default limit wherever it tells a maker what the board
    # starts with or how to go back to it: both boards', as the firmware has them.
    guide = " ".join(open(os.path.join(os.path.dirname(PROFILES), "README.md")).read().split())
    want = (config.defaults(DUO)["power_limit_ma"], config.defaults(QUAD)["power_limit_ma"])
    assert "A new board starts with the power limit for a computer's USB port: %d mA on the duo, " \
           "and %d mA on the quad" % want in guide
    assert "(`power_limit_ma=%d` on the duo, `power_limit_ma=%d` on the quad)" % want in guide
    assert "power limit safe for a computer's USB port (500 mA)" not in guide
