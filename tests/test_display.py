"""Display properties checked with hypothesis under CPython: the power limiter on random
frames, whole boards with random counts read back from their frames, and the firmware
package compiling for the RP2040."""
import glob
import os
import subprocess
import sys

from hypothesis import given, settings, strategies as st

from conftest import FIRMWARE_LIB, MPY_CROSS, ROOT
from mancala_fw import profile
from mancala_fw.display import Display, counts, power, reader

if os.path.join(ROOT, "tests", "mp") not in sys.path:
    sys.path.append(os.path.join(ROOT, "tests", "mp"))  # the display tests' own helpers
from displayhelp import Leds  # noqa: E402


@settings(max_examples=300, deadline=None)
@given(st.lists(st.binary(min_size=0, max_size=360), min_size=1, max_size=4),
       st.integers(0, 5000), st.integers(1, 60), st.integers(0, 3), st.integers(0, 500))
def test_limited_frame_never_exceeds_the_budget(frames, budget, ma, idle, leds):
    lim = power.Limiter(budget, ma, idle, leds, 0)
    chains = [bytearray(f) for f in frames]
    before = [bytes(c) for c in chains]
    s = power.limit(chains, lim)
    after = power.channel_sum(chains)
    if lim.allowed > 0 or after == 0:
        assert after <= lim.allowed
    if s == 256:
        assert [bytes(c) for c in chains] == before       # frames under budget untouched
    for a, b in zip(before, chains):
        assert all(y <= x for x, y in zip(a, b))            # scaling never brightens
    if lim.fixed_ma <= budget:
        assert lim.estimate_ma(after) <= budget


def _state(players, pits, cells):
    it = iter(cells)
    return {"pits": [[next(it) for _ in range(pits)] for _ in range(players)],
            "stores": [next(it) for _ in range(players)],
            "turn": 0, "active": list(range(players)), "places": [None] * players,
            "over": False, "rules": {"variant": "kalah"}}


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([("duo", 2, 6), ("duo", 2, 7), ("quad", 4, 6), ("quad", 3, 4)]),
       st.lists(st.integers(0, 96), min_size=32, max_size=32),
       st.integers(20, 100), st.integers(0, 3000), st.integers(0, 12), st.integers(0, 7))
def test_any_counts_read_back_from_the_frame(board, cells, brightness, t, left, hint):
    # With the move timer's countdown on the mover's store (left seconds) and a hinted pit
    # pulsing (hint: pit number, 0 = none), which must both read as worth nothing.
    name, players, pits = board
    p = profile.load(os.path.join(ROOT, "hardware", "profiles", name + ".json"))
    leds = Leds([n for pin, n in p.chains])
    d = Display(p, leds)
    state = _state(players, pits, cells)
    seating = profile.seating(p, players, pits)
    d.set_game(seating, state)
    d.settings(brightness, p.budget_ma, 100)
    d.countdown(0, left)
    if 0 < hint <= pits:
        d.hint(seating.position(0, hint), now=0)
    d.tick(t)
    rings = [p.ring[pid] for pid in p.positions]
    got = reader.read_counts(leds.bufs, rings)
    for seat in range(players):
        assert got[d.ring(seat, 0)] == state["stores"][seat]
        for pit in range(1, pits + 1):
            assert got[d.ring(seat, pit)] == state["pits"][seat][pit - 1]
    assert d.limiter.estimate_ma(power.channel_sum(leds.bufs)) <= p.budget_ma


def test_every_count_fits_every_ring_size_the_profiles_use():
    sizes = set()
    for path in glob.glob(os.path.join(ROOT, "hardware", "profiles", "*.json")):
        p = profile.load(path)
        sizes.update(leds for chain, start, leds in p.ring.values())
    assert sizes
    for leds in sizes:
        for n in range(97):
            assert counts.decode(counts.encode(n, leds)) == n


def test_display_package_compiles_for_the_rp2040(tmp_path):
    for src in sorted(glob.glob(os.path.join(FIRMWARE_LIB, "mancala_fw", "display", "*.py"))):
        out = tmp_path / (os.path.basename(src) + ".mpy")
        proc = subprocess.run([MPY_CROSS, "-march=armv6m", "-o", str(out), src],
                              capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr


def test_display_doc_pictures_are_drawn_and_referenced(tmp_path):
    import re
    import runpy
    script = os.path.join(ROOT, "docs", "img", "make_display_svgs.py")
    names = runpy.run_path(script)["main"]()
    doc = open(os.path.join(ROOT, "docs", "display.md")).read()
    for ref in re.findall(r"\]\(img/([^)]+)\)", doc):
        assert ref in names, ref
    for name in names:
        text = open(os.path.join(ROOT, "docs", "img", name)).read()
        assert text.startswith("<svg") and "<circle" in text or "<rect" in text
