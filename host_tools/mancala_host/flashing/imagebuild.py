"""`make firmware`: MicroPython for the Pico with the firmware frozen in, built from source.

    python -m mancala_host.flashing.imagebuild [--source ARCHIVE_OR_FOLDER] [--jobs N]

The image is MicroPython v1.28.0 for RPI_PICO built on the board definition in
firmware/board/ (the stock Pico, named "Mancala board <version>" in the banner), with what
firmware/board/manifest.py freezes, and hardware/profiles/duo.json frozen in as the profile the
board boots with until a profile.json on its flash says otherwise (`mancala-board profile
install`), and the 8-stone endgame tables of both Kalah rule presets frozen in as the module
mancala_tables (docs/host-tool.md §15).  It is written to
build/firmware/mancala-board-<version>.uf2 once it passes the checks of uf2.py.

Sources, in this order:
- `--source` an archive (.tar.xz/.tar.gz/.tar) of the MicroPython tree with its submodules,
  checked against a SHA256SUMS file beside it when there is one, and unpacked once under
  build/firmware/image/;
- `--source` a folder: a MicroPython checkout with its submodules, built in place;
- nothing: a clone of the upstream tag (needs git and the network), made once.

Before building, the patches in firmware/board/patches/ are applied to the MicroPython tree
(each once: a tree that has one already is left as it is), and after linking every native
function's code in firmware.elf must be word-aligned (check_native_alignment), or the build
fails: a Cortex-M0+ faults on the unaligned load (docs/architecture.md, "Native code in the
image").

The cache: the image is rebuilt only when its key changes, a hash of the source archive, the
board definition, the manifest, every firmware file, the default profile, the endgame tables and
the version.  A key change rebuilds the
frozen modules from scratch and the C code incrementally (a few seconds); a change to the
source or the board definition builds in a fresh folder (about a minute with 2 jobs).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
from typing import TextIO

from . import uf2
from .mpsource import (MICROPYTHON_VERSION, apply_patches, check_archive, check_tree, clone,
                       run_logged, unpack)
from ..errors import BoardError, say

BOARD = "MANCALA_PICO"
DEFAULT_PROFILE = "duo"  # hardware/profiles/duo.json; profile.json on the flash overrides it


def project_version(root: str) -> str:
    """The version in pyproject.toml, which names the image."""
    path = os.path.join(root, "pyproject.toml")
    try:
        with open(path) as f:
            text = f.read()
    except OSError:
        raise BoardError("Cannot read %s: the image is named by the version there." % path)
    project = re.search(r"^\[project\]\s*$(.*?)(?=^\[|\Z)", text, re.M | re.S)
    m = re.search(r'^version\s*=\s*"([^"]+)"\s*$', project.group(1) if project else "", re.M)
    if not m:
        raise BoardError("%s has no version in its [project] table." % path)
    return m.group(1)


def image_path(root: str, version: str) -> str:
    return os.path.join(root, "build", "firmware", "mancala-board-%s.uf2" % version)


def firmware_files(root: str) -> list[str]:
    """Every file the image is made of on our side: the board definition, main.py and lib/."""
    firmware = os.path.join(root, "firmware")
    found = []
    for folder, dirs, names in os.walk(firmware):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(names):
            if name.endswith((".py", ".cmake", ".h", ".patch")):
                found.append(os.path.join(folder, name))
    return found


def default_profile(root: str) -> str:
    """The profile the image boots with while the flash has no profile.json."""
    return os.path.join(root, "hardware", "profiles", DEFAULT_PROFILE + ".json")


# The endgame tables the image carries (docs/host-tool.md §15): both rule presets up to this
# many stones in play, 63,001 bytes each, frozen as bytes objects that the firmware indexes in
# flash.  Ten stones (323,339 bytes each) would not fit the code space below the filesystem;
# `make deploy` puts the 10-stone files on the filesystem, and the board reads those first.
IMAGE_TABLE_STONES = 8
TABLES_MODULE = "mancala_tables"


def endgame_tables() -> dict[str, bytes]:
    """The image's tables by module attribute (kalah, kalah_empty_capture), each the bytes of
    a whole table file as `make tables --stones 8` writes it."""
    try:
        from ..solver import tables
    except ImportError as exc:
        raise BoardError("Cannot make the image's endgame tables: the exact solver is not built "
                         "(%s); run 'make venv' again." % exc)
    return {name.replace("-", "_"): tables.build(always, wipeout, IMAGE_TABLE_STONES)
            for name, (always, wipeout) in sorted(tables.PRESETS.items())}


def stage_endgame_tables(stage: str, found: dict[str, bytes] | None = None) -> str:
    """Writes the tables module under stage; returns its path relative to stage."""
    found = endgame_tables() if found is None else found
    lines = ['"""The endgame tables frozen into this image (written by make firmware from the\n'
             'exact solver: every 6-pit Kalah position with at most %d stones in play, one table\n'
             'file a rule preset; docs/host-tool.md section 15)."""\n' % IMAGE_TABLE_STONES]
    for name, data in sorted(found.items()):
        lines.append("%s = %r\n" % (name, data))
    path = os.path.join(stage, TABLES_MODULE + ".py")
    _write_if_changed(path, "".join(lines))
    return TABLES_MODULE + ".py"


