"""`deploy`: staging (mpy-cross for armv6m, main.py kept as source, the profile as profile.json,
unchanged files not recompiled), the mpremote command it runs, and the version check."""

import json
import os

import pytest

from conftest import MPY_CROSS
from fakeport import ANSWER, HELLO, FakePort

from mancala_host.commands import cli
from mancala_host.flashing import deploy
from mancala_host.link import session
from mancala_host.errors import BoardError

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_dry_run_lists_the_compiled_tree(tmp_path, capsys):
    build = tmp_path / "build"
    assert cli.main(["deploy", "--dry-run", "--profile", "quad", "--build", str(build)]) == 0
    out = capsys.readouterr().out
    sources = []
    for d, _, names in os.walk(os.path.join(ROOT, "firmware")):
        sources += [n for n in names if n.endswith(".py") and n != "manifest.py"]
    sources.remove("code.py")  # the CircuitPython edition's entry point (deploy --circuitpython)
    listed = [l.split()[0] for l in out.splitlines() if l.startswith("  :")]
    assert len(listed) == len(sources) + 3  # the profile and the two endgame tables
    assert ":tables/kalah-10.bin" in listed and ":tables/kalah-empty-capture-10.bin" in listed
    assert ":main.py" in listed and ":profile.json" in listed and ":lib/mancala/game.mpy" in listed
    assert not any(l.endswith(".py") and l != ":main.py" for l in listed)
    assert ":code.py" not in listed
    mpy = (build / "lib" / "mancala" / "game.mpy").read_bytes()
    assert mpy[0:1] == b"M"  # a .mpy header; armv6m is checked by mpy-cross itself
    with open(os.path.join(ROOT, "hardware", "profiles", "quad.json")) as f:
        assert json.load(f) == json.loads((build / "profile.json").read_text())
    assert "Then reset the board and check that it reports firmware" in out


def test_the_endgame_tables_go_to_tables_and_fit_the_filesystem(tmp_path, capsys):
    from mancala_host.solver import tables
    build = tmp_path / "build"
    assert cli.main(["deploy", "--dry-run", "--build", str(build)]) == 0
    out = capsys.readouterr().out
    for name, (always, wipeout) in tables.PRESETS.items():
        staged = build / "tables" / ("%s-10.bin" % name)
        assert staged.read_bytes() == tables.build(always, wipeout)
    kib = int(out.split("They take about ")[1].split()[0])
    assert 632 < kib <= 1408 - 64, out
    assert cli.main(["deploy", "--dry-run", "--no-tables", "--build", str(build)]) == 0
    out = capsys.readouterr().out
    assert ":tables/" not in out and not (build / "tables").exists()
    assert int(out.split("They take about ")[1].split()[0]) < kib - 632


def test_deploy_makes_the_tables_it_lacks_and_refuses_a_bad_one(tmp_path, capsys):
    from mancala_host.solver import tables
    paths = deploy.board_tables(str(tmp_path))
    assert [os.path.relpath(p, str(tmp_path)) for p in paths] == [
        os.path.join("build", "tables", "kalah-10.bin"),
        os.path.join("build", "tables", "kalah-empty-capture-10.bin")]
    with open(paths[0], "rb") as f:
        assert f.read() == tables.build(*tables.PRESETS["kalah"])
    assert "Making the endgame table" in capsys.readouterr().out
    with open(paths[1], "wb") as f:
        f.write(b"MKET\x02")
    with pytest.raises(BoardError) as e:
        deploy.board_tables(str(tmp_path))
    assert str(e.value).count(".") <= 2 and "kalah-empty-capture-10.bin is not an endgame " \
        "table the firmware reads: it is not an endgame table (no MKET header); delete it" \
        in str(e.value)
    # the other preset's table under this one's name: a good table, for other rules
    with open(paths[1], "wb") as f:
        f.write(tables.build(*tables.PRESETS["kalah"]))
    with pytest.raises(BoardError, match="kalah-empty-capture-10.bin is not an endgame table the "
                                         "firmware reads: its header is for other rules or "
                                         "another stone count; delete it"):
        deploy.board_tables(str(tmp_path))


