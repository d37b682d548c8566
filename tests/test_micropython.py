"""Runs every tests/mp/test_*.py module under the real MicroPython unix port.

Each module is plain functions with asserts, so the same file also runs under CPython
(see the second test), which keeps the two runtimes honest about the common subset.
"""
import glob
import os
import subprocess
import sys

import pytest

from conftest import FIRMWARE_LIB, MICROPYTHON, ROOT

MP_DIR = os.path.join(ROOT, "tests", "mp")
MODULES = sorted(os.path.basename(p)[:-3] for p in glob.glob(os.path.join(MP_DIR, "test_*.py")))
FAKES = os.path.join(ROOT, "host_tools", "mancala_host", "sim", "fakes")


def _run(interpreter_args, module, env_extra):
    env = dict(os.environ)
    env.update(env_extra)
    proc = subprocess.run(
        interpreter_args + ["runner.py", module],
        cwd=MP_DIR, env=env, capture_output=True, text=True, timeout=600,
    )
    out = proc.stdout + proc.stderr
    assert "MP-RESULT" in out, out[-3000:]
    assert proc.returncode == 0, out[-3000:]
    assert "failed=0" in out, out[-3000:]


@pytest.mark.parametrize("module", MODULES)
def test_under_micropython(module):
    # ".frozen" keeps the port's frozen modules (asyncio) importable when MICROPYPATH is set.
    path = os.pathsep.join([MP_DIR, FAKES, ".frozen", FIRMWARE_LIB])
    _run([MICROPYTHON, "-X", "heapsize=4M"], module, {"MICROPYPATH": path})


@pytest.mark.parametrize("module", [m for m in MODULES if not m.endswith("_mp_only")])
def test_under_cpython(module):
    # *_mp_only modules measure what only MicroPython has (gc.mem_alloc on the board's heap).
    path = os.pathsep.join([MP_DIR, FIRMWARE_LIB])
    _run([sys.executable], module, {"PYTHONPATH": path})