def stage_default_profile(root: str, work: str) -> str:
    """Writes the frozen default profile and the endgame tables as modules, and the manifest
    the build uses: the board's manifest.py plus those.  Returns the manifest's path."""
    import json

    path = default_profile(root)
    try:
        with open(path) as f:
            text = json.dumps(json.load(f), separators=(",", ":"), sort_keys=True)
    except (OSError, ValueError) as exc:
        raise BoardError("Cannot freeze the default profile %s: %s." % (path, exc))
    stage = os.path.join(work, "frozen")
    package = os.path.join(stage, "mancala_fw", "profile")
    os.makedirs(package, exist_ok=True)
    _write_if_changed(os.path.join(package, "default.py"), (
        '"""The profile this image boots with while the flash has no profile.json (frozen by\n'
        'make firmware from hardware/profiles/%s.json)."""\n'
        "NAME = %r\nTEXT = %r\n" % (DEFAULT_PROFILE, DEFAULT_PROFILE, text)))
    tables = stage_endgame_tables(stage)
    manifest = os.path.join(work, "manifest.py")
    _write_if_changed(manifest, (
        "# Written by make firmware: the board's manifest, the default profile and the endgame\n"
        "# tables.\n"
        "include(%r)\nmodule(%r, base_path=%r)\nmodule(%r, base_path=%r)\n" % (
            os.path.join(root, "firmware", "board", "manifest.py"),
            "mancala_fw/profile/default.py", stage, tables, stage)))
    return manifest


def _write_if_changed(path: str, text: str) -> None:
    if _read(path) != text.strip():
        with open(path, "w") as f:
            f.write(text)


def inputs_key(root: str, source_key: str, version: str) -> str:
    """The cache key: what the image is built from."""
    h = hashlib.sha256()
    h.update(("%s\n%s\n%s\n" % (MICROPYTHON_VERSION, source_key, version)).encode())
    with open(default_profile(root), "rb") as f:
        h.update(hashlib.sha256(f.read()).digest())
    for name, data in sorted(endgame_tables().items()):
        h.update(name.encode() + b"\n" + hashlib.sha256(data).digest())
    for path in firmware_files(root):
        h.update(os.path.relpath(path, root).replace(os.sep, "/").encode() + b"\n")
        with open(path, "rb") as f:
            h.update(hashlib.sha256(f.read()).digest())
    return h.hexdigest()


def configure_key(root: str, source_key: str, version: str) -> str:
    """What the C build's configuration depends on; a new one gets a fresh build folder."""
    h = hashlib.sha256(("%s\n%s\nmanifest: image/manifest.py\n" % (source_key, version)).encode())
    board = os.path.join(root, "firmware", "board")
    for name in sorted(os.listdir(board)):
        if name.endswith((".cmake", ".h")):
            with open(os.path.join(board, name), "rb") as f:
                h.update(name.encode() + b"\n" + f.read())
    return h.hexdigest()


