"""The type check, run by `make test`:
- mypy over every module under firmware/lib (the engine `mancala`, `drivers`, `mancala_fw`, and
  `mpcompat`, the const() and ticks_* they all import)
  against the MicroPython rp2 stubs of the board's version (micropython-rp2-rpi-pico-stubs
  1.28), with the settings in tests/typecheck/firmware.ini;
- mypy over the host tool (host_tools/mancala_host) against CPython's typeshed, with the
  settings in tests/typecheck/host.ini, and type hints on its public functions.

    .venv/bin/python tests/test_typecheck.py      # the same check, mypy's report on stdout

`make venv` installs the stubs into .venv/micropython-stubs, not site-packages: they ship an
rp2/ folder that CPython would import as a package, and mypy reads neither a typeshed nor
plain .pyi modules from site-packages anyway. That folder is mypy's typeshed and MYPYPATH.
"""
import ast
import glob
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIRMWARE_LIB = os.path.join(ROOT, "firmware", "lib")
STUBS = os.path.join(ROOT, ".venv", "micropython-stubs")
CACHE = os.path.join(ROOT, "build", "typecheck")
CONFIG = os.path.join(ROOT, "tests", "typecheck")
FIRMWARE_PACKAGES = ("mpcompat", "mancala", "drivers", "mancala_fw")
HOST_TOOLS = os.path.join(ROOT, "host_tools")
HOST = os.path.join(HOST_TOOLS, "mancala_host")
FAKES = os.path.join(HOST, "sim", "fakes")


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


def check_host():
    """mypy over the host tool: (exit code, report)."""
    argv = [sys.executable, "-m", "mypy", "--config-file", os.path.join(CONFIG, "host.ini"),
            "--cache-dir", os.path.join(CACHE, "host"), "-p", "mancala_host"]
    env = dict(os.environ, MYPYPATH=os.pathsep.join([FIRMWARE_LIB, FAKES]))
    proc = subprocess.run(argv, cwd=HOST_TOOLS, env=env, capture_output=True, text=True)
    return proc.returncode, proc.stdout + proc.stderr


def unhinted(path):
    """The public functions and methods of public classes in a module that lack a type hint on
    a parameter (self and cls aside) or on the return."""
    with open(path) as f:
        tree = ast.parse(f.read())
    out = []

    def walk(body, owner):
        for node in body:
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                walk(node.body, node.name + ".")
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                    and not node.name.startswith("_"):
                a = node.args
                params = a.posonlyargs + a.args + a.kwonlyargs
                if owner and params and params[0].arg in ("self", "cls"):
                    params = params[1:]
                params += [p for p in (a.vararg, a.kwarg) if p is not None]
                if node.returns is None or any(p.annotation is None for p in params):
                    out.append(owner + node.name)

    walk(tree.body, "")
    return out


def host_modules():
    found = {}
    for path in sorted(glob.glob(os.path.join(HOST, "**", "*.py"), recursive=True)):
        rel = os.path.relpath(path, HOST).replace(os.sep, "/")
        if not rel.startswith("sim/fakes/"):
            found[rel] = path
    return found


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


def test_the_host_tool_type_checks():
    code, report = check_host()
    assert code == 0, report
    assert "Success: no issues found" in report, report


def test_the_firmware_and_the_host_tool_are_checked_strictly_about_none():
    # No module is let off None checks: an attribute that is None between uses is annotated
    # as such and narrowed where it is used.
    for name in ("firmware.ini", "host.ini"):
        with open(os.path.join(CONFIG, name)) as f:
            settings = [line.split("#")[0].replace(" ", "").strip() for line in f]
        assert "strict_optional=False" not in settings, (name, settings)


def test_the_host_tools_public_functions_have_type_hints():
    modules = host_modules()
    assert "link/client.py" in modules and "sim/view.py" in modules
    missing = ["%s: %s" % (rel, ", ".join(unhinted(path))) for rel, path in modules.items()
               if unhinted(path)]
    assert not missing, "public functions need type hints: " + "; ".join(missing)


if __name__ == "__main__":
    results = [check_firmware(), check_host()]
    for code, report in results:
        print(report, end="")
    sys.exit(max(code for code, _ in results))
