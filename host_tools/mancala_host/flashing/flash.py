"""`mancala-board flash [UF2]`: copy a firmware image onto a Pico in BOOTSEL mode.

A Pico held in BOOTSEL while it is plugged in shows up as a USB drive, `RPI-RP2`, holding
INFO_UF2.TXT (`Board-ID: RPI-RP2`). A UF2 file copied onto it is written to flash, and the
Pico restarts into it. This command:

1. checks the image (uf2.py: for the RP2040, every block in order, below the filesystem);
   without a path it takes build/firmware/mancala-board-<version>.uf2 (`make firmware`);
2. finds the drive: a mounted volume with INFO_UF2.TXT whose Board-ID is the RP2040's, or the
   folder given with --drive;
3. copies the image, block by block, and makes sure the whole of it went;
4. waits for the board's serial port to come back and, for our image, checks that the board
   reports the firmware version the image carries.

A missing drive, a drive of another chip, a full disk and a copy cut short each end in one
sentence.
"""

from __future__ import annotations

import argparse
import errno
import glob
import os
import shutil
import string
import sys
import time

from . import uf2
from ..errors import BoardError

RP2040_BOARD_ID = "RPI-RP2"
INFO = "INFO_UF2.TXT"
CHUNK = 32 * 1024


def default_image() -> str:
    from .deploy import repo_root
    from .imagebuild import image_path, project_version

    root = repo_root()
    path = image_path(root, project_version(root))
    if not os.path.exists(path):
        raise BoardError("There is no image at %s: build it with 'make firmware', or give the "
                         "path of a .uf2 file." % os.path.relpath(path))
    return path


def mount_points() -> list[str]:
    """Where a USB drive may be mounted on this computer."""
    found = []
    if sys.platform.startswith("win"):
        return ["%s:\\" % letter for letter in string.ascii_uppercase]
    try:
        with open("/proc/mounts") as f:
            for line in f:
                fields = line.split()
                if len(fields) > 2 and fields[2] in ("vfat", "msdos", "fuseblk", "exfat"):
                    found.append(fields[1].replace("\\040", " "))
    except OSError:
        pass
    user = os.environ.get("USER") or os.environ.get("LOGNAME") or ""
    for pattern in ("/Volumes/*", "/media/%s/*" % user, "/run/media/%s/*" % user, "/media/*"):
        found.extend(sorted(glob.glob(pattern)))
    return list(dict.fromkeys(found))


def board_id(drive: str) -> str | None:
    """The Board-ID line of drive's INFO_UF2.TXT (None when it has none), or OSError."""
    with open(os.path.join(drive, INFO), encoding="ascii", errors="replace") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key.strip().lower() == "board-id":
                return value.strip()
    return None


def find_drive(candidates: list[str] | None = None) -> str:
    """The one RP2040 boot drive among candidates (default: the mount points)."""
    drives = []
    for path in (mount_points() if candidates is None else candidates):
        try:
            drives.append((path, board_id(path)))
        except OSError:
            continue
    picos = [path for path, ident in drives if ident == RP2040_BOARD_ID]
    if len(picos) == 1:
        return picos[0]
    if len(picos) > 1:
        raise BoardError("Several Picos are in BOOTSEL mode (%s): choose one with --drive."
                         % ", ".join(picos))
    if drives:
        raise _other_chip(*drives[0])
    raise BoardError("No Pico in BOOTSEL mode was found: hold the BOOTSEL button while you plug "
                     "the board in, so that its drive %s appears (or give --drive PATH where "
                     "it is mounted)." % RP2040_BOARD_ID)


def check_drive(path: str) -> str:
    """A folder given with --drive must be an RP2040 boot drive too."""
    if not os.path.isdir(path):
        raise BoardError("There is no drive at %s: is the Pico in BOOTSEL mode, and mounted "
                         "there?" % path)
    try:
        ident = board_id(path)
    except OSError:
        raise BoardError("%s is not a UF2 boot drive (it has no %s): hold BOOTSEL while you plug "
                         "the Pico in, and give the drive that appears." % (path, INFO))
    if ident != RP2040_BOARD_ID:
        raise _other_chip(path, ident)
    return path


def _other_chip(path: str, ident: str | None) -> BoardError:
    return BoardError("The UF2 drive at %s is for a %s, not a Pico's RP2040 (Board-ID %s): this "
                      "image is for the RP2040." % (path, ident or "board that does not say which",
                                                    RP2040_BOARD_ID))


