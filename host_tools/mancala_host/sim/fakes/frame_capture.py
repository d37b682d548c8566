"""Where the fake LED outputs (rp2 DMA into a ws2812 state machine, neopixel) put frames.

Each frame is appended as one JSON line `{"pin": <pin>, "grb": "<hex>"}` to the file named by
MANCALA_SIM_FRAMES (opened at import, unbuffered); without it frames are dropped.
`frames` holds (pin, bytes) for in-process tests: by default the latest frame of each pin
(most recently sent last): a DMA frame as the transfer's own source buffer (emit's stable=True;
the DMA fake reports a source changed while on the wire), any other in one reused buffer per
pin; record(n) keeps a history of the last n frames instead (copies, for tests only).
The fakes share the firmware's MicroPython heap (--heapsize), so a frame allocates nothing
once each pin has sent one: the hex goes out in pieces from one preallocated buffer.
"""
import os

_HEX = b"0123456789abcdef"
_hex = bytearray(128)  # the line in pieces, up to 63 frame bytes each
_keep = 0  # 0 = the latest frame per pin; n = the last n frames
frames = []  # most recent last
_file = None


def set_path(path):
    """Send frames to this path (None = drop them); at import: MANCALA_SIM_FRAMES.
    Unbuffered: each write is in the file at once, for the terminal view to read. No
    flush(): on MicroPython it is an fsync, several ms per frame."""
    global _file
    if _file is not None:
        _file.close()
    _file = open(path, "ab", 0) if path else None


def record(n):
    """Keep the last n frames in `frames` (0 = only the latest frame of each pin)."""
    global _keep
    _keep = n
    del frames[:]


def emit(pin, grb, stable=False):
    """Record one frame sent on data pin `pin` (an int, or a name for a named pin).
    stable=True: the caller keeps grb unchanged until this pin's next frame (the DMA's own
    copy), so `frames` may hold it without a copy."""
    if _keep:
        frames.append((pin, bytes(grb)))
        if len(frames) > _keep:
            frames.pop(0)
    else:
        slot = None
        for i in range(len(frames)):
            if frames[i][0] == pin:
                slot = frames.pop(i)  # the list keeps its capacity
                break
        if slot is None or stable and slot[1] is not grb or len(slot[1]) != len(grb):
            slot = (pin, grb if stable else bytearray(grb))
        elif slot[1] is not grb:
            slot[1][:] = grb  # in place: no allocation
        frames.append(slot)
    f = _file
    if f is None:
        return
    # The line goes out through _hex in pieces of up to 128 bytes: nothing allocated.
    h = _hex
    k = 0
    if isinstance(pin, int):
        for c in b'{"pin": ':
            h[k] = c
            k += 1
        d = 1
        while d * 10 <= pin:
            d *= 10
        while d:
            h[k] = 48 + pin // d % 10
            k += 1
            d //= 10
    else:  # a named pin (not on the DMA path): allocates
        f.write(('{"pin": "%s"' % pin).encode())
    for c in b', "grb": "':
        h[k] = c
        k += 1
    hx = _HEX
    n = len(grb)
    i = 0
    while True:
        while k < 126 and i < n:
            v = grb[i]
            h[k] = hx[v >> 4]
            h[k + 1] = hx[v & 15]
            k += 2
            i += 1
        if i == n and k < 126:
            for c in b'"}\n':
                h[k] = c
                k += 1
            i += 1  # the line is complete
        try:
            f.write(h, 0, k)  # MicroPython streams take (buf, off, len): no slice object
        except TypeError:  # CPython
            f.write(h[:k])
        if i > n:
            return
        k = 0


set_path(os.getenv("MANCALA_SIM_FRAMES"))
