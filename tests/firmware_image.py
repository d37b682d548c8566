"""The firmware image for tests: build/firmware/mancala-board-<version>.uf2, built (or found up to
date, in well under a second) from the MicroPython source archive in the RP2 mirror.

It is built here whenever the firmware changed, in `make test` and in a plain pytest run
alike: in the background from the start of a run that has tests needing it (conftest.py), and
by the first such test if that build has not finished or could not run.  Tests that need it skip only when there is no source archive or no ARM toolchain:
CI has both (.ci/run passes the archive and make installs the toolchain)."""
import fcntl
import io
import os
import shutil
import struct

import pytest

from conftest import ROOT
from mancala_host.flashing import uf2

MIRROR = os.environ.get("MANCALA_RP2_MIRROR") or os.path.join(ROOT, "build", "rp2")
ARCHIVE = os.path.join(MIRROR, "micropython-1.28.0-rp2-src.tar.xz")
STOCK_IMAGE = os.path.join(MIRROR, "RPI_PICO-v1.28.0.uf2")
CIRCUITPYTHON_IMAGE = os.path.join(MIRROR, "circuitpython-9.2.9-raspberry_pi_pico.uf2")


def mirror_file(path):
    if not os.path.exists(path):
        pytest.skip("%s is not in the RP2 mirror (set MANCALA_RP2_MIRROR)" % os.path.basename(path))
    return path


def image():
    """The path of the image built from the current firmware. Test processes running side by
    side (make test's pytest-xdist) build it once: the others wait for the first."""
    from mancala_host.flashing import imagebuild

    mirror_file(ARCHIVE)
    folder = os.path.join(ROOT, "build", "firmware")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, ".tests.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not imagebuild.up_to_date(ROOT, ARCHIVE):
            if not shutil.which("arm-none-eabi-gcc"):
                pytest.skip("the ARM toolchain is not installed ('make firmware' installs it)")
            imagebuild.build(ROOT, ARCHIVE, out=io.StringIO())
    return imagebuild.image_path(ROOT, imagebuild.project_version(ROOT))


def make_uf2(payload, start=uf2.FLASH_BASE, family=uf2.RP2040_FAMILY, flags=uf2.FLAG_FAMILY_ID):
    """UF2 bytes as the Pico tools write them: 256 bytes of payload per 512-byte block."""
    chunks = [payload[i:i + 256] for i in range(0, len(payload), 256)]
    out = bytearray()
    for n, chunk in enumerate(chunks):
        out += struct.pack("<8I", uf2.MAGIC_START0, uf2.MAGIC_START1, flags, start + 256 * n,
                           len(chunk), n, len(chunks), family)
        out += chunk.ljust(476, b"\0") + struct.pack("<I", uf2.MAGIC_END)
    return bytes(out)
