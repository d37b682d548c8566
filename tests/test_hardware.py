"""hardware/: the drawings are generated from the profiles and the committed SVGs are fresh;
the bill of materials matches what the profiles need."""
import csv
import glob
import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from conftest import ROOT

HW = os.path.join(ROOT, "hardware")
DRAWINGS = os.path.join(HW, "drawings")
SCRIPT = os.path.join(HW, "drawings.py")
NAMES = sorted(os.path.basename(p)[:-5] for p in glob.glob(os.path.join(HW, "profiles", "*.json")))
SVG = "{http://www.w3.org/2000/svg}"


def raw(name):
    with open(os.path.join(HW, "profiles", name + ".json")) as f:
        return json.load(f)


def draw(*args):
    return subprocess.run([sys.executable, SCRIPT] + list(args), capture_output=True, text=True,
                          timeout=60)


def test_regenerated_drawings_match_the_committed_ones(tmp_path):
    r = draw("--out", str(tmp_path))
    assert r.returncode == 0, r.stderr
    made = sorted(os.listdir(tmp_path))
    assert made == sorted("%s-%s.svg" % (n, kind) for n in NAMES for kind in ("wiring", "layout"))
    for name in made:
        with open(tmp_path / name) as f:
            fresh = f.read()
        with open(os.path.join(DRAWINGS, name)) as f:
            assert f.read() == fresh, "%s is stale: run python hardware/drawings.py" % name
    assert draw("--check").returncode == 0


def test_check_fails_on_a_stale_drawing(tmp_path):
    for name in os.listdir(DRAWINGS):
        shutil.copy(os.path.join(DRAWINGS, name), tmp_path / name)
    with open(tmp_path / "duo-layout.svg", "a") as f:
        f.write("<!-- edited by hand -->\n")
    r = draw("--check", "--out", str(tmp_path))
    assert r.returncode == 1
    assert r.stderr.startswith("Stale drawings in %s: duo-layout.svg;" % tmp_path), r.stderr


def _texts(root):
    return [t.text for t in root.iter(SVG + "text")]


@pytest.mark.parametrize("name", NAMES)
def test_wiring_names_every_ring_pin_and_electrode(name):
    d = raw(name)
    root = ET.parse(os.path.join(DRAWINGS, name + "-wiring.svg")).getroot()
    texts = _texts(root)
    joined = "\n".join(texts)
    for pid, pos in d["positions"].items():
        assert pid in texts, pid  # the position in the board plan
        ring = pos["ring"]
        start, end = ring["start"], ring["start"] + ring["leds"] - 1
        assert any(t.endswith(" %s  %d-%d" % (pid, start, end)) for t in texts), pid
        assert "E%d %s" % (pos["pad"]["electrode"], pid) in texts, pid
    for chain in d["led_chains"]:
        assert "GP%d in" % chain["pin"] in texts
    assert "SDA GP%d, SCL GP%d" % (d["i2c"]["sda"], d["i2c"]["scl"]) in joined


@pytest.mark.parametrize("name", NAMES)
def test_layout_is_one_to_one_in_millimetres(name):
    d = raw(name)
    g = d["geometry"]
    root = ET.parse(os.path.join(DRAWINGS, name + "-layout.svg")).getroot()
    w, h = root.get("width"), root.get("height")
    assert w.endswith("mm") and h.endswith("mm")
    box = [float(v) for v in root.get("viewBox").split()]
    assert box[2] == float(w[:-2]) and box[3] == float(h[:-2])  # 1 user unit = 1 mm
    outline = [r for r in root.iter(SVG + "rect")][0]
    assert [float(outline.get("width")), float(outline.get("height"))] == g["board_mm"]
    ox, oy = float(outline.get("x")), float(outline.get("y"))
    cups = {}
    for c in root.iter(SVG + "circle"):
        if c.get("stroke") == "#d00":
            cups[(float(c.get("cx")) - ox, float(c.get("cy")) - oy)] = 2 * float(c.get("r"))
    texts = _texts(root)
    for pid, pos in d["positions"].items():
        assert pid in texts, pid
        x, y = pos["xy_mm"]
        want = g["store_mm"] if pid.endswith("S") else g["pit_mm"]
        assert cups.get((x, y)) == want, (pid, x, y)
    assert len(cups) == len(d["positions"])
    assert "%g mm" % g["board_mm"][0] in texts and "%g mm" % g["board_mm"][1] in texts


def test_bill_of_materials_matches_the_profiles():
    with open(os.path.join(HW, "bom.csv")) as f:
        rows = list(csv.DictReader(f))
    assert [k for k in rows[0]] == ["part", "duo", "quad", "typical part number",
                                    "unit cost USD", "notes"]
    for row in rows:
        assert row["part"] and row["typical part number"] and row["unit cost USD"], row

    def qty(board, starts):
        found = [r for r in rows if r["part"].startswith(starts)]
        assert len(found) == 1, starts
        return int(found[0][board])

    for board in ("duo", "quad"):
        d = raw(board)
        rings = [p["ring"]["leds"] for p in d["positions"].values()]
        for n in (12, 16, 24):
            assert qty(board, "WS2812 ring, %d LEDs" % n) == rings.count(n), (board, n)
        assert qty(board, "MPR121") == len(d["pad_chips"])
        chains = len(d["led_chains"])
        assert qty(board, "Series resistor") == chains
        assert qty(board, "Bulk capacitor") == chains
        assert qty(board, "JST-SM") == chains
        assert qty(board, "74AHCT125") == (chains + 3) // 4
        assert qty(board, "Raspberry Pi Pico") == 1
        assert qty(board, "5 V power supply") == 1
        assert d["power"]["supply_ma"] <= 2000  # the supply row says 2 A or more
    for part in ("Pad electrode material", "Top plate", "Schottky", "Screw terminal"):
        assert any(r["part"].startswith(part) for r in rows), part
