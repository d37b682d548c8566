"""mpcompat (firmware/lib/mpcompat/): the one const() and ticks_* of the firmware, and how it
travels with the engine and the drivers.

- CircuitPython's and CPython's stand-ins wrap at their period's edges, from their own
  counters (tests/mp/test_mpcompat.py checks MicroPython's own functions and the stand-ins
  under whichever interpreter runs it);
- no other module under firmware/lib has a copy, and the engine and the drivers each import
  mpcompat without the other;
- every way the engine or the drivers are installed brings mpcompat along: the host's wheel,
  the drivers' package.json (mip) and manifest.py (freezing), the stock deploy and the
  CircuitPython edition's files. The firmware image and the type check are
  tests/test_imagebuild.py's and tests/test_typecheck.py's.
"""
import importlib.util
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import types
import zipfile

import pytest

import firmware_image
from conftest import FIRMWARE_LIB, MICROPYTHON, ROOT

MPCOMPAT = os.path.join(FIRMWARE_LIB, "mpcompat", "__init__.py")
DRIVERS = os.path.join(FIRMWARE_LIB, "drivers")
FAKES = os.path.join(ROOT, "host_tools", "mancala_host", "sim", "fakes")


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


check_wrap = _load("mpcompat_checks", os.path.join(ROOT, "tests", "mp", "test_mpcompat.py")).check_wrap


def fresh_mpcompat(monkeypatch, **modules):
    """A copy of mpcompat (not the one the firmware imports) loaded while `modules` stand in
    for those sys.modules entries, so that it takes the stand-in those modules call for."""
    with monkeypatch.context() as patch:
        for name, module in modules.items():
            patch.setitem(sys.modules, name, module)
        return _load("mpcompat_copy", MPCOMPAT)


class Counter:
    """A tick source set by the test: supervisor.ticks_ms() or time.monotonic()."""
    def __init__(self, value):
        self.value = value

    def __call__(self):
        return self.value


# --- each stand-in at its period's edges ------------------------------------------------------

def test_circuitpythons_ticks_wrap_at_2_to_the_29_from_supervisor_ticks_ms(monkeypatch):
    period = 1 << 29
    supervisor = types.ModuleType("supervisor")
    supervisor.ticks_ms = Counter(period - 2)
    cp = fresh_mpcompat(monkeypatch, supervisor=supervisor)
    assert cp.ticks_add(0, -1) + 1 == period
    check_wrap(cp.ticks_add, cp.ticks_diff, period)
    # the counter itself wraps: 3 ms from 2**29 - 2 reads 1, and the difference is still 3
    before = cp.ticks_ms()
    before_us = cp.ticks_us()
    assert (before, before_us) == (period - 2, ((period - 2) * 1000) % period)
    supervisor.ticks_ms.value = 1
    assert cp.ticks_ms() == 1 and cp.ticks_diff(cp.ticks_ms(), before) == 3
    assert cp.ticks_diff(cp.ticks_us(), before_us) == 3000
    assert cp.const(5) == 5


def test_cpythons_ticks_wrap_at_2_to_the_30_from_time_monotonic(monkeypatch):
    period = 1 << 30
    clock = types.ModuleType("time")
    clock.monotonic = Counter((period - 2) / 1000 + 0.0004)  # 2**30 - 2 ms and a bit
    py = fresh_mpcompat(monkeypatch, time=clock)
    assert py.ticks_add(0, -1) + 1 == period
    check_wrap(py.ticks_add, py.ticks_diff, period)
    before = py.ticks_ms()
    assert before == period - 2
    clock.monotonic.value += 0.003  # across the wrap
    assert py.ticks_ms() == 1 and py.ticks_diff(py.ticks_ms(), before) == 3
    clock.monotonic.value = (period - 2) / 1e6 + 4e-7  # 2**30 - 2 µs and a bit
    before_us = py.ticks_us()
    assert before_us == period - 2
    clock.monotonic.value += 3e-6
    assert py.ticks_us() == 1 and py.ticks_diff(py.ticks_us(), before_us) == 3
    assert py.const(5) == 5


