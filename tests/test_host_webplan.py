"""The projector page's plan: each seat's pits and store where the profile puts them, through
the firmware's own seating, and one sentence for a profile that cannot be had."""
import json
import os
import shutil

import pytest
from conftest import ROOT

from mancala_host.commands import cli
from mancala_host.errors import BoardError
from mancala_host.views.webplan import load_profile, plan


def test_duo_kalah_uses_the_six_pads_nearest_each_store_and_says_the_rows_are_shifted():
    p = plan(load_profile("duo"), {"variant": "kalah", "players": 2, "pits": 6})
    # seat 0 plays pads 0.2..0.7 (x 145..345 mm, y 90), seat 1 pads 1.2..1.7 (x 305..105, y 40)
    assert p["seats"][0]["pits"] == [[x, 90] for x in (145, 185, 225, 265, 305, 345)]
    assert p["seats"][1]["pits"] == [[x, 40] for x in (305, 265, 225, 185, 145, 105)]
    assert p["seats"][0]["store"] == [405, 65] and p["seats"][1]["store"] == [45, 65]
    assert sorted(p["unused"]) == [[105, 90], [345, 40]]
    assert p["opposite"] == "shifted"
    # no room between the rows: the labels go outside, under seat 0 and over seat 1
    assert [(s["toward"], s["inside"]) for s in p["seats"]] == [("down", False), ("up", False)]


def test_duo_basic_with_seven_pits_uses_every_pad():
    p = plan(load_profile("duo"), {"variant": "basic", "players": 2, "pits": 7})
    assert p["unused"] == [] and p["opposite"] is None


def test_quad_seats_and_labels_inside_the_square():
    quad = load_profile("quad")
    p = plan(quad, {"variant": "kalah", "players": 2, "pits": 6})
    assert [s["side"] for s in p["seats"]] == [0, 2] and p["opposite"] == "straight"
    three = plan(quad, {"variant": "basic", "players": 3, "pits": 4})
    assert [s["side"] for s in three["seats"]] == [0, 1, 2]
    assert [(s["toward"], s["inside"]) for s in three["seats"]] == [("up", True), ("left", True), ("down", True)]
    assert len(three["unused"]) == 3 * 2 + 7     # two pads on each seated side, all of side 3
    four = plan(quad, {"variant": "basic", "players": 4, "pits": 6})
    assert four["unused"] == [] and [s["toward"] for s in four["seats"]] == ["up", "left", "down", "right"]


def test_a_missing_or_broken_profile_is_one_sentence(tmp_path):
    with pytest.raises(BoardError, match=r"no profile file for board garden .*--profile FILE"):
        load_profile("garden")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(BoardError, match="is not valid JSON"):
        load_profile("duo", str(bad))
    shutil.copy(os.path.join(ROOT, "hardware", "profiles", "quad.json"), str(tmp_path / "quad.json"))
    with pytest.raises(BoardError, match="is for board quad, but the board is duo"):
        load_profile("duo", str(tmp_path / "quad.json"))
    broken = json.loads((tmp_path / "quad.json").read_text())
    del broken["geometry"]
    (tmp_path / "broken.json").write_text(json.dumps(broken))
    with pytest.raises(BoardError, match="geometry is missing"):
        load_profile("quad", str(tmp_path / "broken.json"))


def test_stone_ms_out_of_range_is_refused(capsys):
    with pytest.raises(SystemExit):
        cli.main(["web", "--stone-ms", "5"])
    assert "from 20 to 2000" in capsys.readouterr().err