def test_files_that_leave_no_room_for_the_saves_are_refused(tmp_path):
    (tmp_path / "tables").mkdir()
    (tmp_path / "tables" / "big.bin").write_bytes(bytes(1350 * 1024))
    (tmp_path / "main.py").write_text("x")
    files = [("main.py", False), ("tables/big.bin", False)]
    with pytest.raises(BoardError) as e:
        deploy.check_room(str(tmp_path), files)
    assert "leaves too little for the board's saves; deploy with --no-tables" in str(e.value)
    (tmp_path / "tables" / "big.bin").write_bytes(bytes(1200 * 1024))
    assert deploy.check_room(str(tmp_path), files) * 4 <= 1408 - 64


def test_deploy_stages_in_its_own_folder_and_leaves_the_built_image(tmp_path, capsys):
    # make firmware's image and its build tree (the unpacked MicroPython, minutes to rebuild)
    # live in build/firmware; deploy prunes its stage to what it copies, so it stages apart.
    fw = tmp_path / "repo" / "firmware"
    (fw / "lib" / "pkg").mkdir(parents=True)
    (fw / "main.py").write_text("import pkg\n")
    (fw / "lib" / "pkg" / "__init__.py").write_text("X = 1\n")
    image = tmp_path / "repo" / "build" / "firmware"
    (image / "image").mkdir(parents=True)
    (image / "mancala-board-0.1.0.uf2").write_bytes(b"UF2\n")
    (image / "image" / "image.key").write_text("key\n")
    assert cli.main(["deploy", "--dry-run", "--firmware", str(fw)]) == 0
    out = capsys.readouterr().out
    assert str(tmp_path / "repo" / "build" / "deploy") in out
    assert (tmp_path / "repo" / "build" / "deploy" / "lib" / "pkg" / "__init__.mpy").exists()
    assert (image / "mancala-board-0.1.0.uf2").read_bytes() == b"UF2\n"
    assert (image / "image" / "image.key").read_text() == "key\n"


def test_unchanged_sources_are_not_recompiled(tmp_path):
    fw = tmp_path / "fw"
    (fw / "lib" / "pkg").mkdir(parents=True)
    (fw / "main.py").write_text("import pkg\n")
    (fw / "lib" / "pkg" / "__init__.py").write_text("X = 1\n")
    (fw / "lib" / "pkg" / "b.py").write_text("Y = 2\n")
    build = tmp_path / "build"
    profile = os.path.join(ROOT, "hardware", "profiles", "duo.json")
    calls = []

    def compiler_spy(tool, src, out, rel):
        calls.append(rel)
        with open(out, "wb") as f:
            f.write(b"M\x06")

    real = deploy._compile
    deploy._compile = compiler_spy
    try:
        files = deploy.stage(str(fw), str(build), profile, compiler="mpy-cross")
        assert sorted(calls) == ["lib/pkg/__init__.py", "lib/pkg/b.py"]
        assert ("main.py", False) in files and ("lib/pkg/b.mpy", True) in files
        calls.clear()
        deploy.stage(str(fw), str(build), profile, compiler="mpy-cross")
        assert calls == []
        (fw / "lib" / "pkg" / "b.py").write_text("Y = 3\n")
        deploy.stage(str(fw), str(build), profile, compiler="mpy-cross")
        assert calls == ["lib/pkg/b.py"]
    finally:
        deploy._compile = real


