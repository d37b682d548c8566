"""One namespace: firmware/lib holds the engine `mancala`, the drivers `drivers`, the board's
own firmware `mancala_fw` and `mpcompat` (the const() and ticks_* all three import), and no
name in it shadows the standard library or an installed package. Every firmware module
imports under CPython beside the standard library's profilers and pytest-benchmark (which
imports cProfile, which imports profile). tests/test_firmware_mpcompat.py checks what the
drivers' install files list and that no module keeps a copy of mpcompat."""
import importlib.metadata
import os
import subprocess
import sys

import pytest

from conftest import FIRMWARE_LIB

TOP_LEVEL = ["drivers", "mancala", "mancala_fw", "mpcompat"]
BUILD_INPUT = ("manifest.py",)  # micropython-lib freezing manifests: read by tools, not imported

# Run in a fresh interpreter with firmware/lib first on sys.path, as the tests and the host
# tool have it. argv: firmware/lib, "profilers-first" or "firmware-first", module names.
IMPORT_ALL = r"""
import importlib, sys
lib, order, names = sys.argv[1], sys.argv[2], sys.argv[3:]
sys.path.insert(0, lib)

def profilers():
    import cProfile, profile, pytest_benchmark.plugin
    p = cProfile.Profile()
    p.runcall(sum, range(10))
    profile.Profile().runcall(sum, range(10))
    for mod in (cProfile, profile, pytest_benchmark.plugin):
        if mod.__file__.startswith(lib):
            sys.exit("%s came from firmware/lib: %s" % (mod.__name__, mod.__file__))

if order == "profilers-first":
    profilers()
for name in names:
    mod = importlib.import_module(name)
    if not mod.__file__.startswith(lib):
        sys.exit("%s came from outside firmware/lib: %s" % (name, mod.__file__))
if order == "firmware-first":
    profilers()
print(len(names))
"""

MICROPYTHON_ONLY = ("mancala_fw.display.native",)

def firmware_modules():
    names = []
    for folder, dirs, files in os.walk(FIRMWARE_LIB):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for f in sorted(files):
            if not f.endswith(".py") or f in BUILD_INPUT:
                continue
            parts = os.path.relpath(os.path.join(folder, f), FIRMWARE_LIB)[:-3].split(os.sep)
            if parts[-1] == "__init__":
                parts.pop()
            names.append(".".join(parts))
    return names


def test_firmware_lib_has_four_top_level_packages():
    tops = sorted(n for n in os.listdir(FIRMWARE_LIB) if n != "__pycache__" and n[0] != ".")
    assert tops == TOP_LEVEL


def test_no_top_level_name_is_taken_by_the_stdlib_or_another_installed_package():
    owners = importlib.metadata.packages_distributions()
    for name in TOP_LEVEL:
        assert name not in sys.stdlib_module_names, name
        assert set(owners.get(name, ())) <= {"mancala-board"}, (name, owners[name])


def test_every_firmware_module_is_found():
    names = firmware_modules()
    for expected in ("mancala_fw.app.loop", "mancala_fw.profile.checks", "mancala_fw.selftest.diag",
                     "mancala.game", "drivers.ws2812"):
        assert expected in names
    assert not [n for n in names if n.split(".")[0] not in TOP_LEVEL]


@pytest.mark.parametrize("order", ["profilers-first", "firmware-first"])
def test_every_firmware_module_imports_beside_cprofile_and_pytest_benchmark(order):
    # display.native is the viper versions of three loops: MicroPython only by design (its
    # importers fall back to plain loops; the unix-port tests run it).
    names = [n for n in firmware_modules() if n not in MICROPYTHON_ONLY]
    proc = subprocess.run([sys.executable, "-c", IMPORT_ALL, FIRMWARE_LIB, order] + names,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == [str(len(names))]


def test_no_script_beside_the_tests_or_benches_shadows_a_firmware_package():
    # tests/ and bench/ go first on sys.path when their scripts run, so a file there named
    # like a firmware package (bench/drivers.py once was) would be imported in its place.
    from conftest import ROOT

    for folder in ("tests", "tests/mp", "bench"):
        names = os.listdir(os.path.join(ROOT, folder))
        clashes = [n for n in names if n.rsplit(".", 1)[0] in TOP_LEVEL]
        assert clashes == [], (folder, clashes)
