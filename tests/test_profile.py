"""Board profiles: the shipped ones load, and every fault in a broken copy is refused with
one sentence that names the field."""
import copy
import json
import math
import os

import pytest
from hypothesis import given, settings, strategies as st

from conftest import ROOT

from mancala_fw import profile  # conftest puts firmware/lib first on sys.path
from mancala_fw.profile import checks  # noqa: E402  the power checks

PROFILES = os.path.join(ROOT, "hardware", "profiles")


def raw(name):
    with open(os.path.join(PROFILES, name + ".json")) as f:
        return json.load(f)


def refuse(d):
    with pytest.raises(ValueError) as e:
        profile.check(d)
    text = str(e.value)
    assert "\n" not in text and text.startswith("profile ")
    return text


def test_package_is_ours_not_the_stdlib_profiler():
    assert hasattr(profile, "check") and hasattr(profile, "seating")


@pytest.mark.parametrize("name", ["duo", "quad"])
def test_shipped_profiles_load(name):
    p = profile.load(os.path.join(PROFILES, name + ".json"))
    assert p.name == name
    assert checks.budget_error(p, p.budget_ma) is None
    # every position has a ring, a pad, and the pad table points back at it
    assert len(p.positions) == p.sides * (p.pits_per_side + 1)
    for pid in p.positions:
        addr, electrode = p.pad[pid]
        assert p.pad_position[addr][electrode] == pid
        chain, start, leds = p.ring[pid]
        assert 0 <= start and start + leds <= p.chains[chain][1]
    assert sum(leds for pin, leds in p.chains) == sum(r[2] for r in p.ring.values())


def test_duo_is_the_documented_two_seat_board():
    p = profile.load(os.path.join(PROFILES, "duo.json"))
    assert (p.sides, p.pits_per_side) == (2, 7)
    assert {p.ring[i][2] for i in p.positions if i.endswith("S")} == {24}
    assert {p.ring[i][2] for i in p.positions if not i.endswith("S")} == {12}
    assert sorted(p.pad_chips) == [0x5A, 0x5B] and len(p.chains) == 2
    assert (p.i2c_id, p.sda, p.scl, p.i2c_freq) == (0, 4, 5, 400000)


def test_quad_is_the_documented_four_seat_board():
    p = profile.load(os.path.join(PROFILES, "quad.json"))
    assert (p.sides, p.pits_per_side) == (4, 6)
    assert {p.ring[i][2] for i in p.positions if i.endswith("S")} == {24}
    assert {p.ring[i][2] for i in p.positions if not i.endswith("S")} == {16}
    assert sorted(p.pad_chips) == [0x5A, 0x5B, 0x5C] and len(p.chains) == 4
    w, h = p.geometry["board_mm"]
    assert w == h


@pytest.mark.parametrize("name", ["duo", "quad"])
def test_loop_order_runs_counterclockwise_on_the_drawing(name):
    # Shoelace area of the positions in loop order; y points down on the drawing, so a
    # counterclockwise loop as seen from above has a negative raw area.
    p = profile.load(os.path.join(PROFILES, name + ".json"))
    pts = [p.xy_mm[i] for i in p.positions]
    area = sum(a[0] * b[1] - b[0] * a[1] for a, b in zip(pts, pts[1:] + pts[:1]))
    assert area < 0


@pytest.mark.parametrize("name", ["duo", "quad"])
def test_pit_next_to_store_is_the_nearest_pit(name):
    p = profile.load(os.path.join(PROFILES, name + ".json"))
    for side in range(p.sides):
        store = p.xy_mm["%d.S" % side]
        dist = [math.dist(store, p.xy_mm["%d.%d" % (side, k)])
                for k in range(1, p.pits_per_side + 1)]
        assert dist == sorted(dist, reverse=True)


def mutate(name, fn):
    d = raw(name)
    fn(d)
    return d


def setp(path, value):
    """A mutation that sets d[path...] = value, path as a list of keys/indices."""
    def fn(d):
        for key in path[:-1]:
            d = d[key]
        d[path[-1]] = value
    return fn


def delp(path):
    def fn(d):
        for key in path[:-1]:
            d = d[key]
        del d[path[-1]]
    return fn


