"""The CircuitPython edition's files, and putting them on a CIRCUITPY drive.

CircuitPython runs `code.py` from its drive and imports from `lib/`. The board's files are:
- `code.py` (firmware/code.py), the entry point;
- `lib/` as on MicroPython (the engine, the app, the drivers), as `.py` source (without
  the `@micropython.native` decorator, which CircuitPython refuses): CircuitPython
  9 loads only `.mpy` files from its own compiler (they start with "C", MicroPython's with
  "M"), and that compiler is not published on PyPI, so the board compiles the source itself;
- `lib/neopixel.py`, Adafruit's NeoPixel library from PyPI (adafruit-circuitpython-neopixel,
  installed by `make venv` into .venv/circuitpython-lib/), where circup would put it;
- `profile.json`, the board profile.

`deploy --circuitpython` copies them onto a mounted drive (install()); the emulated Pico
puts them into the drive's FAT filesystem in its flash (sim/circuitpy_flash.py).
"""

from __future__ import annotations

import os
import sys

from .boardfiles import sources
from ..errors import BoardError

ENTRY = "code.py"
NEOPIXEL = "neopixel.py"
LIB_DIR_ENV = "MANCALA_CIRCUITPY_LIB"


def library_dir() -> str:
    """Where `make venv` installs the PyPI CircuitPython libraries (neopixel.py)."""
    return os.environ.get(LIB_DIR_ENV) or os.path.join(sys.prefix, "circuitpython-lib")


def without_native(source: bytes) -> bytes:
    """source with each module-level `@micropython.native` line made a comment: CircuitPython
    has no native emitter and refuses the decorator, and the function under it is plain
    Python that the emitter only compiles differently (mancala/negamax.py's search loop).
    Line numbers stay as they are, so tracebacks point at the source."""
    lines = source.split(b"\n")
    for i, line in enumerate(lines):
        if line.rstrip() == b"@micropython.native":
            lines[i] = b"# @micropython.native: bytecode here (CircuitPython has no native emitter)"
    return b"\n".join(lines)


def board_files(firmware: str, profile: str) -> dict[str, bytes]:
    """{path on the drive: bytes} for firmware/ and profile; BoardError if a part is missing."""
    files = {}
    entry = os.path.join(firmware, ENTRY)
    if not os.path.isfile(entry):
        raise BoardError("%s has no %s: it is not the firmware folder." % (firmware, ENTRY))
    with open(entry, "rb") as f:
        files[ENTRY] = f.read()
    for src, rel in sources(os.path.join(firmware, "lib")):
        with open(src, "rb") as f:
            files["lib/" + rel] = without_native(f.read())
    neopixel = os.path.join(library_dir(), NEOPIXEL)
    if not os.path.isfile(neopixel):
        raise BoardError("Adafruit's %s is not installed (looked in %s): run 'make venv'."
                         % (NEOPIXEL, library_dir()))
    with open(neopixel, "rb") as f:
        files["lib/" + NEOPIXEL] = f.read()
    with open(profile, "rb") as f:
        files["profile.json"] = f.read()
    return files


def check_drive(drive: str) -> None:
    """BoardError unless drive is a mounted CIRCUITPY drive (it holds CircuitPython's
    boot_out.txt)."""
    if not os.path.isdir(drive):
        raise BoardError("%s is not a folder: give the mounted CIRCUITPY drive, e.g. "
                         "/media/$USER/CIRCUITPY." % drive)
    try:
        with open(os.path.join(drive, "boot_out.txt"), "rb") as f:
            head = f.read(256)
    except OSError:
        raise BoardError("%s has no boot_out.txt, so it is not a CIRCUITPY drive: flash "
                         "CircuitPython on the Pico and give the drive it shows." % drive)
    if b"CircuitPython" not in head:
        raise BoardError("%s/boot_out.txt does not name CircuitPython, so it is not a CIRCUITPY "
                         "drive." % drive)


def install(drive: str, files: dict[str, bytes]) -> tuple[int, int]:
    """Copies the files that differ onto drive; returns (copied, unchanged)."""
    check_drive(drive)
    copied = 0
    for rel in sorted(files):
        data = files[rel]
        path = os.path.join(drive, *rel.split("/"))
        try:
            with open(path, "rb") as f:
                if f.read() == data:
                    continue
        except OSError:
            pass
        os.makedirs(os.path.dirname(path), exist_ok=True)
        # Written in place, not renamed: CircuitPython reloads when a write ends, and a
        # FAT drive has no atomic rename; a cut copy is simply copied again next time.
        with open(path, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        copied += 1
    return copied, len(files) - copied


def find_drive() -> str | None:
    """The CIRCUITPY drive, if exactly one is mounted in the usual places."""
    user = os.environ.get("USER", "")
    found = []
    for base in ("/media/" + user, "/run/media/" + user, "/media", "/Volumes"):
        path = os.path.join(base, "CIRCUITPY")
        if os.path.isdir(path) and path not in found:
            found.append(path)
    return found[0] if len(found) == 1 else None


def run(firmware: str, profile: str, drive: str | None, dry_run: bool = False) -> int:
    files = board_files(firmware, profile)
    if drive is None:
        drive = find_drive()
        if drive is None:
            raise BoardError("No CIRCUITPY drive found: plug in the Pico running CircuitPython "
                             "and give its drive with --drive, e.g. --drive /media/$USER/CIRCUITPY.")
    if dry_run:
        check_drive(drive)
        print("Would copy %d file(s) to %s (files already identical are skipped)."
              % (len(files), drive))
        return 0
    copied, same = install(drive, files)
    print("Copied %d file(s) to %s, %d already up to date. The board restarts with the game "
          "when the copy ends." % (copied, drive, same))
    return 0

