"""The CircuitPython edition: its files, the CIRCUITPY drive in the emulated Pico's flash, the
saves in nvm, deploy --circuitpython, and whole games on stock CircuitPython 9.2.9 on the
emulated Pico (boot, a Kalah game on duo through a power cut, a 3-player Basic game on quad,
diag memory).

The emulated part stays small: CircuitPython compiles the firmware from source at each boot
(about half a minute of host time), and a move takes about a host second.
"""
import json
import os
import random
import time

import pytest

from boardsim import Board, read_back
from conftest import ROOT

from mancala_host import circuitpy
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
@pytest.fixture
def nvm(monkeypatch):
    """storage.slots over a 4 KiB bytearray standing in for microcontroller.nvm (erased)."""
    from mancala_fw.storage import slots

    memory = bytearray(b"\xff" * 4096)
    for name, value in (("_nvm", memory), ("_files", None), ("_slot", -1), ("_seq", 0),
                        ("_problem", None)):
        monkeypatch.setattr(slots, name, value)
    return slots, memory


def _reboot(slots):
    slots._files, slots._slot, slots._seq, slots._problem = None, -1, 0, None


def test_nvm_saves_alternate_slots_and_the_newest_valid_one_is_loaded(nvm):
    slots, memory = nvm
    assert slots.load("game.json", "mancala-game") == (None, None)
    slots.save("game.json", {"format": "mancala-game", "moves": "1"})
    slots.save("settings.json", {"format": "mancala-settings", "config": {}})
    slots.save("game.json", {"format": "mancala-game", "moves": "12"})
    assert memory[0:4] == b"MNCL" and memory[2048:2052] == b"MNCL"
    _reboot(slots)
    assert slots.load("game.json", "mancala-game")[0]["moves"] == "12"
    assert slots.load("settings.json", "mancala-settings")[0]["config"] == {}
    # A write cut short in the newest slot: the older one is used.
    newest = slots._slot
    memory[newest * 2048 + 20] ^= 0xFF
    _reboot(slots)
    assert slots.load("game.json", "mancala-game")[0]["moves"] == "1"
    assert slots.load("settings.json", "mancala-settings")[0]["config"] == {}


def test_a_save_too_big_for_a_slot_fails_and_keeps_the_old_one(nvm):
    slots, memory = nvm
    slots.save("game.json", {"format": "mancala-game", "moves": "1"})
    with pytest.raises(OSError):
        slots.save("game.json", {"format": "mancala-game", "moves": "1" * 3000})
    _reboot(slots)
    assert slots.load("game.json", "mancala-game")[0]["moves"] == "1"


def test_unreadable_slots_and_a_wrong_kind_are_one_sentence_each(nvm):
    slots, memory = nvm
    slots.save("game.json", {"format": "mancala-game", "moves": ""})
    assert slots.load("game.json", "mancala-settings")[1] == (
        "game.json is not a mancala-settings file; it was replaced by defaults.")
    memory[30] ^= 0xFF
    _reboot(slots)
    obj, problem = slots.load("game.json", "mancala-game")
    assert obj is None and problem == "The saves in nvm could not be read (corrupt); defaults are used."


# ------------------------------------------------------------------ deploy --circuitpython
def test_deploy_circuitpython_copies_onto_the_drive_and_skips_unchanged_files(tmp_path, capsys):
    from mancala_host import cli

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
    from mancala_host import cli

    drive = tmp_path / "drive"
    make(drive)
    assert cli.main(["deploy", "--circuitpython", "--drive", str(drive)]) != 0
    captured = capsys.readouterr()
    lines = [line for line in captured.err.splitlines() if line.strip()]
    assert len(lines) == 1 and says in lines[0] and "Traceback" not in captured.err
    assert not drive.exists() or not (drive / "code.py").exists()


def test_the_host_tool_finds_a_circuitpython_pico_by_its_usb_id():
    import types

    from mancala_host import transport

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


def _saved_in_nvm(flash_path):
    """The game state saved in the nvm sector of a flash file, read as storage.slots does."""
    from mancala_fw.storage import slots

    with open(flash_path, "rb") as f:
        f.seek(circuitpy_flash.NVM_OFFSET)
        sector = bytearray(f.read(circuitpy_flash.NVM_SIZE))
    keep = slots._nvm, slots._files, slots._slot, slots._seq, slots._problem
    slots._nvm, slots._files, slots._slot, slots._seq, slots._problem = sector, None, -1, 0, None
    try:
        saved, problem = slots.load("game.json", "mancala-game")
    finally:
        slots._nvm, slots._files, slots._slot, slots._seq, slots._problem = keep
    assert problem is None and saved is not None, problem
    return saved["state"]


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


@needs_circuitpython
@pytest.mark.parametrize("profile, rules, cut", [
    # The emulated part is slow (CircuitPython compiles the firmware at each boot, and a move
    # takes about a host second): the quad game reads its rings back at the start and the
    # end only, and has no power cut.
    ("duo", {"variant": "kalah"}, True),
    ("quad", {"variant": "basic", "players": 3, "pits": 4}, False),
])
def test_a_whole_game_over_the_serial_line(tmp_path, profile, rules, cut):
    from mancala import Game
    from mancala_fw import profile as profiles

    prof = profiles.load(os.path.join(ROOT, "hardware", "profiles", profile + ".json"))
    rng = random.Random(repr(rules))
    board = circuitpython_board(tmp_path / "flash", profile, frames=True)
    frames = board.frames_path
    try:
        assert board.boot["board"] == profile
        board.ok("set_config", config={"animation_ms": 20})
        state = board.ok("new_game", rules=rules)["state"]
        game = Game.from_dict(state)
        assert _settles(frames, prof, state)
        if cut:
            _play(board, game, rng, frames, prof, moves=8)
            board.kill()  # the power cut, right after an acknowledged move
            # The acknowledged game is in the flash sector the harness takes for nvm.
            assert _saved_in_nvm(tmp_path / "flash" / rp2040.FLASH_FILE) == game.to_dict()
            board = circuitpython_board(tmp_path / "flash", profile, frames=True)
            assert board.boot["resumed"] is True
            assert board.ok("state")["state"] == game.to_dict()
        _play(board, game, rng, frames, prof, rings=cut)
        assert game.over and board.ok("state")["state"]["places"] == game.to_dict()["places"]
        memory = board.ok("diag", action="memory")
        print("CircuitPython, %s after a game: free %d, min_free %d"
              % (profile, memory["free"], memory["min_free"]))
        assert memory["min_free"] >= 16 * 1024, memory
        assert not [line for line in board.other if "Traceback" in line], board.other
    finally:
        board.close()


# ------------------------------------------------------------------ Ctrl-C and the REPL
@needs_circuitpython
def test_ctrl_c_gives_the_repl_with_the_watchdog_stopped_and_ctrl_d_the_game(tmp_path):
    """A host breaking in (mpremote, circup, a person in a terminal): the REPL answers, and
    stays up through 10 s of the board's time (the game's 8 s watchdog is stopped: no reset
    in the trace); Ctrl-D
    starts the game again. Each step waits for what the board sends, not for a time: the
    Ctrl-C goes once the game is in its loop (CircuitPython flushes what it has received
    with a Ctrl-C, so a key sent with it would be lost), the key once the board asks for it."""
    trace = tmp_path / "trace.jsonl"
    board = circuitpython_board(tmp_path / "flash", trace=str(trace))
    try:
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
        assert not [line for line in _trace(trace) if line.get("kind") == "reset"]
        assert not [line for line in board.other if "Traceback" in line], board.other
    finally:
        board.close()


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
