"""`mancala-board profile check FILE` (host_tools/mancala_host/flashing/bringup.py): each
fault a maker is likely to make, made in a copy of a shipped profile, gives exit 1 and one
sentence naming the file and the place; the shipped profiles pass with a summary line."""
import argparse
import copy
import json
import os

import pytest

from conftest import ROOT
import fakeport  # noqa: F401  puts host_tools on sys.path

from mancala_host.flashing import bringup

PROFILES = os.path.join(ROOT, "hardware", "profiles")


def raw(name):
    with open(os.path.join(PROFILES, name + ".json")) as f:
        return json.load(f)


def check(capsys, *paths):
    code = bringup.cmd_profile_check(argparse.Namespace(action="check", files=list(paths)))
    out, err = capsys.readouterr()
    return code, out, err


def write(tmp_path, d, name="broken.json"):
    path = tmp_path / name
    path.write_text(json.dumps(d, indent=1))
    return str(path)


@pytest.mark.parametrize("name, summary", [
    ("duo", "ok (duo: 2 sides, 16 pads, 216 LEDs, budget 1500 mA)"),
    ("quad", "ok (quad: 4 sides, 28 pads, 480 LEDs, budget 1500 mA)"),
])
def test_shipped_profiles_pass(capsys, name, summary):
    path = os.path.join(PROFILES, name + ".json")
    code, out, err = check(capsys, path)
    assert code == 0 and err == ""
    assert out == "%s: %s\n" % (path, summary)


def _led_twice(d):
    d["positions"]["0.3"]["ring"]["start"] = 20


def _gap(d):
    d["positions"]["0.2"]["ring"]["leds"] = 10


def _electrode_twice(d):
    d["positions"]["0.2"]["pad"]["electrode"] = 0


def _pin_twice(d):
    d["led_chains"][1]["pin"] = 4


def _ring_count(d):
    d["led_chains"][0]["leds"] = 120


def _address(d):
    d["pad_chips"][1] = "0x5E"
    for pid in d["positions"]:
        if d["positions"][pid]["pad"]["chip"] == "0x5B":
            d["positions"][pid]["pad"]["chip"] = "0x5E"


def _budget(d):
    d["led_chains"][1]["feed_ma"] = 800


def _quad_chip_twice(d):
    d["positions"]["3.S"]["pad"] = {"chip": "0x5B", "electrode": 11}


FAULTS = [
    ("duo", _led_twice, "positions.0.3.ring.start 20 overlaps ring 0.2 on chain 0 (LEDs 12-23)"),
    ("duo", _gap, "led_chains.0 has a gap: LEDs 22-23 belong to no ring (between rings 0.2 and 0.3)"),
    ("duo", _electrode_twice, "positions.0.2.pad electrode 0 on 0x5A is already used by 0.1"),
    ("duo", _pin_twice, "led_chains.1.pin GP4 is already used as i2c.sda"),
    ("duo", _ring_count, "led_chains.0.leds is 120 but its rings hold 108 LEDs"),
    ("duo", _address, "pad_chips.1 \"0x5E\" is not an MPR121 address"),
    ("duo", _budget, "power.budget_ma 1500 is more than led_chains.1.feed_ma 800 can carry"),
    ("quad", _quad_chip_twice, "positions.3.S.pad electrode 11 on 0x5B is already used by 3.3"),
]


@pytest.mark.parametrize("name, damage, place", FAULTS, ids=[f[1].__name__[1:] for f in FAULTS])
def test_each_fault_is_named(tmp_path, capsys, name, damage, place):
    d = copy.deepcopy(raw(name))
    damage(d)
    path = write(tmp_path, d)
    code, out, err = check(capsys, path)
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and err.endswith(".\n"), err
    assert err.startswith("%s: profile %s: " % (path, name)), err
    assert place in err, err


def test_bad_json_gives_line_and_column(tmp_path, capsys):
    text = json.dumps(raw("duo"), indent=1).splitlines()
    text[3] = text[3].rstrip(",")  # drop a comma: line 4 ends without it
    path = tmp_path / "nocomma.json"
    path.write_text("\n".join(text))
    code, out, err = check(capsys, str(path))
    assert code == 1
    assert err.startswith("%s is not valid JSON: expecting ',' delimiter at line 5, column 2."
                          % path), err
    assert err.count("\n") == 1


def test_missing_file_and_mixed_list(tmp_path, capsys):
    good = os.path.join(PROFILES, "duo.json")
    missing = str(tmp_path / "nothere.json")
    code, out, err = check(capsys, good, missing)
    assert code == 1
    assert out.startswith(good + ": ok")
    assert err == "%s cannot be read: No such file or directory.\n" % missing


def test_profile_check_does_not_shadow_the_stdlib_profile_module():
    mod = bringup.firmware_profile()
    assert mod.FORMAT == "mancala-profile/1" and mod.__name__ == "mancala_fw.profile"


def test_argument_adders_parse_the_documented_command_lines():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command")
    bringup.add_profile_arguments(sub.add_parser("profile"))
    bringup.add_diag_arguments(sub.add_parser("diag"))
    a = parser.parse_args(["profile", "check", "a.json", "b.json"])
    assert a.action == "check" and a.files == ["a.json", "b.json"]
    assert parser.parse_args(["diag"]).action == "scan"
    a = parser.parse_args(["diag", "calibrate", "--pads", "0.3,0.4", "--hold", "1.5"])
    assert (a.action, a.pads, a.hold, a.delay) == ("calibrate", "0.3,0.4", 1.5, None)
    assert parser.parse_args(["diag", "walk", "--step", "3"]).step == 3
