"""The virtual board's serial line: a pty a host opens like /dev/ttyACM0.

The board process talks over plain pipes (exactly as with --stdio); Relay copies bytes
between those pipes and the pty master.  Doing the copying here, rather than handing the
master to MicroPython, gives the line the manners of USB CDC:
- the host may close and reopen the port at any time; the board never notices;
- while no host has the port open, the board's output is dropped (a real board's USB stack
  drops it too), so a board played from the keys never stalls on a full tty buffer.
"""

from __future__ import annotations

import errno
import fcntl
import os
import select
import termios
import tty

MAX_PENDING = 1 << 20       # bytes held for a slow reader before the oldest are dropped


class LinkOwned(Exception):
    """Another running sim owns the link; `pid` is its process id (None if unknown)."""

    def __init__(self, link, pid):
        Exception.__init__(self, link)
        self.link = link
        self.pid = pid


def _own(link):
    """Lock the hidden file `.LINK.lock` beside the link for as long as this sim runs, so a
    second sim in the same folder does not take the link over; returns its descriptor. The
    kernel drops the lock when the process ends, however it ends, so a stale file is free."""
    path = os.path.join(os.path.dirname(link), "." + os.path.basename(link) + ".lock")
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        text = os.read(fd, 32).decode("ascii", "replace").strip()
        os.close(fd)
        raise LinkOwned(link, int(text) if text.isdigit() else None)
    except OSError:
        os.close(fd)
        raise
    os.ftruncate(fd, 0)
    os.write(fd, b"%d\n" % os.getpid())
    return fd, path


class PtyLink:
    """A raw pty pair and a symlink to its slave; remove() takes the symlink away. The link is
    owned while this object lives: PtyLink raises LinkOwned when a running sim owns it."""

    def __init__(self, link):
        self.link = os.path.abspath(link)
        self.master = None
        if os.path.lexists(self.link) and not os.path.islink(self.link):
            raise OSError(errno.EEXIST, "%s exists and is not a symlink; choose another LINK"
                          % link)
        self.lock, self.lock_path = _own(self.link)
        self.master, slave = os.openpty()
        # Raw on the slave: no echo of the board's output back into it, no CR/LF rewriting.
        tty.setraw(slave, termios.TCSANOW)
        self.name = os.ttyname(slave)
        os.close(slave)
        os.set_blocking(self.master, False)
        tmp = self.link + ".tmp%d" % os.getpid()
        os.symlink(self.name, tmp)
        os.replace(tmp, self.link)          # atomic, even over a stale link from an old run

    def host_connected(self) -> bool:
        """True while some process has the slave open (the master reports no hang-up)."""
        if self.master is None:  # removed
            return False
        p = select.poll()
        p.register(self.master, select.POLLIN)
        for _, ev in p.poll(0):
            if ev & select.POLLHUP:
                return False
        return True

    def remove(self) -> None:
        try:
            if os.path.islink(self.link) and os.readlink(self.link) == self.name:
                os.unlink(self.link)
        except OSError:
            pass
        if self.master is not None:
            os.close(self.master)
            self.master = None
        if self.lock is not None:
            try:
                os.unlink(self.lock_path)  # while still locked: no one else holds this file
            except OSError:
                pass
            os.close(self.lock)
            self.lock = None


class Relay:
    """Copies host -> board stdin and board stdout -> host; call pump() when fds are ready.

    fds() lists the descriptors worth waiting on right now; on_board_line is called with
    each complete line the board writes (for the view's status line).
    """

    def __init__(self, link, board_in, board_out, on_board_line=None):
        self.link = link
        self.board_in = board_in
        self.board_out = board_out
        os.set_blocking(board_in, False)
        os.set_blocking(board_out, False)
        self.to_board = bytearray()
        self.to_host = bytearray()
        self.partial = bytearray()
        self.on_board_line = on_board_line
        self.connected = False
        self.board_closed = False

    def fds(self) -> list[int]:
        self.connected = self.link.host_connected()
        if not self.connected:
            self._drop_whole_lines()
        wait = [] if self.board_closed else [self.board_out]
        if self.connected:
            wait.append(self.link.master)
        return wait

    def pump(self, ready: list[int]) -> None:
        if self.board_out in ready:
            self._from_board()
        if self.link.master in ready and self.connected:
            self._from_host()
        self._flush()

    def _from_board(self):
        try:
            chunk = os.read(self.board_out, 65536)
        except BlockingIOError:
            return
        if not chunk:
            self.board_closed = True
            return
        self.to_host += chunk
        if not self.connected:
            self._drop_whole_lines()
        if self.on_board_line is not None:
            self.partial += chunk
            *lines, rest = self.partial.split(b"\n")
            self.partial = bytearray(rest[-4096:])
            for line in lines:
                self.on_board_line(bytes(line))

    def _drop_whole_lines(self):
        # Nobody is listening: drop complete lines, but keep the line in progress, so a host
        # that connects now receives it whole rather than its tail.
        end = self.to_host.rfind(b"\n")
        if end >= 0:
            del self.to_host[:end + 1]
        del self.to_host[:-4096]

    def _from_host(self):
        try:
            chunk = os.read(self.link.master, 65536)
        except (BlockingIOError, OSError):  # EIO: the host closed the port just now
            return
        self.to_board += chunk

    def _flush(self):
        self.to_board = self._write(self.board_in, self.to_board)
        if self.connected:
            self.to_host = self._write(self.link.master, self.to_host)

    @staticmethod
    def _write(fd, pending):
        if pending:
            try:
                n = os.write(fd, pending)
                del pending[:n]
            except (BlockingIOError, InterruptedError):
                pass
            except OSError:                     # the reader is gone; nothing will take it
                pending.clear()
        if len(pending) > MAX_PENDING:
            del pending[:len(pending) - MAX_PENDING]
        return pending
