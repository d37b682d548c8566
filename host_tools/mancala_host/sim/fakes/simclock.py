"""Virtual-board clock shared by the fake devices (MPR121 model, DMA, WDT).

The fakes measure device time (filter response, wire time of a LED frame) with this clock.
It runs on the real monotonic clock; a test can freeze it and step it by hand, so a test of
timing behaviour needs no sleeps and asserts no wall-clock times. Works on MicroPython and
CPython.
"""
try:
    from time import ticks_us as _real_us
except ImportError:  # CPython
    import time as _time

    def _real_us():
        return int(_time.monotonic() * 1000000)

_manual = None  # None = real clock; otherwise the frozen time in microseconds


def now_us():
    """Microseconds since an arbitrary start; wraps like ticks_us on MicroPython, so compare
    with elapsed_us()."""
    if _manual is not None:
        return _manual
    return _real_us()


def elapsed_us(since):
    d = now_us() - since
    # ticks_us on MicroPython wraps at 2**30; fold the difference back into range.
    if d < -(1 << 29):
        d += 1 << 30
    return d


def freeze(start_us=0):
    """Stop the clock at start_us; advance it with advance_ms/advance_us."""
    global _manual
    _manual = start_us


def advance_ms(ms):
    advance_us(ms * 1000)


def advance_us(us):
    global _manual
    if _manual is None:
        raise ValueError("simclock is running on the real clock; call freeze() first")
    _manual += us


def thaw():
    """Go back to the real clock."""
    global _manual
    _manual = None
