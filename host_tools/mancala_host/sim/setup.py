"""The virtual board's set-up: everything needed to start the board process, checked (the
repository, the MicroPython binary, the flash folder with its profile and tables, the heap,
the fakes on MICROPYPATH, argv and environment), for the unix port, or for the emulated Pico
through rp2040.Rp2040Setup.

A module of its own so the parts that start the board (serve, terminal) and the launcher that
parses the command line all use it, and none of them needs another.
"""
from __future__ import annotations

import argparse
import os
import shutil
import tempfile

from . import mpy_lib
from .errors import UsageError

DEFAULT_HEAPSIZE = "320k"  # docs/sim.md "Heap": every feature (a CPU search on quad) with margin


def _check_target(args):
    """Options that belong to one target only: one sentence for the other."""
    if args.target == "rp2040":
        if args.heapsize is not None:
            raise UsageError("--heapsize is for the unix target: the emulated Pico has the stock "
                             "image's own heap")
        if args.source:
            raise UsageError("--source is for the unix target: the emulated Pico runs what "
                             "deploy puts on a board")
    else:
        for name in ("image", "blank", "trace", "pace"):
            if getattr(args, name):
                raise UsageError("--%s needs --target rp2040" % name)


def find_root() -> str:
    """The repository root: the directory holding firmware/ and host_tools/."""
    here = os.path.dirname(os.path.abspath(__file__))
    candidates = [os.path.normpath(os.path.join(here, "..", "..", ".."))]
    d = os.path.abspath(os.getcwd())
    while True:
        candidates.append(d)
        parent = os.path.dirname(d)
        if parent == d:
            break
        d = parent
    for c in candidates:
        if all(os.path.isdir(os.path.join(c, d)) for d in ("firmware", "host_tools")):
            return c
    raise UsageError("cannot find the project (a directory with firmware/ and host_tools/); "
                     "run this from inside the repository")


def find_micropython(root: str) -> str:
    venv = os.path.join(root, ".venv", "bin", "micropython")
    if os.access(venv, os.X_OK):
        return venv
    found = shutil.which("micropython")
    if found:
        return found
    raise UsageError("no MicroPython found (neither .venv/bin/micropython nor micropython on "
                     "PATH); run `make venv` first")


def _heapsize(text):
    t = text.strip().lower()
    digits = t[:-1] if t[-1:] in ("k", "m") else t
    if not digits.isdigit() or int(digits) == 0:
        raise UsageError("--heapsize must be a size like 160k, 2m or 200000, got %r" % text)
    return t


def _profile(root, name):
    folder = os.path.join(root, "hardware", "profiles")
    path = os.path.join(folder, name + ".json")
    if os.path.sep in name or not os.path.isfile(path):
        have = sorted(f[:-5] for f in os.listdir(folder) if f.endswith(".json")) \
            if os.path.isdir(folder) else []
        raise UsageError("there is no board profile %r in hardware/profiles (there are: %s)"
                         % (name, ", ".join(have) or "none"))
    return path


def _chips(profile_path, missing):
    """MANCALA_SIM_CHIPS: the profile's chips (the board it describes has no others) minus the
    missing ones; None (keep it) when the caller set MANCALA_SIM_CHIPS and no --missing-chip."""
    import json
    if not missing and os.environ.get("MANCALA_SIM_CHIPS"):
        return None
    try:
        with open(profile_path) as f:
            chips = [int(str(c), 16) for c in json.load(f)["pad_chips"]]
    except (OSError, ValueError, KeyError, TypeError):
        raise UsageError("cannot read pad_chips from %s, so --missing-chip cannot be applied"
                         % profile_path)
    gone = set()
    for text in missing:
        try:
            addr = int(text, 16)
        except ValueError:
            raise UsageError("--missing-chip takes an I2C address like 0x5B, got %r" % text)
        if addr not in chips:
            raise UsageError("--missing-chip %s: the profile has no such chip (it has %s)"
                             % (text, ", ".join("0x%02X" % c for c in chips)))
        gone.add(addr)
    return ",".join("%x" % c for c in chips if c not in gone)


