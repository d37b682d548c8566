"""Runs the board process behind a pty (--pty) or behind the terminal view (the default).

Both keep the board a child of this process that dies with it (PR_SET_PDEATHSIG), and remove
the pty link on the way out, also on SIGTERM, SIGHUP and Ctrl-C.
"""

from __future__ import annotations

import ctypes
import json
import os
import select
import signal
import subprocess
import sys
from typing import IO, TYPE_CHECKING, Any

from .devices import Devices
from .errors import UsageError
from .serial_line import LinkOwned, PtyLink, Relay

if TYPE_CHECKING:
    from .setup import Setup

PR_SET_PDEATHSIG = 1


class Stop(Exception):
    """A signal asked the launcher to stop."""


def _raise_stop(signum, frame):
    raise Stop()


def _death_pact():
    """preexec_fn for the board: when this launcher dies, so does the board (a power cut)."""
    libc = ctypes.CDLL(None, use_errno=True)
    parent = os.getpid()                # the launcher, soon the board's parent

    def arm():
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:          # the launcher died before prctl took effect
            os._exit(1)
    return arm


def start_board(setup: Setup, stderr: int | IO[Any] | None = None
                ) -> tuple[subprocess.Popen[bytes], int, int]:
    """Start the board process; returns (Popen, fd of its stdin, fd of its stdout)."""
    in_r, in_w = os.pipe()
    out_r, out_w = os.pipe()
    env = dict(setup.env)
    devices = None
    try:
        devices = Devices(env, stderr, setup.flash)  # the MPR121 models: they end with the board
        proc = subprocess.Popen(setup.argv, cwd=setup.flash, env=env, stdin=in_r,
                                stdout=out_w, stderr=stderr, preexec_fn=_death_pact(),
                                pass_fds=devices.fds)
    except OSError as e:
        raise UsageError("cannot start %s: %s" % (setup.argv[0], e.strerror or e))
    finally:
        os.close(in_r)
        os.close(out_w)
        if devices is not None:
            devices.handed_over()
    proc.devices = devices  # type: ignore[attr-defined]  # the board's Popen carries them
    return proc, in_w, out_r


def _stop_board(proc):
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(2)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    proc.devices.stop()
    return proc.returncode


def _make_link(link):
    try:
        return PtyLink(link)
    except LinkOwned as e:
        # make passes MAKELEVEL down: under `make sim` the options go through SIMFLAGS
        how = ("make sim SIMFLAGS=\"--link b2.pty\"" if os.environ.get("MAKELEVEL") else
               "--link LINK, or --pty LINK")
        raise UsageError("%s belongs to the virtual board already running here%s; stop that one "
                         "first, or give this one another link (%s)"
                         % (link, " (pid %d)" % e.pid if e.pid else "", how))
    except OSError as e:
        raise UsageError("cannot make the pty link %s: %s" % (link, e.strerror or e))


class _Signals:
    """SIGTERM, SIGHUP and SIGINT raise Stop while in effect; the old handlers come back after."""

    def __enter__(self):
        self.old = {s: signal.signal(s, _raise_stop)
                    for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)}
        return self

    def __exit__(self, *exc):
        for s, h in self.old.items():
            signal.signal(s, h)
        return exc[0] is Stop           # a stop request is a clean exit


def run_pty(setup: Setup, link_path: str) -> int:
    """Headless board on a pty until the board exits or this process is told to stop."""
    link = _make_link(link_path)
    proc = relay = None
    try:
        with _Signals():
            proc, board_in, board_out = start_board(setup)
            relay = Relay(link, board_in, board_out)
            print("virtual board (%s) on %s -> %s, flash %s; Ctrl-C stops it"
                  % (setup.args.profile, link_path, link.name, setup.flash), flush=True)
            while not relay.board_closed:
                ready, _, _ = select.select(relay.fds(), [], [], 0.05)
                relay.pump(ready)
    finally:
        code = _stop_board(proc) if proc is not None else 0
        link.remove()
    if relay is not None and relay.board_closed:
        if code:
            sys.stderr.write("mancala-board sim: the board stopped with exit code %d\n" % code)
        return code
    return 0


def load_profile(path: str) -> dict[str, Any]:
    try:
        with open(path) as f:
            profile = json.load(f)
        profile["positions"], profile["led_chains"], profile["sides"]  # noqa: B018
        return profile
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise UsageError("cannot draw the board from %s: %s" % (path, e))


def run_view(setup: Setup, link_path: str) -> int:
    """The terminal board: keys touch pads, frames draw rings, and a pty for a host alongside."""
    from . import terminal
    if not (os.isatty(0) and os.isatty(1)):
        raise UsageError("the terminal view needs a terminal; for a headless board use "
                         "--pty LINK or --stdio")
    profile = load_profile(setup.profile_path)
    scratch = setup.scratch_dir()
    touch_path = os.path.join(scratch, "touch")
    frames_path = os.path.join(scratch, "frames")
    os.mkfifo(touch_path)
    # Read-write never waits for the other end, and holding both ends means the FIFO never
    # reports end-of-file while the board opens and closes it.
    touch_fd = os.open(touch_path, os.O_RDWR | os.O_NONBLOCK)
    # Frames go to a plain file the view tails: the fakes flush() after each frame, and
    # MicroPython's flush() (an fsync) fails with EINVAL on a pipe or FIFO.
    frames_fd = os.open(frames_path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o600)
    setup.env["MANCALA_SIM_TOUCH"] = touch_path
    setup.env["MANCALA_SIM_FRAMES"] = frames_path
    link = _make_link(link_path)
    err_w: int | None
    err_r, err_w = os.pipe()
    proc = view = relay = None
    try:
        with _Signals():
            proc, board_in, board_out = start_board(setup, stderr=err_w)
            os.close(err_w)
            err_w = None
            view = terminal.View(setup, profile, link, touch_fd, frames_fd, err_r)
            relay = Relay(link, board_in, board_out, on_board_line=view.board_line)
            view.run(relay)
    finally:
        code = _stop_board(proc) if proc is not None else 0
        link.remove()
        if view is not None:
            view.drain_stderr()
        for fd in (touch_fd, frames_fd, err_r, err_w):
            if fd is not None:
                os.close(fd)
    if relay is not None and relay.board_closed:
        sys.stderr.write(view.stderr_tail())
        sys.stderr.write("mancala-board sim: the board stopped with exit code %d\n" % code)
        return code or 1
    return 0
