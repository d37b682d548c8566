"""`mancala-board flash` (host_tools/mancala_host/flashing/flash.py) with a folder standing in for the Pico's
RPI-RP2 boot drive: the copy, and one sentence for each way it can go wrong."""
import collections
import os
import threading

import pytest

from fakeport import HELLO, FakePort
from firmware_image import make_uf2
from mancala_host.commands import cli
from mancala_host.flashing import flash, imagebuild
from mancala_host.link import session
from waits import HANG_S

RP2040_INFO = "UF2 Bootloader v3.0\nModel: Raspberry Pi RP2\nBoard-ID: RPI-RP2\n"
RP2350_INFO = "UF2 Bootloader v1.0\nModel: Raspberry Pi RP2350\nBoard-ID: RP2350\n"


def banner(version):
    return (b"3.4.0; MicroPython v1.28.0 on 2026-01-01\0; Mancala board %s (Raspberry Pi Pico) "
            b"with RP2040\0" % version.encode())


def drive(tmp_path, info=RP2040_INFO, name="RPI-RP2"):
    d = tmp_path / name
    d.mkdir()
    (d / "INFO_UF2.TXT").write_text(info)
    (d / "INDEX.HTM").write_text("<html></html>")
    return d


@pytest.fixture
def image(tmp_path):
    """Our image, as far as the checks can tell: 400 KB with a banner naming firmware 0.1.0."""
    path = tmp_path / "mancala-board-0.1.0.uf2"
    path.write_bytes(make_uf2(banner("0.1.0") + bytes(range(256)) * 800))
    return path


def flash_cli(*args):
    return cli.main(["--port", "fake", "--timeout", "0.3"] + ["flash"] + [str(a) for a in args])


def test_the_image_is_copied_whole_and_the_board_comes_back(tmp_path, image, monkeypatch, capsys):
    d = drive(tmp_path)
    monkeypatch.setattr(session, "open_transport", lambda name: FakePort({"hello": [HELLO]}))
    assert flash_cli(image, "--drive", d) == 0
    assert (d / image.name).read_bytes() == image.read_bytes()
    out = capsys.readouterr().out
    assert "Flashing %s (Mancala board 0.1.0) onto the Pico at %s" % (image, d) in out
    assert out.endswith("The board runs firmware 0.1.0, profile duo.\n")


def test_a_board_that_comes_back_with_other_firmware_is_one_sentence(tmp_path, monkeypatch, capsys):
    newer = tmp_path / "mancala-board-0.2.0.uf2"
    newer.write_bytes(make_uf2(banner("0.2.0") + bytes(4096)))
    monkeypatch.setattr(session, "open_transport", lambda name: FakePort({"hello": [HELLO]}))
    assert flash_cli(newer, "--drive", drive(tmp_path)) == 1
    err = capsys.readouterr().err
    assert err == ("The board reports firmware 0.1.0, but the image carries 0.2.0: the flash did "
                   "not take; hold BOOTSEL, plug it in again and flash again.\n")


def test_a_board_that_does_not_come_back_is_one_sentence(tmp_path, image, monkeypatch, capsys):
    monkeypatch.setattr(session, "open_transport", lambda name: FakePort({}))  # silent
    assert flash_cli(image, "--drive", drive(tmp_path), "--wait", "0.5") == 1
    err = capsys.readouterr().err
    assert err.startswith("The board did not come back after the flash (") and err.count("\n") == 1


def test_no_drive_another_chip_and_two_picos(tmp_path):
    plain = tmp_path / "usbstick"
    plain.mkdir()
    with pytest.raises(flash.BoardError, match="^No Pico in BOOTSEL mode was found: hold the BOOTSEL"):
        flash.find_drive([str(plain), str(tmp_path / "gone")])
    other = drive(tmp_path, RP2350_INFO, "RP2350")
    with pytest.raises(flash.BoardError, match=r"^The UF2 drive at .*RP2350 is for a RP2350, not a "
                                               r"Pico's RP2040 \(Board-ID RPI-RP2\)"):
        flash.find_drive([str(plain), str(other)])
    one = drive(tmp_path)
    assert flash.find_drive([str(plain), str(other), str(one)]) == str(one)
    two = drive(tmp_path, name="RPI-RP2 1")
    with pytest.raises(flash.BoardError, match="^Several Picos are in BOOTSEL mode .*: choose one with --drive"):
        flash.find_drive([str(one), str(two)])