@pytest.mark.parametrize("interpreter", ["micropython", "cpython"])
def test_the_shared_checks_pass_on_this_machines_interpreters(interpreter):
    # tests/mp/test_mpcompat.py under the unix port (MicroPython's own ticks) and CPython
    # (the stand-ins with the real clock), so check_wrap above is the checks that run there.
    env = dict(os.environ)
    mp_dir = os.path.join(ROOT, "tests", "mp")
    if interpreter == "micropython":
        argv = [MICROPYTHON]
        env["MICROPYPATH"] = os.pathsep.join([mp_dir, FAKES, ".frozen", FIRMWARE_LIB])
    else:
        argv = [sys.executable]
        env["PYTHONPATH"] = os.pathsep.join([mp_dir, FIRMWARE_LIB])
    proc = subprocess.run(argv + ["runner.py", "test_mpcompat"], cwd=mp_dir, env=env,
                          capture_output=True, text=True, timeout=120)
    assert "MP-RESULT passed=3 failed=0" in proc.stdout, proc.stdout + proc.stderr


# --- one copy, imported by both -----------------------------------------------------------------

STAND_IN = re.compile(r"^\s*(def (const|ticks_ms|ticks_us|ticks_diff|ticks_add)\("
                      r"|from micropython import .*\bconst\b|from time import .*\bticks_"
                      r"|from supervisor import|import supervisor)", re.M)


def test_no_module_but_mpcompat_makes_its_own_const_or_ticks():
    copies = []
    for folder, dirs, files in os.walk(FIRMWARE_LIB):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for f in files:
            path = os.path.join(folder, f)
            if f.endswith(".py") and path != MPCOMPAT:
                with open(path) as src:
                    if STAND_IN.search(src.read()):
                        copies.append(os.path.relpath(path, FIRMWARE_LIB))
    assert copies == [], "import const and ticks_* from mpcompat instead: %s" % copies
    with open(MPCOMPAT) as src:
        found = [m.group(2) for m in STAND_IN.finditer(src.read()) if m.group(2)]
    assert sorted(found) == ["const", "ticks_add", "ticks_diff", "ticks_ms", "ticks_us", "ticks_us"]


IMPORTS = r"""
import sys
sys.path.insert(0, sys.argv[1])
__import__(sys.argv[2])
print(" ".join(sorted(set(m.split(".")[0] for m in sys.modules) & {"mancala", "drivers",
                                                                    "mancala_fw", "mpcompat"})))
"""


