"""The emulated Pico (`mancala-board sim --target rp2040`): the launcher's checks and the
harness's own pieces (sim/rp2040/): boot over USB CDC, the I2C bus, the flash.

The game suites on the emulated Pico live elsewhere; these stay short, because emulated
time costs about 3 host seconds per second while the chip computes.
"""
import hashlib
import json
import os
import queue
import re
import shutil
import subprocess
import sys
import threading

import pytest

import firmware_image
from boardsim import PICO_TIMEOUT, Board, read_back
from conftest import ROOT
from test_sim_helpers import one_sentence

from mancala_host.commands import cli
from mancala_host.sim import launcher, rp2040
from mancala_host.sim.devices import Devices

MIRROR = os.environ.get(rp2040.MIRROR_ENV) or os.path.join(ROOT, "build", "rp2")
# host seconds; reached only when something is broken (a line at load 24 took longer than 60)
TIMEOUT = PICO_TIMEOUT

needs_emulator = pytest.mark.skipif(
    not os.path.isfile(os.path.join(MIRROR, rp2040.IMAGE))
    or not os.path.isdir(os.path.join(rp2040.HARNESS_DIR, "node_modules", "rp2040js")),
    reason="the RP2040 image (MANCALA_RP2_MIRROR) or rp2040js (make rp2040) is missing")


# ------------------------------------------------------------------ launcher checks
@pytest.mark.parametrize("args, says", [
    (["--target", "rp2040", "--heapsize", "200k"], "--heapsize is for the unix target"),
    (["--target", "rp2040", "--source"], "--source is for the unix target"),
    (["--trace", "t.jsonl"], "--trace needs --target rp2040"),
    (["--blank"], "--blank needs --target rp2040"),
    (["--pace", "free"], "--pace needs --target rp2040"),
])
def test_options_of_the_other_target_are_refused_in_one_sentence(capsys, args, says):
    assert cli.main(["sim", "--stdio"] + args) == 2
    assert says in one_sentence(capsys.readouterr().err)


def _mirror(tmp_path, image=b"uf2 bytes", listed=None):
    folder = tmp_path / "mirror"
    folder.mkdir()
    (folder / rp2040.IMAGE).write_bytes(image)
    (folder / rp2040.BOOTROM).write_bytes(b"rom")
    sums = {rp2040.IMAGE: hashlib.sha256(b"uf2 bytes").hexdigest(),
            rp2040.BOOTROM: hashlib.sha256(b"rom").hexdigest()}
    if listed is not None:
        sums = listed
    (folder / "SHA256SUMS").write_text("".join("%s  %s\n" % (h, n) for n, h in sums.items()))
    return folder


def test_a_good_image_passes_its_check(tmp_path):
    folder = _mirror(tmp_path)
    assert rp2040.checked(str(folder), rp2040.IMAGE) == str(folder / rp2040.IMAGE)


@pytest.mark.parametrize("case, says", [
    ("wrong", "does not match its sha256"),
    ("unlisted", "lists no sha256"),
    ("missing", "is missing"),
])
def test_a_missing_or_wrong_image_is_one_sentence(tmp_path, monkeypatch, capsys, case, says):
    if case == "wrong":
        folder = _mirror(tmp_path, image=b"something else")
    elif case == "unlisted":
        folder = _mirror(tmp_path, listed={rp2040.BOOTROM: hashlib.sha256(b"rom").hexdigest()})
    else:
        folder = _mirror(tmp_path)
        os.remove(folder / rp2040.IMAGE)
    monkeypatch.setenv(rp2040.MIRROR_ENV, str(folder))
    assert cli.main(["sim", "--stdio", "--target", "rp2040", "--flash", str(tmp_path / "f")]) == 2
    assert says in one_sentence(capsys.readouterr().err)


def test_a_flash_file_of_the_wrong_size_is_refused_not_erased(tmp_path):
    flash = tmp_path / rp2040.FLASH_FILE
    flash.write_bytes(b"precious" * 100)
    with pytest.raises(launcher.UsageError, match="is not a Pico flash image"):
        rp2040.prepare_flash(str(flash), rp2040.littlefs_image({"main.py": b"pass\n"}))
    assert flash.read_bytes() == b"precious" * 100


