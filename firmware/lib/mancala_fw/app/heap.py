"""The heap's low-water mark, for `diag memory` (docs/protocol.md §4).

sample() reads gc.mem_free() and keeps the lowest value seen since boot. The app calls it
after every save, after every move's events and after every CPU search slice: the moments
when the game holds the most. It allocates nothing (small ints only), so it may sit in the
search's loop. gc.mem_free() counts garbage not yet collected as used, so min_free is a
floor: the board collects at idle moments (app.loop) and whenever an allocation finds no room.
On CPython (tests of the app) there is no gc.mem_free(), and sample() does nothing.
"""

import gc

_mem_free = getattr(gc, "mem_free", None)
low = _mem_free() if _mem_free is not None else None


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
