"""Where the fake LED outputs (rp2 DMA into a ws2812 state machine, neopixel) put frames.

Each frame is appended as one JSON line `{"pin": <pin>, "grb": "<hex>"}` to the file named by
MANCALA_SIM_FRAMES (opened once, flushed per frame); without it frames are dropped. The last
few frames are also kept in `frames` as (pin, bytes) for in-process tests.
"""
import os
from binascii import hexlify

KEEP = 64
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


def _out():
    global _file, _path, _opened
    if not _opened:
        _opened = True
        _path = os.getenv("MANCALA_SIM_FRAMES")
    if _file is None and _path:
        _file = open(_path, "a")
    return _file


def emit(pin, grb):
    """Record one frame sent on data pin `pin` (an int, or a name for a named pin)."""
    data = bytes(grb)
    frames.append((pin, data))
    if len(frames) > KEEP:
        frames.pop(0)
    f = _out()
    if f is not None:
        p = "%d" % pin if isinstance(pin, int) else '"%s"' % pin
        f.write('{"pin": %s, "grb": "%s"}\n' % (p, hexlify(data).decode()))
        f.flush()
