"""The virtual-board fakes through the channels the sim launcher uses (docs/architecture.md
section 4): MANCALA_SIM_CHIPS, MANCALA_SIM_TOUCH (regular file and FIFO) and
MANCALA_SIM_FRAMES, with the real drivers running under the MicroPython unix port."""
import importlib.util
import json
import os
import subprocess
import sys
from contextlib import contextmanager

import pytest

from conftest import FIRMWARE_LIB, MICROPYTHON, MPY_CROSS, ROOT
from boardsim import Devices  # boardsim puts host_tools on sys.path
from waits import HANG_S

FAKES = os.path.join(ROOT, "host_tools", "mancala_host", "sim", "fakes")
_spec = importlib.util.spec_from_file_location("mpy_cache", os.path.join(FAKES, "mpy_cache.py"))
mpy_cache = importlib.util.module_from_spec(_spec)  # by path: the fakes stay off sys.path
_spec.loader.exec_module(mpy_cache)

# Polls two chips every 2 ms and prints each change of the masks; ends after "5a 11 1" (or
# after HANG_S, when something is broken).
POLLER = r"""
import machine, time
from drivers.mpr121 import MPR121Group
i2c = machine.I2C(0, scl=machine.Pin(5), sda=machine.Pin(4))
print("scan", i2c.scan())
group = MPR121Group(i2c, (0x5A, 0x5B), retry_ms=0)
print("ready", group.poll())
last = None
end = time.ticks_add(time.ticks_ms(), %d)
while time.ticks_diff(end, time.ticks_ms()) > 0:
    m = group.poll()
    if m != last:
        last = list(m)
        print("masks", last)
        if m[0] == 1 << 11:
            break
    time.sleep_ms(2)
""" % (HANG_S * 1000)


# After POLLER: whether the MPR121 register models were loaded into the board process.
MODELS_LOADED = "import sys\nprint('models', 'mpr121_model' in sys.modules)\n"


def _board(script, env, fakes=FAKES, heap="1M", **kw):
    e = dict(os.environ)
    e["MICROPYPATH"] = os.pathsep.join([fakes, FIRMWARE_LIB])
    e.update(env)
    return subprocess.Popen([MICROPYTHON, "-X", "heapsize=" + heap, "-c", script], env=e, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **kw)


def _expect(proc, prefix):
    """Read lines until one starts with prefix (the board prints nothing else for long)."""
    for line in proc.stdout:
        if line.startswith(prefix):
            return line[len(prefix):].strip()
    raise AssertionError("board ended before %r: %s" % (prefix, proc.stderr.read()))


def _touch_file(path):
    """Makes path an empty touch file (MANCALA_SIM_TOUCH); returns a function that appends
    lines to it, as the sim's key reader does."""
    open(path, "w").close()

    def write(text):
        with open(path, "a") as f:
            f.write(text)
    return write


@contextmanager
def _running(board, timeout):
    """The with-block runs beside board; then the board must end by itself, with status 0,
    within timeout seconds. It is killed in any case."""
    try:
        yield
        assert board.wait(timeout=timeout) == 0, board.stderr.read()
    finally:
        board.kill()
        board.wait()


def _with_devices(env):
    """env plus MANCALA_SIM_BUS to a fresh device process (sim/devices.py), as every sim
    board has it; returns (env, devices)."""
    full = dict(os.environ, **env)
    dev = Devices(full)
    return dict(env, MANCALA_SIM_BUS=full["MANCALA_SIM_BUS"]), dev


def _start(script, env, devices, **kw):
    """(board, devices): the board running script with env; with devices, beside a fresh
    device process as every sim board has it (_with_devices), else devices is None."""
    if not devices:
        return _board(script, env, **kw), None
    env, dev = _with_devices(env)
    try:
        board = _board(script, env, pass_fds=dev.fds, **kw)
    finally:
        dev.handed_over()
    return board, dev


