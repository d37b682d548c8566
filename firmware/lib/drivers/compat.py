"""The old name of mpcompat (const() and the wrapping ticks_*), kept so that code written
against drivers.compat still imports. The drivers themselves import mpcompat, which is
installed beside them (package.json, manifest.py)."""
from mpcompat import const, ticks_ms, ticks_us, ticks_diff, ticks_add  # noqa: F401
