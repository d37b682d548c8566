"""`mancala-board sim --target rp2040`: the firmware on an emulated Pico (rp2040js).

The board is the stock MicroPython RPI_PICO image running on rp2040js (the Node harness in
sim/rp2040/), with our firmware on its littlefs exactly as `make deploy` puts it on a Pico:
firmware/lib compiled by `mpy-cross -march=armv6m`, main.py, profile.json. docs/sim.md
("How it is put together") describes the pieces.

- The image and the boot ROM come from MANCALA_RP2_MIRROR (else build/rp2/), checked against
  its SHA256SUMS.
- The board's whole 2 MB flash is the file flash.bin in the flash directory. The harness
  writes every erase and program through to it, so a restart on the same directory (after a
  SIGKILL, say) comes back to what the board saved. At each start the deploy files that
  differ from the source are rewritten in its filesystem, as a deploy would; nothing else in
  it is touched.
"""
from __future__ import annotations

import argparse
import fcntl
import json
import os
import shutil
from typing import TYPE_CHECKING, Callable, Dict, Optional, Union

from ..checksums import file_sha256, listed_sha256
from .errors import UsageError

if TYPE_CHECKING:
    from littlefs import LittleFS

HERE = os.path.dirname(os.path.abspath(__file__))
HARNESS_DIR = os.path.join(HERE, "rp2040")
HARNESS = os.path.join(HARNESS_DIR, "harness.mjs")
MIRROR_ENV = "MANCALA_RP2_MIRROR"
IMAGE = "RPI_PICO-v1.28.0.uf2"
BOOTROM = "bootrom-b1.bin"
FLASH_FILE = "flash.bin"
FLASH_SIZE = 2 * 1024 * 1024
# The rp2 port's filesystem on RPI_PICO: littlefs v2 from flash offset 0xA0000 to the end.
FS_OFFSET = 0xA0000
FS_BLOCK = 4096
FS_BLOCKS = 352
FS_PROG = 256   # rp2's _boot.py mounts with progsize=256
FS_READ = 32    # MicroPython's VfsLfs2 defaults
FS_LOOKAHEAD = 32

# A filesystem for prepare_flash: given the flash's filesystem region (None for a new flash),
# the region to write there, or None to leave it as it is.
FlashImage = Callable[[Optional[bytes]], Optional[Union[bytes, bytearray]]]
# {path on the board: bytes}
BoardFiles = Dict[str, bytes]


def mirror(root: str) -> str:
    """The folder holding the RP2040 images: MANCALA_RP2_MIRROR, else build/rp2/."""
    return os.environ.get(MIRROR_ENV) or os.path.join(root, "build", "rp2")


def checked(folder: str, name: str) -> str:
    """Path of folder/name after checking it against folder/SHA256SUMS; UsageError if not."""
    path = os.path.join(folder, name)
    sums = os.path.join(folder, "SHA256SUMS")
    if not os.path.isfile(path) or not os.path.isfile(sums):
        raise UsageError("%s is missing: set %s to the folder with the RP2040 images, or fill "
                         "build/rp2/ as the README says" % (path, MIRROR_ENV))
    with open(sums) as f:
        want = listed_sha256(f.read().splitlines(), name)
    if want is None:
        raise UsageError("%s lists no sha256 for %s, so the image cannot be checked" % (sums, name))
    if file_sha256(path) != want:
        raise UsageError("%s does not match its sha256 in %s: fetch it again" % (path, sums))
    return path


def find_node() -> str:
    node = shutil.which("node")
    if node is None:
        raise UsageError("the emulated Pico needs Node.js (node): run `make rp2040` to install it")
    if not os.path.isdir(os.path.join(HARNESS_DIR, "node_modules", "rp2040js")):
        raise UsageError("the emulator (rp2040js) is not installed: run `make rp2040`")
    return node


