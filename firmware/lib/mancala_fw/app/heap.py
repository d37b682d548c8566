"""The app's heap: a bound on its garbage, and the low-water mark `diag memory` reports
(docs/protocol.md §4).

gc.mem_free() counts garbage not yet collected as used. The board collects at the first idle
moment after work (app.loop), and bound_garbage() makes MicroPython collect as well whenever
THRESHOLD bytes have been allocated since the last collection, so neither a stream of serial
requests nor CPU seats playing move after move (no idle moment between them) can fill the
heap with garbage first. THRESHOLD fits the budget: a third of the heap free through the
whole game, garbage included (docs/architecture.md §10). On stock MicroPython + deploy, quad,
a level-5 search leaves 100,176 bytes free after a collection, 18 KB above that floor
(81,962), and with 32 KB, the bound before, a game's garbage took the lowest free heap to
80,528 (bench/soak.py, emulated Pico, 9ac620c; docs/performance.md §9); 12 KB leaves the
rest of those 18 KB to what a step holds while it runs. A move makes a few KB of garbage,
so CPU seats playing each other collect every few moves (16 ms each on an RP2040); a
person's moves are collected at the idle moment after each, as before.

CircuitPython has no gc.threshold: there the app calls collect_if_due() after every save
(each move, new game, undo and config change makes one), which collects once the heap in use
has grown by GARBAGE_MAX since the last collection, or by a third of the memory that
collection left free, whichever comes first: checked where the garbage is made rather than
at every allocation, and tighter where less is free (CircuitPython leaves the game about
half of MicroPython's free heap), so that two thirds of it stay free between collections.
Its budget is read after a collection (docs/performance.md §7), so its garbage bound is not
THRESHOLD.
A collection costs 9.5 ms on duo and 19 ms on quad (CircuitPython 9.2.9 on the emulated
Pico, the game booted; docs/storage.md section 3), and a move makes a few KB of garbage, so
collecting after every save instead would add that to every move, on top of the main loop's
collection after it. The check reads no more of the heap than sample() already has.

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

GARBAGE_MAX = 32 * 1024  # CircuitPython: collect_if_due()
THRESHOLD = 12 * 1024  # MicroPython: gc.threshold()

_mem_free = getattr(gc, "mem_free", None)
_threshold = getattr(gc, "threshold", None)
low = _mem_free() if _mem_free is not None else None
# Where there is no gc.threshold: the free memory right after the last collection that
# collect_if_due() knows of, once bound_garbage() has set it.
ceiling = None


def bound_garbage():
    """At boot, once the board is built and collected."""
    global ceiling
    if _threshold is not None:
        _threshold(THRESHOLD)
    elif _mem_free is not None:
        ceiling = _mem_free()


def collect_if_due(free):
    """Where there is no gc.threshold (CircuitPython): collects if the heap in use has grown
    by GARBAGE_MAX, or by a third of what was free then, since the last collection. free: the
    gc.mem_free() sample() has just read (None: nothing to do), as each read walks the whole
    allocation table. More free than at the mark means a collection since (the main loop's,
    or the interpreter's own), which becomes the mark. Allocates nothing (small ints)."""
    global ceiling
    mem_free = _mem_free
    if free is None or ceiling is None or mem_free is None:
        return
    if free > ceiling:
        ceiling = free
        return
    grown = ceiling - free
    if grown >= GARBAGE_MAX or 3 * grown >= ceiling:
        gc.collect()
        ceiling = mem_free()


def sample():
    """Reads the free memory into the low-water mark; returns it (None on CPython)."""
    global low
    if _mem_free is None:
        return None
    free = _mem_free()
    if free < low:
        low = free
    return free


def report(reset=False):
    """The answer fields of diag memory: free and alloc now, and the low-water mark. reset:
    the mark starts again from now, once read (a bench reads each game's lowest so)."""
    global low
    if _mem_free is None:
        return {"free": None, "alloc": None, "min_free": None}
    free = _mem_free()  # read before the answer's dict is made, which takes heap
    alloc = gc.mem_alloc()
    if free < low:
        low = free
    answer = {"free": free, "alloc": alloc, "min_free": low}
    if reset:
        low = free
    return answer
