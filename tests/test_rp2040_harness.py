"""The emulated Pico (`mancala-board sim --target rp2040`): the launcher's checks and the
harness's own pieces (sim/rp2040/): boot over USB CDC, the I2C bus, the flash.

The game suites on the emulated Pico live elsewhere; these stay short, because emulated
time costs about 3 host seconds per second while the chip computes.
"""
import hashlib
import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import threading

import pytest

from conftest import ROOT
from test_sim_helpers import one_sentence

from mancala_host.sim import launcher, rp2040

MIRROR = os.environ.get(rp2040.MIRROR_ENV) or os.path.join(ROOT, "build", "rp2")
TIMEOUT = 60.0  # host seconds; reached only when something is broken

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
    (["--target", "rp2040", "--blank", "--image", "x.uf2"], "do not go together"),
])
def test_options_of_the_other_target_are_refused_in_one_sentence(capsys, args, says):
    assert launcher.main(["--stdio"] + args) == 2
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
    assert launcher.main(["--stdio", "--target", "rp2040", "--flash", str(tmp_path / "f")]) == 2
    assert says in one_sentence(capsys.readouterr().err)


def test_the_deploy_files_land_in_a_littlefs_the_rp2_port_mounts(tmp_path):
    """The rp2 port's geometry, and exactly what deploy stages (lib .mpy, main.py, profile)."""
    profile = os.path.join(ROOT, "hardware", "profiles", "duo.json")
    files = rp2040.deploy_files(ROOT, profile, None)
    assert "main.py" in files and "profile.json" in files
    assert all(p.endswith(".mpy") for p in files if p.startswith("lib/"))
    assert files["lib/mancala/__init__.mpy"][:1] == b"M"  # a .mpy, compiled for the Pico
    flash = tmp_path / "flash.bin"
    rp2040.prepare_flash(str(flash), files)
    data = flash.read_bytes()
    assert len(data) == rp2040.FLASH_SIZE
    assert data[:rp2040.FS_OFFSET] == b"\xff" * rp2040.FS_OFFSET
    fs = rp2040._littlefs(data[rp2040.FS_OFFSET:])
    with fs.open("lib/mancala/__init__.mpy", "rb") as f:
        assert f.read() == files["lib/mancala/__init__.mpy"]
    # A restart with the same files leaves the flash exactly as it was.
    rp2040.prepare_flash(str(flash), files)
    assert flash.read_bytes() == data
    # A changed file is rewritten, the rest of the filesystem kept.
    with fs.open("saved.json", "wb") as f:
        f.write(b"{}")
    fs.unmount()
    data = bytearray(data)
    data[rp2040.FS_OFFSET:] = fs.context.buffer
    flash.write_bytes(bytes(data))
    changed = dict(files, **{"main.py": b"print('changed')\n"})
    rp2040.prepare_flash(str(flash), changed)
    fs = rp2040._littlefs(flash.read_bytes()[rp2040.FS_OFFSET:])
    with fs.open("main.py", "rb") as f:
        assert f.read() == b"print('changed')\n"
    with fs.open("saved.json", "rb") as f:
        assert f.read() == b"{}"


# ------------------------------------------------------------------ the emulated board
class Pico:
    """`mancala-board sim --target rp2040 --stdio` as a child process, JSON lines both ways."""

    def __init__(self, flash, *args, trace=None):
        argv = [sys.executable, "-m", "mancala_host.cli", "sim", "--target", "rp2040",
                "--stdio", "--flash", str(flash)] + list(args)
        if trace:
            argv += ["--trace", str(trace)]
        env = dict(os.environ)
        env.setdefault(rp2040.MIRROR_ENV, MIRROR)
        self.stderr = open(os.path.join(str(flash) + ".stderr"), "ab")
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.stderr, env=env, cwd=ROOT, bufsize=0)
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self._id = 0

    def _read(self):
        for raw in iter(self.proc.stdout.readline, b""):
            self.lines.put(raw)
        self.lines.put(None)

    def next(self):
        raw = self.lines.get(timeout=TIMEOUT)
        assert raw is not None, "the emulated Pico ended"
        return json.loads(raw)

    def wait_event(self, name):
        while True:
            msg = self.next()
            if msg.get("event") == name:
                return msg

    def request(self, cmd, **args):
        self._id += 1
        msg = dict(args, id=self._id, cmd=cmd)
        self.proc.stdin.write(json.dumps(msg).encode() + b"\n")
        while True:
            answer = self.next()
            if answer.get("id") == self._id:
                return answer

    def kill(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()
        self.stderr.close()

    def close(self):
        if self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.stderr.close()


@pytest.fixture
def pico(tmp_path):
    boards = []

    def start(*args, trace=None, flash=None):
        board = Pico(flash or tmp_path / "flash", *args, trace=trace)
        boards.append(board)
        return board
    yield start
    for board in boards:
        board.close()


def trace_lines(path):
    with open(path) as f:
        return [json.loads(line) for line in f]


@needs_emulator
def test_duo_boots_answers_hello_and_its_scan_finds_every_chip(pico, tmp_path):
    trace = tmp_path / "trace.jsonl"
    board = pico("--profile", "duo", trace=trace)
    assert board.wait_event("boot")["board"] == "duo"
    hello = board.request("hello")
    assert hello["ok"] and hello["board"] == "duo"
    scan = board.request("diag", action="scan")
    assert scan["ok"] and scan["missing"] == []
    assert {"0x5A", "0x5B"} <= set(scan["found"])
    kinds = [(line["kind"], line.get("line", "")) for line in trace_lines(trace)]
    hello_in = [i for i, (k, text) in enumerate(kinds) if k == "serial_in" and '"hello"' in text]
    hello_out = [i for i, (k, text) in enumerate(kinds)
                 if k == "serial_out" and '"commands"' in text]
    assert hello_in and hello_out and hello_in[0] < hello_out[0]
    times = [line["t_us"] for line in trace_lines(trace) if line["kind"] != "frame"]
    assert times == sorted(times)  # one emulated clock