def test_the_deploy_files_land_in_a_littlefs_the_rp2_port_mounts(tmp_path):
    """The rp2 port's geometry, and exactly what deploy stages (lib .mpy, main.py, profile,
    the endgame tables)."""
    from mancala_host.solver import tables
    profile = os.path.join(ROOT, "hardware", "profiles", "duo.json")
    files = rp2040.deploy_files(ROOT, profile, None)
    assert "main.py" in files and "profile.json" in files
    assert files["tables/kalah-10.bin"] == tables.build(*tables.PRESETS["kalah"])
    assert len(files["tables/kalah-empty-capture-10.bin"]) == 323339
    assert all(p.endswith(".mpy") for p in files if p.startswith("lib/"))
    assert files["lib/mancala/__init__.mpy"][:1] == b"M"  # a .mpy, compiled for the Pico
    flash = tmp_path / "flash.bin"
    rp2040.prepare_flash(str(flash), rp2040.littlefs_image(files))
    data = flash.read_bytes()
    assert len(data) == rp2040.FLASH_SIZE
    assert data[:rp2040.FS_OFFSET] == b"\xff" * rp2040.FS_OFFSET
    fs = rp2040._littlefs(data[rp2040.FS_OFFSET:])
    with fs.open("lib/mancala/__init__.mpy", "rb") as f:
        assert f.read() == files["lib/mancala/__init__.mpy"]
    # A restart with the same files leaves the flash exactly as it was.
    rp2040.prepare_flash(str(flash), rp2040.littlefs_image(files))
    assert flash.read_bytes() == data
    # A changed file is rewritten, the rest of the filesystem kept.
    with fs.open("saved.json", "wb") as f:
        f.write(b"{}")
    fs.unmount()
    data = bytearray(data)
    data[rp2040.FS_OFFSET:] = fs.context.buffer
    flash.write_bytes(bytes(data))
    changed = dict(files, **{"main.py": b"print('changed')\n"})
    rp2040.prepare_flash(str(flash), rp2040.littlefs_image(changed))
    fs = rp2040._littlefs(flash.read_bytes()[rp2040.FS_OFFSET:])
    with fs.open("main.py", "rb") as f:
        assert f.read() == b"print('changed')\n"
    with fs.open("saved.json", "rb") as f:
        assert f.read() == b"{}"


# ------------------------------------------------------------------ the emulated board
def trace_lines(path):
    with open(path) as f:
        return [json.loads(line) for line in f]


@needs_emulator
@pytest.mark.parametrize("way", ["deploy", "image"])
@pytest.mark.parametrize("name", ["duo", "quad"])
def test_the_board_boots_answers_and_its_scan_finds_every_chip(tmp_path, name, way):
    """Both ways a board is made: the stock image with deploy's files, and the firmware image
    (make firmware) with only the profile on its flash."""
    from mancala_fw import profile as profiles

    prof = profiles.load(os.path.join(ROOT, "hardware", "profiles", name + ".json"))
    trace = tmp_path / "trace.jsonl"
    image = firmware_image.image() if way == "image" else None
    with Board(name, flash=str(tmp_path / "flash"), target="rp2040", image=image, frames=True,
               trace=str(trace)) as board:
        assert board.boot["board"] == name
        hello = board.request("hello")
        assert hello["ok"] and hello["board"] == name
        scan = board.request("diag", action="scan")
        assert scan["ok"] and scan["missing"] == [] and set(scan["expected"]) <= set(scan["found"])
        assert board.request("diag", action="stop")["ok"]
        if name == "duo":
            state = board.request("press", pit=3)["state"]
            # The animation ends on the new state; its last frames read back to it.
            for _ in range(200):
                if read_back(board.frames_path, prof, state) == (state["pits"], state["stores"]):
                    break
                threading.Event().wait(0.1)
            assert read_back(board.frames_path, prof, state) == (state["pits"], state["stores"])
    lines = trace_lines(trace)
    said = [(line["kind"], line.get("line", "")) for line in lines]
    hello_in = [i for i, (k, text) in enumerate(said) if k == "serial_in" and '"hello"' in text]
    hello_out = [i for i, (k, text) in enumerate(said)
                 if k == "serial_out" and '"commands"' in text]
    assert hello_in and hello_out and hello_in[0] < hello_out[0]
    times = [line["t_us"] for line in lines if line["kind"].startswith("serial")]
    assert times == sorted(times)  # one emulated clock


