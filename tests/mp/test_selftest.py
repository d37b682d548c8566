# The board's self-test (firmware/lib/mancala_fw/selftest) on the virtual hardware: MPR121
# register models on the fake I2C, the real WS2812 driver into the fake rp2 capturing frames.
# The scan names a missing chip by address, the walk's frames follow the chain order (and show a
# swapped or reversed ring), the readout follows touches, calibration is saved and reloaded.
# Runs under MicroPython and CPython (the fakes import on both).
import json
import os
import sys

_FAKES = "../../host_tools/mancala_host/sim/fakes"
if _FAKES not in sys.path:
    sys.path.insert(0, _FAKES)

import frame_capture  # noqa: E402
import machine  # noqa: E402
import mpr121_model  # noqa: E402
import simclock  # noqa: E402
from mancala_fw import profile  # noqa: E402
from drivers.mpr121 import MPR121Group  # noqa: E402
from drivers.ws2812 import WS2812  # noqa: E402
from mancala_fw.protocol import CommandError  # noqa: E402
from mancala_fw.selftest import Bringup, wants_selftest  # noqa: E402
from mancala_fw.selftest.core import SelfTest  # noqa: E402
from mancala_fw.selftest import walk  # noqa: E402
from mancala_fw.selftest.calibration import apply_calibration, load_calibration  # noqa: E402
from mancala_fw.selftest.diag import handle_diag  # noqa: E402

PROFILES = "../../hardware/profiles/"


def _raw(name):
    with open(PROFILES + name + ".json") as f:
        return json.load(f)


def _tmp(tag):
    return "/tmp/mancala-selftest-%s-%s.json" % (tag, "".join("%02x" % b for b in os.urandom(4)))


def _board(name="duo", chips=None, path=None):
    simclock.freeze(0)
    del frame_capture.frames[:]
    frame_capture.set_path(None)
    p = profile.check(_raw(name))
    mpr121_model.reset_bus(list(p.pad_chips) if chips is None else chips)
    i2c = machine.I2C(p.i2c_id, scl=machine.Pin(p.scl), sda=machine.Pin(p.sda))
    pads = MPR121Group(i2c, p.pad_chips)
    leds = WS2812([c[0] for c in p.chains], [c[1] for c in p.chains])
    return p, SelfTest(p, pads, leds, calibration_path=path or _tmp("cal")), leds