def _present(drive: str) -> bool:
    return os.path.isfile(os.path.join(drive, INFO))


def copy_image(data: bytes, drive: str, name: str) -> None:
    """Writes data to drive/name; BoardError for a full disk or a copy cut short.

    A Pico restarts as soon as it has the last block, and its drive goes away, sometimes
    before the computer has closed the file: an error after every byte was written, with the
    drive gone, is that and not a fault."""
    target = os.path.join(drive, name)
    try:
        free = shutil.disk_usage(drive).free
    except OSError:
        free = None
    if free is not None and free < len(data):
        raise BoardError("The drive %s is full: it has %s bytes free and the image needs %s; this "
                         "is not a Pico's boot drive, or something else filled it." % (
                             drive, format(free, ","), format(len(data), ",")))
    written = 0
    try:
        with open(target, "wb") as f:
            while written < len(data):
                f.write(data[written:written + CHUNK])
                f.flush()
                written = min(len(data), written + CHUNK)
            os.fsync(f.fileno())
    except OSError as exc:
        if written == len(data) and not _present(drive):
            return
        if exc.errno == errno.ENOSPC:
            raise BoardError("The drive %s is full: the copy stopped after %s of %s bytes; this is "
                             "not a Pico's boot drive, or something else filled it." % (
                                 drive, format(written, ","), format(len(data), ",")))
        raise BoardError("The copy to %s stopped after %s of %s bytes (%s): the board holds half "
                         "an image; hold BOOTSEL, plug it in again and flash again." % (
                             drive, format(written, ","), format(len(data), ","),
                             exc.strerror or exc))
    if _present(drive):
        try:
            size = os.path.getsize(target)
        except OSError:
            size = None  # the Pico took it and lists no such file
        if size is not None and size != len(data):
            raise BoardError("The copy to %s holds %s of %s bytes: the board holds half an image; "
                             "hold BOOTSEL, plug it in again and flash again." % (
                                 drive, format(size, ","), format(len(data), ",")))


def wait_for_board(port: str | None, image: uf2.Image, timeout: float, wait_s: float) -> int:
    """After the copy: the board's serial port back, and for our image its firmware version."""
    from .deploy import wait_for_hello
    from ..link.transport import find_board

    version = image.firmware_version()
    attempts = max(1, int(wait_s / 0.5))
    if version is None:  # not our firmware: there is no protocol to ask, only a port to see
        last = None
        for _ in range(attempts):
            try:
                found = port if port and os.path.exists(port) else (None if port else find_board())
            except BoardError as exc:
                found, last = None, exc
            if found:
                print("The board is back on %s." % found)
                return 0
            time.sleep(0.5)
        raise BoardError("The board's serial port did not come back after the flash (%s)"
                         % (str(last).rstrip(".") if last else "no %s" % port))
    hello = wait_for_hello(port, timeout, "flash", attempts)
    if hello.get("firmware") != version:
        raise BoardError("The board reports firmware %s, but the image carries %s: the flash did "
                         "not take; hold BOOTSEL, plug it in again and flash again." % (
                             hello.get("firmware"), version))
    print("The board runs firmware %s, profile %s." % (version, hello.get("board")))
    return 0


def run(args: argparse.Namespace) -> int:
    path = args.image or default_image()
    image = uf2.load(path)
    with open(path, "rb") as f:
        data = f.read()
    drive = check_drive(args.drive) if args.drive else find_drive()
    what = image.firmware_version()
    print("Flashing %s (%s) onto the Pico at %s" % (
        path, "Mancala board " + what if what else "%s on %s" % image.banner(), drive), flush=True)
    copy_image(data, drive, os.path.basename(path))
    if args.no_wait:
        print("Copied %s bytes; the Pico restarts into the image." % format(len(data), ","))
        return 0
    print("Copied; waiting for the board to restart.", flush=True)
    return wait_for_board(args.port, image, args.timeout, args.wait)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("image", nargs="?", metavar="UF2",
                   help="the image (default: build/firmware/mancala-board-<version>.uf2 from make firmware)")
    p.add_argument("--drive", help="where the Pico's RPI-RP2 drive is mounted (default: found by itself)")
    p.add_argument("--wait", type=float, default=30.0,
                   help="seconds to wait for the board to come back (default 30)")
    p.add_argument("--no-wait", action="store_true", help="copy, and do not wait for the board")