# ------------------------------------------------------------------ the harness alone
class Chip:
    """The harness (node sim/rp2040/harness.mjs) running a stand-in main.py on the stock
    image, with the device process's MPR121 models on I2C0 (GP4/GP5); lines of its output."""

    def __init__(self, folder, main_py, chips="5a,5b", irq=None, fresh=True, files=(),
                 pace="realtime"):
        self.folder = folder
        self.flash = os.path.join(folder, "flash.bin")
        if fresh:
            on_flash = {name: text.encode() for name, text in dict(files).items()}
            on_flash["main.py"] = main_py.encode()
            rp2040.prepare_flash(self.flash, rp2040.littlefs_image(on_flash))
        self.touch = os.path.join(folder, "touch.txt")
        self.trace = os.path.join(folder, "trace.jsonl")
        self.frames = os.path.join(folder, "frames.jsonl")
        open(self.touch, "a").close()
        env = dict(os.environ, MANCALA_SIM_TOUCH=self.touch, MANCALA_SIM_TRACE=self.trace,
                   MANCALA_SIM_FRAMES=self.frames, MANCALA_SIM_CHIPS=chips)
        argv = ["node", rp2040.HARNESS, "--bootrom", os.path.join(MIRROR, rp2040.BOOTROM),
                "--image", os.path.join(MIRROR, rp2040.IMAGE), "--flash", self.flash,
                "--i2c", "0:4:5", "--trace", self.trace, "--pace", pace]
        if irq is not None:
            argv += ["--irq", str(irq)]
        self.devices = Devices(env)
        self.stderr = open(os.path.join(folder, "stderr.txt"), "ab")
        try:
            self.proc = subprocess.Popen(argv, env=env, stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, stderr=self.stderr,
                                         pass_fds=self.devices.fds)
        finally:
            self.devices.handed_over()
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for raw in iter(self.proc.stdout.readline, b""):
            self.lines.put(raw.decode("utf-8", "replace").rstrip("\r\n"))
        self.lines.put(None)

    def line(self, starts):
        """The next output line that starts with `starts` (earlier ones are skipped)."""
        while True:
            text = self.lines.get(timeout=TIMEOUT)
            assert text is not None, "the harness ended: " + self.stderr_text()
            if "Traceback" in text:
                rest = []
                while len(rest) < 8 and not self.lines.empty():
                    rest.append(self.lines.get() or "")
                raise AssertionError("main.py failed: " + " / ".join([text] + rest))
            if text.startswith(starts):
                return text.split()

    def stderr_text(self):
        with open(os.path.join(self.folder, "stderr.txt")) as f:
            return f.read()

    def kill(self):
        self.proc.kill()
        self.proc.wait()
        self.devices.stop()
        self.stderr.close()


@pytest.fixture
def chip(tmp_path):
    chips = []

    def start(main_py, **kw):
        c = Chip(str(tmp_path), main_py, **kw)
        chips.append(c)
        return c
    yield start
    for c in chips:
        if c.proc.poll() is None:
            c.kill()


def drivers():
    """The firmware's drivers, as sources for lib/ on a test flash: the files their
    package.json installs (the drivers package and mpcompat, which both drivers import)."""
    folder = os.path.join(ROOT, "firmware", "lib", "drivers")
    with open(os.path.join(folder, "package.json")) as f:
        urls = json.load(f)["urls"]
    out = {}
    for dest, src in urls:
        with open(os.path.normpath(os.path.join(folder, src))) as f:
            out["lib/" + dest] = f.read()
    return out


I2C_SETUP = """
import machine, time
i2c = machine.I2C(0, sda=machine.Pin(4), scl=machine.Pin(5), freq=400000)
"""


