"""`mancala-board sim`: runs the real firmware on a virtual board.

    mancala-board sim [--target unix|rp2040] [--stdio | --pty LINK] [--flash DIR]
                      [--heapsize N] [--profile duo|quad] [--missing-chip 0x5B ...]
                      [--image UF2] [--blank] [--trace FILE]

--target unix (the default) is described here; --target rp2040 runs the stock MicroPython
image on an emulated Pico instead (sim/rp2040.py), with the same channels and modes.

The board process is `micropython -X heapsize=N firmware/main.py` with the fakes first on
MICROPYPATH, its working directory the virtual flash (holding profile.json, as `deploy` puts
it on a real board) and the MANCALA_SIM_* channels of docs/architecture.md section 4.

- --stdio: this process becomes the board (exec), so its pid is the board's and SIGKILL on
  it is a power cut; stdin/stdout are the serial line.
- --pty LINK: the serial line is a pty, LINK a symlink to it (open it like /dev/ttyACM0).
- neither: the terminal view (keys are pad touches) plus the pty at ./mancala-sim.pty.
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
from typing import NoReturn, Sequence

from .devices import Devices
from .errors import UsageError
from .setup import DEFAULT_HEAPSIZE, Setup, find_micropython, find_root  # noqa: F401

DEFAULT_LINK = "mancala-sim.pty"
PASS_THROUGH = ("MANCALA_SIM_TOUCH", "MANCALA_SIM_FRAMES")


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(message)


def _parser():
    p = _Parser(prog="mancala-board sim",
                description="Run the board firmware on a virtual board: the MicroPython unix "
                            "port, or an emulated Pico (--target rp2040).",
                epilog="Keys, gestures and the channels are described in docs/sim.md.")
    p.add_argument("--target", choices=("unix", "rp2040"), default="unix",
                   help="unix: the MicroPython unix port (default, quick); rp2040: the stock "
                        "MicroPython image on an emulated Pico (rp2040js)")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--stdio", action="store_true",
                      help="headless: the serial line is this process's stdin/stdout")
    mode.add_argument("--pty", metavar="LINK",
                      help="headless: make a pty and a symlink LINK to it")
    p.add_argument("--link", metavar="LINK",
                   help="where the terminal view puts its pty link (default ./%s)" % DEFAULT_LINK)
    p.add_argument("--flash", metavar="DIR",
                   help="virtual flash directory, kept between runs (default: a temporary one)")
    p.add_argument("--heapsize", metavar="N",
                   help="unix target: MicroPython heap, e.g. 160k (default %s; docs/sim.md "
                        "says why)" % DEFAULT_HEAPSIZE)
    p.add_argument("--profile", metavar="NAME", default="duo",
                   help="board profile from hardware/profiles (default duo)")
    p.add_argument("--main", metavar="FILE",
                   help="run FILE instead of firmware/main.py (for testing the sim itself)")
    p.add_argument("--source", action="store_true",
                   help="run firmware/lib and the fakes from source instead of the compiled "
                        ".mpy cache (for debugging; needs a bigger heap)")
    p.add_argument("--missing-chip", metavar="ADDR", action="append", default=[],
                   help="start with this MPR121 unplugged, e.g. 0x5B (repeatable)")
    p.add_argument("--image", metavar="UF2",
                   help="rp2040 target: run this image instead of the stock MicroPython one; "
                        "the filesystem gets only profile.json (a CircuitPython image gets "
                        "the CircuitPython edition on its CIRCUITPY drive)")
    p.add_argument("--blank", action="store_true",
                   help="rp2040 target: start with an empty filesystem (deploy onto it; with "
                        "--image: a Pico just flashed, booting with the image's own profile)")
    p.add_argument("--pace", choices=("realtime", "free"),
                   help="rp2040 target: realtime (default) never lets emulated time run ahead "
                        "of the host's; free skips every wait at once (for runs fed by "
                        "nothing but the serial line)")
    p.add_argument("--trace", metavar="FILE",
                   help="rp2040 target: append JSON lines with the emulated time of each pad "
                        "change, LED frame and serial line to FILE")
    return p


def _reap_when_gone(pid, folder):
    """Leave behind a detached process that removes folder once pid has ended.

    Double-forked, in its own session and with stdio on /dev/null, so it neither holds the
    caller's pipes open nor joins a process group the caller may kill."""
    first = os.fork()
    if first:
        os.waitpid(first, 0)
        return
    try:
        os.setsid()
        if os.fork():
            os._exit(0)
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        os.closerange(3, 1 << 16)
        import time
        while True:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                break
            except PermissionError:
                pass
            time.sleep(1)
        shutil.rmtree(folder, ignore_errors=True)
    finally:
        os._exit(0)


def run_stdio(setup: Setup) -> NoReturn:
    """Become the board: exec MicroPython in place of this process (never returns)."""
    if setup.scratch is not None:           # a temporary flash: removed when the board ends
        _reap_when_gone(os.getpid(), setup.scratch)
    os.chdir(setup.flash)
    try:
        devices = Devices(setup.env)  # the MPR121 models: they end when the board does
    except OSError as e:
        raise UsageError("cannot start the virtual board's devices: %s" % (e.strerror or e))
    devices.inheritable()
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(setup.argv[0], setup.argv, setup.env)


def main(argv: Sequence[str] | None = None) -> int:
    """`mancala-board sim ...`: returns the exit code; a UsageError goes up to cli.main, which
    says every fault in its one sentence."""
    try:
        args = _parser().parse_args(sys.argv[1:] if argv is None else list(argv))
    except SystemExit as e:          # --help
        return e.code if isinstance(e.code, int) else 0
    setup = None
    try:
        setup = Setup(args)
        if args.stdio:
            run_stdio(setup)
        from . import serve
        if args.pty:
            return serve.run_pty(setup, args.pty)
        return serve.run_view(setup, args.link or DEFAULT_LINK)
    finally:
        if setup is not None:
            setup.cleanup()
