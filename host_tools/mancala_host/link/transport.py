"""Byte lines to and from the board: the transport interface and its pyserial implementation.

A transport moves whole lines and knows nothing of JSON. `SerialTransport` opens a device
path or any pyserial URL (`socket://`, `loop://`, a pty path) with `serial_for_url`; with no
port given, `find_board` looks for the board by its USB VID:PID, as mpremote does: MicroPython
on an RP2040, or CircuitPython on a Raspberry Pi Pico.
Tests use the scripted fake in `tests/fakeport.py`, which has the same four members.
"""

from __future__ import annotations

import errno
import os
import stat
import sys
import time
from typing import Any, Callable, Iterable, Sequence

from ..errors import BoardError, PortLost

BOARD_VID = 0x2E8A  # Raspberry Pi
BOARD_PID = 0x0005  # MicroPython on an RP2040
CIRCUITPYTHON_VID = 0x239A  # Adafruit
CIRCUITPYTHON_PID = 0x80F4  # CircuitPython's raspberry_pi_pico build
BOARD_IDS = ((BOARD_VID, BOARD_PID), (CIRCUITPYTHON_VID, CIRCUITPYTHON_PID))
MAX_LINE = 1024  # the board discards longer lines (docs/protocol.md §1)


class Transport:
    """What the client needs from a line. `read_line` returns bytes without the newline, or
    None when `timeout` seconds pass with no whole line; it raises PortLost when the line is
    gone."""

    name = "?"
    not_a_board: str | None = None  # a clause when the port is known not to be a board

    def others(self) -> str:
        """A clause for messages about a confused line: who else may be reading it."""
        return "another program may have the port open and be taking part of the board's " \
               "answers: close it"

    def write_line(self, data: bytes) -> None:
        raise NotImplementedError

    def read_line(self, timeout: float) -> bytes | None:
        raise NotImplementedError

    def close(self) -> None:
        pass


def describe_ports(ports: Sequence[Any]) -> str:
    """'device (description)' for each port, for messages listing what was found."""
    if not ports:
        return "none"
    return ", ".join("%s (%s)" % (p.device, p.description or "no description") for p in ports)


def find_board(list_ports: Callable[[], Iterable[Any]] | None = None) -> str:
    """The device path of the one connected board; BoardError naming what was found otherwise."""
    if list_ports is None:
        from serial.tools import list_ports as lp

        list_ports = lp.comports
    ports = list(list_ports())
    boards = [p for p in ports if (p.vid, p.pid) in BOARD_IDS]
    if len(boards) == 1:
        return boards[0].device
    if not boards:
        raise BoardError(
            "No board found: no serial port has the USB ID 2E8A:0005 of MicroPython on an "
            "RP2040 or 239A:80F4 of CircuitPython on a Pico (ports seen: %s); plug the board "
            "in or give --port, or with no board run the virtual one: 'make sim' in the "
            "repository's folder." % describe_ports(ports))
    raise BoardError("Several boards found (%s); choose one with --port." % describe_ports(boards))


def not_a_board(port: str, list_ports: Callable[[], Iterable[Any]] | None = None) -> str | None:
    """A clause saying why `port` cannot be the board, when the system lists it with a USB ID
    that is not a board's, or with none (a built-in serial port such as /dev/ttyS0); None for a
    board's port, a pty (the virtual board), a URL, or a port the system does not list."""
    if "://" in port:
        return None
    if list_ports is None:
        from serial.tools import list_ports as lp

        list_ports = lp.comports
    path = os.path.realpath(port)
    for p in list_ports():
        if os.path.realpath(p.device) != path:
            continue
        if p.vid is None:
            return "it has no USB ID (a built-in serial port), while the board is a USB device"
        if (p.vid, p.pid) not in BOARD_IDS:
            return "its USB ID is %04X:%04X (%s), not a Pico's" % (
                p.vid, p.pid or 0, p.description or "no description")
    return None


def holders(port: str) -> list[str]:
    """'name (pid N)' for every other process that has the device behind `port` open, as far
    as /proc lets this user see (Linux; elsewhere, or for a URL, nothing)."""
    if "://" in port:
        return []
    try:
        device = os.stat(port)
    except OSError:
        return []
    if not stat.S_ISCHR(device.st_mode):
        return []
    found = []
    try:
        pids = [p for p in os.listdir("/proc") if p.isdigit() and int(p) != os.getpid()]
    except OSError:
        return []
    for pid in pids:
        try:
            fds = os.listdir("/proc/%s/fd" % pid)
        except OSError:  # gone, or another user's
            continue
        for fd in fds:
            try:
                st = os.stat("/proc/%s/fd/%s" % (pid, fd))
            except OSError:
                continue
            if stat.S_ISCHR(st.st_mode) and st.st_rdev == device.st_rdev:
                try:
                    with open("/proc/%s/comm" % pid) as f:
                        name = f.read().strip()
                except OSError:
                    name = "?"
                found.append("%s, pid %s" % (name, pid))
                break
    return found


def held_by_others(port: str) -> str:
    """A clause naming the other programs that have `port` open, or saying one may."""
    others = holders(port)
    if others:
        return "another program has the port open too (%s) and takes part of the board's " \
               "answers: close it" % "; ".join(others)
    return "another program (a terminal, cat, screen, mpremote) may have the port open and be " \
           "taking part of the board's answers: close it"


