"""The type check, run by `make test`: mypy over every module under firmware/lib (the engine
`mancala`, `drivers`, `mancala_fw`) against the MicroPython rp2 stubs of the board's version
(micropython-rp2-rpi-pico-stubs 1.28), with the settings in tests/typecheck/firmware.ini.

    .venv/bin/python tests/test_typecheck.py      # the same check, mypy's report on stdout

`make venv` installs the stubs into .venv/micropython-stubs, not site-packages: they ship an
rp2/ folder that CPython would import as a package, and mypy reads neither a typeshed nor
plain .pyi modules from site-packages anyway. That folder is mypy's typeshed and MYPYPATH.
"""
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIRMWARE_LIB = os.path.join(ROOT, "firmware", "lib")
STUBS = os.path.join(ROOT, ".venv", "micropython-stubs")
CACHE = os.path.join(ROOT, "build", "typecheck")
CONFIG = os.path.join(ROOT, "tests", "typecheck")
FIRMWARE_PACKAGES = ("mancala", "drivers", "mancala_fw")


def check_firmware(lib=FIRMWARE_LIB):
    """mypy over the firmware packages in lib: (exit code, report)."""
    assert os.path.isfile(os.path.join(STUBS, "machine.pyi")), \
        "The MicroPython stubs are not in %s: run `make venv`." % STUBS
    argv = [sys.executable, "-m", "mypy", "--config-file", os.path.join(CONFIG, "firmware.ini"),
            "--cache-dir", os.path.join(CACHE, "firmware"), "--custom-typeshed-dir", STUBS]
    for package in FIRMWARE_PACKAGES:
        argv += ["-p", package]
    env = dict(os.environ, MYPYPATH=STUBS)
    proc = subprocess.run(argv, cwd=lib, env=env, capture_output=True, text=True)
    return proc.returncode, proc.stdout + proc.stderr


def test_the_firmware_type_checks_against_the_rp2_stubs():
    code, report = check_firmware()
    assert code == 0, report
    assert "Success: no issues found" in report, report


def test_a_type_error_in_the_firmware_fails_the_check(tmp_path):
    # The same check on a copy of firmware/lib with one wrong call inside a function:
    # ticks_diff of a string, which the rp2 stubs refuse.
    lib = tmp_path / "lib"
    shutil.copytree(FIRMWARE_LIB, str(lib), ignore=shutil.ignore_patterns("__pycache__"))
    touch = lib / "mancala_fw" / "touch" / "__init__.py"
    touch.write_text(touch.read_text() + "\n\ndef _late():\n    return ticks_diff(0, 'later')\n")
    code, report = check_firmware(str(lib))
    assert code == 1, report
    assert "mancala_fw/touch/__init__.py" in report and "ticks_diff" in report, report


if __name__ == "__main__":
    code, report = check_firmware()
    print(report, end="")
    sys.exit(code)
