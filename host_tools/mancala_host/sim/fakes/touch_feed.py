"""Non-blocking reader of the virtual board's touch command file (MANCALA_SIM_TOUCH).

Read on every I2C read of the bus, so an idle poll costs one read() that returns nothing.
"""
import os

import simclock


class TouchFeed:
    """Reads touch commands from a file without blocking: `<addr-hex> <electrode> <1|0>` and
    `chip <addr-hex> off|on`, one per line. A regular file is appended to by the launcher and
    read from where the last read stopped; a FIFO is opened read-write (so opening never
    waits for a writer) and read a byte at a time while poll() says there is data."""

    def __init__(self, path):
        self.path = path
        self.file = None
        self.poller = None
        self.retry_at = None
        self.buf = bytearray(64)
        self.byte = bytearray(1)
        self.partial = b""

    def _open(self):
        now = simclock.now_us()
        if self.retry_at is not None and simclock.elapsed_us(self.retry_at) < 0:
            return False
        self.retry_at = now + 250000
        try:
            mode = os.stat(self.path)[0]
            if mode & 0o170000 == 0o010000:  # S_IFIFO
                import select

                self.file = open(self.path, "r+b")
                self.poller = select.poll()
                self.poller.register(self.file, select.POLLIN)
            else:
                self.file = open(self.path, "rb")
        except OSError:
            self.file = None
        return self.file is not None

    def read_lines(self):
        if self.file is None and not self._open():
            return None
        chunk = b""
        if self.poller is None:
            while True:
                n = self.file.readinto(self.buf)
                if not n:
                    break
                chunk += bytes(self.buf[:n])
                if n < len(self.buf):
                    break
        else:
            while self.poller.poll(0):
                if not self.file.readinto(self.byte):
                    break
                chunk += bytes(self.byte)
        if not chunk:
            return None
        chunk = self.partial + chunk
        lines = chunk.split(b"\n")
        self.partial = lines.pop()
        return lines