FAULTS = [
    # (profile, mutation, the exact message or a part of it)
    ("duo", setp(["format"], "mancala-profile/9"), 'profile duo: format must be "mancala-profile/1"'),
    ("duo", delp(["power"]), "profile duo: power is missing"),
    ("duo", delp(["i2c", "scl"]), "profile duo: i2c.scl is missing"),
    ("duo", setp(["sides"], "2"), 'profile duo: sides must be a whole number, got "2"'),
    ("duo", setp(["sides"], True), "profile duo: sides must be a whole number, got true"),
    ("duo", setp(["ledchains"], []), 'profile duo: the top level has an unknown field "ledchains"'),
    ("duo", setp(["positions", "0.1", "ring", "colour"], 1),
     'profile duo: positions.0.1.ring has an unknown field "colour"'),
    ("duo", delp(["positions", "0.4"]), "profile duo: positions is missing 0.4"),
    ("duo", delp(["positions", "1.S"]), "profile duo: positions is missing 1.S"),
    ("duo", setp(["positions", "0.8"], {}), "profile duo: positions.0.8 is not a position"),
    ("quad", setp(["positions", "4.1"], {}), "profile quad: positions.4.1 is not a position"),
    # LEDs: overlap, gap, count
    ("duo", setp(["positions", "0.3", "ring", "start"], 20),
     "profile duo: positions.0.3.ring.start 20 overlaps ring 0.2 on chain 0 (LEDs 12-23)"),
    ("quad", setp(["positions", "2.S", "ring", "start"], 90),
     "profile quad: positions.2.S.ring.start 90 overlaps ring 2.6 on chain 2 (LEDs 80-95)"),
    ("duo", setp(["positions", "0.3", "ring", "start"], 26),
     "profile duo: led_chains.0 has a gap: LEDs 24-25 belong to no ring (between rings 0.2 and 0.3)"),
    ("duo", setp(["positions", "1.1", "ring", "start"], 3),
     "profile duo: led_chains.1 has a gap: LEDs 0-2 belong to no ring (before ring 1.1)"),
    ("duo", setp(["led_chains", 0, "leds"], 120),
     "profile duo: led_chains.0.leds is 120 but its rings hold 108 LEDs"),
    ("quad", setp(["positions", "3.S", "ring", "leds"], 12),
     "profile quad: led_chains.3.leds is 120 but its rings hold 108 LEDs"),
    ("duo", lambda d: d["led_chains"].append({"pin": 6, "leds": 10, "feed_ma": 2000}),
     "profile duo: led_chains.2 drives no ring"),
    ("duo", setp(["positions", "0.1", "ring", "chain"], 2),
     "profile duo: positions.0.1.ring.chain 2 is not 0-1"),
    ("duo", setp(["positions", "0.1", "ring", "leds"], 0),
     "profile duo: positions.0.1.ring.leds 0 is not 1-64"),
    # pads
    ("duo", setp(["positions", "0.2", "pad", "electrode"], 0),
     "profile duo: positions.0.2.pad electrode 0 on 0x5A is already used by 0.1"),
    ("quad", setp(["positions", "3.S", "pad"], {"chip": "0x5B", "electrode": 11}),
     "profile quad: positions.3.S.pad electrode 11 on 0x5B is already used by 3.3"),
    ("duo", setp(["positions", "0.1", "pad", "electrode"], 12),
     "profile duo: positions.0.1.pad.electrode 12 is not 0-11"),
    ("duo", setp(["positions", "0.1", "pad", "electrode"], -1),
     "profile duo: positions.0.1.pad.electrode -1 is not 0-11"),
    ("duo", setp(["positions", "0.1", "pad", "chip"], "0x5C"),
     'profile duo: positions.0.1.pad.chip "0x5C" is not in pad_chips'),
    ("duo", setp(["pad_chips", 1], "0x5E"),
     'profile duo: pad_chips.1 "0x5E" is not an MPR121 address ("0x5A" to "0x5D")'),
    ("duo", setp(["pad_chips", 1], 91), "profile duo: pad_chips.1 91 is not an MPR121 address"),
    ("duo", setp(["pad_chips", 1], "0x5A"), "profile duo: pad_chips.1 0x5A is listed twice"),
    ("duo", setp(["pad_chips"], ["0x5A", "0x5B", "0x5C"]),
     "profile duo: pad_chips.2 0x5C has no pads"),
    # pins
    ("duo", setp(["led_chains", 1, "pin"], 4),
     "profile duo: led_chains.1.pin GP4 is already used as i2c.sda"),
    ("quad", setp(["led_chains", 3, "pin"], 2),
     "profile quad: led_chains.3.pin GP2 is already used as led_chains.0.pin"),
    ("duo", setp(["led_chains", 0, "pin"], 30), "profile duo: led_chains.0.pin 30 is not 0-29"),
    ("duo", setp(["i2c", "sda"], 6), "profile duo: i2c.sda GP6 cannot be SDA of I2C0"),
    ("duo", setp(["i2c", "freq"], 1000000), "profile duo: i2c.freq 1000000 is not 10000-400000"),
    ("duo", setp(["i2c", "irq"], 5), "profile duo: i2c.irq GP5 is already used as i2c.scl"),
    ("quad", setp(["led_chains", 2, "pin"], 8),
     "profile quad: led_chains.2.pin GP8 is already used as i2c.irq"),
    ("duo", setp(["i2c", "irq"], 30), "profile duo: i2c.irq 30 is not 0-29"),
    ("duo", setp(["i2c", "irq"], "GP8"), 'profile duo: i2c.irq must be a whole number, got "GP8"'),
    # power
    ("duo", setp(["power", "budget_ma"], 2500),
     "profile duo: power.budget_ma 2500 is more than power.supply_ma 2000 can deliver"),
    ("duo", setp(["led_chains", 1, "feed_ma"], 800),
     "profile duo: power.budget_ma 1500 is more than led_chains.1.feed_ma 800 can carry: "
     "chain 1 may draw up to 1332 mA under it"),
    ("duo", setp(["power", "budget_ma"], 500),
     "profile duo: power.budget_ma 500 is too low to show anything: the board with all LEDs "
     "dark takes 276 mA and one lit LED per ring needs 320 mA more"),
    ("quad", setp(["power", "budget_ma"], 1000), "profile quad: power.budget_ma 1000 is too low"),
    ("duo", setp(["power", "idle_ma_per_led"], "1"),
     'profile duo: power.idle_ma_per_led must be a number, got "1"'),
    # geometry
    ("duo", setp(["positions", "0.1", "xy_mm"], [500, 90]),
     "profile duo: positions.0.1.xy_mm [500, 90] puts it past the edge of the 450 x 130 mm board"),
    ("duo", setp(["positions", "0.2", "xy_mm"], [120, 90]),
     "profile duo: positions.0.2.xy_mm [120, 90] overlaps 0.1 (centres closer than 37 mm)"),
    ("duo", setp(["positions", "0.2", "xy_mm"], [120]),
     "profile duo: positions.0.2.xy_mm must be a list of two numbers, got [120]"),
    ("duo", setp(["geometry", "pit_ring_mm"], [20, 30]),
     "profile duo: geometry.pit_ring_mm [20, 30] must be [outer, inner] with outer > inner"),
]


