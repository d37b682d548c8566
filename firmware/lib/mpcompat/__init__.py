"""MicroPython's const() and wrapping ticks (ticks_ms, ticks_us, ticks_diff, ticks_add) on every
interpreter the firmware runs on. On MicroPython these are its own functions, re-exported.
CircuitPython has const() but no time.ticks_*: its supervisor.ticks_ms() counts in ms and
wraps at 2**29 (its float time.monotonic() loses millisecond precision after an hour or so),
and ticks_us here is that count in whole ms, times 1000. CPython has neither: const() is the
value itself, and the ticks come from time.monotonic() over the 30-bit period of MicroPython's
ports. Both stand-ins wrap over their own period with the same arithmetic as MicroPython's.

The one copy, a module of its own at the top of /lib: the engine `mancala` and the drivers
`drivers` each import it and nothing of the other, and every other firmware module imports
it too. Wherever either goes (the host's pip package, a drivers install, a board), this file
goes with it.
"""
try:
    from micropython import const
except ImportError:  # CPython: const is just the value
    # The stubs give MicroPython's signatures; the stand-ins below differ only in being untyped.
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
    except ImportError:  # CPython
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
