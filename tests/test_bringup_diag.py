"""`mancala-board diag` (host_tools/mancala_host/flashing/bringup.py) against the real firmware
(firmware/main.py: the app with selftest.Bringup wired as `diag`) under the MicroPython unix
port on the virtual hardware (sim fakes: MPR121 models on the fake I2C, WS2812 frames
captured), started by tests/boardsim.Board. The scan names a missing chip, the walk's
frames follow the chain order, the readout shows a touch, calibration survives a restart."""
import argparse
import io
import json
import os
import queue
import re

import pytest

import fakeport  # noqa: F401  puts host_tools on sys.path
from boardsim import Board, PROFILES

from mancala_host.flashing import bringup
from mancala_host.link.client import Client
from mancala_host.errors import BoardError, PortLost
from mancala_host.link.transport import Transport
from waits import HANG_S


class BoardLine(Transport):
    """The serial line of a boardsim.Board (the real firmware) as a transport."""

    name = "sim-board"

    def __init__(self, tmp_path, profile="duo", chips=None):
        flash = str(tmp_path / "flash")
        os.makedirs(flash, exist_ok=True)
        self.board = Board(profile, flash=flash, touch=True, frames=True, chips=chips).start()
        self.touch = self.board.touch_path
        self.frames = self.board.frames_path

    def write_line(self, data):
        self.board.send_raw(data + b"\n")

    def read_line(self, timeout):
        try:
            raw = self.board.lines.get(timeout=timeout)
        except queue.Empty:
            return None
        if raw is None:
            self.board.lines.put(None)
            raise PortLost("the board ended: %s" % self.board.stderr_text()[-500:])
        return raw.rstrip(b"\n")

    def frames_size(self):
        """Where the frames written so far end: past the last whole line, as the board may
        be writing the next one right now."""
        if not os.path.exists(self.frames):
            return 0
        with open(self.frames, "rb") as f:
            return f.read().rfind(b"\n") + 1

    def put_touch(self, text):
        with open(self.touch, "a") as f:
            f.write(text + "\n")

    def close(self):
        self.board.close()


def _client(line):
    client = Client(line, timeout=HANG_S)
    client.hello()
    return client


def _args(action, **more):
    a = argparse.Namespace(action=action, seconds=0, once=False, step=None, auto=None,
                           delay=0, pads=None, hold=2.0)
    for k in more:
        setattr(a, k, more[k])
    return a


def _run(line, args, wait=None):
    out = io.StringIO()
    code = bringup.cmd_diag(args, _client(line), out=out, wait=wait or (lambda text, s: None))
    return code, out.getvalue()


def test_scan_names_the_missing_pad_controller(tmp_path):
    line = BoardLine(tmp_path, chips="5a")
    try:
        code, out = _run(line, _args("scan"))
    finally:
        line.close()
    assert code == 1
    assert "Pad controller 0x5B not found: check its ADDR wiring (ADDR to 3.3V (VCC)) and " \
           "SDA/SCL (GP4/GP5); the bus has 0x5A." in out, out
    assert "0x5A not found" not in out


def test_scan_lists_unexpected_chips_as_unexpected(tmp_path):
    line = BoardLine(tmp_path, chips="5a,5b,5d")  # a duo board with a stray device at 0x5D
    try:
        code, out = _run(line, _args("scan"))
    finally:
        line.close()
    assert code == 0
    assert out.splitlines() == [
        "Pad controllers expected: 0x5A, 0x5B; answering: 0x5A, 0x5B, 0x5D.",
        "Unexpected on the bus: 0x5D answers but is not in the profile (another I2C device at a "
        "pad controller's address, or a profile that lists too few pad controllers).",
        "Every pad controller of the profile answers."]


def test_the_sim_models_only_the_profiles_chips(tmp_path, capsys):
    from test_host_sim import Sim
    sim = Sim(tmp_path).start()
    try:
        from mancala_host.commands import cli
        assert cli.main(["--port", sim.link, "diag"]) == 0
    finally:
        sim.stop()
    assert capsys.readouterr().out.splitlines() == [
        "Pad controllers expected: 0x5A, 0x5B; answering: 0x5A, 0x5B.",
        "Every pad controller of the profile answers."]


