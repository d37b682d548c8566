"""Seat mapping (logical seat/pit -> physical position), checked by its properties on the
shipped profiles and on generated boards of every size, plus the refusals."""
import json
import math
import os

import pytest
from hypothesis import given, settings, strategies as st

from conftest import ROOT

from mancala_fw import profile

PROFILES = os.path.join(ROOT, "hardware", "profiles")

# Every (variant, players, pits) the engine's rules allow (docs/architecture.md §7).
GAMES = [("kalah", 2, 6), ("basic", 2, 6), ("basic", 2, 7), ("basic", 3, 4), ("basic", 3, 6),
         ("basic", 4, 4), ("basic", 4, 6)]
# What each board seats: every game but Basic with 7 pits on the quad (docs/profiles.md §6).
SEATS = {"duo": {("kalah", 2, 6), ("basic", 2, 6), ("basic", 2, 7)},
         "quad": {g for g in GAMES if g != ("basic", 2, 7)}}


def load(name):
    return profile.load(os.path.join(PROFILES, name + ".json"))


def make_board(sides, pits):
    """A valid profile dict for any size: positions on a circle, one chain per side."""
    ids = profile.position_ids(sides, pits)
    radius = 30 * len(ids)
    chips = ["0x%02X" % (0x5A + k) for k in range((len(ids) + 11) // 12)]
    positions = {}
    starts = [0] * sides
    for n, pid in enumerate(ids):
        side = int(pid.split(".")[0])
        leds = 24 if pid.endswith("S") else 12
        angle = 2 * math.pi * n / len(ids)  # counterclockwise seen from above, y down
        positions[pid] = {"ring": {"chain": side, "start": starts[side], "leds": leds},
                          "pad": {"chip": chips[n // 12], "electrode": n % 12},
                          "xy_mm": [radius + 50 + radius * math.cos(angle),
                                    radius + 50 - radius * math.sin(angle)]}
        starts[side] += leds
    return {"format": "mancala-profile/1", "name": "gen%dx%d" % (sides, pits), "title": "",
            "sides": sides, "pits_per_side": pits,
            "i2c": {"id": 1, "sda": 26, "scl": 27, "freq": 400000},
            "pad_chips": chips,
            "led_chains": [{"pin": 2 + k, "leds": starts[k], "feed_ma": 10000}
                           for k in range(sides)],
            "positions": positions,
            "power": {"budget_ma": 5000, "supply_ma": 10000, "base_ma": 50,
                      "idle_ma_per_led": 1, "ma_per_channel": 20},
            "geometry": {"board_mm": [2 * radius + 100, 2 * radius + 100], "pit_mm": 40,
                         "store_mm": 50, "pit_ring_mm": [37, 23], "store_ring_mm": [50, 40]}}


def check_properties(p, seats):
    P, N, M = seats.players, seats.pits, p.pits_per_side
    # seats sit on distinct sides, increasing: counterclockwise like the sides
    assert list(seats.sides) == sorted(set(seats.sides)) and seats.sides[0] == 0
    engine_loop = []
    for s in range(P):
        for pit in range(1, N + 1):
            engine_loop.append(seats.position(s, pit))
        engine_loop.append(seats.store(s))
    # bijective onto the used positions, and the reverse map undoes it
    assert len(set(engine_loop)) == P * (N + 1) and set(engine_loop) == set(seats.used)
    for s in range(P):
        for pit in range(N + 1):
            assert seats.seat_pit(seats.position(s, pit)) == (s, pit)
    # loop order preserved: the engine's loop is a subsequence of the physical loop
    where = [p.positions.index(pid) for pid in engine_loop]
    assert where == sorted(where)
    assert list(seats.used) == engine_loop
    for s in range(P):
        side = seats.sides[s]
        assert p.place[seats.store(s)] == (side, 0)
        # pit N is next to the store; the seat's pits are the N nearest it, in order
        assert [p.place[seats.position(s, k)] for k in range(1, N + 1)] == \
            [(side, M - N + k) for k in range(1, N + 1)]
    # everything else is unused
    unused = [pid for pid in p.positions if pid not in engine_loop]
    assert len(unused) == len(p.positions) - P * (N + 1)
    assert all(seats.seat_pit(pid) is None for pid in unused)


@pytest.mark.parametrize("name", ["duo", "quad"])
@pytest.mark.parametrize("game", GAMES)
def test_every_game_on_the_shipped_boards(name, game):
    p = load(name)
    variant, players, pits = game
    err = profile.can_seat(p, {"variant": variant, "players": players, "pits": pits, "seeds": 4})
    if game in SEATS[name]:
        assert err is None
        check_properties(p, profile.seating(p, players, pits))
    else:
        assert err is not None and err.startswith("board %s cannot seat %s" % (name, variant))
        with pytest.raises(ValueError):
            profile.seating(p, players, pits)


def test_refusal_sentences():
    duo, quad = load("duo"), load("quad")
    assert profile.can_seat(quad, {"variant": "basic", "players": 2, "pits": 7}) == \
        "board quad cannot seat basic with 7 pits: its sides have 6 pits"
    assert profile.can_seat(duo, {"variant": "basic", "players": 3, "pits": 4}) == \
        "board duo cannot seat basic with 3 players: it has 2 sides"
    with pytest.raises(ValueError) as e:
        profile.seating(duo, 2, 8)
    assert str(e.value) == "board duo cannot seat 8 pits: its sides have 7 pits"
    for players, pits in ((1, 6), (2, 0), ("2", 6)):
        with pytest.raises(ValueError):
            profile.seating(duo, players, pits)


def test_duo_kalah_uses_the_six_nearest_each_store():
    s = profile.seating(load("duo"), 2, 6)
    assert [s.position(0, k) for k in range(1, 7)] == ["0.%d" % k for k in range(2, 8)]
    assert [s.position(1, k) for k in range(1, 7)] == ["1.%d" % k for k in range(2, 8)]
    assert s.seat_pit("0.1") is None and s.seat_pit("1.1") is None
    assert s.seat_pit("1.S") == (1, 0)


def test_quad_seats():
    q = load("quad")
    assert profile.seating(q, 2, 6).sides == (0, 2)
    assert profile.seating(q, 3, 4).sides == (0, 1, 2)
    assert profile.seating(q, 4, 4).sides == (0, 1, 2, 3)
    assert profile.seating(q, 3, 4).position(1, 1) == "1.3"


def test_quad_kalah_captures_straight_across():
    # Kalah captures seat s pit i against the other seat's pit N+1-i: on quad (seats on
    # sides 0 and 2, the bottom and top rows) those two pits face each other across the
    # board: same x, mirrored about the centre line.
    q = load("quad")
    s = profile.seating(q, 2, 6)
    cy = q.geometry["board_mm"][1] / 2
    for i in range(1, 7):
        a = q.xy_mm[s.position(0, i)]
        b = q.xy_mm[s.position(1, 7 - i)]
        assert math.isclose(a[0], b[0]) and math.isclose(a[1] + b[1], 2 * cy)


def test_position_out_of_range():
    s = profile.seating(load("duo"), 2, 6)
    for seat, pit in ((2, 1), (0, 7), (-1, 1)):
        with pytest.raises(ValueError):
            s.position(seat, pit)


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 4), st.integers(1, 8), st.data())
def test_seating_properties_on_any_board(sides, pits_per_side, data):
    p = profile.check(make_board(sides, pits_per_side))
    players = data.draw(st.integers(2, sides))
    pits = data.draw(st.integers(1, pits_per_side))
    check_properties(p, profile.seating(p, players, pits))
    # and what it cannot seat, it refuses
    assert profile.seat_error(p, sides + 1, pits) is not None
    assert profile.seat_error(p, players, pits_per_side + 1) is not None


def test_kalah_needs_opposite_sides():
    p = profile.check(make_board(3, 6))
    assert profile.can_seat(p, {"variant": "basic", "players": 2, "pits": 6}) is None
    assert "opposite" in profile.can_seat(p, {"variant": "kalah", "players": 2, "pits": 6})


def test_generated_board_round_trips_through_json():
    # make_board itself must be a valid profile, so the property test checks real seating
    d = make_board(4, 6)
    assert profile.check(json.loads(json.dumps(d))).total_leds == 4 * (6 * 12 + 24)


def test_engine_normalized_rules():
    # can_seat takes the engine's own normalized dict (Rules.to_dict())
    from mancala import Rules
    for name in ("duo", "quad"):
        p = load(name)
        for variant, players, pits in GAMES:
            rules = Rules.from_dict({"variant": variant, "players": players, "pits": pits})
            d = rules.to_dict()
            expected = (d["variant"], d["players"], d["pits"]) in SEATS[name]
            assert (profile.can_seat(p, d) is None) == expected
