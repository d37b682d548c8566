"""The virtual-board fakes through the channels the sim launcher uses (docs/architecture.md
section 4): MANCALA_SIM_CHIPS, MANCALA_SIM_TOUCH (regular file and FIFO) and
MANCALA_SIM_FRAMES, with the real drivers running under the MicroPython unix port."""
import json
import os
import subprocess
import sys

import pytest

from conftest import FIRMWARE_LIB, MICROPYTHON, ROOT

FAKES = os.path.join(ROOT, "host_tools", "mancala_host", "sim", "fakes")

# Polls two chips every 2 ms and prints each change of the masks; ends after "5a 11 1".
POLLER = r"""
import machine, time
from drivers.mpr121 import MPR121Group
i2c = machine.I2C(0, scl=machine.Pin(5), sda=machine.Pin(4))
print("scan", i2c.scan())
group = MPR121Group(i2c, (0x5A, 0x5B), retry_ms=0)
print("ready", group.poll())
last = None
for _ in range(5000):
    m = group.poll()
    if m != last:
        last = list(m)
        print("masks", last)
        if m[0] == 1 << 11:
            break
    time.sleep_ms(2)
"""


def _board(script, env, **kw):
    e = dict(os.environ)
    e["MICROPYPATH"] = os.pathsep.join([FAKES, FIRMWARE_LIB])
    e.update(env)
    return subprocess.Popen([MICROPYTHON, "-c", script], env=e, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **kw)


def _expect(proc, prefix):
    """Read lines until one starts with prefix (the board prints nothing else for long)."""
    for line in proc.stdout:
        if line.startswith(prefix):
            return line[len(prefix):].strip()
    raise AssertionError("board ended before %r: %s" % (prefix, proc.stderr.read()))


@pytest.mark.parametrize("kind", ["file", "fifo"])
def test_touch_commands_reach_the_driver(tmp_path, kind):
    path = str(tmp_path / "touch")
    if kind == "fifo":
        os.mkfifo(path)
        # Held open read-write like the launcher does, so writes never block.
        fd = os.open(path, os.O_RDWR | os.O_NONBLOCK)
        write = lambda text: os.write(fd, text.encode())  # noqa: E731
    else:
        open(path, "w").close()

        def write(text):
            with open(path, "a") as f:
                f.write(text)
    board = _board(POLLER, {"MANCALA_SIM_TOUCH": path, "MANCALA_SIM_CHIPS": "5a,5b"})
    try:
        assert _expect(board, "scan") == "[90, 91]"
        assert _expect(board, "ready") == "[0, 0]"
        assert _expect(board, "masks") == "[0, 0]"
        write("5b 3 1\n")
        assert _expect(board, "masks") == "[0, 8]"
        write("chip 5b off\n")
        assert _expect(board, "masks") == "[0, None]"
        write("chip 5b on\n5b 3 0\n")
        assert _expect(board, "masks") == "[0, 0]"  # replugged, re-initialised
        write("5a 11 1\n")
        assert _expect(board, "masks") == "[2048, 0]"
        assert board.wait(timeout=30) == 0, board.stderr.read()
    finally:
        board.kill()
        board.wait()
        if kind == "fifo":
            os.close(fd)


def test_absent_chips_are_not_on_the_bus():
    script = ("import machine\ni2c = machine.I2C(0)\nprint('scan', i2c.scan())\n"
              "try:\n    i2c.readfrom_mem(0x5b, 0, 2)\nexcept OSError as e:\n"
              "    print('error', e.args[0])\n")
    board = _board(script, {"MANCALA_SIM_CHIPS": "5a,5c"})
    assert _expect(board, "scan") == "[90, 92]"
    assert _expect(board, "error") == "5"
    board.wait(timeout=30)


def test_frames_are_appended_as_json_lines(tmp_path):
    path = tmp_path / "frames"
    script = ("from drivers.ws2812 import WS2812\nimport time\n"
              "leds = WS2812((2, 3), (2, 3))\n"
              "leds.buffer(0)[:] = b'\\x01\\x02\\x03\\x04\\x05\\x06'\n"
              "leds.buffer(1)[0] = 0xff\n"
              "leds.show_all()\n"
              "leds.buffer(0)[0] = 0x10\n"
              "leds.show(0)\n"
              "print('done')\n")
    board = _board(script, {"MANCALA_SIM_FRAMES": str(path)})
    assert _expect(board, "done") == ""
    board.wait(timeout=30)
    frames = [json.loads(line) for line in path.read_text().splitlines()]
    assert frames == [
        {"pin": 2, "grb": "010203040506"},
        {"pin": 3, "grb": "ff0000000000000000"},
        {"pin": 2, "grb": "100203040506"},
    ]
    assert "virtual board" not in board.stderr.read()  # no rp2 violations reported


def test_watchdog_starvation_is_reported_not_fatal():
    script = ("import machine, time\nw = machine.WDT(timeout=20)\nw.feed()\n"
              "time.sleep_ms(60)\nw.feed()\nprint('starved', machine.wdt_starved)\n"
              "try:\n    machine.WDT(timeout=9000)\nexcept ValueError as e:\n"
              "    print('limit', e)\n")
    board = _board(script, {})
    assert _expect(board, "starved") == "1"
    assert "8388" in _expect(board, "limit")
    board.wait(timeout=30)
    assert "would have reset" in board.stderr.read()


def test_fakes_import_under_cpython():
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([FAKES, FIRMWARE_LIB]))
    out = subprocess.run(
        [sys.executable, "-c", "import machine, rp2, neopixel\n"
                          "from drivers.mpr121 import MPR121\n"
                          "print(hex(MPR121(machine.I2C(0)).touched()))"],
        env=env, capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert out.stdout.strip() == "0x0", out.stderr
