# Board profiles under the real MicroPython interpreter (and CPython): the shipped profiles
# load, faults are refused by field, and seating keeps its properties. The working directory
# is tests/mp (see tests/mp/runner.py).
import json

from mancala_fw import profile

PROFILES = "../../hardware/profiles/"


def _raw(name):
    with open(PROFILES + name + ".json") as f:
        return json.load(f)


def _refused(d):
    try:
        profile.check(d)
    except ValueError as e:
        return str(e)
    raise AssertionError("broken profile was accepted")


def test_shipped_profiles_load():
    for name in ("duo", "quad"):
        p = profile.load(PROFILES + name + ".json")
        assert p.name == name
        for pid in p.positions:
            addr, electrode = p.pad[pid]
            assert p.pad_position[addr][electrode] == pid
        assert p.total_leds == sum([p.ring[i][2] for i in p.positions])


class _FrozenDefault:
    """Stands in for mancala_fw.profile.default, which only the firmware image has."""
    NAME = "quad"
    TEXT = None


def _load_board(path, text):
    import sys

    name = "mancala_fw.profile.default"
    if text is not None:
        _FrozenDefault.TEXT = text
        sys.modules[name] = _FrozenDefault()
    try:
        return profile.load_board(path)
    finally:
        assert name not in sys.modules  # used once at boot, then dropped
        sys.modules.pop(name, None)


def _load_board_refused(path, text):
    try:
        _load_board(path, text)
    except ValueError as e:
        return str(e)
    raise AssertionError("load_board accepted " + path)


def test_the_image_profile_serves_only_while_the_flash_has_none():
    quad = json.dumps(_raw("quad"))
    assert _load_board("no-profile.json", quad).name == "quad"
    # a file on the flash wins, and so does its fault: a broken file is not papered over
    assert _load_board(PROFILES + "duo.json", quad).name == "duo"
    assert _load_board_refused("runner.py", quad) == "profile file runner.py is not valid JSON"
    # no image profile (the unix port, or stock MicroPython after make deploy)
    assert _load_board_refused("no-profile.json", None) == (
        "profile file no-profile.json cannot be read: is it there?")
    assert _load_board_refused("no-profile.json", "{") == "the image's built-in profile is not valid JSON"
    broken = _raw("quad")
    broken["sides"] = 5
    assert _load_board_refused("no-profile.json", json.dumps(broken)).startswith("profile quad: ")


def test_compact_answers_pad_from_pad_position():
    # The board drops the pad table at boot (compact); pad[id] must answer exactly as the
    # table did, and refuse an id that has no pad.
    for name in ("duo", "quad"):
        p = profile.load(PROFILES + name + ".json")
        wiring = [(pid, p.pad[pid]) for pid in p.positions]
        p.compact()
        assert not isinstance(p.pad, dict)
        for pid, where in wiring:
            assert p.pad[pid] == where, (name, pid)
        try:
            p.pad["9.9"]
        except KeyError:
            pass
        else:
            raise AssertionError("pad[\"9.9\"] answered on " + name)


def test_faults_name_the_field():
    d = _raw("duo")
    d["positions"]["0.3"]["ring"]["start"] = 20
    assert _refused(d) == ("profile duo: positions.0.3.ring.start 20 overlaps ring 0.2 "
                           "on chain 0 (LEDs 12-23)")
    d = _raw("duo")
    d["positions"]["0.3"]["ring"]["start"] = 26
    assert _refused(d).startswith("profile duo: led_chains.0 has a gap: LEDs 24-25")
    d = _raw("quad")
    d["positions"]["0.2"]["pad"]["electrode"] = 0
    assert _refused(d) == "profile quad: positions.0.2.pad electrode 0 on 0x5A is already used by 0.1"
    d = _raw("quad")
    d["led_chains"][2]["pin"] = 5
    assert _refused(d) == "profile quad: led_chains.2.pin GP5 is already used as i2c.scl"
    d = _raw("quad")
    d["pad_chips"][0] = "0x59"
    assert _refused(d).startswith('profile quad: pad_chips.0 "0x59" is not an MPR121 address')
    d = _raw("duo")
    d["sides"] = True
    assert _refused(d) == "profile duo: sides must be a whole number, got true"
    d = _raw("duo")
    d["power"]["budget_ma"] = 400
    assert _refused(d).startswith("profile duo: power.budget_ma 400 is too low")
    d = _raw("duo")
    del d["positions"]["1.7"]
    assert _refused(d) == "profile duo: positions is missing 1.7"


def test_seating_properties():
    games = ((2, 6), (2, 7), (3, 4), (3, 6), (4, 4), (4, 6))
    for name in ("duo", "quad"):
        p = profile.load(PROFILES + name + ".json")
        for players, pits in games:
            err = profile.seat_error(p, players, pits)
            if players > p.sides or pits > p.pits_per_side:
                assert err is not None
                continue
            assert err is None
            s = profile.seating(p, players, pits)
            last = -1
            for seat in range(players):
                for pit in list(range(1, pits + 1)) + [0]:
                    pid = s.position(seat, pit)
                    assert s.seat_pit(pid) == (seat, pit)
                    at = p.positions.index(pid)
                    assert at > last  # the engine's loop order runs along the board's loop
                    last = at
                side, phys = p.place[s.position(seat, pits)]
                assert phys == p.pits_per_side and side == s.sides[seat]
            unused = [i for i in p.positions if i not in s.used]
            assert len(unused) == len(p.positions) - players * (pits + 1)
            for pid in unused:
                assert s.seat_pit(pid) is None


def test_quad_refuses_seven_pits():
    p = profile.load(PROFILES + "quad.json")
    assert profile.can_seat(p, {"variant": "basic", "players": 2, "pits": 7}) == \
        "board quad cannot seat basic with 7 pits: its sides have 6 pits"
    assert p.seat_error({"variant": "kalah", "players": 2, "pits": 6}) is None