@needs_emulator
def test_a_missing_chip_is_eio_and_the_next_transfer_works(chip):
    """A NAK fails that transfer with EIO, as on a Pico; the controller goes on."""
    c = chip(I2C_SETUP + """
print("scan", " ".join(hex(a) for a in i2c.scan()))
for addr in (0x5B, 0x5A, 0x5B, 0x5A):
    try:
        print("read", hex(addr), i2c.readfrom_mem(addr, 0x5D, 1)[0])
    except OSError as e:
        print("read", hex(addr), "OSError", e.args[0])
""", chips="5a")
    assert c.line("scan") == ["scan", "0x5a"]
    for _ in range(2):
        assert c.line("read") == ["read", "0x5b", "OSError", "5"]
        assert c.line("read") == ["read", "0x5a", str(0x24)]  # CONFIG2 at its reset value


@needs_emulator
def test_the_chips_answer_only_on_the_profiles_pins(chip):
    """The models sit on GP4/GP5: I2C0 routed to GP0/GP1 reaches nothing."""
    c = chip("""
import machine
for sda, scl in ((0, 1), (4, 5)):
    i2c = machine.I2C(0, sda=machine.Pin(sda), scl=machine.Pin(scl), freq=400000)
    try:
        print("pins", sda, scl, i2c.readfrom_mem(0x5A, 0x5D, 1)[0])
    except OSError as e:
        print("pins", sda, scl, "OSError", e.args[0])
""")
    assert c.line("pins") == ["pins", "0", "1", "OSError", "5"]
    assert c.line("pins") == ["pins", "4", "5", str(0x24)]


@needs_emulator
def test_the_irq_line_falls_on_a_touch_and_rises_when_the_status_is_read(chip):
    c = chip(I2C_SETUP + """
irq = machine.Pin(6, machine.Pin.IN)
i2c.writeto_mem(0x5A, 0x41, bytes([12, 6]))   # electrode 0: touch 12, release 6
i2c.writeto_mem(0x5A, 0x5E, b"\\x01")          # run mode, electrode 0
i2c.readfrom_mem(0x5A, 0x00, 2)
print("ready", irq.value())
while irq.value():
    time.sleep_ms(1)
print("irq", irq.value(), i2c.readfrom_mem(0x5A, 0x00, 1)[0])
time.sleep_ms(3)
print("after", irq.value())
""", irq=6)
    assert c.line("ready") == ["ready", "1"]
    with open(c.touch, "a") as f:
        f.write("5a 0 1\n")
    assert c.line("irq") == ["irq", "0", "1"]   # low, and electrode 0 touched
    assert c.line("after") == ["after", "1"]
    pads = [line for line in trace_lines(c.trace) if line["kind"] == "pad"]
    assert pads == [{"t_us": pads[0]["t_us"], "kind": "pad", "chip": "0x5a", "electrode": 0,
                     "on": True}]


FLASH_MAIN = """
import rp2, time
BLOCK = 300      # a block of the filesystem's region the fresh filesystem does not use
bdev = rp2.Flash()
buf = bytearray(4096)
bdev.readblocks(BLOCK, buf)
print("before", buf[0], buf[4095])
if buf[0] == 0xFF:
    t = time.ticks_us()
    bdev.ioctl(6, BLOCK)                               # erase the sector
    erase_us = time.ticks_diff(time.ticks_us(), t)
    for i in range(4096):
        buf[i] = i % 251
    t = time.ticks_us()
    bdev.writeblocks(BLOCK, buf)                        # 16 pages
    print("wrote", erase_us, time.ticks_diff(time.ticks_us(), t))
    while True:
        time.sleep_ms(100)
"""


@needs_emulator
def test_flash_writes_reach_the_file_and_survive_a_power_cut(chip):
    c = chip(FLASH_MAIN)
    assert c.line("before") == ["before", "255", "255"]
    _, erase_us, program_us = c.line("wrote")
    # The flash chip's typical times are charged to the emulated clock.
    assert int(erase_us) >= 45000 and int(program_us) >= 16 * 400
    c.kill()  # SIGKILL: a power cut
    with open(c.flash, "rb") as f:
        f.seek(rp2040.FS_OFFSET + 300 * 4096)
        data = f.read(4096)
    assert data == bytes(i % 251 for i in range(4096))
    again = chip(FLASH_MAIN, fresh=False)
    assert again.line("before") == ["before", "0", str(4095 % 251)]


