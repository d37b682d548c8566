"""What the drivers and the firmware use from MicroPython that CPython lacks: const() and the
wrapping millisecond ticks (ticks_ms, ticks_diff, ticks_add). On the board these are
MicroPython's own; under CPython (tests, the host tool) the same 30-bit arithmetic stands in.
It is the one copy: every module under firmware/lib that needs them imports them from here,
except the engine `mancala`, which depends on nothing else on the board."""
try:
    from micropython import const
except ImportError:  # CPython: const is just the value
    # The stubs give MicroPython's signatures; these stand-ins differ only in being untyped.
    def const(x):  # type: ignore[misc]
        return x

try:
    from time import ticks_ms, ticks_diff, ticks_add
except ImportError:  # CPython: the same 30-bit wrapping arithmetic as MicroPython's ports
    import time as _time

    _PERIOD = 1 << 30
    _HALF = _PERIOD >> 1

    def ticks_ms():
        return int(_time.monotonic() * 1000) & (_PERIOD - 1)  # type: ignore[attr-defined]

    def ticks_add(t, delta):  # type: ignore[misc]
        return (t + delta) & (_PERIOD - 1)

    def ticks_diff(a, b):  # type: ignore[no-redef]
        return ((a - b + _HALF) & (_PERIOD - 1)) - _HALF
