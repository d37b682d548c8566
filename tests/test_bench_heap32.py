"""bench/heap32.py's preprocessing: for the WebAssembly MicroPython (no native emitter) every
@micropython.viper / .native function gives way to its pure-Python twin. Fast, CPython only."""
import os
import sys
import types

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _load_heap32():
    # By its path: bench/ on sys.path would put bench/display.py in place of the firmware's
    # display package for every test collected after this one.
    import importlib.util
    spec = importlib.util.spec_from_file_location("heap32", os.path.join(ROOT, "bench", "heap32.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


heap32 = _load_heap32()

VIPER = '''"""doc"""
X = 1

try:
    import micropython

    @micropython.viper
    def f(buf, n: int) -> int:
        p = ptr8(buf)  # noqa: F821

        # a comment in the body, after a blank line
        total = 0
        for i in range(n):
            total += p[i]
        return total
except (ImportError, AttributeError):
    def f(buf, n):
        return sum(buf[:n]) + 1000  # the twin (told apart by the 1000)


def g():
    return f(b"\\x01\\x02", 2)
'''


def _load(source):
    # A `micropython` module exists, as on the WebAssembly port: only the inserted raise can
    # send the try to its twin.
    sys.modules["micropython"] = types.ModuleType("micropython")
    try:
        scope = {}
        exec(compile(source, "twin", "exec"), scope)
        return scope
    finally:
        del sys.modules["micropython"]


def test_a_viper_function_gives_way_to_its_twin():
    out = heap32.twin(VIPER)
    assert "@micropython" not in out and "ptr8" not in out
    assert "    raise ImportError" in out.split("except")[0]
    assert out.split("except")[1] == VIPER.split("except")[1]  # the rest is untouched
    assert _load(out)["g"]() == 1003


def test_native_and_stacked_decorators_go_too():
    src = VIPER.replace("@micropython.viper", "@micropython.native\n    @staticmethod")
    out = heap32.twin(src)
    assert "@" not in out
    assert _load(out)["g"]() == 1003


def test_a_decorated_function_without_a_twin_is_refused():
    with pytest.raises(ValueError):
        heap32.twin("import micropython\n@micropython.viper\ndef f():\n    pass\n")


def test_every_firmware_module_compiles_after_preprocessing():
    changed = []
    for folder, dirs, files in os.walk(heap32.LIB):
        for name in files:
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                with open(path) as f:
                    src = f.read()
                out = heap32.twin(src)
                assert "@micropython.viper" not in out and "@micropython.native" not in out
                compile(out, path, "exec")
                if out != src:
                    changed.append(name)
    # display.native, whole: counts, frame and power import it in a try with their twins
    assert changed == ["native.py"]


def test_the_probe_steps_are_python():
    for profile in heap32.GAMES:
        for code in heap32.app_stages(profile) + heap32.fakes_stages(profile):
            compile(code, profile, "exec")
