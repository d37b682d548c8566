"""Fake `neopixel` (micropython-lib API) for the virtual board: write() captures the frame.

Like the real module, `buf` holds 3 (or 4) bytes per LED in the strip's wire order (GRB for
bpp=3), and __setitem__ takes (r, g, b) tuples.
"""
import frame_capture


class NeoPixel:
    ORDER = (1, 0, 2, 3)  # RGB(W) tuple index -> position on the wire (GRB(W))

    def __init__(self, pin, n, bpp=3, timing=1):
        self.pin = pin
        self.n = n
        self.bpp = bpp
        self.timing = timing
        self.buf = bytearray(n * bpp)

    def __len__(self):
        return self.n

    def __setitem__(self, i, v):
        offset = i * self.bpp
        for j in range(self.bpp):
            self.buf[offset + self.ORDER[j]] = v[j]

    def __getitem__(self, i):
        offset = i * self.bpp
        return tuple(self.buf[offset + self.ORDER[j]] for j in range(self.bpp))

    def fill(self, v):
        for i in range(self.n):
            self[i] = v

    def write(self):
        pin = self.pin
        frame_capture.emit(pin._id if hasattr(pin, "_id") else pin, self.buf)