@pytest.mark.parametrize("name,fn,expected", FAULTS)
def test_fault_is_refused_naming_the_field(name, fn, expected):
    text = refuse(mutate(name, fn))
    assert text.startswith(expected), text


def test_every_shipped_field_is_required():
    # Dropping any one field of the shipped profile must be refused by its name.
    d = raw("quad")
    for key in list(d):
        broken = copy.deepcopy(d)
        del broken[key]
        assert key in refuse(broken)
    for section in ("i2c", "power", "geometry"):
        for key in d[section]:
            if (section, key) == ("i2c", "irq"):
                continue  # optional: test_irq_line_is_optional
            broken = copy.deepcopy(d)
            del broken[section][key]
            assert "%s.%s is missing" % (section, key) in refuse(broken)


@pytest.mark.parametrize("name", ["duo", "quad"])
def test_irq_line_is_optional(name):
    # The shipped boards wire the pads' IRQ line to GP8; a board without it (polled pads)
    # leaves the field out.
    assert profile.check(raw(name)).irq == 8
    d = raw(name)
    del d["i2c"]["irq"]
    assert profile.check(d).irq is None


def test_not_a_profile_at_all():
    with pytest.raises(ValueError) as e:
        profile.check([1, 2])
    assert "top level must be a JSON object" in str(e.value)


