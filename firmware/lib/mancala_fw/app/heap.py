"""The app's heap: a bound on its garbage, and the low-water mark `diag memory` reports
(docs/protocol.md §4).

gc.mem_free() counts garbage not yet collected as used. The board collects at idle moments
(app.loop, every 2 s at most), and bound_garbage() makes MicroPython collect as well whenever
GARBAGE_MAX bytes have been allocated since the last collection, so a stream of serial
requests with no idle moment cannot fill the heap with garbage first.

sample() reads gc.mem_free() and keeps the lowest value seen since boot (min_free). Free
memory only shrinks between collections, so the app samples where it is lowest: right before
each idle collection and after every save (a move, a new game, an undo, a config change).
A CPU search allocates little once it has started; sample_slice(now) after each of its
slices reads at most every SLICE_EVERY_MS, because one read walks the whole allocation table:
8.5 ms on an RP2040 with the app loaded (emulated Pico), more than a 7 ms slice. Neither
allocates (small ints only). On CPython (tests of the app) there is no gc.mem_free(), and
they do nothing.
"""

import gc

from drivers.compat import ticks_diff

GARBAGE_MAX = 32 * 1024
SLICE_EVERY_MS = 250

_mem_free = getattr(gc, "mem_free", None)
low = _mem_free() if _mem_free is not None else None
_slice_read = None  # ticks_ms() of the last read after a search slice


def bound_garbage():
    if hasattr(gc, "threshold"):
        gc.threshold(GARBAGE_MAX)


def sample():
    global low
    if _mem_free is not None:
        free = _mem_free()
        if free < low:
            low = free


def sample_slice(now):
    """After a CPU search slice (now: ticks_ms()); reads at most every SLICE_EVERY_MS."""
    global _slice_read
    if _slice_read is None or ticks_diff(now, _slice_read) >= SLICE_EVERY_MS:
        _slice_read = now
        sample()


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
