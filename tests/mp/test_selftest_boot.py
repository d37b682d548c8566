# selftest.Bringup, the part the app holds: calibration applied at boot (and a bad file
# reported), the diag handler, the boot gesture (every store held within the window), and the
# self-test built only when first used. MicroPython and CPython, on the sim fakes.
import json
import os
import sys

_FAKES = "../../host_tools/mancala_host/sim/fakes"
if _FAKES not in sys.path:
    sys.path.insert(0, _FAKES)

import machine  # noqa: E402
import mpr121_model  # noqa: E402
import simclock  # noqa: E402
from mancala_fw import profile  # noqa: E402
from drivers.mpr121 import MPR121Group  # noqa: E402
from drivers.ws2812 import WS2812  # noqa: E402
from mancala_fw.protocol import CommandError  # noqa: E402
from mancala_fw import selftest  # noqa: E402
from mancala_fw.selftest import BOOT_WINDOW_MS, IDLE_MS, Bringup  # noqa: E402
from mpcompat import ticks_add  # noqa: E402


def _flash():
    d = "/tmp/mancala-boot-%s/" % "".join("%02x" % b for b in os.urandom(4))
    os.mkdir(d)
    return d


def _clean(flash):
    for n in os.listdir(flash):
        os.remove(flash + n)
    os.rmdir(flash)


def _hw(name="duo", leds=True):
    simclock.freeze(0)
    with open("../../hardware/profiles/%s.json" % name) as f:
        p = profile.check(json.load(f))
    mpr121_model.reset_bus(list(p.pad_chips))
    pads = MPR121Group(machine.I2C(0), p.pad_chips)
    out = WS2812([c[0] for c in p.chains], [c[1] for c in p.chains]) if leds else None
    return p, pads, out


def test_saved_calibration_is_applied_at_boot():
    flash = _flash()
    p, pads, leds = _hw()
    try:
        pairs = [[12, 6]] * 12
        pairs[4] = [30, 15]
        with open(flash + "calibration.json", "w") as f:
            f.write(json.dumps({"format": "mancala-calibration", "chips": {"0x5B": pairs}}))
        logged = []
        b = Bringup(p, pads, leds, flash, log=logged.append, now=0)
        assert logged == [] and b.st is None  # the self-test itself is not built yet
        assert mpr121_model.bus().chips[0x5B].thresholds(4) == (30, 15)
        assert mpr121_model.bus().chips[0x5A].thresholds(4) == (12, 6)
    finally:
        leds.deinit()
        _clean(flash)


def test_unusable_calibration_is_logged_and_ignored():
    flash = _flash()
    p, pads, leds = _hw()
    try:
        with open(flash + "calibration.json", "w") as f:
            f.write("{not json")
        logged = []
        Bringup(p, pads, leds, flash, log=logged.append, now=0)
        assert len(logged) == 1 and "calibration.json" in logged[0], logged
        assert mpr121_model.bus().chips[0x5A].thresholds(0) == (12, 6)
    finally:
        leds.deinit()
        _clean(flash)


def test_gesture_starts_the_walk_only_inside_the_window():
    p, pads, leds = _hw()
    try:
        both = [1 << 7, 1 << 7]  # 0.S and 1.S are electrode 7 of 0x5A and 0x5B
        b = Bringup(p, pads, leds, "/nonexistent/", now=1000)
        assert not b.gesture([1 << 7, 0], 2000) and not b.active()
        simclock.advance_ms(10)
        assert b.gesture(both, 3000) and b.active() and b.st.auto
        simclock.advance_ms(10)  # the walk's frame is on the (virtual) wire until then
        b.st.stop()
        late = Bringup(p, pads, leds, "/nonexistent/", now=1000)
        assert not late.gesture(both, 1001 + BOOT_WINDOW_MS)
        assert not late.gesture(both, 1002)  # the window closed for good
        assert late.st is None
    finally:
        leds.deinit()


def test_command_builds_the_selftest_on_first_use():
    p, pads, leds = _hw("quad")
    try:
        b = Bringup(p, pads, leds, "/nonexistent/", now=0)
        answer = b.command({"action": "scan"})
        assert answer["missing"] == [] and b.st is not None and not b.active()
    finally:
        leds.deinit()


def test_walk_without_leds_is_refused_with_a_sentence():
    p, pads, leds = _hw(leds=False)
    b = Bringup(p, pads, None, "/nonexistent/", now=0)
    assert b.command({"action": "readout"})["pads"][0][0] == "0.1"
    try:
        b.command({"action": "walk", "step": 0})
    except CommandError as e:
        assert e.code == "bad_request" and "no LED output" in e.message
    else:
        raise AssertionError("walk accepted without LEDs")
    assert selftest.wants_selftest(p, [1 << 7, 1 << 7])


def test_idle_once_the_window_closed_with_no_selftest_and_boot_false_applies_nothing():
    # The app lets go of an idle Bringup (app.loop) and makes one with boot=False for the
    # next diag command: that one neither applies the calibration again nor opens the window.
    flash = _flash()
    p, pads, leds = _hw()
    try:
        pairs = [[30, 15]] * 12
        with open(flash + "calibration.json", "w") as f:
            f.write(json.dumps({"format": "mancala-calibration", "chips": {"0x5B": pairs}}))
        both = [1 << 7, 1 << 7]
        b = Bringup(p, pads, leds, flash, now=0)
        assert not b.idle()  # the window is open
        assert not b.gesture([0, 0], 1 + BOOT_WINDOW_MS) and b.idle()
        b.command({"action": "scan"})
        assert b.st is not None and not b.active()
        # A scan keeps nothing, but a host may be polling: the built self-test stays
        # IDLE_MS after the last diag command, then it may be let go with its modules.
        assert not b.idle(ticks_add(b.used, IDLE_MS))
        assert b.idle(ticks_add(b.used, IDLE_MS + 1))
        assert "mancala_fw.selftest.diag" in sys.modules
        b.release()
        assert b.st is None and "mancala_fw.selftest.diag" not in sys.modules
        # A running self-test (the walk) stays until diag stop, however long.
        b.command({"action": "walk", "step": 0})
        assert b.active() and not b.idle(ticks_add(b.used, 10 * IDLE_MS))
        simclock.advance_ms(10)  # the walk's frame is on the (virtual) wire until then
        b.command({"action": "stop"})
        assert b.st is None and b.idle(b.used)
        mpr121_model.reset_bus(list(p.pad_chips))
        pads = MPR121Group(machine.I2C(0), p.pad_chips)
        again = Bringup(p, pads, leds, flash, now=0, boot=False)
        assert again.idle() and not again.gesture(both, 1) and not again.active()
        assert mpr121_model.bus().chips[0x5B].thresholds(4) == (12, 6)  # not applied
        assert again.command({"action": "scan"})["missing"] == [] and not again.idle()
    finally:
        leds.deinit()
        _clean(flash)


def test_the_loops_diag_makes_a_bringup_again_once_let_go():
    from mancala_fw.app import commands

    made = []

    class Made:
        def command(self, req):
            return {"answered": req["action"]}

    def bringup(boot):
        made.append(boot)
        return Made()

    held = [None]
    diag = commands.diag(held, bringup, lambda reset=False: {"free": 1, "reset": reset})
    assert diag({"action": "memory"}) == {"free": 1, "reset": False} and held == [None] and made == []
    assert diag({"action": "memory", "reset": True}) == {"free": 1, "reset": True} and made == []
    assert diag({"action": "scan"}) == {"answered": "scan"} and made == [False]
    assert diag({"action": "readout"}) == {"answered": "readout"} and made == [False]
