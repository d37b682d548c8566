"""The MicroPython source the firmware image is built from (imagebuild.py builds it): an
archive of the tree with its submodules, checked against the SHA256SUMS beside it and unpacked
once; a checkout given as a folder; or a clone of the upstream tag. Whichever it is must be
MicroPython v1.28.0 with the rp2 port and pico-sdk, and it gets the patches in
firmware/board/patches/ before the build, each once.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tarfile
from typing import TextIO

from ..checksums import file_sha256, listed_sha256
from ..errors import BoardError

MICROPYTHON_VERSION = "1.28.0"
UPSTREAM = "https://github.com/micropython/micropython.git"


def check_archive(path: str) -> str:
    """The archive's sha256, checked against SHA256SUMS beside it when that lists it."""
    digest = file_sha256(path)
    sums = os.path.join(os.path.dirname(os.path.abspath(path)), "SHA256SUMS")
    try:
        with open(sums) as f:
            lines = f.read().splitlines()
    except OSError:
        return digest
    listed = listed_sha256(lines, os.path.basename(path))
    if listed is not None and listed != digest:
        raise BoardError("The MicroPython source %s does not match its SHA256SUMS (sha256 %s, "
                         "listed %s): the copy is damaged; fetch it again." % (
                             path, digest[:16], listed[:16]))
    return digest


def source_version(tree: str) -> str | None:
    """The MicroPython version a source tree declares in py/mpconfig.h."""
    try:
        with open(os.path.join(tree, "py", "mpconfig.h")) as f:
            text = f.read()
    except OSError:
        return None
    found = [re.search(r"#define MICROPY_VERSION_%s (\d+)" % p, text) for p in ("MAJOR", "MINOR", "MICRO")]
    parts = [m.group(1) for m in found if m is not None]
    return ".".join(parts) if len(parts) == 3 else None


def check_tree(tree: str, where: str) -> str:
    """A MicroPython source tree that can build RPI_PICO, or BoardError saying what it lacks."""
    version = source_version(tree)
    if version is None or not os.path.isdir(os.path.join(tree, "ports", "rp2")):
        raise BoardError("%s is not a MicroPython source tree with the rp2 port (no py/mpconfig.h "
                         "or ports/rp2)." % where)
    if version != MICROPYTHON_VERSION:
        raise BoardError("%s is MicroPython %s; the image is built on v%s." % (
            where, version, MICROPYTHON_VERSION))
    if not os.path.isfile(os.path.join(tree, "lib", "pico-sdk", "CMakeLists.txt")):
        raise BoardError("%s has no lib/pico-sdk: its submodules are missing (run 'make -C "
                         "ports/rp2 BOARD=RPI_PICO submodules' there)." % where)
    return tree


def unpack(archive: str, digest: str, work: str) -> str:
    """The tree inside archive, unpacked once into work/src-<digest>."""
    dest = os.path.join(work, "src-" + digest[:16])
    if os.path.isdir(dest):
        tops = [os.path.join(dest, d) for d in os.listdir(dest)]
        if len(tops) == 1:
            return tops[0]
    for old in os.listdir(work) if os.path.isdir(work) else ():
        if old.startswith("src-"):
            shutil.rmtree(os.path.join(work, old), ignore_errors=True)
    print("Unpacking %s" % archive, flush=True)
    partial = dest + ".partial"
    shutil.rmtree(partial, ignore_errors=True)
    try:
        with tarfile.open(archive) as tar:
            if hasattr(tarfile, "data_filter"):
                tar.extractall(partial, filter="data")
            else:  # Python < 3.11.4: no filter; refuse members that leave the folder
                for member in tar.getmembers():
                    if member.name.startswith("/") or ".." in member.name.split("/"):
                        raise tarfile.TarError("member %s leaves the archive's folder" % member.name)
                tar.extractall(partial)
    except (tarfile.TarError, OSError, EOFError) as exc:
        shutil.rmtree(partial, ignore_errors=True)
        raise BoardError("Cannot unpack the MicroPython source %s: %s." % (archive, exc))
    tops = os.listdir(partial)
    if len(tops) != 1:
        shutil.rmtree(partial, ignore_errors=True)
        raise BoardError("%s does not hold one MicroPython folder (it holds %d entries at its top)."
                         % (archive, len(tops)))
    os.rename(partial, dest)
    return os.path.join(dest, tops[0])


