"""The CircuitPython edition: its files, the CIRCUITPY drive in the emulated Pico's flash, the
saves in nvm, deploy --circuitpython, and on stock CircuitPython 9.2.9 on the emulated Pico:
power cuts inside nvm writes, animated sowings read back off the rings, Ctrl-C and the REPL,
the watchdog. Its whole games against the CPU at level 4 (the strongest here: a level-5 seat
refused, one saved by MicroPython restored at 4), through a power cut, on both profiles, are
tests/test_release_matrix.py's.

The emulated part stays small: CircuitPython compiles the firmware from source at each boot
(about half a minute of host time), and a move takes about a host second. The tests of the
game's own code.py (sowings, ids through a power cut, Ctrl-C) share one boot.
"""
import json
import os
import random
import shutil
import time
import types
from pathlib import Path

import pytest

from boardsim import Board, read_back
from conftest import ROOT

from mancala_host.flashing import circuitpy
from mancala_host.errors import BoardError
from mancala_host.sim import circuitpy_flash, rp2040

MIRROR = os.environ.get(rp2040.MIRROR_ENV) or os.path.join(ROOT, "build", "rp2")
CP_IMAGE = "circuitpython-9.2.9-raspberry_pi_pico.uf2"
PROFILE = os.path.join(ROOT, "hardware", "profiles", "duo.json")
FIRMWARE = os.path.join(ROOT, "firmware")

needs_circuitpython = pytest.mark.skipif(
    not os.path.isfile(os.path.join(MIRROR, CP_IMAGE))
    or not os.path.isdir(os.path.join(rp2040.HARNESS_DIR, "node_modules", "rp2040js")),
    reason="the CircuitPython image (MANCALA_RP2_MIRROR) or rp2040js (make rp2040) is missing")


# ------------------------------------------------------------------ the files
def test_the_board_files_are_code_py_lib_neopixel_and_the_profile():
    files = circuitpy.board_files(FIRMWARE, PROFILE)
    assert files["code.py"].startswith(b'"""Boots the board on CircuitPython')
    assert "lib/neopixel.py" in files and b"class NeoPixel" in files["lib/neopixel.py"]
    assert "lib/mancala/game.py" in files and "lib/mancala_fw/app/loop.py" in files
    assert "lib/mancala_fw/app/circuitpython.py" in files
    assert json.loads(files["profile.json"])["name"] == "duo"
    assert not [rel for rel in files if rel.endswith("manifest.py") or rel == "main.py"]
    assert all(rel.endswith(".py") for rel in files if rel.startswith("lib/"))


def test_the_native_decorator_stays_off_the_drive():
    # CircuitPython refuses @micropython.native; the search loop under it is plain Python.
    files = circuitpy.board_files(FIRMWARE, PROFILE)
    with open(os.path.join(FIRMWARE, "lib", "mancala", "negamax.py"), "rb") as f:
        source = f.read()
    assert b"\n@micropython.native\n" in source
    on_drive = files["lib/mancala/negamax.py"]
    assert b"@micropython.native\n" not in on_drive
    assert on_drive.count(b"\n") == source.count(b"\n")  # tracebacks keep their lines
    assert not [rel for rel, data in files.items()
                if rel.endswith(".py") and b"\n@micropython.native" in data]


def test_a_missing_neopixel_library_is_one_sentence(monkeypatch, tmp_path):
    monkeypatch.setenv(circuitpy.LIB_DIR_ENV, str(tmp_path))
    with pytest.raises(BoardError, match="neopixel.py is not installed .* run 'make venv'"):
        circuitpy.board_files(FIRMWARE, PROFILE)


# ------------------------------------------------------------------ the image and the drive
@needs_circuitpython
def test_the_image_kind_is_read_from_the_uf2():
    assert circuitpy_flash.image_kind(os.path.join(MIRROR, CP_IMAGE)) == "circuitpython"
    assert circuitpy_flash.image_kind(os.path.join(MIRROR, rp2040.IMAGE)) == "micropython"


def _drive(flash_path):
    """The CIRCUITPY region of a flash file, opened with pyfatfs."""
    from pyfatfs.PyFatFS import PyFatFS

    image = flash_path + ".fat"
    with open(flash_path, "rb") as f:
        f.seek(circuitpy_flash.FS_OFFSET)
        region = f.read(circuitpy_flash.FS_SIZE)
    with open(image, "wb") as f:
        f.write(region)
    return PyFatFS(image)


def _prepare(path, files):
    rp2040.prepare_flash(path, circuitpy_flash.fat_image(files), circuitpy_flash.FS_OFFSET,
                         circuitpy_flash.FS_SIZE)