def _i2c_args(profile_path: str) -> list[str]:
    """--i2c ID:SDA:SCL from the profile's i2c bus, and --irq PIN if it names the pads' IRQ line."""
    try:
        with open(profile_path) as f:
            bus = json.load(f)["i2c"]
        argv = ["--i2c", "%d:%d:%d" % (int(bus["id"]), int(bus["sda"]), int(bus["scl"]))]
        if bus.get("irq") is not None:
            argv += ["--irq", str(int(bus["irq"]))]
        return argv
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        raise UsageError("cannot read the i2c bus (id, sda, scl) from %s" % profile_path)


def deploy_files(root: str, profile_path: str, main_py: str | None) -> BoardFiles:
    """{path on the board: bytes}: what `make deploy` puts on a Pico (deploy.stage), the
    endgame tables in tables/ included."""
    from ..flashing import deploy
    from ..errors import BoardError

    build = os.path.join(root, "build", "rp2040", "firmware")
    os.makedirs(build, exist_ok=True)
    with open(os.path.join(build, ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # boards starting in parallel share the stage
        try:
            staged = deploy.stage(os.path.join(root, "firmware"), build, profile_path,
                                  tables=deploy.board_tables(root))
        except BoardError as e:
            raise UsageError(str(e).rstrip("."))
        files = {}
        for rel, _ in staged:
            with open(os.path.join(build, rel), "rb") as f:
                files[rel] = f.read()
    with open(profile_path, "rb") as f:
        files["profile.json"] = f.read()
    if main_py:
        with open(main_py, "rb") as f:
            files["main.py"] = f.read()
    return files


def circuitpython_files(root: str, profile_path: str, main_py: str | None) -> BoardFiles:
    """{path on CIRCUITPY: bytes}: what `deploy --circuitpython` copies onto the drive."""
    from ..flashing.circuitpy import board_files, ENTRY
    from ..errors import BoardError

    try:
        files = board_files(os.path.join(root, "firmware"), profile_path)
    except BoardError as e:
        raise UsageError(str(e).rstrip("."))
    if main_py:
        with open(main_py, "rb") as f:
            files[ENTRY] = f.read()
    return files


def _littlefs(buffer: bytes | None = None) -> LittleFS:
    from littlefs import LittleFS, LittleFSError  # noqa: F401  (PyPI littlefs-python)

    fs = LittleFS(block_size=FS_BLOCK, block_count=FS_BLOCKS, prog_size=FS_PROG,
                  read_size=FS_READ, lookahead_size=FS_LOOKAHEAD, mount=buffer is None)
    if buffer is not None:
        fs.context.buffer[:] = buffer
        fs.mount()
    return fs


def _put(fs: LittleFS, files: BoardFiles) -> int:
    """Write the files that differ; returns how many were written."""
    written = 0
    for rel in sorted(files):
        data = files[rel]
        try:
            with fs.open(rel, "rb") as f:
                if f.read() == data:
                    continue
        except Exception:  # littlefs-python raises LittleFSError (not found) or OSError
            pass
        folder = os.path.dirname(rel)
        if folder:
            fs.makedirs(folder, exist_ok=True)
        with fs.open(rel, "wb") as f:
            f.write(data)
        written += 1
    return written


def littlefs_image(files: BoardFiles) -> FlashImage:
    """prepare_flash's image for MicroPython's littlefs holding files ({path: bytes})."""
    def image(region: bytes | None) -> bytes | bytearray | None:
        if not files:
            return None
        if region is None:
            fs = _littlefs()
            _put(fs, files)
            return fs.context.buffer
        try:
            fs = _littlefs(region)
        except Exception:  # not a filesystem (yet): the board formats it, as a Pico does
            return None
        if not _put(fs, files):
            return None
        fs.unmount()
        return fs.context.buffer
    return image


def prepare_flash(path: str, image: FlashImage | BoardFiles, fs_offset: int = FS_OFFSET,
                  fs_bytes: int = FS_BLOCK * FS_BLOCKS) -> None:
    """Make sure path holds the board's flash, with image's filesystem at fs_offset.

    image(region) gives the filesystem's fs_bytes, or None to leave the flash as it is:
    region is None for a new flash (then None leaves the filesystem erased, and the firmware
    formats it at its first boot, as on a new Pico), else the region as the flash holds it
    (None: nothing to change, or not a filesystem image() can read). A new flash is written
    whole and renamed into place; an existing one keeps everything else (the saves, the
    other files), has only its filesystem region rewritten, in place, and is refused if it
    is not a Pico's size. image may also be the files ({path: bytes}) for MicroPython's
    littlefs."""
    if isinstance(image, dict):
        image = littlefs_image(image)
    if not os.path.exists(path):
        flash = bytearray(b"\xff") * FLASH_SIZE
        fs = image(None)
        if fs is not None:
            flash[fs_offset:fs_offset + fs_bytes] = fs
        with open(path + ".new", "wb") as f:
            f.write(flash)
        os.replace(path + ".new", path)
        return
    size = os.path.getsize(path)
    if size != FLASH_SIZE:
        raise UsageError("%s is not a Pico flash image (%d bytes, not %d): remove it to start "
                         "with a new one" % (path, size, FLASH_SIZE))
    with open(path, "r+b") as f:
        f.seek(fs_offset)
        fs = image(f.read(fs_bytes))
        if fs is not None:
            f.seek(fs_offset)
            f.write(fs)


class Rp2040Setup:
    """Everything needed to start the emulated Pico: paths, argv and environment, checked.
    Has the attributes serve.py uses of setup.Setup (argv, env, flash, root, ...)."""

    def __init__(self, args: argparse.Namespace, root: str, profile_path: str, chips: str | None,
                 scratch_dir: Callable[[], str]) -> None:
        self.args = args
        self.root = root
        self.profile_path = profile_path
        self.heapsize = "the Pico's"  # the stock image's own heap (the view says "heap: the Pico's")
        folder = mirror(root)
        bootrom = checked(folder, BOOTROM)
        image = os.path.abspath(args.image) if args.image else checked(folder, IMAGE)
        if args.image and not os.path.isfile(image):
            raise UsageError("--image %s: there is no such file" % args.image)
        node = find_node()
        main_py = os.path.abspath(args.main) if args.main else None
        if main_py and not os.path.isfile(main_py):
            raise UsageError("%s is missing, so the board has nothing to run" % main_py)
        self.flash = os.path.abspath(args.flash) if args.flash else \
            os.path.join(scratch_dir(), "flash")
        try:
            os.makedirs(self.flash, exist_ok=True)
        except OSError as e:
            raise UsageError("cannot use %s as the flash directory: %s"
                             % (self.flash, e.strerror or e))
        # A CircuitPython image runs the CircuitPython edition from its CIRCUITPY drive.
        from .circuitpy_flash import image_kind
        self.kind = image_kind(image) if args.image else "micropython"
        filesystem: FlashImage
        if self.kind == "circuitpython":
            from . import circuitpy_flash as cp
            files = {} if args.blank else circuitpython_files(root, profile_path, main_py)
            filesystem, region = cp.fat_image(files), (cp.FS_OFFSET, cp.FS_SIZE)
        else:
            if args.blank:
                files = {}
            elif args.image:
                with open(profile_path, "rb") as f:
                    files = {"profile.json": f.read()}  # the image brings the code
            else:
                files = deploy_files(root, profile_path, main_py)
            filesystem, region = littlefs_image(files), (FS_OFFSET, FS_BLOCK * FS_BLOCKS)
        flash_file = os.path.join(self.flash, FLASH_FILE)
        try:
            prepare_flash(flash_file, filesystem, *region)
        except OSError as e:
            raise UsageError("cannot write the board's flash %s: %s" % (flash_file, e.strerror or e))
        env = dict(os.environ)
        if chips is not None:
            env["MANCALA_SIM_CHIPS"] = chips
        argv = [node, HARNESS, "--bootrom", bootrom, "--image", image, "--flash", flash_file]
        argv += _i2c_args(profile_path)
        if args.pace:
            argv += ["--pace", args.pace]
        if args.trace:
            trace = os.path.abspath(args.trace)
            try:
                open(trace, "ab").close()
            except OSError as e:
                raise UsageError("cannot write the trace %s: %s" % (trace, e.strerror or e))
            argv += ["--trace", trace]
            env["MANCALA_SIM_TRACE"] = trace  # the device process writes the pad lines
        self.env = env
        self.argv = argv