@pytest.mark.parametrize("bus", ["in-process", "device process"])
@pytest.mark.parametrize("kind", ["file", "fifo"])
def test_touch_commands_reach_the_driver(tmp_path, kind, bus):
    path = str(tmp_path / "touch")
    if kind == "fifo":
        os.mkfifo(path)
        # Held open read-write like the launcher does, so writes never block.
        fd = os.open(path, os.O_RDWR | os.O_NONBLOCK)
        write = lambda text: os.write(fd, text.encode())  # noqa: E731
    else:
        write = _touch_file(path)
    env = {"MANCALA_SIM_TOUCH": path, "MANCALA_SIM_CHIPS": "5a,5b"}
    devices = bus == "device process"
    board, dev = _start(POLLER + MODELS_LOADED if devices else POLLER, env, devices)
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
        if dev is not None:
            assert _expect(board, "models") == "False"  # they ran outside the board
        assert board.wait(timeout=HANG_S) == 0, board.stderr.read()
    finally:
        board.kill()
        board.wait()
        if kind == "fifo":
            os.close(fd)
    if dev is not None:
        assert dev.proc.wait(timeout=HANG_S) == 0  # ended by itself when the board closed the pipe


def test_absent_chips_are_not_on_the_bus():
    script = ("import machine\ni2c = machine.I2C(0)\nprint('scan', i2c.scan())\n"
              "try:\n    i2c.readfrom_mem(0x5b, 0, 2)\nexcept OSError as e:\n"
              "    print('error', e.args[0])\n")
    board = _board(script, {"MANCALA_SIM_CHIPS": "5a,5c"})
    assert _expect(board, "scan") == "[90, 92]"
    assert _expect(board, "error") == "5"
    board.wait(timeout=HANG_S)


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
    board.wait(timeout=HANG_S)
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
    board.wait(timeout=HANG_S)
    assert "would have reset" in board.stderr.read()


def test_fakes_import_under_cpython():
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([FAKES, FIRMWARE_LIB]))
    out = subprocess.run(
        [sys.executable, "-c", "import machine, rp2, neopixel\n"
                          "from drivers.mpr121 import MPR121\n"
                          "print(hex(MPR121(machine.I2C(0)).touched()))"],
        env=env, capture_output=True, text=True, timeout=HANG_S, cwd=ROOT)
    assert out.stdout.strip() == "0x0", out.stderr


# What the fakes keep in the board's heap, measured as docs/drivers.md "Heap" says: the quad
# board's hardware (four MPR121 models with a touch file, four LED chains fed as the WS2812
# driver feeds them) after 100 frames and pad polls; the frame buffers are not counted.
HEAP_PROBE = r"""
import gc
gc.collect()
base = gc.mem_alloc()
import machine, rp2, simclock
simclock.freeze(0)
i2c = machine.I2C(0, scl=machine.Pin(5), sda=machine.Pin(4))
status = bytearray(2)
i2c.readfrom_mem_into(0x5A, 0, status)
# what the WS2812 driver does on a Pico, without the driver's code and buffers
@rp2.asm_pio(sideset_init=rp2.PIO.OUT_LOW, out_shiftdir=rp2.PIO.SHIFT_LEFT,
             autopull=True, pull_thresh=8, fifo_join=rp2.PIO.JOIN_TX)
def ws2812():
    wrap_target()
    label("bit")
    out(x, 1).side(0)[2]
    jmp(not_x, "zero").side(1)[1]
    jmp("bit").side(1)[4]
    label("zero")
    nop().side(0)[4]
    wrap()
bufs = [bytearray(360) for i in range(4)]
sms = [rp2.StateMachine(i, ws2812, freq=8000000, sideset_base=machine.Pin(i + 2)) for i in range(4)]
dmas = [rp2.DMA() for i in range(4)]
ctrls = [dmas[i].pack_ctrl(size=0, inc_write=False, treq_sel=i) for i in range(4)]
for sm in sms:
    sm.active(1)
def frames(n):
    for k in range(n):
        for i in range(4):
            bufs[i][k % 360] = k & 0xFF
            dmas[i].config(read=bufs[i], write=sms[i], count=360, ctrl=ctrls[i], trigger=True)
        i2c.readfrom_mem_into(0x5A, 0, status)
        simclock.advance_ms(20)
frames(3)
gc.collect()
before = gc.mem_alloc()
gc.disable()
frames(100)
per_frame = (gc.mem_alloc() - before) / 400
gc.enable()
del frames, ws2812, sm, bufs
gc.collect()
print("kept", gc.mem_alloc() - base)
print("per_frame", per_frame)
print("violations", len(rp2.violations), rp2.torn_frames)
"""