@needs_emulator
def test_the_watchdog_reboots_the_chip_with_its_flash_kept(chip):
    c = chip("""
import machine, time
try:
    with open("boots") as f:
        n = int(f.read())
except OSError:
    n = 0
with open("boots", "w") as f:
    f.write(str(n + 1))
print("boot", n + 1, machine.reset_cause() == machine.WDT_RESET)
if n == 0:
    machine.WDT(timeout=100)
    while True:
        time.sleep_ms(10)
""")
    assert c.line("boot") == ["boot", "1", "False"]
    assert c.line("boot") == ["boot", "2", "True"]
    assert [line["cause"] for line in trace_lines(c.trace) if line["kind"] == "reset"] == \
        ["watchdog"]


# A firmware bug as a Pico meets it: a viper load of a word at an address that is 2 mod 4
# (what frozen native code at a halfword did), and a read where no device answers.
UNALIGNED_MAIN = """
import machine, micropython, time
print("boot", machine.reset_cause() == machine.WDT_RESET)
@micropython.viper
def peek(a: int) -> int:
    p = ptr32(a)
    return p[0]
print("aligned", peek(0x20000000) == machine.mem32[0x20000000])
if machine.reset_cause() != machine.WDT_RESET:
    machine.WDT(timeout=500)
    time.sleep_ms(200)
    peek(0x20000002)
    print("not reached")
"""
BAD_ADDRESS_MAIN = """
import machine, time
time.sleep_ms(100)  # USB is up: the line is not dropped
print("reading")
time.sleep_ms(200)  # and sent before the fault
print(machine.mem32[0x30000000])
print("not reached")
"""


def _fault_lines(c):
    """The harness's lines from the first HardFault on: the fault, then the lock-up."""
    said = c.stderr_text().splitlines()
    first = [i for i, line in enumerate(said) if "HardFault: " in line][:1]
    return said[first[0]:first[0] + 2] if first else []


@needs_emulator
def test_a_fault_with_no_watchdog_is_one_line_and_the_board_is_dead(chip):
    c = chip(BAD_ADDRESS_MAIN)
    assert c.line("reading") == ["reading"]
    assert c.proc.wait(timeout=TIMEOUT) == 3  # the harness's DEAD
    fault, lockup = _fault_lines(c)
    assert re.fullmatch(r"emulated Pico: HardFault: read of 0x30000000 where no device answers, "
                        r"at PC 0x1[0-9a-f]{7}", fault), fault
    assert lockup == ("emulated Pico: the core locked up in the HardFault handler, and no "
                      "watchdog is running: the board is dead")
    assert "not reached" not in c.stderr_text()
    kinds = [(t["kind"], t["line"]) for t in trace_lines(c.trace) if t["kind"] in ("fault", "lockup")]
    assert kinds == [("fault", fault[len("emulated Pico: "):]),
                     ("lockup", "the core locked up in the HardFault handler")]


@needs_emulator
def test_a_fault_with_the_watchdog_running_is_reset_by_it(chip):
    c = chip(UNALIGNED_MAIN)
    assert c.line("boot") == ["boot", "False"]
    assert c.line("aligned") == ["aligned", "True"]  # an aligned word loads as on the chip
    assert c.line("boot") == ["boot", "True"]        # the watchdog brought it back
    assert c.line("aligned") == ["aligned", "True"]
    fault, lockup = _fault_lines(c)
    assert re.fullmatch(r"emulated Pico: HardFault: unaligned 32-bit read of 0x20000002, at PC "
                        r"0x2[0-9a-f]{7}", fault), fault
    assert lockup == ("emulated Pico: the core locked up in the HardFault handler; the "
                      "watchdog will reset it")
    assert "reset by watchdog" in c.stderr_text()
    assert c.proc.poll() is None
    assert [t["cause"] for t in trace_lines(c.trace) if t["kind"] == "reset"] == ["watchdog"]