def test_a_new_flash_gets_a_fat_drive_with_the_files_and_an_old_one_keeps_the_rest(tmp_path):
    path = str(tmp_path / "flash.bin")
    files = {"code.py": b"print(1)\n", "lib/a/b.py": b"x = 1\n"}
    _prepare(path, files)
    with open(path, "rb") as f:
        flash = f.read()
    assert len(flash) == rp2040.FLASH_SIZE
    assert flash[:circuitpy_flash.FS_OFFSET] == b"\xff" * circuitpy_flash.FS_OFFSET  # nvm too
    assert flash[circuitpy_flash.FS_OFFSET + 54:circuitpy_flash.FS_OFFSET + 59] == b"FAT12"
    fs = _drive(path)
    assert fs.readbytes("/lib/a/b.py") == b"x = 1\n"
    fs.writebytes("/boot_out.txt", b"Adafruit CircuitPython 9.2.9\n")  # as the board would
    fs.close()
    with open(path + ".fat", "rb") as f, open(path, "r+b") as g:
        g.seek(circuitpy_flash.FS_OFFSET)
        g.write(f.read())
        g.seek(circuitpy_flash.NVM_OFFSET)
        g.write(b"saved")  # microcontroller.nvm, below the drive
    _prepare(path, {"code.py": b"print(2)\n", "lib/a/b.py": b"x = 1\n"})
    fs = _drive(path)
    assert fs.readbytes("/code.py") == b"print(2)\n"
    assert fs.readbytes("/boot_out.txt").startswith(b"Adafruit CircuitPython")
    fs.close()
    with open(path, "rb") as f:
        f.seek(circuitpy_flash.NVM_OFFSET)
        assert f.read(5) == b"saved"


def test_files_edited_between_boots_are_rewritten_whole_on_the_kept_drive(tmp_path):
    # A maker edits the firmware and boots the same flash again: files grow and shrink
    # across clusters, and every file on the drive must read back as it is now.
    path = str(tmp_path / "flash.bin")
    files = circuitpy.board_files(FIRMWARE, PROFILE)
    _prepare(path, files)
    names = sorted(files)
    for round_, change in enumerate((7000, -2500, 300, -9000, 12000)):
        files = dict(files)
        for rel in names[round_::7]:
            data = files[rel]
            files[rel] = data + b"#" * change if change > 0 else data[:max(1, len(data) + change)]
        _prepare(path, files)
        fs = _drive(path)
        try:
            assert [rel for rel in names if fs.readbytes("/" + rel) != files[rel]] == []
        finally:
            fs.close()


# ------------------------------------------------------------------ on the emulated Pico
def circuitpython_board(flash, profile="duo", **options):
    """The CircuitPython edition on the emulated Pico, started (booted unless main= is given):
    tests/boardsim.Board with the CircuitPython image. flash: its folder, kept."""
    board = Board(profile, flash=str(flash), target="rp2040",
                  image=os.path.join(MIRROR, CP_IMAGE), **options)
    try:
        return board.start()
    except BaseException:
        board.close()
        raise


def _trace(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.endswith("\n")]


# ------------------------------------------------------------------ saves in nvm
class PowerCut(Exception):
    """The power went during a flash operation of CircuitPythonNvm."""


