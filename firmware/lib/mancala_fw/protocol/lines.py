"""Splits the serial byte stream into lines of at most MAX_LINE bytes.

The buffer is allocated once. A line that grows past the limit is dropped byte by byte as it
arrives (never buffered), and reported as TOO_LONG when its newline comes, so a flood of data
without newlines cannot exhaust the heap.
"""

MAX_LINE = 1024
TOO_LONG = object()  # feed() returns this instead of a line that was over MAX_LINE


class LineReader:
    def __init__(self, limit=MAX_LINE):
        self._buf = bytearray(limit + 1)  # + a CR before the newline, which does not count
        self._limit = limit
        self._n = 0
        self._over = False

    def feed(self, byte):
        """Takes one byte (an int). Returns a complete line (bytes, without the newline and
        a trailing CR), TOO_LONG, or None while the line is still incomplete."""
        if byte == 10:
            n = self._n
            self._n = 0
            if self._over:
                self._over = False
                return TOO_LONG
            if n and self._buf[n - 1] == 13:
                n -= 1
            if n > self._limit:
                return TOO_LONG
            return bytes(self._buf[:n])
        if self._over:
            return None
        n = self._n
        if n > self._limit:
            self._over = True
            return None
        self._buf[n] = byte
        self._n = n + 1
        return None

    def pending(self):
        """How many bytes of an unfinished line are held (0 when between lines)."""
        return self._n