@needs_emulator
def test_sim_pty_ends_with_a_non_zero_exit_when_the_board_is_dead(tmp_path):
    main = tmp_path / "fault.py"
    main.write_text(BAD_ADDRESS_MAIN)
    proc = subprocess.run(
        [sys.executable, "-m", "mancala_host", "sim", "--target", "rp2040", "--pace", "free",
         "--main", str(main), "--flash", str(tmp_path / "flash"), "--pty", str(tmp_path / "b.pty")],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        timeout=TIMEOUT)
    assert proc.returncode == 3, proc.stderr
    said = proc.stderr.splitlines()
    assert len([x for x in said if "HardFault: read of 0x30000000" in x]) == 1, said
    assert said[-1] == "mancala-board sim: the board stopped with exit code 3"
    assert "Traceback" not in proc.stderr and not os.path.exists(str(tmp_path / "b.pty"))


@needs_emulator
def test_ws2812_frames_are_read_off_the_pin_in_pio_time(chip):
    """The firmware's WS2812 driver (PIO fed by DMA): the frame decoded from the pin's edges
    is the bytes sent. A state machine that is never switched on is never stepped: its
    program would pulse pin 3 every 16 ms, and each pulse would read as a frame there."""
    c = chip("""
import rp2, machine, time
@rp2.asm_pio(set_init=rp2.PIO.OUT_LOW)
def pulse():
    set(pins, 1)
    set(pins, 0)[31]
off = rp2.StateMachine(7, pulse, freq=2000, set_base=machine.Pin(3))
from drivers.ws2812 import WS2812
leds = WS2812((2,), (2,), sm_base=0)
leds.buffer(0)[:] = bytes([0x12, 0x34, 0xA5, 0xFF, 0x00, 0x81])
leds.show(0)
time.sleep_ms(40)
print("done")
""", files=drivers())
    c.line("done")
    with open(c.frames) as f:
        frames = [json.loads(line) for line in f]
    assert frames == [{"pin": 2, "grb": "1234a5ff0081"}]
    traced = [line for line in trace_lines(c.trace) if line["kind"] == "frame"]
    assert [(t["pin"], t["grb"]) for t in traced] == [(2, "1234a5ff0081")]


@needs_emulator
def test_the_same_program_gives_the_same_emulated_times(tmp_path):
    """Emulated time only: computing, I2C, flash writes, DMA and PIO give the same trace
    whether the harness waits in step with the host's clock or skips every wait."""
    main_py = I2C_SETUP + """
import rp2
from drivers.ws2812 import WS2812
leds = WS2812((2, 3), (24, 24))
bdev = rp2.Flash()
for step in range(3):
    status = i2c.readfrom_mem(0x5A, 0x00, 2)
    x = 0
    for i in range(2000 * (step + 1)):
        x += i * i
    leds.buffer(step % 2)[step] = 0x40
    leds.show_all()
    bdev.ioctl(6, 300)
    bdev.writeblocks(300, bytes([step]) * 4096)
    time.sleep_ms(7)
    print("step", step, x, status[0])
print("done")
while True:  # no REPL banner racing the kill
    time.sleep_ms(100)
"""
    traces = []
    for pace in ("realtime", "free"):
        folder = tmp_path / pace
        folder.mkdir()
        c = Chip(str(folder), main_py, files=drivers(), pace=pace)
        try:
            c.line("done")
        finally:
            c.kill()
        lines = trace_lines(c.trace)
        end = [line.get("line") for line in lines].index("done")
        traces.append(lines[:end + 1])
    assert [line["kind"] for line in traces[0]].count("frame") == 6
    assert traces[0] == traces[1]


@pytest.mark.skipif(shutil.which("node") is None, reason="no Node.js (make rp2040)")
def test_erase_time_follows_how_the_rom_erases():
    """4 KB sectors at 45 ms, an aligned 64 KB block in one 150 ms command."""
    flash_mjs = os.path.join(rp2040.HARNESS_DIR, "flash.mjs")
    script = ("import { eraseNanos } from %s;\n"
              "console.log(JSON.stringify([[0, 4096], [0, 65536], [4096, 65536], [0, 69632],"
              " [65536, 131072]].map(([o, n]) => eraseNanos(o, n, 65536) / 1e6)));"
              % json.dumps("file://" + flash_mjs))
    out = subprocess.run(["node", "--input-type=module", "-e", script], capture_output=True,
                         text=True, check=True).stdout
    assert json.loads(out) == [45, 150, 16 * 45, 150 + 45, 300]
