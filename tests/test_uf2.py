"""UF2 checks (host_tools/mancala_host/flashing/uf2.py): the images a board may be flashed with, and the
ones it must not be, each refused in one sentence."""
import struct

import pytest

import firmware_image
from firmware_image import make_uf2
from mancala_host.flashing import uf2

PICO = uf2.FLASH_BASE


BANNER = b"3.4.0; MicroPython v1.28.0 on 2026-01-01\0; Mancala board 0.1.0 (Raspberry Pi Pico) with RP2040\0"
GOOD = make_uf2(BANNER + bytes(range(256)) * 8)


def blocks(data):
    return [data[i:i + 512] for i in range(0, len(data), 512)]


def test_a_good_image_reads_back_its_payload_and_banner():
    image = uf2.check_image(GOOD, "good.uf2", version="0.1.0")
    assert image.start == PICO and image.blocks == len(GOOD) // 512
    assert image.payload.startswith(BANNER)
    assert image.banner() == ("v1.28.0", "Mancala board 0.1.0 (Raspberry Pi Pico) with RP2040")
    assert image.firmware_version() == "0.1.0"


def test_another_firmware_version_is_refused():
    with pytest.raises(uf2.ImageError) as info:
        uf2.check_image(GOOD, "good.uf2", version="0.2.0")
    assert str(info.value) == ("good.uf2's banner names 'Mancala board 0.1.0 (Raspberry Pi Pico) "
                               "with RP2040', not Mancala board 0.2.0.")


def test_another_chip_family_is_refused():
    rp2350_arm = 0xE48BFF59
    with pytest.raises(uf2.ImageError, match=r"^x.uf2 is not for the RP2040: block 0 has family "
                                             r"ID 0xE48BFF59, not 0xE48BFF56; use an image"):
        uf2.check_image(make_uf2(BANNER, family=rp2350_arm), "x.uf2")
    with pytest.raises(uf2.ImageError, match="has family ID none"):
        uf2.check_image(make_uf2(BANNER, flags=0), "x.uf2")


def test_blocks_out_of_order_are_refused():
    b = blocks(GOOD)
    b[2], b[3] = b[3], b[2]
    with pytest.raises(uf2.ImageError, match=r"out of order: block 2 of the file says it is block 3 "
                                             r"of 9 \(the file holds 9\)"):
        uf2.check_image(b"".join(b), "x.uf2")


def test_a_missing_block_is_refused():
    b = blocks(GOOD)
    del b[4]
    with pytest.raises(uf2.ImageError, match="out of order: block 0 of the file says it is block 0 "
                                             "of 9 \\(the file holds 8\\)"):
        uf2.check_image(b"".join(b), "x.uf2")


def test_a_gap_in_the_flash_run_is_refused():
    data = bytearray(GOOD)
    struct.pack_into("<I", data, 512 * 5 + 12, PICO + 256 * 5 + 4096)
    with pytest.raises(uf2.ImageError, match="block 5 writes 0x10001500 where 0x10000500 was next"):
        uf2.check_image(bytes(data), "x.uf2")


def test_a_cut_file_is_refused():
    with pytest.raises(uf2.ImageError, match=r"^x.uf2 is 4508 bytes, not a whole number of 512-byte"):
        uf2.check_image(GOOD[:-100], "x.uf2")


def test_a_file_that_is_not_uf2_is_refused():
    with pytest.raises(uf2.ImageError, match="is not a UF2 image: block 0"):
        uf2.check_image(b"MicroPython".ljust(1024, b"\n"), "x.uf2")
    with pytest.raises(uf2.ImageError, match="x.uf2 is empty"):
        uf2.check_image(b"", "x.uf2")


def test_an_image_into_the_filesystem_is_refused():
    near = make_uf2(b"\xff" * 512, start=PICO + uf2.FILESYSTEM_OFFSET - 256)
    with pytest.raises(uf2.ImageError, match="starts at 0x1009FF00, not at the start"):
        uf2.check_image(near, "x.uf2")
    big = make_uf2(b"\xff" * (uf2.FILESYSTEM_OFFSET + 256))
    with pytest.raises(uf2.ImageError, match=r"ends at flash offset 0xA0100, past the filesystem "
                                             r"at 0xA0000: flashing it would overwrite"):
        uf2.check_image(big, "x.uf2")
    exactly = make_uf2(b"\xff" * uf2.FILESYSTEM_OFFSET)
    assert uf2.check_image(exactly, "x.uf2").end == PICO + uf2.FILESYSTEM_OFFSET


def test_an_unreadable_file_is_one_sentence(tmp_path):
    with pytest.raises(uf2.ImageError, match="^Cannot read the image .*none.uf2: No such file"):
        uf2.load(str(tmp_path / "none.uf2"))


def test_the_stock_micropython_image_passes_but_names_no_firmware():
    path = firmware_image.mirror_file(firmware_image.STOCK_IMAGE)
    image = uf2.load(path)
    assert image.banner() == ("v1.28.0", "Raspberry Pi Pico with RP2040")
    assert image.firmware_version() is None
    with pytest.raises(uf2.ImageError, match="banner names 'Raspberry Pi Pico with RP2040', not "
                                             "Mancala board 0.1.0"):
        uf2.load(path, version="0.1.0")


def test_circuitpython_reaches_into_micropythons_filesystem():
    path = firmware_image.mirror_file(firmware_image.CIRCUITPYTHON_IMAGE)
    with pytest.raises(uf2.ImageError, match="past the filesystem at 0xA0000"):
        uf2.load(path)
