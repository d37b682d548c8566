"""The two things the display needs from MicroPython that CPython lacks: const() and the
wrapping millisecond ticks. On the board these are the real ones."""
try:
    from micropython import const
except ImportError:  # CPython: const is just the value
    def const(x):
        return x

try:
    from time import ticks_ms, ticks_diff, ticks_add
except ImportError:  # CPython: the same 30-bit wrapping arithmetic as MicroPython's ports
    import time as _time

    _PERIOD = 1 << 30
    _HALF = _PERIOD >> 1

    def ticks_ms():
        return int(_time.monotonic() * 1000) & (_PERIOD - 1)

    def ticks_add(t, delta):
        return (t + delta) & (_PERIOD - 1)

    def ticks_diff(a, b):
        return ((a - b + _HALF) & (_PERIOD - 1)) - _HALF
