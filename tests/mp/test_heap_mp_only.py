# app.heap, diag memory's low-water mark: it keeps the lowest gc.mem_free() it sampled, and a
# sample allocates nothing (it runs after every CPU search slice). MicroPython only: CPython
# has no gc.mem_free().
import gc

from mancala_fw.app import heap


def test_the_mark_keeps_the_lowest_free_seen():
    gc.collect()
    before = heap.report()
    assert before["min_free"] <= before["free"]
    block = bytearray(40000)
    heap.sample()
    low = heap.low
    block = None  # noqa: F841 (dropped, then collected)
    gc.collect()
    after = heap.report()
    assert after["min_free"] == low <= before["free"] - 40000
    assert after["free"] - low > 39000  # the block came back; the mark stays where it was


def test_a_reset_reports_the_mark_then_starts_it_again_from_now():
    gc.collect()
    block = bytearray(40000)
    heap.sample()
    block = None  # noqa: F841 (dropped, then collected)
    gc.collect()
    first = heap.report(reset=True)
    assert first["free"] - first["min_free"] > 39000  # the block's low is reported once
    again = heap.report()
    assert again["min_free"] >= first["free"] - 1000  # and then forgotten


def test_free_and_alloc_are_the_heap_now():
    gc.collect()
    r = heap.report()
    # read before the answer was made: the same total, and the answer's own heap since
    assert r["free"] + r["alloc"] == gc.mem_free() + gc.mem_alloc()
    assert r["free"] >= gc.mem_free() and r["alloc"] > 0


def test_a_sample_allocates_nothing():
    sample = heap.sample
    sample()
    gc.collect()
    before = gc.mem_alloc()
    for _ in range(50):
        sample()
    assert gc.mem_alloc() - before == 0


def test_garbage_is_bounded_by_a_collection_threshold():
    heap.bound_garbage()
    assert gc.threshold() == heap.THRESHOLD
    gc.collect()
    floor = gc.mem_free()
    for _ in range(200):
        bytearray(1000)  # 200 KB of garbage, never kept
        assert gc.mem_free() > floor - heap.THRESHOLD - 2000
    gc.threshold(-1)
