"""Every file under firmware/ compiles with the board's compiler (mpy-cross -march=armv6m),
so syntax MicroPython rejects fails the build."""
import os
import subprocess

import pytest

from conftest import MPY_CROSS, ROOT

FILES = sorted(
    os.path.relpath(os.path.join(d, f), ROOT)
    for d, _, fs in os.walk(os.path.join(ROOT, "firmware"))
    for f in fs if f.endswith(".py")
)


def test_there_is_firmware_to_compile():
    assert any(f.endswith(os.path.join("mancala", "game.py")) for f in FILES)


@pytest.mark.parametrize("path", FILES)
def test_mpy_cross_armv6m(path, tmp_path):
    out = tmp_path / "out.mpy"
    proc = subprocess.run([MPY_CROSS, "-march=armv6m", "-o", str(out), path], cwd=ROOT,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert out.stat().st_size > 0
