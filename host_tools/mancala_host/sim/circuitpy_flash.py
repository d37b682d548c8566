"""The emulated Pico running CircuitPython: recognising the image and filling its CIRCUITPY drive.

CircuitPython 9 for raspberry_pi_pico lays out the 2 MB flash as:

| flash offset          | size     | what                                                   |
|-----------------------|----------|--------------------------------------------------------|
| 0x000000 – 0x0FF000   | 1020 KiB | CircuitPython itself                                   |
| 0x0FF000 – 0x100000   | 4 KiB    | `microcontroller.nvm`: one flash sector (the saves)    |
| 0x100000 – 0x200000   | 1 MiB    | CIRCUITPY: FAT12, 2048 sectors of 512 bytes, one FAT,  |
|                       |          | 512 root entries (what the image writes at first boot) |

Files go in with pyfatfs (PyPI), as a computer would copy them onto the drive.
"""

from __future__ import annotations

import os
import struct
import tempfile
from typing import Callable

from .errors import UsageError

BANNER = b"Adafruit CircuitPython "
BOARD_ID = b"raspberry_pi_pico\x00"
NVM_OFFSET = 0xFF000
NVM_SIZE = 0x1000
FS_OFFSET = NVM_OFFSET + NVM_SIZE
FS_SIZE = 0x100000
LABEL = "CIRCUITPY"
VOLUME_ID = 0x4D414E43  # fixed, so the same files give the same flash


def image_kind(path: str) -> str:
    """"circuitpython" or "micropython" from the UF2's payload (CircuitPython's banner);
    UsageError for a CircuitPython image built for another board (its drive is elsewhere)."""
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise UsageError("cannot read the image %s: %s" % (path, e.strerror or e))
    payload = bytearray()
    for off in range(0, len(raw) - 511, 512):
        size = struct.unpack_from("<I", raw, off + 16)[0]
        payload += raw[off + 32:off + 32 + min(size, 476)]
    at = payload.find(BANNER)
    if at < 0:
        return "micropython"
    if payload.find(BOARD_ID, max(0, at - 64), at) < 0:
        raise UsageError("%s is CircuitPython for another board: the emulated Pico runs the "
                         "raspberry_pi_pico build" % path)
    return "circuitpython"


def _fat(image_path):
    from pyfatfs.PyFatFS import PyFatFS  # PyPI pyfatfs, pinned in pyproject.toml

    return PyFatFS(image_path, preserve_case=True, utc=True)


def _new_fat(image_path):
    from pyfatfs.PyFat import PyFat

    with open(image_path, "wb") as f:
        f.write(bytes(FS_SIZE))  # pyfatfs reads the root directory as it formats: zeros
    pf = PyFat()
    pf.mkfs(image_path, PyFat.FAT_TYPE_FAT12, size=FS_SIZE, number_of_fats=1, label=LABEL,
            volume_id=VOLUME_ID)
    pf.close()


def _put(fs, files):
    written = 0
    for rel in sorted(files):
        data = files[rel]
        path = "/" + rel
        if fs.exists(path):
            if fs.readbytes(path) == data:
                continue
            # A new file, not the old one written over: pyfatfs breaks the cluster chain of
            # a file it writes over with other contents ("FREE_CLUSTER mark found").
            fs.remove(path)
        folder = os.path.dirname(path)
        if folder != "/":
            fs.makedirs(folder, recreate=True)
        fs.writebytes(path, data)
        written += 1
    return written


def fat_image(files: dict[str, bytes]) -> Callable[[bytes | None], bytes | None]:
    """rp2040.prepare_flash's image for CIRCUITPY holding files: a new drive with the files
    (none: left erased, and CircuitPython formats it at its first boot) if the flash is new
    or its drive erased, else the drive as it is with only the files that differ rewritten;
    a drive that does not read as FAT is left alone (CircuitPython will format it)."""
    def image(region):
        if not files:
            return None
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "circuitpy.img")
            if region is None or region.count(0xFF) == len(region):
                _new_fat(path)
            else:
                with open(path, "wb") as f:
                    f.write(region)
            try:
                fs = _fat(path)
            except Exception:  # not (yet) a FAT drive: the board formats it
                return None
            try:
                written = _put(fs, files)
            finally:
                fs.close()
            if not written and region is not None:
                return None
            with open(path, "rb") as f:
                return f.read()
    return image
