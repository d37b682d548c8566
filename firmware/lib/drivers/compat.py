"""What the drivers and the firmware use from MicroPython that CPython lacks: const() and the
wrapping ticks (ticks_ms, ticks_us, ticks_diff, ticks_add). On MicroPython these are its
own; CircuitPython has only supervisor.ticks_ms() (wrapping at 2**29; its ticks_us here is
that in whole ms) and CPython nothing, so the same wrapping arithmetic stands in, over each
one's period.
It is the one copy: every module under firmware/lib that needs them imports them from here,
except the engine `mancala`, which depends on nothing else on the board."""
try:
    from micropython import const
except ImportError:  # CPython: const is just the value
    # The stubs give MicroPython's signatures; these stand-ins differ only in being untyped.
    def const(x):  # type: ignore[misc]
        return x

try:
    from time import ticks_ms, ticks_us, ticks_diff, ticks_add
except ImportError:
    try:
        from supervisor import ticks_ms  # type: ignore[import-not-found,no-redef]
        import supervisor as _supervisor
        _PERIOD = 1 << 29  # CircuitPython's tick counter wraps here

        def ticks_us():  # type: ignore[misc]
            return (_supervisor.ticks_ms() * 1000) & (_PERIOD - 1)
    except ImportError:  # CPython: the 30-bit period of MicroPython's ports
        import time as _time

        _PERIOD = 1 << 30

        def ticks_ms():
            return int(_time.monotonic() * 1000) & (_PERIOD - 1)  # type: ignore[attr-defined]

        def ticks_us():  # type: ignore[misc]
            return int(_time.monotonic() * 1000000) & (_PERIOD - 1)  # type: ignore[attr-defined]

    _HALF = _PERIOD >> 1

    def ticks_add(t, delta):  # type: ignore[misc]
        return (t + delta) & (_PERIOD - 1)

    def ticks_diff(a, b):  # type: ignore[no-redef]
        return ((a - b + _HALF) & (_PERIOD - 1)) - _HALF