def _heap_probe(tmp_path, fakes, devices=False):
    """What the fakes keep: with devices, as a sim board has them (the MPR121 models in
    their device process); without, all of them in the board process."""
    touch = tmp_path / "touch"
    touch.write_text("")
    env = {"MANCALA_SIM_TOUCH": str(touch), "MANCALA_SIM_FRAMES": str(tmp_path / "frames")}
    board, dev = _start(HEAP_PROBE, env, devices, fakes=fakes)
    out = {}
    for key in ("kept", "per_frame", "violations"):
        out[key] = _expect(board, key)
    board.wait(timeout=HANG_S)
    if devices:
        dev.stop()
    lines = (tmp_path / "frames").read_text().splitlines()
    assert len(lines) == 4 * 103 and json.loads(lines[-1])["pin"] == 5
    assert out["violations"] == "0 0"
    return int(out["kept"]), float(out["per_frame"])


@pytest.mark.parametrize("devices", [False, True])
def test_led_frames_and_pad_polls_allocate_nothing(tmp_path, devices):
    # The DMA model, the frame line and the touch poll (in-process, or over the pipes to the
    # device process) reuse their buffers, so the fakes do not push the firmware into
    # garbage collections or a MemoryError.
    kept, per_frame = _heap_probe(tmp_path, FAKES, devices)
    assert per_frame < 16, "%.0f bytes allocated per LED frame" % per_frame


@pytest.mark.parametrize("devices,marker", [(False, "fakes-heap-kb"),
                                             (True, "fakes-board-heap-kb")])
def test_fakes_keep_what_the_docs_say(tmp_path, devices, marker):
    # docs/drivers.md gives these figures as the fakes' share of a heap measured in the sim:
    # all of them in one process (the in-process tests), and as a sim board has them.
    kept, _ = _heap_probe(tmp_path, FAKES, devices)
    print("%s: %d bytes" % (marker, kept))
    with open(os.path.join(ROOT, "docs", "drivers.md")) as f:
        text = f.read()
    documented = int(text.split("<!-- %s -->" % marker)[1].split()[0])
    assert kept <= documented * 1024, "the fakes keep %d bytes, more than the %d KB in " \
        "docs/drivers.md" % (kept, documented)


def test_precompiled_fakes_run_the_drivers(tmp_path):
    path = mpy_cache.fakes_path(MPY_CROSS, str(tmp_path))
    assert sorted(os.listdir(path)) == sorted(
        f[:-3] + ".mpy" for f in os.listdir(FAKES) if f.endswith(".py") and f != "mpy_cache.py")
    assert mpy_cache.fakes_path(MPY_CROSS, str(tmp_path)) == path  # reused, not rebuilt
    board = _board("import machine, rp2\nprint('from', machine.__file__, rp2.__file__)",
                   {}, fakes=path)
    assert _expect(board, "from").split() == [os.path.join(path, "machine.mpy"),
                                              os.path.join(path, "rp2.mpy")]
    board.wait(timeout=HANG_S)
    kept, per_frame = _heap_probe(tmp_path, path)
    assert per_frame < 16


def test_precompiled_fakes_follow_their_sources(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "simclock.py").write_text("x = 1\n")
    first = mpy_cache.fakes_path(MPY_CROSS, str(tmp_path), str(src))
    (src / "simclock.py").write_text("x = 2\n")
    second = mpy_cache.fakes_path(MPY_CROSS, str(tmp_path), str(src))
    assert first != second and os.listdir(second) == ["simclock.mpy"]
    (src / "simclock.py").write_text("x = (\n")
    with pytest.raises(mpy_cache.CacheError) as e:
        mpy_cache.fakes_path(MPY_CROSS, str(tmp_path), str(src))
    assert "simclock.py" in str(e.value)
    with pytest.raises(mpy_cache.CacheError) as e:
        mpy_cache.fakes_path(str(tmp_path / "no-mpy-cross"), str(tmp_path), str(src))
    assert "not found" in str(e.value)