def clone(work: str) -> str:
    """A clone of the upstream tag with the submodules RPI_PICO needs, made once."""
    dest = os.path.join(work, "micropython-v" + MICROPYTHON_VERSION)
    stamp = os.path.join(dest, ".mancala-cloned")
    if os.path.exists(stamp):
        return dest
    if not shutil.which("git"):
        raise BoardError("No MicroPython source was given and git is not installed: give "
                         "MICROPYTHON_SRC=<archive or folder>, or install git.")
    shutil.rmtree(dest, ignore_errors=True)
    os.makedirs(work, exist_ok=True)
    print("Cloning MicroPython v%s from %s" % (MICROPYTHON_VERSION, UPSTREAM), flush=True)
    run_logged(["git", "clone", "--depth", "1", "--branch", "v" + MICROPYTHON_VERSION, UPSTREAM, dest],
         None, os.path.join(work, "clone.log"), "cloning MicroPython (is the network there?)")
    run_logged(["make", "-C", "ports/rp2", "BOARD=RPI_PICO", "submodules"], dest,
         os.path.join(work, "clone.log"), "fetching MicroPython's submodules")
    with open(stamp, "w") as f:
        f.write(UPSTREAM + " v" + MICROPYTHON_VERSION + "\n")
    return dest


def patches(root: str) -> list[str]:
    """The patches the MicroPython tree gets before the build, in the order they apply."""
    folder = os.path.join(root, "firmware", "board", "patches")
    if not os.path.isdir(folder):
        return []
    return [os.path.join(folder, n) for n in sorted(os.listdir(folder)) if n.endswith(".patch")]


def _patch(tree: str, text: str, *flags: str) -> subprocess.CompletedProcess:
    return subprocess.run(["patch", "-p1", "--batch", "--no-backup-if-mismatch"] + list(flags),
                          cwd=tree, input=text, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True)


def apply_patches(root: str, tree: str, out: TextIO) -> None:
    """Applies each of patches(root) that tree has not got yet; BoardError when one neither
    applies nor is there already (a tree that is not the one the patch was made for)."""
    for path in patches(root):
        name = os.path.relpath(path, root)
        with open(path) as f:
            text = f.read()
        if _patch(tree, text, "--reverse", "--dry-run", "--force", "--silent").returncode == 0:
            continue  # the tree has it already
        # tried first: a patch that does not fit leaves no .rej files or half-patched files
        # in the tree (with --source FOLDER, the maker's own checkout)
        proc = _patch(tree, text, "--forward", "--dry-run")
        if proc.returncode == 0:
            proc = _patch(tree, text, "--forward")
        if proc.returncode != 0:
            detail = " ".join(proc.stdout.split())[:200]
            raise BoardError("%s does not apply to the MicroPython source in %s (%s): the tree "
                             "is not MicroPython v%s as released." % (
                                 name, tree, detail or "patch said nothing", MICROPYTHON_VERSION))
        out.write("Patched the MicroPython source with %s\n" % name)


def run_logged(argv: list[str], cwd: str | None, log: str, what: str, env: dict | None = None) -> None:
    """Runs argv with its output appended to log; BoardError naming what failed and the
    log's last error line when it fails."""
    with open(log, "a") as out:
        out.write("\n$ %s\n" % " ".join(argv))
        out.flush()
        proc = subprocess.run(argv, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, env=env)
    if proc.returncode != 0:
        with open(log, errors="replace") as f:
            lines = [line.strip() for line in f.read().splitlines() if line.strip()]
        errors = [line for line in lines if "error" in line.lower()]
        last = (errors or lines or ["no output"])[-1]
        raise BoardError("The build failed while %s (the whole log is in %s): %s" % (what, log, last))
