"""Where the fake LED outputs (rp2 DMA into a ws2812 state machine, neopixel) put frames.

Each frame is appended as one JSON line `{"pin": <pin>, "grb": "<hex>"}` to the file named by
MANCALA_SIM_FRAMES (opened once, flushed per frame); without it frames are dropped. The last
8 frames (one per chain on every profile) are also kept in `frames` as (pin, bytes) for
in-process tests; record(n) changes how many. Kept small because the fakes share the
firmware's MicroPython heap (--heapsize).
"""
import os
from binascii import hexlify

_keep = 8
frames = []  # most recent last
_file = None
_path = None
_opened = False


def set_path(path):
    """For tests: send frames to this path (None = drop) instead of MANCALA_SIM_FRAMES."""
    global _file, _path, _opened
    if _file is not None:
        _file.close()
    _file = None
    _path = path
    _opened = True


def record(n):
    """Keep the last n frames in `frames` (0 = stop keeping them)."""
    global _keep
    _keep = n
    del frames[:]


def _out():
    global _file, _path, _opened
    if not _opened:
        _opened = True
        _path = os.getenv("MANCALA_SIM_FRAMES")
    if _file is None and _path:
        _file = open(_path, "ab")
    return _file


def emit(pin, grb):
    """Record one frame sent on data pin `pin` (an int, or a name for a named pin)."""
    if _keep:
        frames.append((pin, bytes(grb)))
        if len(frames) > _keep:
            frames.pop(0)
    f = _out()
    if f is not None:
        f.write(('{"pin": %d, "grb": "' % pin if isinstance(pin, int)
                 else '{"pin": "%s", "grb": "' % pin).encode())
        mv = memoryview(grb)
        for i in range(0, len(grb), 256):  # hex in small pieces: no frame-sized strings
            f.write(hexlify(mv[i:i + 256]))
        f.write(b'"}\n')
        f.flush()