# Waits in select.poll() on the pads' IRQ line (GP8) with a 60 s timeout: only the line's
# falling edge can end the wait early; then one read of the chips.
IRQ_WAITER = r"""
import machine, select, time
from drivers.mpr121 import MPR121Group
from drivers.irqline import IrqLine
i2c = machine.I2C(0, scl=machine.Pin(5), sda=machine.Pin(4))
irq = IrqLine(machine.Pin(8, machine.Pin.IN, machine.Pin.PULL_UP))
group = MPR121Group(i2c, (0x5A, 0x5B), irq=irq)
waiter = select.poll()
waiter.register(irq, select.POLLIN)
print("ready", group.poll(), irq.pending)
for _ in range(2):
    t = time.ticks_ms()
    woke = waiter.poll(60000)
    print("woke", len(woke), woke[0][0] is irq, irq.edges, time.ticks_diff(time.ticks_ms(), t) < 60000)
    print("masks", group.poll(), irq.due(time.ticks_ms()))
"""


@pytest.mark.parametrize("bus", ["in-process", "device process"])
def test_the_irq_line_wakes_the_wait_and_a_read_releases_it(tmp_path, bus):
    # MANCALA_SIM_IRQ=8, as the launcher sets it from the profile's i2c.irq: the fake Pin 8
    # is the MPR121 models' shared IRQ line, and its falling edge calls the IrqLine's handler.
    path = str(tmp_path / "touch")
    touch = _touch_file(path)
    env = {"MANCALA_SIM_TOUCH": path, "MANCALA_SIM_CHIPS": "5a,5b", "MANCALA_SIM_IRQ": "8"}
    board, dev = _start(IRQ_WAITER, env, bus == "device process")
    with _running(board, 30):
        assert _expect(board, "ready") == "[0, 0] False"
        touch("5b 3 1\n")
        # the wait ended on the edge (one edge seen), and the read finds the touch and
        # releases the line: nothing more is due
        assert _expect(board, "woke") == "1 True 1 True"
        assert _expect(board, "masks") == "[0, 8] False"
        touch("5b 3 0\n")
        assert _expect(board, "woke") == "1 True 2 True"
        assert _expect(board, "masks") == "[0, 0] False"
    if dev is not None:
        assert dev.proc.wait(timeout=10) == 0


POLL_ONLY = r"""
import machine, select, time
from drivers.mpr121 import MPR121Group
from drivers.irqline import IrqLine
i2c = machine.I2C(0, scl=machine.Pin(5), sda=machine.Pin(4))
irq = IrqLine(machine.Pin(8, machine.Pin.IN, machine.Pin.PULL_UP))
group = MPR121Group(i2c, (0x5A, 0x5B))
waiter = select.poll()
waiter.register(irq, select.POLLIN)
print("ready", group.poll())
print("woke", len(waiter.poll(300)), irq.edges)
for _ in range(500):
    if group.poll()[1]:
        break
    time.sleep_ms(2)
print("masks", group.poll())
"""


def test_without_the_irq_pin_only_the_poll_sees_a_touch(tmp_path):
    # No MANCALA_SIM_IRQ (a profile without i2c.irq): Pin 8 is a plain pin, so the wait runs
    # into its timeout although a finger is on a pad; polling still finds it.
    path = str(tmp_path / "touch")
    touch = _touch_file(path)
    board = _board(POLL_ONLY, {"MANCALA_SIM_TOUCH": path, "MANCALA_SIM_CHIPS": "5a,5b"})
    with _running(board, 30):
        assert _expect(board, "ready") == "[0, 0]"
        touch("5b 3 1\n")
        assert _expect(board, "woke") == "0 0"
        assert _expect(board, "masks") == "[0, 8]"
