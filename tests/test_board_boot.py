"""Booting from a damaged flash: every problem is reported as a log event, replaced by
defaults, and the board still starts."""
import json
import os
import subprocess

from boardsim import Board, MAIN, MICROPYTHON, micropypath
from waits import HANG_S


def _write(flash, name, text):
    with open(os.path.join(flash, name), "w") as f:
        f.write(text)


def _warnings(b):
    b.ok("hello")  # the log events follow the boot event: read up to an answer
    return [e["message"] for e in b.take_events("log") if e["level"] == "warning"]


def test_corrupt_files_are_reported_and_replaced(tmp_path):
    flash = str(tmp_path)
    with Board("duo", flash=flash) as b:
        b.ok("set_config", config={"brightness": 77})
        b.ok("press", pit=2)
    _write(flash, "settings.json", '{"format": "mancala-settings", "config": {"brigh')
    _write(flash, "game.json", "\x00\xff garbage")
    with Board("duo", flash=flash) as b:
        assert b.boot["resumed"] is False
        problems = _warnings(b)
        assert any("settings.json" in p for p in problems), problems
        assert any("game.json" in p for p in problems), problems
        assert b.ok("get_config")["config"]["brightness"] == 40  # the default again
        state = b.ok("state")
        assert state["moves"] == 0 and not state["state"]["over"]
    # the replacements were saved: the next boot is clean
    with Board("duo", flash=flash) as b:
        assert _warnings(b) == [] and b.boot["resumed"] is True


def test_one_bad_setting_costs_only_itself(tmp_path):
    flash = str(tmp_path)
    _write(flash, "settings.json", json.dumps({"format": "mancala-settings", "config": {
        "brightness": 999, "animation_ms": 300, "rules": {"variant": "basic", "pits": 7}}}))
    with Board("duo", flash=flash) as b:
        problems = _warnings(b)
        assert len(problems) == 1 and "brightness" in problems[0], problems
        config = b.ok("get_config")["config"]
        assert config["brightness"] == 40 and config["animation_ms"] == 300
        assert config["rules"]["pits"] == 7


def test_damaged_move_list_keeps_the_position(tmp_path):
    flash = str(tmp_path)
    with Board("duo", flash=flash) as b:
        b.ok("new_game", rules={"variant": "kalah"}, first=0)
        b.ok("press", pit=1)
        state = b.ok("press", pit=6)["state"]
    saved = json.load(open(os.path.join(flash, "game.json")))
    saved["moves"] = [5, "x"]
    _write(flash, "game.json", json.dumps(saved))
    with Board("duo", flash=flash) as b:
        assert b.boot["resumed"] is True
        problems = _warnings(b)
        assert len(problems) == 1 and "move list" in problems[0]
        assert b.ok("state")["state"] == state
        assert b.request("undo")["error"]["code"] == "nothing_to_undo"


def test_saved_game_the_board_cannot_seat(tmp_path):
    flash = str(tmp_path)
    with Board("duo", flash=flash) as b:
        b.ok("new_game", rules={"variant": "basic", "players": 2, "pits": 7})
    # the same flash in a quad board (6 pits a side): the 7-pit game cannot be shown
    os.remove(os.path.join(flash, "profile.json"))
    with Board("quad", flash=flash) as b:
        assert b.boot["resumed"] is False
        assert any("cannot seat" in p for p in _warnings(b))
        assert b.ok("state")["state"]["rules"]["pits"] == 6


def _one_error_line(flash, heap="1M"):
    """Boots with no serial input; the board must say exactly one JSON log line of level
    error on stdout and no traceback anywhere. Returns its message."""
    env = dict(os.environ, MICROPYPATH=micropypath())
    out = subprocess.run([MICROPYTHON, "-X", "heapsize=" + heap, MAIN], cwd=flash, env=env,
                         input=b"", capture_output=True, timeout=HANG_S)
    (line,) = out.stdout.decode().splitlines()
    msg = json.loads(line)
    assert msg["event"] == "log" and msg["level"] == "error"
    assert "Traceback" not in out.stdout.decode() + out.stderr.decode()
    return msg["message"]


def test_broken_profile_is_named_and_nothing_runs(tmp_path):
    _write(str(tmp_path), "profile.json", '{"format": "mancala-profile/1", "name": "x"}')
    assert "profile.json" in _one_error_line(str(tmp_path))


def test_a_heap_too_small_to_start_is_one_sentence_not_a_traceback(tmp_path):
    import shutil
    from boardsim import PROFILES
    shutil.copy(os.path.join(PROFILES, "duo.json"), os.path.join(str(tmp_path), "profile.json"))
    assert "ran out of memory" in _one_error_line(str(tmp_path), "64k")