def test_load_unreadable_and_bad_json(tmp_path):
    with pytest.raises(ValueError) as e:
        profile.load(str(tmp_path / "nope.json"))
    assert "cannot be read" in str(e.value)
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "mancala-profile/1",')
    with pytest.raises(ValueError) as e:
        profile.load(str(bad))
    assert "is not valid JSON" in str(e.value)


def test_budget_error_for_runtime_limit():
    p = profile.load(os.path.join(PROFILES, "quad.json"))
    assert checks.budget_error(p, checks.max_budget_ma(p), "power_limit_ma") is None
    assert checks.budget_error(p, p.min_budget_ma(), "power_limit_ma") is None
    assert checks.budget_error(p, p.min_budget_ma() - 1, "power_limit_ma").startswith(
        "power_limit_ma %d is too low" % (p.min_budget_ma() - 1))
    assert "supply_ma" in checks.budget_error(p, checks.max_budget_ma(p) + 1, "power_limit_ma")
    # the lit allowance is what remains after the board and idle LEDs
    assert p.lit_ma(1500) == 1500 - p.base_ma - p.idle_ma_per_led * p.total_leds


def test_feed_limit_sets_max_budget():
    d = raw("duo")
    d["led_chains"][0]["feed_ma"] = 1400
    p = profile.check(d)
    # chain 0 may draw the whole lit allowance plus its own idle current
    top = checks.max_budget_ma(p)
    assert top < p.supply_ma
    assert checks.chain_worst_ma(p, 0, top) <= 1400 < checks.chain_worst_ma(p, 0, top + 1)
    assert checks.budget_error(p, top) is None and "feed_ma" in checks.budget_error(p, top + 1)


def test_profile_answers_the_apps_seat_question():
    p = profile.load(os.path.join(PROFILES, "quad.json"))
    assert p.seat_error({"variant": "basic", "players": 4, "pits": 4}) is None
    assert p.seat_error({"variant": "basic", "players": 2, "pits": 7}) == \
        "board quad cannot seat basic with 7 pits: its sides have 6 pits"


def test_messages_quoted_in_docs_are_the_real_ones():
    # docs/profiles.md section 5 quotes the messages; each must be one the checks produce.
    import re
    with open(os.path.join(ROOT, "docs", "profiles.md")) as f:
        text = f.read()
    section = text.split("## 5. The checks")[1].split("## 6.")[0]
    quoted = [q.split(" (...)")[0] for q in re.findall(r"`(profile duo: [^`]*)`", section)]
    assert len(quoted) >= 20
    produced = []
    for name, fn, expected in FAULTS:
        try:
            profile.check(mutate(name, fn))
        except ValueError as e:
            produced.append(str(e))
    for q in quoted:
        assert any(m.startswith(q) for m in produced), q


def _paths(d, prefix=()):
    """Every path to a value inside d (dict keys and list indices)."""
    out = [prefix]
    if isinstance(d, dict):
        for k in d:
            out.extend(_paths(d[k], prefix + (k,)))
    elif isinstance(d, list):
        for i in range(len(d)):
            out.extend(_paths(d[i], prefix + (i,)))
    return out


JUNK = [None, True, False, 0, -1, 1, 3.5, 1e9, "", "x", "0x5A", "0.S", [], [1], [1, 2],
        ["0x5A"], {}, {"chip": "0x5A"}, {"ring": {}}]


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(["duo", "quad"]), st.data())
def test_any_damage_is_a_sentence_never_a_traceback(name, data):
    d = raw(name)
    for _ in range(data.draw(st.integers(1, 3))):
        path = data.draw(st.sampled_from(_paths(d)[1:]))
        parent = d
        for key in path[:-1]:
            parent = parent[key]
        if isinstance(parent, dict) and data.draw(st.booleans()):
            del parent[path[-1]]
        else:
            parent[path[-1]] = copy.deepcopy(data.draw(st.sampled_from(JUNK)))
    try:
        profile.check(d)
    except ValueError as e:
        assert str(e).startswith("profile ") and "\n" not in str(e)
