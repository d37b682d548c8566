"""`mancala-board diag` (host_tools/mancala_host/bringup.py) against a board process running
the real self-test (firmware/lib/selftest) under the MicroPython unix port on the virtual
hardware (sim fakes: MPR121 models on the fake I2C, WS2812 frames captured). The board side
here is the app's diag wiring in miniature: profile, drivers, SelfTest, Protocol with `diag`.
Issue 6: the scan names a missing chip, the walk's frames follow the chain order, the readout
shows a touch, calibration survives a restart of the board."""
import argparse
import io
import json
import os
import queue
import subprocess
import threading

import pytest

from conftest import FIRMWARE_LIB, MICROPYTHON, ROOT
import fakeport  # noqa: F401  puts host_tools on sys.path

from mancala_host import bringup
from mancala_host.client import Client
from mancala_host.errors import BoardError
from mancala_host.transport import Transport

FAKES = os.path.join(ROOT, "host_tools", "mancala_host", "sim", "fakes")
PROFILES = os.path.join(ROOT, "hardware", "profiles")

BOARD = r'''
import sys
import machine
import profile
from time import ticks_ms
from drivers.mpr121 import MPR121Group
from drivers.ws2812 import WS2812
from protocol import Protocol
from selftest import Bringup

p = profile.load(sys.argv[1])
i2c = machine.I2C(p.i2c_id, scl=machine.Pin(p.scl), sda=machine.Pin(p.sda), freq=p.i2c_freq)
pads = MPR121Group(i2c, p.pad_chips)
leds = WS2812([c[0] for c in p.chains], [c[1] for c in p.chains])
flash = sys.argv[2]
bringup = Bringup(p, pads, leds, flash, log=lambda text: sys.stderr.write(text + "\n"))


def write(text):
    sys.stdout.write(text)


def hello(req):
    return {"protocol": 1, "firmware": "selftest-board", "board": p.name}


proto = Protocol(write, {"hello": hello, "diag": bringup.command})
while True:
    line = sys.stdin.readline()
    if not line:
        break
    if bringup.active():
        bringup.step(ticks_ms())  # the app's main loop does this between lines
    for b in line.encode():
        proto.feed(b)
'''


class BoardLine(Transport):
    """The board process's stdin/stdout as a transport."""

    name = "selftest-board"

    def __init__(self, tmp_path, profile="duo", chips=None):
        script = tmp_path / "board.py"
        script.write_text(BOARD)
        self.touch = tmp_path / "touch.txt"
        self.touch.touch()
        self.frames = tmp_path / "frames.jsonl"
        env = dict(os.environ)
        env["MICROPYPATH"] = os.pathsep.join([FAKES, FIRMWARE_LIB])
        env["MANCALA_SIM_TOUCH"] = str(self.touch)
        env["MANCALA_SIM_FRAMES"] = str(self.frames)
        if chips:
            env["MANCALA_SIM_CHIPS"] = chips
        self.proc = subprocess.Popen(
            [MICROPYTHON, "-X", "heapsize=2M", str(script),
             os.path.join(PROFILES, profile + ".json"), str(tmp_path) + "/"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            cwd=str(tmp_path), env=env)
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.put(line.rstrip(b"\n"))

    def write_line(self, data):
        self.proc.stdin.write(data + b"\n")
        self.proc.stdin.flush()

    def read_line(self, timeout):
        try:
            return self.lines.get(timeout=timeout)
        except queue.Empty:
            return None

    def put_touch(self, text):
        with open(self.touch, "a") as f:
            f.write(text + "\n")

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=10)


def _client(line):
    client = Client(line, timeout=10)
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


def test_walk_frames_follow_the_chain_order(tmp_path):
    line = BoardLine(tmp_path, profile="quad")
    shown = []
    try:
        code, out = _run(line, _args("walk"), wait=lambda text, s: shown.append(text))
    finally:
        line.close()
    assert code == 0 and out.endswith("Walk done.\n")
    # the order the frames light the rings in: (pin, index of the white marker)
    lit = []
    with open(line.frames) as f:
        for row in f:
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
