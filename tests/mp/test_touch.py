# The touch layer: masks in, press/release/long/double out, with debounce; runs under
# MicroPython and CPython.
from mancala_fw.touch import Touch, PRESS, RELEASE, LONG, DOUBLE
from drivers.compat import ticks_add  # the wrapping counter the touch layer reads

PADS = {0x5A: ["0.1", "0.2", None, "0.S"] + [None] * 8, 0x5B: ["1.1"] + [None] * 11}
CHIPS = (0x5A, 0x5B)


def _run(t, steps):
    """steps: (now, [mask per chip]) -> all events, flattened with their time."""
    out = []
    for now, masks in steps:
        for kind, pad in t.update(masks, now):
            out.append((now, kind, pad))
    return out


def test_press_acts_on_first_edge_and_release_follows():
    t = Touch(CHIPS, PADS)
    ev = _run(t, [(1000, [0, 0]), (1010, [1, 0]),
                  (1020, [0, 0]), (1060, [0, 0])])
    # The press is reported on the first sample that shows it; the bounce at 1020 is inside
    # the debounce window and is ignored; the release is reported once the window has passed.
    assert ev == [(1010, PRESS, "0.1"), (1060, RELEASE, "0.1")], ev


def test_bounce_inside_window_is_ignored():
    t = Touch(CHIPS, PADS)
    ev = _run(t, [(0, [2, 0]), (10, [0, 0]), (20, [2, 0]), (30, [0, 0]),
                  (45, [2, 0])])
    assert ev == [(0, PRESS, "0.2")], ev


def test_long_press_reported_once_after_delay():
    t = Touch(CHIPS, PADS)
    steps = [(n, [8, 0]) for n in range(0, 1500, 10)] + [(1500, [0, 0])]
    ev = _run(t, steps)
    kinds = [(k, p) for _, k, p in ev]
    assert kinds == [(PRESS, "0.S"), (LONG, "0.S"), (RELEASE, "0.S")], ev
    assert ev[1][0] == 1000


def test_double_tap():
    t = Touch(CHIPS, PADS)
    ev = _run(t, [(0, [8, 0]), (100, [0, 0]), (250, [8, 0]), (350, [0, 0]),
                  (500, [8, 0])])
    kinds = [k for _, k, _ in ev]
    # the third tap starts a new pair rather than making a second double
    assert kinds == [PRESS, RELEASE, PRESS, DOUBLE, RELEASE, PRESS], ev


def test_slow_second_tap_is_not_double():
    t = Touch(CHIPS, PADS)
    ev = _run(t, [(0, [8, 0]), (100, [0, 0]), (700, [8, 0])])
    assert DOUBLE not in [k for _, k, _ in ev], ev


def test_unavailable_chip_keeps_state_and_other_chip_works():
    t = Touch(CHIPS, PADS)
    ev = _run(t, [(0, [1, 1]), (100, [None, 0]),
                  (200, [0, 0])])
    assert ev == [(0, PRESS, "0.1"), (0, PRESS, "1.1"), (100, RELEASE, "1.1"),
                  (200, RELEASE, "0.1")], ev


def test_ticks_wrap_around():
    t = Touch(CHIPS, PADS)
    top = ticks_add(0, -1)  # the counter's last value before it wraps to 0
    ev = _run(t, [(top - 5, [1, 0]), (top, [0, 0]), (30, [0, 0])])
    # 30 comes 36 ms after top-5 across the wrap: still inside the 40 ms debounce window.
    assert ev == [(top - 5, PRESS, "0.1")], ev
    ev = _run(t, [(40, [0, 0])])
    assert ev == [(40, RELEASE, "0.1")], ev


def test_unused_electrodes_are_silent():
    t = Touch(CHIPS, PADS)
    ev = _run(t, [(0, [0xFFC, 0xFFE])])
    assert ev == [(0, PRESS, "0.S")], ev
    assert t.held() == ["0.S"]


def test_a_pad_untouched_for_a_week_still_answers():
    # After more than half the tick period (2**29 ms, about 6.2 days) the difference to the
    # pad's last edge wraps negative; the press must still count, and not as a double tap.
    t = Touch(CHIPS, PADS)
    _run(t, [(0, [1, 0]), (100, [0, 0])])
    later = ticks_add(100, 7 * 24 * 3600 * 1000)
    ev = _run(t, [(later, [1, 0])])
    assert ev == [(later, PRESS, "0.1")], ev
