"""The firmware image (make firmware) on the emulated Pico: a Pico just flashed with it boots
with the image's own profile, and `mancala-board profile install` changes it over USB, to stay."""
import os
import signal
import subprocess
import sys
import time

import pytest

import firmware_image
from conftest import ROOT
from mancala_host.commands import cli
from mancala_host.link.session import open_client
from mancala_host.sim import rp2040

needs_emulator = pytest.mark.skipif(
    not os.path.isdir(os.path.join(rp2040.HARNESS_DIR, "node_modules", "rp2040js")),
    reason="rp2040js is not installed (make rp2040)")
BOOT_S = 120.0  # host seconds; an emulated boot takes a few, on a loaded machine many more


class ImageBoard:
    """`mancala-board sim --target rp2040 --image UF2 --blank` on a kept flash, with its pty."""

    def __init__(self, image, flash, link):
        self.image, self.flash, self.link = image, flash, link
        self.proc = None

    def start(self):
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "mancala_host", "sim", "--target", "rp2040", "--image", self.image,
             "--blank", "--flash", self.flash, "--pty", self.link],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.proc.stdout.readline()  # "virtual board ... on LINK": the pty is there
        return self

    def hello(self):
        end = time.monotonic() + BOOT_S
        while True:
            try:
                client = open_client(self.link, 10.0)
            except Exception:
                if time.monotonic() > end or self.proc.poll() is not None:
                    raise
                time.sleep(0.5)
                continue
            answer = client.hello_answer
            client.close()
            return answer

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


@pytest.fixture
def image_board(tmp_path):
    boards = []

    def start():
        board = ImageBoard(firmware_image.image(), str(tmp_path / "flash"), str(tmp_path / "board.pty"))
        boards.append(board)
        return board.start()

    yield start
    for board in boards:
        board.stop()


@needs_emulator
def test_a_pico_just_flashed_boots_duo_until_a_profile_is_installed(image_board, capsys):
    board = image_board()
    hello = board.hello()
    assert (hello["board"], hello["firmware"], hello["sides"]) == ("duo", "0.1.0", 2)
    assert cli.main(["--port", board.link, "--timeout", "30", "profile", "install", "quad"]) == 0
    out = capsys.readouterr().out
    assert "now boots with profile quad" in out and "profile.json" in out
    assert board.hello()["board"] == "quad"
    # the profile is on the flash: it stays through a power cut
    board.stop()
    assert image_board().hello()["board"] == "quad"


def test_a_broken_profile_is_refused_before_anything_is_written(tmp_path, capsys):
    bad = tmp_path / "mine.json"
    bad.write_text(open(os.path.join(ROOT, "hardware", "profiles", "quad.json")).read()
                   .replace('"sides": 4', '"sides": 5'))
    # the port does not exist: the check must come before any attempt to reach a board
    assert cli.main(["--port", str(tmp_path / "no-port"), "profile", "install", str(bad)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(str(bad) + ": profile quad: ") and err.endswith(
        "; nothing was written to the board.\n") and err.count("\n") == 1
    assert cli.main(["--port", str(tmp_path / "no-port"), "profile", "install", "hexa"]) == 1
    assert "There is no profile 'hexa': choose one of duo, quad" in capsys.readouterr().err