@pytest.mark.parametrize("imported, expected", [
    ("mancala.cpu", "mancala mpcompat"),
    ("drivers.mpr121", "drivers mpcompat"),
    ("drivers.ws2812", "drivers mpcompat"),
])
def test_the_engine_and_the_drivers_import_mpcompat_and_not_each_other(imported, expected):
    proc = subprocess.run([sys.executable, "-I", "-c", IMPORTS, FIRMWARE_LIB, imported],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == expected


# --- everywhere the engine or the drivers go ----------------------------------------------------

def test_the_host_wheel_ships_mpcompat_and_its_engine_searches_alone(tmp_path):
    # The wheel pip builds from the repository (its files copied, so no build output lands in
    # the tree), unpacked as an installer would, run with nothing else on the path.
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy(os.path.join(ROOT, name), str(src))
    skip = shutil.ignore_patterns("__pycache__", "*.pyc", "node_modules", "*.egg-info")
    shutil.copytree(os.path.join(ROOT, "host_tools"), str(src / "host_tools"), ignore=skip)
    for package in ("mancala", "mpcompat"):
        shutil.copytree(os.path.join(FIRMWARE_LIB, package), str(src / "firmware" / "lib" / package),
                        ignore=skip)
    wheels = tmp_path / "wheels"
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w",
                           str(wheels), str(src)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # a newcomer's first `make sim` installs this package: no setuptools warning on the way
    assert "experimental" not in proc.stderr and "Editable installation" not in proc.stderr, proc.stderr
    (wheel,) = wheels.iterdir()
    with zipfile.ZipFile(str(wheel)) as z:
        names = z.namelist()
        site = tmp_path / "site"
        z.extractall(str(site))
    tops = sorted(set(n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")))
    assert tops == ["mancala", "mancala_host", "mpcompat"]
    script = (
        "import sys; sys.path.insert(0, sys.argv[1])\n"
        "import mancala, mpcompat\n"
        "from mancala import Game, Rules\n"
        "from mancala.cpu import choose_move\n"
        "game = Game(Rules.from_dict({'variant': 'kalah', 'seeds': 4}), first=0)\n"
        "pit = choose_move(game, level=5, budget_ms=1000, seed=1, max_nodes=2000)\n"
        "print(mancala.__file__.startswith(sys.argv[1]), mpcompat.__file__.startswith(sys.argv[1]),"
        " game.is_legal(pit))\n")
    # -S: no site-packages, so neither this venv's editable install nor firmware/lib is found
    proc = subprocess.run([sys.executable, "-I", "-S", "-c", script, str(site)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["True", "True", "True"]


def _install_and_import_drivers(lib, files):
    """Copy files ({path in /lib: source path}) into lib and import both drivers from there
    under the MicroPython unix port (its fake machine and rp2 beside them): the top-level
    names they loaded."""
    for target, source in files.items():
        os.makedirs(os.path.dirname(os.path.join(lib, target)), exist_ok=True)
        shutil.copyfile(source, os.path.join(lib, target))
    script = ("import sys\nimport drivers.mpr121, drivers.ws2812, drivers.compat, mpcompat\n"
              "assert mpcompat.__file__.startswith(sys.argv[1]), mpcompat.__file__\n"
              "print(' '.join(sorted(set(m.split('.')[0] for m in sys.modules) & "
              "{'mancala', 'drivers', 'mancala_fw', 'mpcompat'})))\n")
    env = dict(os.environ, MICROPYPATH=os.pathsep.join([lib, FAKES]))
    proc = subprocess.run([MICROPYTHON, "-c", script, lib], env=env, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout.split()


def test_the_drivers_package_json_installs_every_driver_module_and_mpcompat(tmp_path):
    # mip (mpremote mip install firmware/lib/drivers/package.json) fetches each source from
    # beside package.json to its path under /lib.
    with open(os.path.join(DRIVERS, "package.json")) as f:
        urls = json.load(f)["urls"]
    files = {dest: os.path.normpath(os.path.join(DRIVERS, src)) for dest, src in urls}
    modules = sorted("drivers/" + f for f in os.listdir(DRIVERS)
                     if f.endswith(".py") and f != "manifest.py")
    assert sorted(files) == modules + ["mpcompat/__init__.py"]
    assert files["mpcompat/__init__.py"] == MPCOMPAT
    loaded = _install_and_import_drivers(str(tmp_path / "lib"), files)
    assert loaded == ["drivers", "mpcompat"]


def _manifestfile(tmp_path):
    """MicroPython's tools/manifestfile.py, the freezing manifests' reader, from the source
    archive the image is built from."""
    with tarfile.open(firmware_image.mirror_file(firmware_image.ARCHIVE)) as tar:
        member = next(m for m in tar if m.name.endswith("/tools/manifestfile.py"))
        source = tar.extractfile(member).read()
    path = tmp_path / "manifestfile.py"
    path.write_bytes(source)
    return _load("manifestfile", str(path))


def test_the_drivers_freezing_manifest_freezes_every_driver_module_and_mpcompat(tmp_path):
    manifestfile = _manifestfile(tmp_path)
    manifest = manifestfile.ManifestFile(manifestfile.MODE_FREEZE, {"MPY_LIB_DIR": None})
    manifest.execute(os.path.join(DRIVERS, "manifest.py"))
    files = {out.target_path: out.full_path for out in manifest.files()}
    modules = sorted("drivers/" + f for f in os.listdir(DRIVERS)
                     if f.endswith(".py") and f != "manifest.py")
    assert sorted(files) == modules + ["mpcompat/__init__.py"]
    assert os.path.normpath(files["mpcompat/__init__.py"]) == MPCOMPAT
    loaded = _install_and_import_drivers(str(tmp_path / "lib"), files)
    assert loaded == ["drivers", "mpcompat"]


def test_the_stock_deploy_and_the_circuitpython_edition_copy_mpcompat():
    from mancala_host.flashing import boardfiles, circuitpy

    firmware = os.path.join(ROOT, "firmware")
    assert "lib/mpcompat/__init__.py" in [rel for _, rel in boardfiles.sources(firmware)]
    files = circuitpy.board_files(firmware, os.path.join(ROOT, "hardware", "profiles", "duo.json"))
    with open(MPCOMPAT, "rb") as f:
        assert files["lib/mpcompat/__init__.py"] == f.read()