def test_walk_frames_follow_the_chain_order(tmp_path):
    line = BoardLine(tmp_path, profile="quad")
    shown = []
    begin = line.frames_size()  # the game's frames before the walk are not part of it
    end = []

    def wait(text, seconds):
        shown.append(text)
        end[:] = [line.frames_size()]  # after the last step comes `stop`: the game again

    try:
        code, out = _run(line, _args("walk"), wait=wait)
    finally:
        line.close()
    assert code == 0 and out.endswith("Walk done.\n")
    # the order the frames light the rings in: (pin, index of the white marker)
    lit = []
    with open(line.frames) as f:
        f.seek(begin)
        text = f.read(end[0] - begin)
        for row in text.splitlines():
            frame = json.loads(row)
            px = bytes.fromhex(frame["grb"])
            for i in range(len(px) // 3):
                if px[3 * i] and px[3 * i] == px[3 * i + 1] == px[3 * i + 2]:
                    if not lit or lit[-1] != (frame["pin"], i):
                        lit.append((frame["pin"], i))
    with open(os.path.join(PROFILES, "quad.json")) as f:
        raw = json.load(f)
    rings = sorted((r["ring"]["chain"], r["ring"]["start"], pid) for pid, r in raw["positions"].items())
    pins = [c["pin"] for c in raw["led_chains"]]
    assert lit == [(pins[c], start) for c, start, pid in rings]
    assert [t.split(" ")[2].rstrip(":") for t in shown] == [pid for c, s, pid in rings]


def test_pad_readout_shows_a_touch(tmp_path):
    line = BoardLine(tmp_path)
    try:
        client = _client(line)
        line.put_touch("5a 2 1")  # pad 0.3
        for _ in range(20):  # until the model has shown the finger to the filters
            rows = {r[0]: r for r in client.request("diag", action="readout")["pads"]}
            if rows["0.3"][3]:
                break
        out = io.StringIO()
        assert bringup.cmd_diag(_args("pads", once=True), client, out=out) == 0
    finally:
        line.close()
    bars = {ln.split()[0]: ln for ln in out.getvalue().splitlines()}
    assert len(bars) == 16
    assert bars["0.3"].endswith("delta   40  TOUCHED"), bars["0.3"]
    bar = bars["0.3"].split()[1]  # 40 of 60 counts = 20 of 30 cells; '|' marks touch 12
    assert len(bar) == 30 and bar.index("|") == 6 and bar.count("#") == 19, bar
    assert bars["0.4"].endswith("delta    0") and "#" not in bars["0.4"], bars["0.4"]


def test_calibration_survives_a_restart(tmp_path):
    line = BoardLine(tmp_path)
    touched = []

    def wait(text, seconds):
        for pid in touched:  # the maker lets go of the previous pad at every message
            line.put_touch("5a %d 0" % (int(pid[2]) - 1))
        del touched[:]
        if text.startswith("Touch pad "):
            pid = text.split()[2]
            touched.append(pid)
            line.put_touch("5a %d 1" % (int(pid[2]) - 1))

    try:
        code, out = _run(line, _args("calibrate", pads="0.3,0.6", hold=0.4), wait=wait)
    finally:
        line.close()
    assert code == 0, out
    assert "pad 0.3  touch  20  release  10" in out and "pad 0.6  touch  20  release  10" in out
    # a new board process: the thresholds come back from the flash file at boot
    line = BoardLine(tmp_path)
    try:
        code, out = _run(line, _args("thresholds"))
    finally:
        line.close()
    rows = [ln.split() for ln in out.splitlines()]
    assert ["pad", "0.3", "touch", "20", "release", "10"] in rows, out
    assert ["pad", "0.6", "touch", "20", "release", "10"] in rows, out
    assert ["pad", "0.4", "touch", "12", "release", "6"] in rows, out


def test_calibration_names_a_pad_that_does_not_react(tmp_path):
    line = BoardLine(tmp_path)
    try:
        # nobody touches pad 0.5 (a broken wire): it is named, nothing is changed for it
        code, out = _run(line, _args("calibrate", pads="0.5", hold=0.3))
        rows = _run(line, _args("thresholds"))[1].splitlines()
    finally:
        line.close()
    assert code == 1
    assert "Pad 0.5 changed by only 0 counts when touched (noise 0): press the whole pad" in out
    assert "pad 0.5  touch  12  release   6" in rows


def test_unknown_pad_is_one_sentence(tmp_path):
    line = BoardLine(tmp_path)
    try:
        with pytest.raises(BoardError) as e:
            _run(line, _args("calibrate", pads="0.9"))
    finally:
        line.close()
    assert str(e.value).startswith("This board has no pad 0.9; its pads are 0.1, 0.2,")


def test_pads_do_not_play_during_a_walk(tmp_path):
    line = BoardLine(tmp_path)
    b = line.board
    try:
        before = b.ok("state")["state"]
        assert b.ok("diag", action="walk", period_ms=5000)["steps"] == 16
        line.put_touch("5a 2 1")  # a finger on pad 0.3 during the walk
        for _ in range(50):  # until the board's chip has seen it
            if {r[0]: r[3] for r in b.ok("diag", action="readout")["pads"]}["0.3"]:
                break
        else:
            raise AssertionError("the touch never reached the MPR121 model")
        line.put_touch("5a 2 0")
        for _ in range(50):
            if not {r[0]: r[3] for r in b.ok("diag", action="readout")["pads"]}["0.3"]:
                break
        assert b.ok("state")["state"] == before and not b.take_events("move")
        assert b.ok("diag", action="stop")["active"] is False
        b.touch(0x5A, 2)  # the same pad after `stop` plays: Kalah seats 0.2-0.7, so pit 2
        move = b.wait_event("move")
        assert (move["seat"], move["pit"], move["source"]) == (0, 2, "pad")
    finally:
        line.close()


def test_memory_reports_the_heap(tmp_path):
    line = BoardLine(tmp_path)
    try:
        code, out = _run(line, _args("memory"))
    finally:
        line.close()
    assert code == 0
    m = re.fullmatch(r"Heap: (\d+) bytes free, (\d+) in use; the lowest free since the board "
                     r"started: (\d+) bytes\.\n", out)
    assert m, out
    free, alloc, low = (int(g) for g in m.groups())
    assert 0 < low <= free and alloc > 0
