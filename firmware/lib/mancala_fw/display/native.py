"""The display's three inner loops as viper functions (MicroPython's native emitter): fill a
ring's kinds, paint a ring from its colour table, scale a frame for the power limit.

They live apart because `@micropython.viper` is a syntax error where there is no native
emitter (CircuitPython): this module then fails to import, and counts, frame and power use
their plain loops instead, which do the same on every interpreter.
"""
# twin: the whole module
import micropython


@micropython.viper
def fill(out, start: int, n: int, kind: int):
    p = ptr8(out)  # type: ignore[name-defined]  # noqa: F821 (viper built-in)
    i = start
    end = start + n
    while i < end:
        p[i] = kind
        i += 1


@micropython.viper
def paint(buf, kinds, cols, n: int) -> int:
    b = ptr8(buf)  # type: ignore[name-defined]  # noqa: F821 (viper built-in)
    k = ptr8(kinds)  # type: ignore[name-defined]  # noqa: F821
    c = ptr8(cols)  # type: ignore[name-defined]  # noqa: F821
    total = 0
    i = 0
    o = 0
    while i < n:
        j = k[i] * 3
        b[o] = c[j]
        b[o + 1] = c[j + 1]
        b[o + 2] = c[j + 2]
        total += c[j] + c[j + 1] + c[j + 2]
        i += 1
        o += 3
    return total


@micropython.viper
def scale(buf, n: int, s: int) -> int:
    p = ptr8(buf)  # type: ignore[name-defined]  # noqa: F821 (viper built-in)
    total = 0
    i = 0
    while i < n:
        v = (p[i] * s) >> 8
        p[i] = v
        total += v
        i += 1
    return total