def check_toolchain() -> None:
    missing = [tool for tool in ("arm-none-eabi-gcc", "arm-none-eabi-nm", "cmake", "make", "gcc",
                                 "patch") if not shutil.which(tool)]
    if missing:
        raise BoardError("The ARM toolchain is not installed (missing %s): run 'make firmware', "
                         "which installs Debian's gcc-arm-none-eabi, libnewlib-arm-none-eabi, "
                         "libstdc++-arm-none-eabi-newlib, cmake and patch." % ", ".join(missing))


# Native code (@micropython.native, viper, asm_thumb) frozen by mpy-tool.py: byte arrays in
# .text named fun_data_*, so nm lists them as t/T symbols (bytecode is r, in .rodata).
_NATIVE_SYMBOL = re.compile(r"^([0-9a-fA-F]+)\s+[tT]\s+(fun_data_\S+)$")


def misaligned_native_code(nm_output: str) -> list[tuple[str, int]]:
    """(symbol, address) of every frozen native function in nm's listing that does not start
    on a 4-byte boundary."""
    found = []
    for line in nm_output.splitlines():
        m = _NATIVE_SYMBOL.match(line.strip())
        if m and int(m.group(1), 16) & 3:
            found.append((m.group(2), int(m.group(1), 16)))
    return found