def stale_link(path: str) -> str | None:
    """A sentence for a symlink whose pty is gone (a virtual board that has stopped), or None."""
    if "://" in path or not os.path.islink(path) or os.path.exists(path):
        return None
    target = os.readlink(path)
    if target.startswith("/dev/pts/"):
        return ("%s is a link left behind by a virtual board that is no longer running (its pty "
                "%s is gone): start the board again with 'make sim' (or 'mancala-board sim') in "
                "this folder, or delete the link." % (path, target))
    return "%s is a link to %s, which is gone: check the path given with --port." % (path, target)


def open_error(port: str, exc: BaseException) -> BoardError:
    """One sentence for a port that would not open."""
    text = str(exc)
    code = getattr(exc, "errno", None)
    if code == errno.ENOENT or "No such file" in text or "could not open port" in text and "[Errno 2]" in text:
        stale = stale_link(port)
        if stale:
            return BoardError(stale)
        return BoardError("There is no serial port at %s: check the cable, or the path given with --port." % port)
    if code == errno.EBUSY or "exclusively lock" in text or "[Errno 16]" in text or "busy" in text.lower():
        who = holders(port)
        return BoardError("The port %s is busy: %s has it open; close that and try again." % (
            port, "another program (%s)" % "; ".join(who) if who else
            "another program (a terminal, mpremote or another mancala-board)"))
    if code == errno.EACCES or "[Errno 13]" in text:
        return BoardError("Permission denied on %s: add your user to the 'dialout' group "
                          "(then log in again), or run with access to the port." % port)
    if "Connection refused" in text or "[Errno 111]" in text:
        return BoardError("Nothing is listening at %s: start the board (or the sim) first." % port)
    if code == errno.EISDIR or "[Errno 21]" in text:
        return BoardError("%s is a folder, not a serial port: give the board's port with --port "
                          "(e.g. /dev/ttyACM0, or the virtual board's link)." % port)
    if isinstance(code, int) and code > 0:  # pyserial repeats the system's words: say them once
        text = os.strerror(code)
    return BoardError("Could not open the port %s: %s." % (port, text.rstrip(".")))


class SerialTransport(Transport):
    """A pyserial port carrying the board's JSON lines."""

    def __init__(self, port: str, baudrate: int = 115200) -> None:
        import serial

        self._serial_mod = serial
        self.name = port
        kwargs: dict[str, Any] = {"baudrate": baudrate, "timeout": 0.05, "write_timeout": 2}
        if "://" not in port:
            kwargs["exclusive"] = True  # a second opener would steal half the lines
        try:
            self._port = serial.serial_for_url(port, **kwargs)
        except (serial.SerialException, OSError, ValueError) as exc:
            raise open_error(port, exc)
        others = holders(port)
        if others:  # it reads what the board sends, so half the answers would go to it
            self.close()
            raise BoardError("The port %s is open in another program too (%s), which would take "
                             "part of the board's answers: close it and try again."
                             % (port, "; ".join(others)))
        self._buf = bytearray()
        self.not_a_board = not_a_board(port)

    def write_line(self, data: bytes) -> None:
        if len(data) + 1 > MAX_LINE:
            raise BoardError("The request is %d bytes long; the board takes lines of at most %d "
                             "bytes, so send fewer settings at once." % (len(data) + 1, MAX_LINE))
        try:
            self._port.write(data + b"\n")
            self._port.flush()
        except (self._serial_mod.SerialException, OSError) as exc:
            raise PortLost("The line to the board on %s was lost while writing (%s)." % (self.name, exc))

    def read_line(self, timeout: float) -> bytes | None:
        deadline = time.monotonic() + timeout
        while True:
            nl = self._buf.find(b"\n")
            if nl >= 0:
                line = bytes(self._buf[:nl]).rstrip(b"\r")
                del self._buf[:nl + 1]
                return line
            try:
                chunk = self._port.read(max(1, self._port.in_waiting))
            except (self._serial_mod.SerialException, OSError, TypeError):
                raise PortLost("The board on %s went away: the line was closed (unplugged, reset "
                               "or stopped)." % self.name)
            if chunk:
                self._buf.extend(chunk)
                if len(self._buf) > 64 * MAX_LINE and b"\n" not in self._buf:
                    self._buf[:] = b""
                    raise BoardError("The device on %s sends a stream of bytes with no line "
                                     "ends: it does not speak the board's protocol." % self.name)
                continue
            if time.monotonic() >= deadline:
                return None

    def others(self) -> str:
        """A clause for messages: the other programs that hold this port, or that one may."""
        return held_by_others(self.name)

    def close(self) -> None:
        try:
            self._port.close()
        except Exception:  # closing a port that vanished must not hide the real fault
            pass


SIM_LINK = "mancala-sim.pty"  # where `make sim` (the terminal view) puts its serial line


def open_transport(port: str | None = None) -> SerialTransport:
    """A SerialTransport on `port`, else $MANCALA_PORT, else the one board found by USB ID,
    else the virtual board that `make sim` runs in this folder."""
    port = port or os.environ.get("MANCALA_PORT")
    if not port:
        try:
            port = find_board()
        except BoardError as exc:
            if not os.path.exists(SIM_LINK):
                stale = stale_link(SIM_LINK)
                if stale:  # the USB search found nothing, and the sim's link is a leftover
                    raise BoardError("No USB board found, and " + stale)
                raise
            port = SIM_LINK
            sys.stderr.write("No USB board found; using the virtual board at %s.\n" % SIM_LINK)
    return SerialTransport(port)