def test_a_module_removed_or_moved_leaves_nothing_in_the_staged_tree(tmp_path):
    # mpremote copies the staged lib/ as a whole, so what is left there reaches the board.
    fw = tmp_path / "fw"
    (fw / "lib" / "old").mkdir(parents=True)
    (fw / "lib" / "new").mkdir()
    (fw / "main.py").write_text("import new\n")
    (fw / "lib" / "old" / "__init__.py").write_text("X = 1\n")
    (fw / "lib" / "new" / "__init__.py").write_text("X = 1\n")
    (fw / "lib" / "new" / "gone.py").write_text("X = 1\n")
    build = tmp_path / "build"
    profile = os.path.join(ROOT, "hardware", "profiles", "duo.json")
    deploy.stage(str(fw), str(build), profile, compiler=MPY_CROSS)
    assert (build / "lib" / "old" / "__init__.mpy").exists()
    (fw / "lib" / "old" / "__init__.py").unlink()
    (fw / "lib" / "old").rmdir()
    (fw / "lib" / "new" / "gone.py").unlink()
    files = deploy.stage(str(fw), str(build), profile, compiler=MPY_CROSS)
    staged = sorted(os.path.relpath(os.path.join(d, n), build).replace(os.sep, "/")
                    for d, _, names in os.walk(build) for n in names)
    assert staged == [".sources.json", "lib/new/__init__.mpy", "main.py", "profile.json"]
    assert sorted(rel for rel, _ in files) == staged[1:]
    assert not (build / "lib" / "old").exists()
    with open(build / ".sources.json") as f:
        assert sorted(json.load(f)) == ["lib/new/__init__.py", "main.py"]


def test_syntax_the_board_rejects_is_one_sentence(tmp_path, capsys):
    fw = tmp_path / "fw"
    (fw / "lib").mkdir(parents=True)
    (fw / "main.py").write_text("import x\n")
    (fw / "lib" / "bad.py").write_text("def f(:\n")
    code = cli.main(["deploy", "--dry-run", "--firmware", str(fw), "--build", str(tmp_path / "b")])
    err = capsys.readouterr().err
    assert code != 0 and "mpy-cross cannot compile lib/bad.py" in err and "Traceback" not in err


def test_unknown_profile_names_the_known_ones(tmp_path, capsys):
    assert cli.main(["deploy", "--dry-run", "--profile", "hexa", "--build", str(tmp_path)]) != 0
    err = capsys.readouterr().err
    assert "no profile 'hexa'" in err and "duo" in err and "quad" in err


def test_mpremote_copies_hash_checked_then_resets(tmp_path):
    (tmp_path / "lib").mkdir()
    files = [("main.py", False), ("lib/a.mpy", True), ("profile.json", False)]
    argv = deploy.mpremote_argv("mpremote", "/dev/ttyACM0", str(tmp_path), files)
    assert argv[:3] == ["mpremote", "connect", "/dev/ttyACM0"]
    # the watchdog the running firmware started is paused before anything is copied
    assert argv[3:6] == ["exec", deploy.PAUSE_WATCHDOG, "+"]
    assert "mem32[0x4005B000] = 0x40000000" in argv[4]
    assert ["fs", "cp", "-r", str(tmp_path / "lib"), ":"] == argv[6:11]
    assert ["fs", "cp", str(tmp_path / "main.py"), ":main.py"] == argv[12:16]
    assert "--force" not in argv and argv[-1] == "reset"


def test_version_check_after_deploy(monkeypatch, capsys):
    monkeypatch.setattr(session, "open_transport", lambda name: FakePort({"hello": [HELLO]}))
    assert deploy.check_version("fake", "0.1.0", 0.3) == 0
    assert "runs firmware 0.1.0" in capsys.readouterr().out
    with pytest.raises(BoardError) as info:
        deploy.check_version("fake", "0.2.0", 0.3)
    assert "reports firmware 0.1.0, but 0.2.0 was deployed" in str(info.value)
    monkeypatch.setattr(session, "open_transport", lambda name: FakePort({}))
    with pytest.raises(BoardError) as info:
        deploy.check_version("fake", "0.1.0", 0.2, attempts=1)
    assert "did not come back" in str(info.value)


def test_deploy_pauses_the_watchdog_as_the_firmware_does_on_a_break_in():
    from mancala_fw.app import hardware

    write = "machine.mem32[0x%X] = 0x%X" % (hardware.WATCHDOG_CTRL_CLEAR, hardware.WATCHDOG_ENABLE)
    assert write in deploy.PAUSE_WATCHDOG
    # WATCHDOG_BASE 0x40058000, CTRL at offset 0, the bit-clear alias +0x3000; ENABLE is bit 30
    assert hardware.WATCHDOG_CTRL_CLEAR == 0x40058000 + 0x3000
    assert hardware.WATCHDOG_ENABLE == 1 << 30
    compile(deploy.PAUSE_WATCHDOG, "exec", "exec")  # what mpremote runs is valid Python