def test_a_drive_given_must_be_a_pico_boot_drive(tmp_path, image, capsys):
    assert flash_cli(image, "--drive", tmp_path / "nowhere") == 1
    assert "There is no drive at %s: is the Pico in BOOTSEL mode" % (tmp_path / "nowhere") in capsys.readouterr().err
    assert flash_cli(image, "--drive", tmp_path) == 1
    assert "%s is not a UF2 boot drive (it has no INFO_UF2.TXT)" % tmp_path in capsys.readouterr().err
    other = drive(tmp_path, RP2350_INFO, "RP2350")
    assert flash_cli(image, "--drive", other) == 1
    assert "is for a RP2350, not a Pico's RP2040" in capsys.readouterr().err
    assert not (other / image.name).exists()


def test_an_image_that_fails_its_checks_is_not_copied(tmp_path, capsys):
    d = drive(tmp_path)
    bad = tmp_path / "cut.uf2"
    bad.write_bytes(make_uf2(banner("0.1.0"))[:-10])
    assert flash_cli(bad, "--drive", d) == 1
    assert "cut.uf2 is 502 bytes, not a whole number of 512-byte UF2 blocks" in capsys.readouterr().err
    assert sorted(os.listdir(str(d))) == ["INDEX.HTM", "INFO_UF2.TXT"]


def test_without_a_path_it_takes_the_image_make_firmware_built(tmp_path, monkeypatch, capsys):
    missing = tmp_path / "build" / "mancala-board-0.1.0.uf2"
    monkeypatch.setattr(imagebuild, "image_path", lambda root, version: str(missing))
    assert flash_cli("--drive", drive(tmp_path)) == 1
    assert "There is no image at " in capsys.readouterr().err
    missing.parent.mkdir()
    missing.write_bytes(make_uf2(banner("0.1.0")))
    assert flash_cli("--drive", tmp_path / "RPI-RP2", "--no-wait") == 0
    assert (tmp_path / "RPI-RP2" / "mancala-board-0.1.0.uf2").read_bytes() == missing.read_bytes()


def test_a_full_disk_is_one_sentence(tmp_path, image, monkeypatch, capsys):
    d = drive(tmp_path)
    # a drive that says it is nearly full
    usage = collections.namedtuple("usage", "total used free")
    real = flash.shutil.disk_usage
    monkeypatch.setattr(flash.shutil, "disk_usage",
                        lambda path: usage(128 << 20, (128 << 20) - 4096, 4096) if path == str(d) else real(path))
    assert flash_cli(image, "--drive", d, "--no-wait") == 1
    assert capsys.readouterr().err == (
        "The drive %s is full: it has 4,096 bytes free and the image needs %s; this is not a "
        "Pico's boot drive, or something else filled it.\n" % (d, format(image.stat().st_size, ",")))
    assert not (d / image.name).exists()
    monkeypatch.undo()
    # a drive that fills up during the copy: /dev/full answers every write with ENOSPC
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    os.symlink("/dev/full", str(d / image.name))
    assert flash_cli(image, "--drive", d, "--no-wait") == 1
    assert capsys.readouterr().err.startswith(
        "The drive %s is full: the copy stopped after 0 of %s bytes" % (d, format(image.stat().st_size, ",")))


def _reader(fifo, keep, then=None):
    """The other end of a FIFO on the drive: reads `keep` bytes (None: all), then closes."""
    def read():
        with open(fifo, "rb") as f:
            if then:
                then()
            while keep is None or got[0] < keep:
                chunk = f.read(4096 if keep is None else min(4096, keep - got[0]))
                if not chunk:
                    break
                got[0] += len(chunk)
    got = [0]
    t = threading.Thread(target=read, daemon=True)
    t.start()
    return t, got


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_copy_cut_short_is_one_sentence(tmp_path, image, capsys):
    d = drive(tmp_path)
    fifo = str(d / image.name)
    os.mkfifo(fifo)
    t, got = _reader(fifo, 64 * 1024)  # the drive goes away after 64 KB
    assert flash_cli(image, "--drive", d, "--no-wait") == 1
    t.join(HANG_S)
    err = capsys.readouterr().err
    size = format(image.stat().st_size, ",")
    assert err.startswith("The copy to %s stopped after " % d) and (" of %s bytes (" % size) in err
    assert err.endswith("): the board holds half an image; hold BOOTSEL, plug it in again and "
                        "flash again.\n")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_pico_that_restarts_on_the_last_block_is_a_success(tmp_path, image, capsys):
    # The Pico takes every byte and restarts; its drive is gone before the file is closed.
    d = drive(tmp_path)
    fifo = str(d / image.name)
    os.mkfifo(fifo)
    t, got = _reader(fifo, None, then=lambda: os.remove(str(d / "INFO_UF2.TXT")))
    assert flash_cli(image, "--drive", d, "--no-wait") == 0
    t.join(HANG_S)
    assert got[0] == image.stat().st_size
    assert "Copied %s bytes" % format(image.stat().st_size, ",") in capsys.readouterr().out
