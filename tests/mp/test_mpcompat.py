# mpcompat, the one const() and ticks_* for the whole firmware, under the interpreter running
# this file: MicroPython's own time.ticks_* (on the unix port, over its 2**62 period), or the
# CPython stand-ins (over 2**30, as on the Pico). tests/test_firmware_mpcompat.py runs the same
# checks on CircuitPython's stand-in, and on each stand-in's counter at its wrap.
import sys
import time

import mpcompat
from mpcompat import const, ticks_ms, ticks_us, ticks_diff, ticks_add

MICROPYTHON = sys.implementation.name == "micropython"


def check_wrap(ticks_add, ticks_diff, period):
    """ticks_add and ticks_diff at the edges of period, the counter's wrap, and of half of it,
    where a difference turns from the latest future moment to the earliest past one. Deltas
    stay inside (-period/2, period/2), the range MicroPython's ticks_add accepts."""
    half = period // 2
    assert ticks_add(period - 1, 1) == 0
    assert ticks_add(0, -1) == period - 1
    assert ticks_add(period - 5, 10) == 5
    assert ticks_add(3, -10) == period - 7
    assert ticks_diff(0, period - 1) == 1
    assert ticks_diff(period - 1, 0) == -1
    assert ticks_diff(5, period - 5) == 10
    for t in (0, 1, half - 1, half, period - 2, period - 1):
        assert ticks_diff(t, t) == 0
        later = ticks_add(t, half - 1)
        assert 0 <= later < period and later == (t + half - 1) % period
        assert ticks_diff(later, t) == half - 1 and ticks_diff(t, later) == -(half - 1)
        earlier = ticks_add(t, -(half - 1))
        assert 0 <= earlier < period and earlier == (t - half + 1) % period
        assert ticks_diff(earlier, t) == -(half - 1)
        # half a period away is the earliest past moment, in either direction
        assert ticks_diff((t + half) % period, t) == -half
        assert ticks_diff((t - half) % period, t) == -half


def test_the_ticks_wrap_at_the_edges_of_this_interpreters_period():
    period = ticks_add(0, -1) + 1
    assert period == (1 << 62 if MICROPYTHON else 1 << 30), period
    check_wrap(ticks_add, ticks_diff, period)
    for now in (ticks_ms(), ticks_us()):
        assert 0 <= now < period


def test_micropython_gets_its_own_functions_and_cpython_the_stand_ins():
    if MICROPYTHON:
        import micropython

        assert ticks_ms is time.ticks_ms and ticks_us is time.ticks_us
        assert ticks_diff is time.ticks_diff and ticks_add is time.ticks_add
        assert const is micropython.const
    else:
        assert not hasattr(time, "ticks_ms")
        assert ticks_ms.__module__ == "mpcompat" and ticks_diff.__module__ == "mpcompat"
    assert const(7) == 7


def test_the_engine_and_the_drivers_take_mpcompats_ticks():
    from mancala import cpu, negamax
    from drivers import mpr121, ws2812

    assert negamax.ticks_ms is mpcompat.ticks_ms and negamax.ticks_diff is mpcompat.ticks_diff
    assert cpu.ticks_ms is mpcompat.ticks_ms and cpu.ticks_add is mpcompat.ticks_add
    assert mpr121.ticks_diff is mpcompat.ticks_diff and mpr121.ticks_add is mpcompat.ticks_add
    assert ws2812.ticks_us is mpcompat.ticks_us and ws2812.ticks_diff is mpcompat.ticks_diff
