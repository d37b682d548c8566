"""UF2 images for the Pico: read one, and check it before anyone flashes it.

A UF2 file is a run of 512-byte blocks, each carrying up to 476 bytes for one flash address
(Microsoft's USB Flashing Format, as the RP2040 boot ROM reads it). `check_image` is what
`make firmware` asks of the image it built and what `mancala-board flash` asks of the file it
is given:

- every block is a UF2 block for the RP2040 (family ID 0xE48BFF56);
- the blocks are numbered 0..N-1 in file order and write one run of flash from 0x10000000 up;
- the image ends below the flash filesystem at offset 0xA0000, so flashing it leaves the
  board's files alone;
- the MicroPython banner inside names the firmware version (when one is asked for).

Each failure is one `ImageError` sentence.
"""

from __future__ import annotations

import re
import struct

from ..errors import BoardError

BLOCK = 512
MAGIC_START0 = 0x0A324655
MAGIC_START1 = 0x9E5D5157
MAGIC_END = 0x0AB16F30
FLAG_NOT_MAIN_FLASH = 0x00000001
FLAG_FAMILY_ID = 0x00002000
RP2040_FAMILY = 0xE48BFF56
FLASH_BASE = 0x10000000
FILESYSTEM_OFFSET = 0xA0000  # MicroPython's littlefs on RPI_PICO starts here (1408 KiB)
_HEADER = struct.Struct("<8I")

# The board name the image's banner carries: "...; Mancala board 0.1.0 (Raspberry Pi Pico)
# with RP2040" (firmware/board/mpconfigboard.h).
BANNER_MACHINE = re.compile(rb"; ([ -~]{1,100}) with ([ -~]{1,20})\x00")
BANNER_VERSION = re.compile(rb"Mancala board ([0-9A-Za-z.+-]+) ")
MICROPYTHON_VERSION = re.compile(rb"MicroPython (v[0-9][0-9A-Za-z.+-]*)")


class ImageError(BoardError):
    """An image that must not be flashed, in one sentence."""


class Image:
    """A checked UF2 image: `payload` is the flash contents from `start`, `end` the first
    address after it, `blocks` how many UF2 blocks carried it."""

    def __init__(self, name: str, payload: bytes, start: int, blocks: int) -> None:
        self.name = name
        self.payload = payload
        self.start = start
        self.end = start + len(payload)
        self.blocks = blocks

    def banner(self) -> tuple[str | None, str | None]:
        """(MicroPython version, machine) as the image's REPL banner states them; None for
        a part the image does not contain."""
        m = MICROPYTHON_VERSION.search(self.payload)
        machine = BANNER_MACHINE.search(self.payload)
        return (m.group(1).decode() if m else None,
                machine.group(1).decode() + " with " + machine.group(2).decode() if machine else None)

    def firmware_version(self) -> str | None:
        """The Mancala firmware version the banner names, or None (a stock image)."""
        machine = BANNER_MACHINE.search(self.payload)
        m = BANNER_VERSION.search(machine.group(1) + b" ") if machine else None
        return m.group(1).decode() if m else None


def read_blocks(data: bytes, name: str = "the image") -> Image:
    """Parses UF2 bytes into an Image, checking the family and the order of every block."""
    if not data:
        raise ImageError("%s is empty: it is not a UF2 image." % name)
    if len(data) % BLOCK:
        raise ImageError("%s is %d bytes, not a whole number of 512-byte UF2 blocks: the file "
                         "is cut short or is not a UF2 image." % (name, len(data)))
    count = len(data) // BLOCK
    payload = bytearray()
    start = _HEADER.unpack_from(data)[3]  # the first block's address: the run starts there
    for i in range(count):
        block = data[i * BLOCK:(i + 1) * BLOCK]
        m0, m1, flags, addr, size, number, total, family = _HEADER.unpack_from(block)
        (end_magic,) = struct.unpack_from("<I", block, BLOCK - 4)
        if m0 != MAGIC_START0 or m1 != MAGIC_START1 or end_magic != MAGIC_END:
            raise ImageError("%s is not a UF2 image: block %d does not start and end with the "
                             "UF2 magic numbers." % (name, i))
        if flags & FLAG_NOT_MAIN_FLASH:
            raise ImageError("%s has a block (%d) marked not for the main flash; it is not a "
                             "Pico firmware image." % (name, i))
        if not flags & FLAG_FAMILY_ID or family != RP2040_FAMILY:
            raise ImageError("%s is not for the RP2040: block %d has family ID %s, not 0x%08X; "
                             "use an image built for the Raspberry Pi Pico." % (
                                 name, i, "0x%08X" % family if flags & FLAG_FAMILY_ID else "none",
                                 RP2040_FAMILY))
        if number != i or total != count:
            raise ImageError("%s has its blocks out of order: block %d of the file says it is "
                             "block %d of %d (the file holds %d); the copy is damaged." % (
                                 name, i, number, total, count))
        if size == 0 or size > 476:
            raise ImageError("%s block %d carries %d bytes, outside 1..476." % (name, i, size))
        if addr != start + len(payload):
            raise ImageError("%s block %d writes 0x%08X where 0x%08X was next: the image is not "
                             "one run of flash." % (name, i, addr, start + len(payload)))
        payload += block[32:32 + size]
    return Image(name, bytes(payload), start, count)


def check_image(data: bytes, name: str = "the image", version: str | None = None) -> Image:
    """Checks UF2 bytes for a Pico as the module docstring lists; returns the Image or raises
    ImageError. version: the firmware version the banner must name (None: any, or none)."""
    image = read_blocks(data, name)
    if image.start != FLASH_BASE:
        raise ImageError("%s starts at 0x%08X, not at the start of the Pico's flash (0x%08X)."
                         % (name, image.start, FLASH_BASE))
    limit = FLASH_BASE + FILESYSTEM_OFFSET
    if image.end > limit:
        raise ImageError("%s ends at flash offset 0x%X, past the filesystem at 0x%X: flashing it "
                         "would overwrite the board's files; freeze less into it." % (
                             name, image.end - FLASH_BASE, FILESYSTEM_OFFSET))
    if version is not None:
        found = image.firmware_version()
        if found != version:
            _, machine = image.banner()
            raise ImageError("%s's banner names %s, not Mancala board %s." % (
                name, "'%s'" % machine if machine else "no board", version))
    return image


def load(path: str, version: str | None = None) -> Image:
    """Reads and checks the UF2 file at path (see check_image)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as exc:
        raise ImageError("Cannot read the image %s: %s." % (path, exc.strerror or exc))
    return check_image(data, path, version)