def check_native_alignment(elf: str) -> int:
    """Fails (BoardError) unless every frozen native function in elf is word-aligned: a
    Cortex-M0+ has no unaligned loads, and native code starts with a word the runtime loads.
    Returns how many native functions it checked."""
    proc = subprocess.run(["arm-none-eabi-nm", elf], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        raise BoardError("Cannot read the symbols of %s (arm-none-eabi-nm: %s)." % (
            elf, proc.stderr.strip() or "exit code %d" % proc.returncode))
    bad = misaligned_native_code(proc.stdout)
    if bad:
        raise BoardError("The image's native code is not word-aligned, and a Cortex-M0+ faults on "
                         "it: %s in %s. The MicroPython tree lacks firmware/board/patches/ (see "
                         "docs/architecture.md, \"Native code in the image\")." % (
                             ", ".join("%s at 0x%08x" % b for b in bad[:4]), elf))
    return sum(1 for line in proc.stdout.splitlines() if _NATIVE_SYMBOL.match(line.strip()))


def build(root: str, source: str | None = None, jobs: int = 2, out: TextIO = sys.stdout) -> str:
    """Builds (or finds up to date) the image; returns its path."""
    from . import deploy

    version = project_version(root)
    fw_version = deploy.firmware_version(os.path.join(root, "firmware"))
    if fw_version != version:
        raise BoardError("pyproject.toml says version %s but the firmware says %s: make them "
                         "agree before building the image." % (version, fw_version))
    work = os.path.join(root, "build", "firmware", "image")
    os.makedirs(work, exist_ok=True)
    target = image_path(root, version)

    if source and os.path.isfile(source):
        source_key = "archive:" + check_archive(source)
        tree = None
    elif source and os.path.isdir(source):
        tree = check_tree(os.path.abspath(source), source)
        source_key = "folder:" + os.path.realpath(source)
    elif source:
        raise BoardError("There is no MicroPython source at %s: give an archive or a folder." % source)
    else:
        source_key = "git:v" + MICROPYTHON_VERSION
        tree = None
    key = inputs_key(root, source_key, version)
    key_file = os.path.join(work, "image.key")
    if not source_key.startswith("folder:") and os.path.exists(target) and _read(key_file) == key:
        image = uf2.load(target, version)
        out.write("Up to date: %s (%s, nothing changed since it was built).\n" % (
            os.path.relpath(target, root), _describe(image)))
        return target

    check_toolchain()
    if source and source_key.startswith("archive:"):
        tree = check_tree(unpack(source, source_key[8:], work), source)
    elif tree is None:
        tree = check_tree(clone(work), "the clone of MicroPython v" + MICROPYTHON_VERSION)

    conf = configure_key(root, source_key, version)[:16]
    build_dir = os.path.join(work, "rp2-" + conf)
    for old in os.listdir(work):
        if old.startswith("rp2-") and old != "rp2-" + conf:
            shutil.rmtree(os.path.join(work, old), ignore_errors=True)
    # The frozen modules are remade from scratch: makemanifest.py goes by timestamps, which
    # miss a removed file or one restored with an old date.
    shutil.rmtree(os.path.join(build_dir, "frozen_mpy"), ignore_errors=True)
    _remove(os.path.join(build_dir, "frozen_content.c"))
    _remove(key_file)

    apply_patches(root, tree, out)
    manifest = stage_default_profile(root, work)
    log = os.path.join(work, "build.log")
    with open(log, "w") as f:
        f.write("MicroPython %s from %s, board %s\n" % (MICROPYTHON_VERSION, tree, BOARD))
    out.write("Building MicroPython v%s for the Pico with firmware %s frozen in (log: %s)\n"
              % (MICROPYTHON_VERSION, version, os.path.relpath(log, root)))
    out.flush()
    env = {k: v for k, v in os.environ.items()
           if k not in ("FROZEN_MANIFEST", "BUILD", "BOARD", "BOARD_DIR", "BOARD_VARIANT",
                        "USER_C_MODULES", "CMAKE_ARGS", "MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    if source_key.startswith("archive:"):
        # An unpacked archive has no .git of its own: keep MicroPython's version script from
        # finding the repository around build/ and naming its commit as MicroPython's version.
        env["GIT_CEILING_DIRECTORIES"] = os.path.dirname(tree)
    # mpy-cross first, with no FROZEN_MANIFEST in sight (it would try to freeze and fail).
    run_logged(["make", "-C", "mpy-cross", "-j%d" % jobs], tree, log, "building mpy-cross", env)
    # CMAKE_ARGS in the environment: on make's command line it would replace the port
    # Makefile's own (BOARD, the manifest).  No picotool: the UF2 comes from uf2conv.py.
    env_rp2 = dict(env, CMAKE_ARGS="-DPICO_NO_PICOTOOL=1 -DMANCALA_VERSION=%s" % version)
    run_logged(["make", "-C", "ports/rp2", "-j%d" % jobs, "BOARD=" + BOARD,
          "BOARD_DIR=" + os.path.join(root, "firmware", "board"), "BUILD=" + build_dir,
          "FROZEN_MANIFEST=" + manifest],
         tree, log, "building the image", env_rp2)
    check_native_alignment(os.path.join(build_dir, "firmware.elf"))
    partial = target + ".partial"
    run_logged([sys.executable, os.path.join(tree, "tools", "uf2conv.py"), "-c", "-b", "0x10000000",
          "-f", "RP2040", "-o", partial, os.path.join(build_dir, "firmware.bin")],
         tree, log, "writing the UF2 file")
    try:
        image = uf2.load(partial, version)
    except uf2.ImageError:
        _remove(partial)
        raise
    os.replace(partial, target)
    with open(key_file, "w") as f:
        f.write(key + "\n")
    out.write("Built %s (%s).\n" % (os.path.relpath(target, root), _describe(image)))
    return target


def up_to_date(root: str, source: str) -> bool:
    """True when the image in build/ was built from these sources (tests use it)."""
    version = project_version(root)
    if not os.path.exists(image_path(root, version)):
        return False
    key_file = os.path.join(root, "build", "firmware", "image", "image.key")
    return _read(key_file) == inputs_key(root, "archive:" + check_archive(source), version)


def _describe(image: uf2.Image) -> str:
    micropython, machine = image.banner()
    return "%s bytes of flash below the filesystem's %s, MicroPython %s on %s" % (
        format(image.end - image.start, ","), format(uf2.FILESYSTEM_OFFSET, ","), micropython,
        machine)


def _read(path: str) -> str | None:
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return None


def _remove(path: str) -> None:
    try:
        os.remove(path)
    except OSError:
        pass


def main(argv: list[str] | None = None) -> int:
    from .deploy import repo_root

    p = argparse.ArgumentParser(prog="python -m mancala_host.flashing.imagebuild", description=__doc__.split("\n")[0])
    p.add_argument("--source", help="MicroPython source: an archive or a folder (default: clone the tag)")
    p.add_argument("--jobs", type=int, default=2, help="parallel compile jobs (default 2)")
    args = p.parse_args(argv)
    try:
        build(repo_root(), args.source or None, max(1, args.jobs))
    except BoardError as exc:
        return say(exc)
    return 0


if __name__ == "__main__":
    sys.exit(main())