def _put_tables(root: str, flash: str) -> None:
    """The endgame tables in the virtual flash's tables/, as `deploy` puts them on a Pico
    (build/tables, made by the solver when missing); a file already the same is left."""
    import filecmp
    from ..errors import BoardError
    from ..flashing.deploy import board_tables, TABLES_FOLDER

    try:
        paths = board_tables(root)
    except BoardError as e:
        raise UsageError(str(e).rstrip("."))
    folder = os.path.join(flash, TABLES_FOLDER)
    os.makedirs(folder, exist_ok=True)
    for path in paths:
        target = os.path.join(folder, os.path.basename(path))
        if not (os.path.exists(target) and filecmp.cmp(path, target, shallow=False)):
            shutil.copyfile(path, target)


def irq_pin(profile_path: str) -> str | None:
    """MANCALA_SIM_IRQ: the GP number of the pads' IRQ line in the profile (i2c.irq), as text,
    or None where the profile wires none (or cannot be read: the board itself says why)."""
    import json
    try:
        with open(profile_path) as f:
            pin = json.load(f)["i2c"].get("irq")
        return None if pin is None else str(int(pin))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


class Setup:
    """Everything needed to start the board process, checked: paths, argv and environment."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.root = find_root()
        self.scratch: str | None = None  # a temporary directory this launcher removes on exit
        _check_target(args)
        self.profile_path = _profile(self.root, args.profile)
        chips = _chips(self.profile_path, args.missing_chip)
        if args.target == "rp2040":
            from .rp2040 import Rp2040Setup
            board = Rp2040Setup(args, self.root, self.profile_path, chips, self.scratch_dir)
            self.heapsize = board.heapsize
            self.flash, self.env, self.argv = board.flash, board.env, board.argv
            return
        self.heapsize = _heapsize(args.heapsize or DEFAULT_HEAPSIZE)
        self.micropython = find_micropython(self.root)
        self.main_py = os.path.abspath(args.main) if args.main else \
            os.path.join(self.root, "firmware", "main.py")
        if not os.path.isfile(self.main_py):
            raise UsageError("%s is missing, so the board has nothing to run" % self.main_py)
        if args.flash:
            self.flash = os.path.abspath(args.flash)
        else:
            self.flash = os.path.join(self.scratch_dir(), "flash")
        try:
            os.makedirs(self.flash, exist_ok=True)
            shutil.copyfile(self.profile_path, os.path.join(self.flash, "profile.json"))
            _put_tables(self.root, self.flash)
        except OSError as e:
            raise UsageError("cannot use %s as the flash directory: %s"
                             % (self.flash, e.strerror or e))
        env = dict(os.environ)
        # The board runs .mpy files (deploy), so the sim does too: no compiler peaks at import.
        source = args.source or mpy_lib.from_source()
        try:
            fakes = mpy_lib.fakes_path(self.root, source)
            lib = mpy_lib.firmware_path(self.root, source)
        except (mpy_lib.BuildError, OSError) as e:
            raise UsageError(str(e))
        # .frozen keeps the port's frozen modules (asyncio) importable, as on the board.
        env["MICROPYPATH"] = os.pathsep.join([fakes, ".frozen", lib])
        if chips is not None:
            env["MANCALA_SIM_CHIPS"] = chips
        env.pop("MANCALA_SIM_IRQ", None)
        irq = irq_pin(self.profile_path)
        if irq is not None:
            env["MANCALA_SIM_IRQ"] = irq
        self.env = env
        self.argv = [self.micropython, "-X", "heapsize=" + self.heapsize, self.main_py]

    def scratch_dir(self) -> str:
        if self.scratch is None:
            self.scratch = tempfile.mkdtemp(prefix="mancala-sim-")
        return self.scratch

    def cleanup(self) -> None:
        if self.scratch is not None:
            shutil.rmtree(self.scratch, ignore_errors=True)
            self.scratch = None
