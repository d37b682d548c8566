"""A small KGP 1.0.0 client written from the specification (github.com/KWARC/kalah-game,
spec/), for the tests: it shares no code with the hub's server or the bot runner.

    c = Kgp(port)                 # reads `kgp 1 0 0`
    c.send('set info:name "ann"'); c.send("mode freeplay")
    ident, board = c.state()      # the next `ID state <...>`: board = (n, south, north, pits...)
    c.send("@%d move 3" % ident); c.send("@%d yield" % ident)
"""
import re
import socket

from waits import HANG_S


class Kgp:
    def __init__(self, port, host="127.0.0.1"):
        self.sock = socket.create_connection((host, port), timeout=HANG_S)
        self.buf = b""
        self.seen = []
        first = self.read()
        assert first.split() == ["kgp", "1", "0", "0"], first

    def send(self, text):
        self.sock.sendall(text.encode() + b"\r\n")

    def read(self):
        """The next line from the hub; None when it closed the line."""
        while b"\n" not in self.buf:
            try:
                data = self.sock.recv(65536)
            except OSError:
                data = b""
            if not data:
                return None
            self.buf += data
        raw, self.buf = self.buf.split(b"\n", 1)
        text = raw.decode().rstrip("\r")
        self.seen.append(text)
        return text

    def until(self, pattern):
        """Read lines (answering pings) up to the first that matches pattern; its match."""
        while True:
            text = self.read()
            if text is None:
                raise AssertionError("the hub closed the line before %r; saw %r" % (pattern, self.seen[-8:]))
            m = re.match(r"(\d+) ping$", text)
            if m:
                self.send("@%s pong" % m.group(1))
            m = re.match(pattern, text)
            if m:
                return m

    def state(self):
        m = self.until(r"(\d+) state <([\d,]+)>$")
        values = [int(v) for v in m.group(2).split(",")]
        n = values[0]
        return int(m.group(1)), {"n": n, "stores": values[1:3], "south": values[3:3 + n],
                                 "north": values[3 + n:]}

    def closed(self):
        """Read to the end of the line: True once the hub has closed it."""
        while self.read() is not None:
            pass
        return True

    def close(self):
        self.sock.close()