def _advance(st, now, ms, step=5):
    for _ in range(ms // step):
        simclock.advance_ms(step)
        now += step
        st.step(now)
    return now


def _last_frames():
    out = {}
    for pin, data in frame_capture.frames:
        out[pin] = data
    return out


def test_scan_names_the_missing_chip_by_address():
    p, st, leds = _board("duo", chips=[0x5A])
    try:
        missing = st.scan()
        assert len(missing) == 1, missing
        text = missing[0]
        assert text.startswith("pad controller 0x5B not found: check its ADDR wiring"), text
        assert "SDA/SCL" in text and "GP4/GP5" in text, text
        answer = handle_diag({"action": "scan"}, st, 0)
        assert answer["expected"] == ["0x5A", "0x5B"] and answer["found"] == ["0x5A"], answer
    finally:
        leds.deinit()


def test_scan_with_every_chip_present_is_empty():
    p, st, leds = _board("quad")
    try:
        assert st.scan() == []
    finally:
        leds.deinit()


def _expected_chain_order(raw):
    # Built from the JSON directly, not from selftest.walk, so the test can disagree with it.
    rows = []
    for pid in raw["positions"]:
        r = raw["positions"][pid]["ring"]
        rows.append((r["chain"], r["start"], r["leds"], pid))
    rows.sort()
    return rows


def test_walk_frames_follow_the_chain_order():
    for name in ("duo", "quad"):
        raw = _raw(name)
        p, st, leds = _board(name)
        try:
            pins = [c["pin"] for c in raw["led_chains"]]
            expected = _expected_chain_order(raw)
            place = {}
            for chain, start, n, pid in expected:
                place[pid] = len([r for r in expected if r[0] == chain and r[1] < start])
            assert len(st.order) == len(expected)
            for step in range(len(expected)):
                simclock.advance_ms(10)
                del frame_capture.frames[:]
                info = st.show_step(step)
                frames = _last_frames()
                assert sorted(frames) == sorted(pins), frames.keys()
                chain, start, n, pid = expected[step]
                assert info["pad"] == pid and info["pin"] == pins[chain], info
                for c in range(len(pins)):
                    lit = [i for i in range(len(frames[pins[c]]) // 3)
                           if frames[pins[c]][3 * i:3 * i + 3] != b"\x00\x00\x00"]
                    if c != chain:
                        assert lit == [], (name, step, c, lit)
                        continue
                    # the white marker on the ring's first LED, then place+1 coloured LEDs
                    want = list(range(start, start + place[pid] + 2))
                    assert lit == want, (name, step, lit, want)
                    px = frames[pins[c]]
                    assert px[3 * start] == px[3 * start + 1] == px[3 * start + 2] > 0
                    assert walk.read_ring(px[3 * start:3 * (start + n)]) == (chain, place[pid], 1)
        finally:
            leds.deinit()


def test_walk_shows_a_swapped_and_a_reversed_ring():
    # A model of the physical board: which chain LEDs each position really holds, in order
    # round the ring. Rings 0.2 and 0.3 are swapped in the chain; 0.5 is mounted reversed.
    raw = _raw("duo")
    p, st, leds = _board("duo")
    try:
        wired = {}
        for pid in p.positions:
            chain, start, n = p.ring[pid]
            wired[pid] = (chain, list(range(start, start + n)))
        wired["0.2"], wired["0.3"] = wired["0.3"], wired["0.2"]
        wired["0.5"] = (wired["0.5"][0], list(reversed(wired["0.5"][1])))
        pins = [c["pin"] for c in raw["led_chains"]]
        seen = {}
        for step in range(len(st.order)):
            simclock.advance_ms(10)
            st.show_step(step)
            frames = _last_frames()
            for pid in wired:
                chain, idx = wired[pid]
                px = frames[pins[chain]]
                grb = bytearray()
                for i in idx:
                    grb.extend(px[3 * i:3 * i + 3])
                got = walk.read_ring(grb)
                if got is not None:
                    seen[pid] = got
        wrong = {}
        for pid in p.positions:
            chain, start, n = p.ring[pid]
            place = len([q for q in p.positions if p.ring[q][0] == chain and p.ring[q][1] < start])
            if seen[pid] != (chain, place, 1):
                wrong[pid] = seen[pid]
        assert sorted(wrong) == ["0.2", "0.3", "0.5"], wrong
        assert wrong["0.2"] == (0, 2, 1) and wrong["0.3"] == (0, 1, 1), wrong
        assert wrong["0.5"] == (0, 4, -1), wrong
    finally:
        leds.deinit()


def test_auto_walk_advances_with_ticks_and_stop_goes_dark():
    p, st, leds = _board("duo")
    try:
        stopped = []
        st.on_stop = lambda: stopped.append(st.active)
        handle_diag({"action": "walk", "period_ms": 500}, st, 1000)
        assert st.active and st.step_index == 0
        simclock.advance_ms(10)
        st.step(1400)
        assert st.step_index == 0
        st.step(1500)
        assert st.step_index == 1
        simclock.advance_ms(10)
        handle_diag({"action": "stop"}, st, 1600)
        assert not st.active and stopped == [False]  # the app is told, after the LEDs
        frames = _last_frames()
        assert all(not any(frames[pin]) for pin in frames), "LEDs not dark after stop"
    finally:
        leds.deinit()


def test_readout_reflects_touches_on_the_model():
    p, st, leds = _board("duo", chips=[0x5A])
    try:
        now = _advance(st, 0, 20)
        f, b = st.readout()
        i3 = p.positions.index("0.3")
        idle = f[i3]
        assert idle == b[i3] and idle > 0, (f, b)
        mpr121_model.touch(0x5A, 2, True, 30)  # pad 0.3 is 0x5A electrode 2
        for _ in range(6):  # the model shows a finger after the sampling the driver chose
            simclock.advance_ms(5)
            st.readout()
        answer = handle_diag({"action": "readout"}, st, now)
        rows = {}
        for row in answer["pads"]:
            rows[row[0]] = row
        assert rows["0.3"][1:] == [idle - 30, idle, 1], (idle, rows["0.3"])
        assert rows["0.4"][1] == rows["0.4"][2] and rows["0.4"][3] == 0, rows["0.4"]
        assert rows["1.3"][1:] == [None, None, 0], rows["1.3"]  # 0x5B is not there
    finally:
        leds.deinit()


def _calibrate(st, pad_electrode, delta):
    now = 0
    handle_diag({"action": "calibrate", "phase": "idle", "ms": 200}, st, now)
    now = _advance(st, now, 250)
    assert not handle_diag({"action": "calibrate", "phase": "status"}, st, now)["collecting"]
    pid, e = pad_electrode
    handle_diag({"action": "calibrate", "phase": "touch", "pad": pid, "ms": 300}, st, now)
    mpr121_model.touch(0x5A, e, True, delta)
    now = _advance(st, now, 350)
    mpr121_model.touch(0x5A, e, False)
    _advance(st, now, 50)
    return handle_diag({"action": "calibrate", "phase": "save"}, st, now)


def test_calibration_sets_saves_and_survives_a_restart():
    path = _tmp("restart")
    p, st, leds = _board("duo", path=path)
    try:
        answer = _calibrate(st, ("0.3", 2), 40)
        assert answer["problems"] == [] and answer["thresholds"] == {"0.3": [20, 10]}, answer
        assert mpr121_model.bus().chips[0x5A].thresholds(2) == (20, 10)
        assert mpr121_model.bus().chips[0x5A].thresholds(3) == (12, 6)  # untouched pad kept
        try:
            os.stat(path + ".tmp")
            left = True
        except OSError:
            left = False
        assert not left, "the save left its temporary file"
    finally:
        leds.deinit()
    # "Restart": fresh chips (registers at power-on reset), fresh drivers, load from flash.
    p, st, leds = _board("duo", path=path)
    try:
        assert mpr121_model.bus().chips[0x5A].thresholds(2) == (12, 6)
        data, problem = load_calibration(path)
        assert problem is None and data["chips"]["0x5A"][2] == [20, 10], (data, problem)
        assert apply_calibration(st.pads, data) == []
        assert mpr121_model.bus().chips[0x5A].thresholds(2) == (20, 10)
        rows = handle_diag({"action": "thresholds"}, st, 0)["pads"]
        assert ["0.3", 20, 10] in rows and ["0.4", 12, 6] in rows, rows
    finally:
        leds.deinit()
        os.remove(path)


def test_weak_pad_is_named_and_not_applied():
    p, st, leds = _board("duo")
    try:
        answer = _calibrate(st, ("0.5", 4), 3)
        assert answer["thresholds"] == {}, answer
        assert len(answer["problems"]) == 1 and answer["problems"][0].startswith(
            "pad 0.5 changed by only 3 counts"), answer
        assert mpr121_model.bus().chips[0x5A].thresholds(4) == (12, 6)
    finally:
        leds.deinit()
        os.remove(st.calibration_path)


def test_bad_calibration_file_gives_a_sentence():
    path = _tmp("bad")
    for text in ('{"format": "mancala-calibration", "chips": {"0x5A": [[5, 9]]}}', "{nope"):
        with open(path, "w") as f:
            f.write(text)
        data, problem = load_calibration(path)
        assert data is None and path in problem and "\n" not in problem, problem
    os.remove(path)
    assert load_calibration(path) == (None, None)


def test_bad_requests_are_refused_with_a_sentence():
    p, st, leds = _board("duo")
    try:
        for req in ({"action": "dance"}, {"action": "walk", "step": 99},
                    {"action": "calibrate", "phase": "touch", "pad": "9.9"},
                    {"action": "calibrate", "phase": "save"}):
            try:
                handle_diag(req, st, 0)
            except CommandError as e:
                assert e.code == "bad_request" and e.message.endswith("."), e.message
            else:
                raise AssertionError("accepted %r" % req)
    finally:
        leds.deinit()


def test_boot_gesture_is_every_store_held():
    p = profile.check(_raw("duo"))
    assert p.pad["0.S"] == (0x5A, 7) and p.pad["1.S"] == (0x5B, 7)
    assert wants_selftest(p, [1 << 7, 1 << 7])
    assert not wants_selftest(p, [1 << 7, 0])
    assert not wants_selftest(p, [1 << 7, None])