class CircuitPythonNvm:
    """microcontroller.nvm as CircuitPython 9.2.9 writes it on the Pico, modelled down to the
    flash chip (ports/raspberrypi/common-hal/nvm/ByteArray.c): a slice assignment whose
    target bytes are all erased (0xFF) programs each 256-byte page it touches, one page
    program each (the rest of the page as read, programmed again); any other erases the
    4 KiB sector and programs all of it in one program of 16 pages. Programming only clears
    bits. cut=(k, share): the power goes during the k-th flash operation with share of it
    done: an erase has raised that share of the 0 bits to 1, a program has finished the
    pages before its share and cleared that share of the bits of the page in progress
    (which bits: a PRNG seeded from k and share), as the emulated chip does."""

    SECTOR = 4096
    PAGE = 256

    def __init__(self, cells=None, cut=None):
        self.cells = bytearray(cells if cells is not None else b"\xff" * self.SECTOR)
        self.cut = cut
        self.ops = []  # ("erase" or "program", flash offset in the sector, bytes)

    def __len__(self):
        return self.SECTOR

    def __getitem__(self, key):
        if isinstance(key, slice):
            return bytearray(self.cells[key])
        return self.cells[key]

    def __setitem__(self, key, value):
        if isinstance(key, slice):
            start, stop, step = key.indices(self.SECTOR)
            assert step == 1 and len(value) == stop - start, "Slice and value different lengths."
            data = bytes(value)
        else:
            start, data = key, bytes([value])
        end = start + len(data)
        if all(b == 0xFF for b in self.cells[start:end]):
            page = start - start % self.PAGE
            while page < end:
                buf = bytearray(self.cells[page:page + self.PAGE])
                lo, hi = max(start, page), min(end, page + self.PAGE)
                buf[lo - page:hi - page] = data[lo - start:hi - start]
                self._program(page, buf)
                page += self.PAGE
        else:
            whole = bytearray(self.cells)
            whole[start:end] = data
            self._erase()
            self._program(0, whole)

    def _partly(self, at, to, share):
        rng = random.Random("%d %r" % (len(self.ops), share))
        for i, want in enumerate(to):
            now = self.cells[at + i]
            diff = now ^ want
            for bit in range(8):
                if diff >> bit & 1 and rng.random() < share:
                    now ^= 1 << bit
            self.cells[at + i] = now

    def _taken(self, kind, at, n):
        self.ops.append((kind, at, n))
        if self.cut is not None and len(self.ops) == self.cut[0]:
            return self.cut[1]
        return None

    def _erase(self):
        share = self._taken("erase", 0, self.SECTOR)
        if share is None:
            self.cells[:] = b"\xff" * self.SECTOR
            return
        self._partly(0, b"\xff" * self.SECTOR, share)
        raise PowerCut()

    def _program(self, at, data):
        share = self._taken("program", at, len(data))
        whole = bytes(self.cells[at + i] & data[i] for i in range(len(data)))
        if share is None:
            self.cells[at:at + len(data)] = whole
            return
        pages = len(data) // self.PAGE
        done = min(pages, int(share * pages)) * self.PAGE
        self.cells[at:at + done] = whole[:done]
        if done < len(data):
            self._partly(at + done, whole[done:done + self.PAGE], share * pages - done // self.PAGE)
        raise PowerCut()


def _on(slots, memory, monkeypatch=None):
    """slots as after a power-up, on memory."""
    state = (("_nvm", memory), ("_files", None), ("_free", 0), ("_torn", False))
    for name, value in state:
        if monkeypatch is not None:
            monkeypatch.setattr(slots, name, value)
        else:
            setattr(slots, name, value)
    return slots


@pytest.fixture
def nvm(monkeypatch):
    """storage.slots over a CircuitPythonNvm (erased), and that memory."""
    from mancala_fw.storage import slots

    memory = CircuitPythonNvm()
    _on(slots, memory, monkeypatch)
    return slots, memory


def _game(n):
    """The n-th save of a game: about the size of a real one (300-380 bytes of JSON)."""
    return {"format": "mancala-game", "n": n, "moves": "1234567" * (34 + n % 5)}


SETTINGS = {"format": "mancala-settings", "config": {"brightness": 40, "animation_ms": 120,
                                                     "seats": ["human", "cpu3"] * 2}}


def test_saves_append_records_and_only_a_full_sector_is_erased(nvm):
    slots, memory = nvm
    assert slots.load("game.json", "mancala-game") == (None, None)
    slots.save("settings.json", SETTINGS)
    saves = 40
    erases_at = []
    for n in range(1, saves + 1):
        before = len([op for op in memory.ops if op[0] == "erase"])
        slots.save("game.json", _game(n))
        if len([op for op in memory.ops if op[0] == "erase"]) > before:
            erases_at.append(n)
        _on(slots, memory)  # each save read back after a power-up
        assert slots.load("game.json", "mancala-game") == (_game(n), None)
        assert slots.load("settings.json", "mancala-settings") == (SETTINGS, None)
    # Appends program pages only; the sector is erased when its tail cannot take the next
    # record: about every 10 saves of this size.
    assert erases_at and all(b - a >= 9 for a, b in zip([0] + erases_at, erases_at)), erases_at
    assert len(erases_at) <= saves // 9
    assert memory[0:2] == b"Mr"


def test_removal_is_a_record_and_compaction_leaves_removed_files_out(nvm):
    slots, memory = nvm
    slots.save("calibration.json", {"format": "mancala-calibration", "pads": [1, 2]})
    slots.save("game.json", _game(1))
    slots.remove("calibration.json")
    _on(slots, memory)
    assert slots.load("calibration.json", "mancala-calibration") == (None, None)
    for n in range(2, 16):  # through a compaction
        slots.save("game.json", _game(n))
    assert [op[0] for op in memory.ops].count("erase") == 1
    _on(slots, memory)
    assert slots.load("game.json", "mancala-game") == (_game(15), None)
    assert b"calibration" not in bytes(memory.cells)


class StuckNvm(CircuitPythonNvm):
    """nvm whose flash no longer takes writes once stuck is set (a worn-out sector): a write
    changes nothing, so storage.slots' read-back finds the bytes unwritten."""

    stuck = False

    def __setitem__(self, key, value):
        if not self.stuck:
            super().__setitem__(key, value)


def test_a_removal_that_fails_raises_as_a_failed_save_does_and_loses_nothing(nvm, monkeypatch):
    slots, _ = nvm
    memory = StuckNvm()
    _on(slots, memory, monkeypatch)
    calibration = {"format": "mancala-calibration", "pads": [1, 2]}
    slots.save("calibration.json", calibration)
    memory.stuck = True
    with pytest.raises(OSError):
        slots.save("game.json", _game(1))
    with pytest.raises(OSError):
        slots.remove("calibration.json")
    assert slots.load("calibration.json", "mancala-calibration") == (calibration, None)
    memory.stuck = False
    _on(slots, memory)  # after a power-up, too
    assert slots.load("calibration.json", "mancala-calibration") == (calibration, None)
    slots.remove("calibration.json")
    slots.remove("calibration.json")  # gone already: nothing to do
    assert slots.load("calibration.json", "mancala-calibration") == (None, None)


def test_a_save_too_big_for_the_sector_fails_and_erases_nothing(nvm):
    slots, memory = nvm
    slots.save("game.json", _game(1))
    with pytest.raises(OSError):
        slots.save("game.json", {"format": "mancala-game", "moves": "1" * 4100})
    assert [op[0] for op in memory.ops].count("erase") == 0
    _on(slots, memory)
    assert slots.load("game.json", "mancala-game") == (_game(1), None)


def test_a_damaged_record_and_a_wrong_kind_are_one_sentence_each(nvm):
    slots, memory = nvm
    slots.save("game.json", _game(1))
    assert slots.load("game.json", "mancala-settings")[1] == (
        "game.json is not a mancala-settings file; it was replaced by defaults.")
    memory.cells[30] ^= 0xFF
    _on(slots, memory)
    assert slots.load("game.json", "mancala-game") == (
        None, "game.json could not be read from nvm (corrupt); it was replaced by defaults.")
    slots.save("game.json", _game(2))  # into the erased tail, after the damaged bytes
    _on(slots, memory)
    assert slots.load("game.json", "mancala-game") == (_game(2), None)


def _old_layout(*slots_content):
    """A sector as the earlier layout wrote it: (slot, sequence, {path: obj}) slots of
    "MNCL", sequence, length, CRC-32 and the JSON, at 0 and 2048."""
    import binascii
    import struct

    cells = bytearray(b"\xff" * 4096)
    for slot, seq, files in slots_content:
        body = json.dumps(files).encode()
        head = b"MNCL" + struct.pack("<HHI", seq, len(body), binascii.crc32(body))
        cells[slot * 2048:slot * 2048 + 12 + len(body)] = head + body
    return cells


def test_the_earlier_two_slot_layout_is_read_and_the_first_save_compacts_it(nvm):
    slots, _ = nvm
    older = {"game.json": _game(3), "settings.json": SETTINGS}
    newer = {"game.json": _game(4), "settings.json": SETTINGS}
    memory = CircuitPythonNvm(_old_layout((1, 7, older), (0, 8, newer)))
    _on(slots, memory)
    assert slots.load("game.json", "mancala-game") == (_game(4), None)
    assert slots.load("settings.json", "mancala-settings") == (SETTINGS, None)
    slots.save("game.json", _game(5))
    assert [op[0] for op in memory.ops] == ["erase", "program"]
    assert memory[0:2] == b"Mr" and b"MNCL" not in bytes(memory.cells)
    _on(slots, memory)
    assert slots.load("game.json", "mancala-game") == (_game(5), None)
    assert slots.load("settings.json", "mancala-settings") == (SETTINGS, None)
    # The newest valid slot wins, a damaged one is passed over.
    memory = CircuitPythonNvm(_old_layout((0, 7, older), (1, 8, newer)))
    memory.cells[2048 + 40] ^= 0x01
    _on(slots, memory)
    assert slots.load("game.json", "mancala-game") == (_game(3), None)


def _saves(slots, first, last, acked):
    """Settings once (if not there), then games first..last; acked[0]: the last game
    acknowledged (save returned)."""
    if slots.load("settings.json", "mancala-settings")[0] is None:
        slots.save("settings.json", SETTINGS)
    for n in range(first, last + 1):
        slots.save("game.json", _game(n))
        acked[0] = n


COMPACTION_PROMISE = ("game.json could not be read from nvm (corrupt); it was replaced by "
                      "defaults.")


def test_a_power_cut_inside_any_flash_operation_keeps_the_acknowledged_game(nvm):
    """The power goes inside each flash operation of 30 saves (appends and two
    compactions), at four points of it. After an append is cut the acknowledged game (or
    the one being saved) comes back; after a compaction is cut between its erase's start and
    the programming of its records, the game may be lost: defaults with a sentence saying
    so, or without one if the cut left the sector blank (as the erase ended), as
    docs/storage.md says; nothing else. After any cut, saves go on."""
    slots, _ = nvm
    plain = CircuitPythonNvm()
    _saves(_on(slots, plain), 1, 30, [0])
    ops = plain.ops
    assert 100 < len(ops) < 200 and [op[0] for op in ops].count("erase") == 2
    outcomes = {"acked": 0, "in flight": 0, "lost, said": 0, "lost, blank": 0}
    for k in range(1, len(ops) + 1):
        kind, at, n = ops[k - 1]
        compaction = kind == "erase" or (kind == "program" and n == 4096)
        for share in (0.0, 0.3, 0.7, 1.0):
            memory = CircuitPythonNvm(cut=(k, share))
            acked = [0]
            with pytest.raises(PowerCut):
                _saves(_on(slots, memory), 1, 30, acked)
            memory.cut = None
            _on(slots, memory)
            game, problem = slots.load("game.json", "mancala-game")
            where = "op %d (%s of %d at %d) share %s, acked %d" % (k, kind, n, at, share,
                                                                   acked[0])
            if acked[0] == 0 and game is None:  # no game acknowledged yet: none, or a
                outcomes["acked"] += 1  # sentence if the settings' first save was cut
            elif game is not None and problem is None and game["n"] == acked[0]:
                outcomes["acked"] += 1
            elif game is not None and problem is None and game["n"] == acked[0] + 1:
                outcomes["in flight"] += 1
            else:
                assert compaction and game is None, (where, game, problem)
                if memory.cells == b"\xff" * 4096:  # cut as the erase ended: a blank sector
                    assert problem is None, where
                    outcomes["lost, blank"] += 1
                else:
                    assert problem == COMPACTION_PROMISE, (where, problem)
                    outcomes["lost, said"] += 1
            if acked[0]:  # the settings were acknowledged before any game
                settings, problem = slots.load("settings.json", "mancala-settings")
                blank = memory.cells == b"\xff" * 4096
                assert settings == SETTINGS or (
                    compaction and settings is None
                    and (problem is None if blank else "could not be read" in problem)), where
            _saves(slots, 31, 45, [0])
            _on(slots, memory)
            assert slots.load("game.json", "mancala-game") == (_game(45), None), where
            assert slots.load("settings.json", "mancala-settings") == (SETTINGS, None), where
    print(outcomes)
    assert all(outcomes.values()), outcomes


def _flash_mjs(script):
    """Runs script (an ES module that has flash.mjs's exports) under node; its stdout."""
    import subprocess

    flash_mjs = "file://" + os.path.join(rp2040.HARNESS_DIR, "flash.mjs")
    script = "import * as flash from %s;\n%s" % (json.dumps(flash_mjs), script)
    done = subprocess.run(["node", "--input-type=module", "-e", script], capture_output=True,
                          text=True)
    return done.stdout, done.stderr


@pytest.mark.skipif(shutil.which("node") is None, reason="no Node.js (make rp2040)")
def test_the_emulated_flash_cut_short_leaves_bits_between_before_and_after():
    """flash.partly: a share of the bits that an erase (to 0xFF) or a program (clearing bits)
    would change is changed, no other bit, the same ones on every run; and a bad
    MANCALA_SIM_POWER_CUTS is one sentence."""
    out, err = _flash_mjs(
        "const from = Uint8Array.from({length: 512}, (_, i) => (i * 37) & 0xff);\n"
        "const erased = new Uint8Array(512).fill(0xff);\n"
        "const seeded = (s) => { let a = s; return () => ((a = (a * 48271) % 2147483647) / 2147483647); };\n"
        "const out = [0, 0.5, 1].map((share) => Array.from(flash.partly(from, erased, share, seeded(7))));\n"
        "out.push(Array.from(flash.partly(from, erased, 0.5, seeded(7))));\n"
        "out.push(Array.from(from));\n"
        "console.log(JSON.stringify(out));\n"
        "try { new flash.PowerCuts('[{\"op\": \"melt\"}]'); } catch (e) { console.log(e.message); }")
    lines = out.splitlines()
    none, half, whole, again, before = json.loads(lines[0])
    assert none == before and whole == [0xFF] * 512 and again == half
    raised = sum(bin(h & ~b & 0xFF).count("1") for h, b in zip(half, before))
    zeros = sum(8 - bin(b).count("1") for b in before)
    assert all(h & b == b for h, b in zip(half, before))  # only 0 bits went to 1
    assert 0.4 * zeros < raised < 0.6 * zeros, (raised, zeros)
    assert lines[1].startswith("MANCALA_SIM_POWER_CUTS takes a list of {") and not err


SAVES_MAIN = b"""import json
from mancala_fw.storage import slots
settings, sp = slots.load("settings.json", "mancala-settings")
game, gp = slots.load("game.json", "mancala-game")
print("loaded " + json.dumps([game and game["n"], gp, settings is not None, sp]))
if settings is None:
    slots.save("settings.json", %r)
n = game["n"] if game else 0
while n < 24:
    n += 1
    slots.save("game.json", {"format": "mancala-game", "n": n, "moves": "1234567" * (34 + n %% 5)})
    print("acked", n)
print("done")
""" % SETTINGS


def _boots(raw):
    """Each power-up's (game loaded, its problem, settings loaded, their problem, games
    acknowledged) from SAVES_MAIN's lines."""
    boots = []
    for line in raw.decode("utf-8", "replace").splitlines():
        line = line[line.find("loaded"):] if "loaded" in line else line
        words = line.split(" ", 1)
        if words[0] == "loaded":
            boots.append(tuple(json.loads(words[1])) + ([],))
        elif words[0] == "acked":
            boots[-1][4].append(int(words[1]))
    return boots


@needs_circuitpython
def test_power_cuts_inside_nvm_writes_on_the_emulated_pico(tmp_path, monkeypatch):
    """Stock CircuitPython 9.2.9 saving through storage.slots, the emulated flash cut inside
    its operations on the nvm sector (the harness powers up again after each, on the
    flash as the cut left it): a sector of the earlier two-slot layout loads; appends cost
    no erase (the first erase of a boot is its compaction); a cut inside an append, or after
    a compaction has programmed its records' pages (0.8 ms into the program), keeps the
    acknowledged game; a cut inside a compaction's erase or before its records are
    programmed loses the saves and the board says so."""
    flash = tmp_path / "flash"
    flash.mkdir()
    cells = bytearray(b"\xff" * rp2040.FLASH_SIZE)
    old = {"game.json": _game(4), "settings.json": SETTINGS}
    cells[circuitpy_flash.NVM_OFFSET:circuitpy_flash.NVM_OFFSET + 4096] = _old_layout(
        (1, 9, old))
    (flash / rp2040.FLASH_FILE).write_bytes(bytes(cells))
    main = tmp_path / "code.py"
    main.write_bytes(SAVES_MAIN)
    sector = circuitpy_flash.NVM_OFFSET
    cuts = [
        {"op": "program", "sector": sector, "nth": 1, "after_ns": 0.8e6},  # migration's
        {"op": "program", "sector": sector, "nth": 8, "after_ns": 0.2e6},  # an append
        {"op": "erase", "sector": sector, "nth": 1, "after_ns": 20e6},  # a compaction's
        {"op": "program", "sector": sector, "bytes": 4096, "nth": 1, "after_ns": 0.3e6},
    ]
    monkeypatch.setenv("MANCALA_SIM_POWER_CUTS", json.dumps(cuts))
    board = circuitpython_board(flash, main=str(main))
    try:
        board.until(b"done")
        raw = bytes(board.raw)
    finally:
        board.close()
    with open(flash / "stderr.txt") as f:
        said = [line for line in f if "power cut during" in line]
    assert len(said) == 4, said
    for line, what in zip(said, ["program(0xff000, 4096) 0.8 ms", "program(0xff", "erase(0xff000, "
                                 "4096) 20 ms", "program(0xff000, 4096) 0.3 ms"]):
        assert "power cut during flash_range_" + what in line, said
    boots = _boots(raw)
    assert len(boots) == 5, boots
    # 1: the old layout's game and settings; its first save compacts, cut after the pages
    # holding the records: the new game is there.
    assert boots[0][:4] == (4, None, True, None) and boots[0][4] == [], boots[0]
    assert boots[1][:4] == (5, None, True, None), boots[1]
    # 2: cut inside the eighth page program of that power-up: the second save's append (an
    # append is four writes: header, path, JSON, CRC), no erase.
    assert boots[1][4] == [6], boots[1]
    acked = 6
    assert boots[2][0] in (acked, acked + 1) and boots[2][1:4] == (None, True, None), boots
    # 3: cut 20 ms into the first erase: a compaction (the erased tail was full), which came
    # only after the appends of at least nine saves.
    assert len(boots[2][4]) >= 9, boots[2]
    lost = "%s could not be read from nvm (corrupt); it was replaced by defaults."
    assert boots[3][:4] == (None, lost % "game.json", False, lost % "settings.json"), boots[3]
    # 4: saves into what the erased tail still takes, then the first compaction (a program
    # of the whole sector), cut inside its first page: the settings are lost too.
    assert boots[4][:4] == (None, lost % "game.json", False, lost % "settings.json"), boots[4]
    assert boots[4][4] == list(range(1, 25)), boots[4]
    assert _in_nvm(flash / rp2040.FLASH_FILE)["n"] == 24


# ------------------------------------------------------------------ deploy --circuitpython
def test_deploy_circuitpython_copies_onto_the_drive_and_skips_unchanged_files(tmp_path, capsys):
    from mancala_host.commands import cli

    drive = tmp_path / "CIRCUITPY"
    (drive / "lib").mkdir(parents=True)
    (drive / "boot_out.txt").write_text("Adafruit CircuitPython 9.2.9 on 2025-01-01; "
                                        "Raspberry Pi Pico with rp2040\nBoard ID:raspberry_pi_pico\n")
    (drive / "settings.toml").write_text("# the teacher's\n")
    argv = ["deploy", "--circuitpython", "--drive", str(drive), "--profile", "quad"]
    assert cli.main(argv) == 0
    first = capsys.readouterr().out
    files = circuitpy.board_files(FIRMWARE, os.path.join(ROOT, "hardware", "profiles", "quad.json"))
    assert "Copied %d file(s)" % len(files) in first and "0 already up to date" in first
    for rel, data in files.items():
        assert (drive / rel).read_bytes() == data
    assert (drive / "settings.toml").read_text() == "# the teacher's\n"
    (drive / "code.py").write_text("changed on the drive\n")
    assert cli.main(argv) == 0
    assert "Copied 1 file(s)" in capsys.readouterr().out
    assert (drive / "code.py").read_bytes() == files["code.py"]


@pytest.mark.parametrize("make, says", [
    (lambda d: None, "is not a folder"),
    (lambda d: d.mkdir(), "has no boot_out.txt, so it is not a CIRCUITPY drive"),
    (lambda d: (d.mkdir(), (d / "boot_out.txt").write_text("MicroPython\n")),
     "does not name CircuitPython"),
])
def test_a_missing_or_wrong_drive_is_one_line(tmp_path, capsys, make, says):
    from mancala_host.commands import cli

    drive = tmp_path / "drive"
    make(drive)
    assert cli.main(["deploy", "--circuitpython", "--drive", str(drive)]) != 0
    captured = capsys.readouterr()
    lines = [line for line in captured.err.splitlines() if line.strip()]
    assert len(lines) == 1 and says in lines[0] and "Traceback" not in captured.err
    assert not drive.exists() or not (drive / "code.py").exists()


def test_the_host_tool_finds_a_circuitpython_pico_by_its_usb_id():
    from mancala_host.link import transport

    def port(device, vid, pid):
        return types.SimpleNamespace(device=device, vid=vid, pid=pid, description="n/a")

    cp = port("/dev/ttyACM0", 0x239A, 0x80F4)
    other = port("/dev/ttyACM1", 0x239A, 0x8000)  # another Adafruit board
    assert transport.find_board(lambda: [other, cp]) == "/dev/ttyACM0"
    with pytest.raises(BoardError, match="Several boards"):
        transport.find_board(lambda: [cp, port("/dev/ttyACM2", 0x2E8A, 0x0005)])
    with pytest.raises(BoardError, match="239A:80F4 of CircuitPython"):
        transport.find_board(lambda: [other])


# ------------------------------------------------------------------ whole games
def _settles(frames_path, prof, state, tries=600):
    """The rings come to show state once the move's animation has run (the frames file is
    polled; the bound is only reached when they never do)."""
    want = (state["pits"], state["stores"])
    for _ in range(tries):
        if os.path.exists(frames_path) and read_back(frames_path, prof, state) == want:
            return True
        time.sleep(0.1)
    return False


def _in_nvm(flash_path, change=None):
    """The game saved in the nvm sector of a flash file, read as storage.slots does; with
    change, change(slots) runs on that sector too and the sector is written back."""
    from mancala_fw.storage import slots

    with open(flash_path, "rb") as f:
        f.seek(circuitpy_flash.NVM_OFFSET)
        sector = bytearray(f.read(circuitpy_flash.NVM_SIZE))
    names = ("_nvm", "_files", "_free", "_torn")
    keep = [getattr(slots, name) for name in names]
    _on(slots, sector)
    try:
        saved, problem = slots.load("game.json", "mancala-game")
        if change is not None:
            change(slots)
            with open(flash_path, "r+b") as f:
                f.seek(circuitpy_flash.NVM_OFFSET)
                f.write(sector)
    finally:
        for name, value in zip(names, keep):
            setattr(slots, name, value)
    assert problem is None and saved is not None, problem
    return saved


def _saved_at_level_5(seat):
    """A change for _in_nvm: the saved settings with seat the CPU's at level 5, as a board
    on MicroPython (or before this edition's cap) saves them."""
    def change(slots):
        settings, problem = slots.load("settings.json", "mancala-settings")
        assert problem is None and settings is not None, problem
        settings["config"]["seats"][seat] = {"kind": "cpu", "level": 5}
        slots.save("settings.json", settings)
    return change


def _play(board, game, rng, frames_path, prof, moves=None, rings=True):
    """Seeded random presses, each answer checked against the engine played alongside and
    (rings) the rings read back after each; stops after `moves` presses or at the end of
    the game, whose rings are read back in any case."""
    played = 0
    while not game.over and (moves is None or played < moves):
        seat = game.turn
        pit = rng.choice(game.legal_moves())
        game.play(pit)
        answer = board.ok("press", seat=seat, pit=pit)
        assert answer["state"] == game.to_dict()
        if rings:
            assert _settles(frames_path, prof, answer["state"]), answer["state"]
        played += 1
    assert _settles(frames_path, prof, game.to_dict())
    return played


LEVEL_5_REFUSED = ("seats[1].level must be an integer from 1 to 4, got 5: 4 is the strongest "
                   "level on CircuitPython, where level 5's search table needs more memory "
                   "than the board has free.")
LEVEL_5_RESTORED = ("The saved seat %d played at CPU level 5, which CircuitPython does not "
                    "offer; it plays at level 4, the strongest here.")


@pytest.fixture(scope="module")
def _booted(tmp_path_factory):
    """One boot of the CircuitPython edition, on a new flash, with its frames and its trace,
    for the tests below (each boot costs about 17 s of host CPU: CircuitPython compiles the
    firmware at every boot). Its first boot event is kept as first_boot."""
    folder = tmp_path_factory.mktemp("circuitpython")
    board = circuitpython_board(folder / "flash", "duo", frames=True,
                                trace=str(folder / "trace.jsonl"))
    board.first_boot = board.boot
    try:
        yield board
    finally:
        board.close()


@pytest.fixture
def booted(_booted, request):
    """The shared board, running the game, its pending events dropped. The tests on it
    depend on none of one another's effects (game ids are counted from what the board says,
    not from 1) and leave it running the game; a test that fails may not, so the board is
    powered up again (on its flash) after a failure."""
    board = _booted
    board.take_events()
    failed = request.session.testsfailed
    yield board
    if request.session.testsfailed != failed:
        board.close()
        board.start()


@needs_circuitpython
def test_sowings_animate_to_the_state_on_the_rings(booted):
    """Moves with animations on (20 ms a step): after each, the rings come to show the state
    the board answered. The whole game on this edition, the power cut, level 4 as the
    strongest level (5 refused, a saved 5 played as 4) are the release matrix's
    (tests/test_release_matrix.py, the circuitpython cases), which plays with animations
    off; this is the animated path, on the same boot-to-answer line."""
    from mancala import Game
    from mancala_fw import profile as profiles

    prof = profiles.load(os.path.join(ROOT, "hardware", "profiles", "duo.json"))
    rng = random.Random("animated")
    board = booted
    frames = board.frames_path
    other = len(board.other)
    assert board.boot["board"] == "duo"
    board.ok("set_config", config={"animation_ms": 20})
    state = board.ok("new_game", rules={"variant": "kalah"})["state"]
    game = Game.from_dict(state)
    assert _settles(frames, prof, state)
    assert _play(board, game, rng, frames, prof, moves=12) == 12
    memory = board.ok("diag", action="memory")
    assert memory["min_free"] >= 16 * 1024, memory
    assert not [line for line in board.other[other:] if "Traceback" in line], board.other


# ------------------------------------------------------------------ the games handed over
@needs_circuitpython
def test_ids_moves_and_the_last_finished_game_through_a_power_cut(booted):
    """Protocol version 2 on this edition: the board's id is its flash chip's (the emulated
    chip's, kept beside the flash), a new flash boots into game 1, game ids count on
    through a power cut, state since k, and the last finished game, kept in the nvm sector
    beside the settings and the game, comes back after the cut. The MicroPython edition's
    are tests/test_board_record.py."""
    from test_board_record import POSITION, replay

    board = booted
    other = len(board.other)
    hello = board.ok("hello")
    assert hello["protocol"] == 2 and {"games", "game"} <= set(hello["commands"])
    assert hello["board_id"] == (Path(board.flash) / ".unique_id").read_bytes().hex()
    assert board.first_boot["game"] == 1  # the shared board's flash was new
    board.ok("set_config", config={"animation_ms": 0})
    now = board.ok("state")["game"]
    first = board.ok("new_game", state=POSITION)["game"]
    board.ok("press", pit=6)
    board.ok("press", pit=1)
    since = board.ok("state", since=1)
    assert (first, since["history"], since["base"]) == (now + 1, "1", POSITION)
    board.ok("resign", seat=1)
    assert board.wait_event("game_over")["game"] == first
    assert board.ok("new_game", rules={"variant": "kalah"})["game"] == first + 1
    board.ok("press", pit=3)
    board.ok("resign", seat=0)
    done = board.ok("game", game=first + 1)
    assert (done["history"], replay(done).to_dict()) == ("3A", done["state"])
    assert [g["game"] for g in board.ok("games")["games"]] == [first + 1]  # the last one only
    assert board.request("game", game=first)["error"]["code"] == "unknown_game"
    board.kill()  # a power cut
    board.start()
    assert board.boot["game"] == first + 1
    assert board.ok("hello")["board_id"] == hello["board_id"]
    assert board.ok("game", game=first + 1) == dict(done, id=board._id)
    assert board.ok("new_game")["game"] == first + 2
    assert not [line for line in board.other[other:] if "Traceback" in line], board.other


# ------------------------------------------------------------------ Ctrl-C and the REPL
@needs_circuitpython
def test_ctrl_c_gives_the_repl_with_the_watchdog_stopped_and_ctrl_d_the_game(booted):
    """A host breaking in (mpremote, circup, a person in a terminal): the REPL answers, and
    stays up through 10 s of the board's time (the game's 8 s watchdog is stopped: no reset
    in the trace); Ctrl-D
    starts the game again. Each step waits for what the board sends, not for a time: the
    Ctrl-C goes once the game is in its loop (CircuitPython flushes what it has received
    with a Ctrl-C, so a key sent with it would be lost), the key once the board asks for it."""
    board = booted
    other, traced = len(board.other), len(_trace(board.trace_path))
    assert board.boot["board"] == "duo"
    board.ok("hello")  # in the main loop: the watchdog has been fed, so it runs
    at = board.mark()
    board.send_raw(b"\x03")
    board.until(b"Press any key to enter the REPL", at)
    at = board.mark()
    board.send_raw(b"\r")
    board.until(b">>> ", at)
    at = board.mark()
    board.send_raw(b"\x01")  # the raw REPL, as mpremote uses it
    board.until(b"raw REPL; CTRL-B to exit\r\n>", at)
    at = board.mark()
    board.send_raw(b"import time\r\ntime.sleep(10)\r\nprint('slept')\x04")
    answer = board.until(b"\x04>", at)
    assert answer == b"OKslept\r\n\x04\x04>", answer
    at = board.mark()
    board.send_raw(b"\x02")  # back to the friendly REPL
    board.until(b">>> ", at)
    at = board.mark()
    board.send_raw(b"\x04")  # Ctrl-D: CircuitPython runs code.py again
    board.until(b'"event": "boot"', at)
    boot = board.wait_event("boot")
    assert boot["board"] == "duo", boot
    board.ok("hello")
    assert not [line for line in _trace(board.trace_path)[traced:]
                if line.get("kind") == "reset"]
    assert not [line for line in board.other[other:] if "Traceback" in line], board.other


WATCHDOG_MAIN = b"""import time
from mancala_fw import profile
from mancala_fw.app.circuitpython import build
pads, display, wdt = build(profile.load_board("profile.json"))
wdt.feed()
print("fed")
time.sleep(20)
print("not reset")
"""


@needs_circuitpython
def test_the_watchdog_resets_a_board_whose_loop_stops_feeding_it(tmp_path):
    """build()'s wdt, fed once by a code.py that then stops (sleeping 20 s of the board's
    time, well past the 8 s timeout): the chip is reset by its watchdog."""
    from waits import wait_for

    main = tmp_path / "code.py"
    main.write_bytes(WATCHDOG_MAIN)
    trace = tmp_path / "trace.jsonl"
    board = circuitpython_board(tmp_path / "flash", trace=str(trace), main=str(main))
    try:
        board.until(b"fed")
        resets = wait_for("the watchdog's reset", lambda: [
            line for line in _trace(trace) if line.get("kind") == "reset"], board.timeout)
        assert resets[0]["cause"] == "watchdog", resets
        assert b"not reset" not in board.raw
    finally:
        board.close()
