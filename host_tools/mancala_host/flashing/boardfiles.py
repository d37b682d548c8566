"""Which files of firmware/ go onto a board, in a fixed order: the one list that `deploy`
(MicroPython: compiled to .mpy) and `deploy --circuitpython` (CircuitPython: as source onto
its drive, circuitpy.py) both copy from."""

from __future__ import annotations

import os
from typing import Iterator

NOT_FIRMWARE = ("manifest.py",)  # micropython-lib freezing manifests: build input, not code


def sources(folder: str) -> Iterator[tuple[str, str]]:
    """(path, path relative to folder with '/') of each .py file under folder that goes onto a
    board, in a fixed order: no __pycache__, no freezing manifests."""
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for name in sorted(filenames):
            if name.endswith(".py") and name not in NOT_FIRMWARE:
                src = os.path.join(dirpath, name)
                yield src, os.path.relpath(src, folder).replace(os.sep, "/")
