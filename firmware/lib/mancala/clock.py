"""The engine's millisecond clock, for the CPU's time budget: MicroPython's ticks_ms,
ticks_diff and ticks_add where they exist; on CircuitPython supervisor.ticks_ms (its float
time.monotonic() loses millisecond precision after an hour or so); on CPython
time.monotonic. The engine's own copy, so that it depends on nothing else on the board.
"""
try:
    from time import ticks_ms, ticks_diff, ticks_add
except ImportError:
    try:
        from supervisor import ticks_ms  # type: ignore[import-not-found,no-redef]
        _PERIOD = 1 << 29  # CircuitPython's tick counter wraps here
    except ImportError:  # CPython
        import time

        _PERIOD = 1 << 30

        def ticks_ms():
            return int(time.monotonic() * 1000) & (_PERIOD - 1)  # type: ignore[attr-defined]

    def ticks_diff(a, b):  # type: ignore[no-redef]
        return ((a - b + (_PERIOD >> 1)) & (_PERIOD - 1)) - (_PERIOD >> 1)

    def ticks_add(a, d):  # type: ignore[misc]
        return (a + d) & (_PERIOD - 1)
