"""app.heap's bound on garbage where the interpreter has no gc.threshold (CircuitPython): after
every save the app hands collect_if_due() the free memory sample() has just read, and it
collects once the heap in use has grown by GARBAGE_MAX, or by a third of what the last
collection left free, since then. On CPython, with a model of CircuitPython's gc; stock
CircuitPython 9.2.9 plays whole games with the bound in tests/test_circuitpython.py (its
lowest free heap stays above 16 KB)."""
import os

from mancala_fw.app import flow as firmware_app  # the saves are the game flow's
from mancala_fw import profile as profiles
from mancala_fw.app import App, heap
from mancala_fw.app.hardware import NullDisplay

from boardsim import PROFILES


class CircuitPythonGc:
    """gc as CircuitPython 9 has it: mem_alloc, mem_free and collect, no threshold, on a heap
    of size bytes. The test allocates (in_use grows) and says what a collection leaves
    (live)."""

    def __init__(self, in_use, size=160 * 1024):
        self.size = size
        self.in_use = in_use
        self.live = in_use
        self.collections = 0

    def mem_alloc(self):
        return self.in_use

    def mem_free(self):
        return self.size - self.in_use

    def collect(self):
        self.collections += 1
        self.in_use = self.live


def _gc(monkeypatch, fake, threshold=None):
    for name, value in (("gc", fake), ("_mem_free", fake.mem_free), ("_threshold", threshold),
                        ("ceiling", None), ("low", fake.mem_free())):
        monkeypatch.setattr(heap, name, value)
    heap.bound_garbage()  # at boot: the mark is the free memory then


def _save(gc, garbage):
    """A save that leaves garbage bytes, and the app's check after it."""
    gc.in_use += garbage
    heap.collect_if_due(heap.sample())


def test_garbage_is_collected_once_it_reaches_the_bound(monkeypatch):
    # 90 KB in use of 240 KB: a third of the 150 KB free is more than GARBAGE_MAX.
    gc = CircuitPythonGc(90 * 1024, 240 * 1024)
    _gc(monkeypatch, gc)
    for _ in range(7):  # 4 KB of garbage a save: 28 KB, under the bound
        _save(gc, 4096)
    assert gc.collections == 0
    _save(gc, 4096)  # 32 KB
    assert gc.collections == 1 and gc.in_use == gc.live
    _save(gc, 4096)  # counted from the collection
    assert gc.collections == 1
    assert heap.low == gc.size - gc.live - 32 * 1024  # the mark before the collection


def test_a_fuller_heap_is_collected_at_a_third_of_its_free_memory(monkeypatch):
    # 112 KB in use of 160 KB: a third of the 48 KB free is 16 KB.
    gc = CircuitPythonGc(112 * 1024)
    _gc(monkeypatch, gc)
    for _ in range(3):
        _save(gc, 4096)
    assert gc.collections == 0
    _save(gc, 4096)
    assert gc.collections == 1 and heap.ceiling == 48 * 1024
    assert heap.low == 32 * 1024  # two thirds of it stayed free


def test_a_collection_the_app_did_not_make_becomes_the_mark(monkeypatch):
    gc = CircuitPythonGc(112 * 1024)
    _gc(monkeypatch, gc)
    _save(gc, 12 * 1024)
    gc.live -= 8 * 1024  # a game's snapshots dropped, then the main loop collects
    gc.collect()
    _save(gc, 4096)  # more free than at the mark: the new mark, no collection
    assert gc.collections == 1 and heap.ceiling == gc.size - gc.in_use  # 52 KB free
    _save(gc, 13 * 1024)
    assert gc.collections == 1
    _save(gc, 5 * 1024)  # 18 KB grown: over a third of 52 KB
    assert gc.collections == 2


def test_with_gc_threshold_the_interpreter_bounds_it(monkeypatch):
    # MicroPython: gc.threshold(THRESHOLD) at boot, and no collection of the app's own.
    gc = CircuitPythonGc(90 * 1024)
    set_to = []
    _gc(monkeypatch, gc, set_to.append)
    assert set_to == [heap.THRESHOLD]
    _save(gc, 60 * 1024)
    assert gc.collections == 0


def test_every_save_of_the_app_checks_the_bound_with_its_sample(tmp_path, monkeypatch):
    calls = []

    def sample():
        calls.append("sample")
        return 12345

    monkeypatch.setattr(firmware_app, "sample_heap", sample)
    monkeypatch.setattr(firmware_app, "collect_if_due", lambda free: calls.append(free))
    app = App(profiles.load(os.path.join(PROFILES, "duo.json")), NullDisplay(),
              lambda name, fields: None, str(tmp_path) + os.sep)
    app.boot()
    del calls[:]
    app.press(None, 3, "serial")
    app.set_config({"brightness": 50}, "serial")
    # the low-water mark first (the garbage is at its most), then the bound on that reading
    assert calls == ["sample", 12345, "sample", 12345]
