"""The app's heap: a bound on its garbage, and the low-water mark `diag memory` reports
(docs/protocol.md §4).

gc.mem_free() counts garbage not yet collected as used. The board collects at the first idle
moment after work (app.loop, every 2 s at most), and bound_garbage() makes MicroPython collect as well whenever
GARBAGE_MAX bytes have been allocated since the last collection, so a stream of serial
requests with no idle moment cannot fill the heap with garbage first.

sample() reads gc.mem_free() and keeps the lowest value seen since boot (min_free). Free
memory only shrinks between collections, so the app samples where it is lowest: right before
each idle collection and after every save (a move, a new game, an undo, a config change).
A CPU search makes its tables when it starts and allocates nothing per position, so the app
samples after its first slice (app.autoplay), not after every slice: one read
walks the whole allocation table, 8.5 ms on an RP2040 with the app loaded (emulated Pico),
which no touch while the CPU thinks should have to wait for. Neither allocates (small ints
only). On CPython (tests of the app) there is no gc.mem_free(), and
they do nothing.
"""

import gc

GARBAGE_MAX = 32 * 1024

_mem_free = getattr(gc, "mem_free", None)
low = _mem_free() if _mem_free is not None else None


def bound_garbage():
    if hasattr(gc, "threshold"):
        gc.threshold(GARBAGE_MAX)


def sample():
    global low
    if _mem_free is not None:
        free = _mem_free()
        if free < low:
            low = free


def report():
    """The answer fields of diag memory: free and alloc now, and the low-water mark."""
    global low
    if _mem_free is None:
        return {"free": None, "alloc": None, "min_free": None}
    free = _mem_free()  # read before the answer's dict is made, which takes heap
    alloc = gc.mem_alloc()
    if free < low:
        low = free
    return {"free": free, "alloc": alloc, "min_free": low}
