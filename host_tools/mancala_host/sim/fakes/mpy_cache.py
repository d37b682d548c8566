"""The fakes precompiled to .mpy, for the board process (CPython only; MicroPython never
imports this module).

MicroPython compiling a module from source needs several times the module's size in
transient heap (the whole parse tree), and the fakes share the firmware's heap: compiled from
source they briefly take 30-40 KB more than they keep. On a Pico, machine and rp2 are
built in and cost nothing. Loaded as .mpy they cost only what they keep (docs/drivers.md,
"Heap"), so put this directory first on MICROPYPATH instead of the sources:

    from mancala_host.sim.fakes.mpy_cache import fakes_path
    env["MICROPYPATH"] = os.pathsep.join([fakes_path(mpy_cross), ...])

    python host_tools/mancala_host/sim/fakes/mpy_cache.py [MPY_CROSS]   # prints the path

The cache is a directory under the system temp dir named after a hash of the sources and of
mpy-cross, built once (atomically, so parallel runs are safe) and reused.
"""
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile

SOURCES = os.path.dirname(os.path.abspath(__file__))


class CacheError(Exception):
    """mpy-cross is missing or refused a fake: the message is one sentence."""


def _modules(src):
    return sorted(f for f in os.listdir(src)
                  if f.endswith(".py") and f != os.path.basename(__file__))


def _key(mpy_cross, src, names):
    h = hashlib.sha256()
    st = os.stat(mpy_cross)
    h.update(("%s %d %d" % (os.path.realpath(mpy_cross), st.st_size, st.st_mtime)).encode())
    for name in names:
        h.update(name.encode())
        with open(os.path.join(src, name), "rb") as f:
            h.update(f.read())
    return h.hexdigest()[:16]


def fakes_path(mpy_cross, cache_root=None, src=SOURCES):
    """The directory of the fakes as .mpy files (built now if missing or out of date).
    Raises CacheError if mpy-cross cannot be run or fails on a fake."""
    if not mpy_cross or not os.path.isfile(mpy_cross):
        raise CacheError("mpy-cross not found at %s, so the fakes cannot be precompiled"
                         % (mpy_cross,))
    names = _modules(src)
    root = cache_root or tempfile.gettempdir()
    out = os.path.join(root, "mancala-fakes-mpy-" + _key(mpy_cross, src, names))
    if os.path.isdir(out):
        return out
    work = tempfile.mkdtemp(prefix="mancala-fakes-build-", dir=root)
    try:
        for name in names:
            # The source path goes into the .mpy, so tracebacks name the real file.
            proc = subprocess.run(
                [mpy_cross, "-o", os.path.join(work, name[:-3] + ".mpy"),
                 os.path.join(src, name)], capture_output=True, text=True)
            if proc.returncode != 0:
                raise CacheError("mpy-cross cannot compile the fake %s: %s"
                                 % (name, (proc.stderr.strip().splitlines() or ["?"])[-1]))
        try:
            os.rename(work, out)
        except OSError:
            if not os.path.isdir(out):  # another process won the race: use its copy
                raise
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return out


if __name__ == "__main__":
    tool = sys.argv[1] if len(sys.argv) > 1 else shutil.which("mpy-cross")
    try:
        print(fakes_path(tool))
    except CacheError as e:
        sys.exit("mpy_cache: %s" % e)
