"""Memory: the firmware plays complete games with a small heap (-X heapsize).

The board process runs firmware/lib compiled to .mpy, as a Pico does (tests/boardsim.py), so
the figures are what the firmware keeps, not the compiler's peaks. The fakes of machine and rp2
share the heap (the MPR121 register models do not: they run in sim/devices.py).
"""
import random

import pytest

from boardsim import Board
from mancala_host.sim.launcher import DEFAULT_HEAPSIZE

GAMES = [("duo", {"variant": "kalah"}),
         ("quad", {"variant": "basic", "players": 4, "pits": 6})]


def _whole_game(profile, heap, rules):
    rng = random.Random(11)
    with Board(profile, heapsize=heap) as b:
        state = b.ok("new_game", rules=rules)["state"]
        while not state["over"]:
            legal = [i + 1 for i, n in enumerate(state["pits"][state["turn"]]) if n]
            state = b.ok("press", pit=rng.choice(legal))["state"]
        b.ok("undo")
        b.ok("new_game")
        errors = [e for e in b.events if e["event"] == "log" and e["level"] == "error"]
        assert errors == []


def test_diag_memory_reports_the_heap_and_its_floor():
    rng = random.Random(5)
    with Board("duo", heapsize="320k") as b:
        booted = b.ok("diag", action="memory")
        assert {k: type(v) for k, v in booted.items() if k not in ("id", "ok")} == \
            {"free": int, "alloc": int, "min_free": int}
        # free + alloc is the whole heap (less the allocation table); the floor is below now
        assert 300 * 1024 < booted["free"] + booted["alloc"] <= 320 * 1024
        assert 0 < booted["min_free"] <= booted["free"]
        state = b.ok("new_game", rules={"variant": "kalah"})["state"]
        for _ in range(12):
            legal = [i + 1 for i, n in enumerate(state["pits"][state["turn"]]) if n]
            state = b.ok("press", pit=rng.choice(legal))["state"]
        later = b.ok("diag", action="memory")
        assert 0 < later["min_free"] <= booted["min_free"]  # a floor only ever goes down
        assert later["min_free"] <= later["free"]
        # reset: this answer still has the mark, and the next starts from it
        reset = b.ok("diag", action="memory", reset=True)
        assert reset["min_free"] <= later["min_free"]
        assert b.ok("diag", action="memory")["min_free"] >= reset["free"] - 4096
        for bad, shown in ((1, "1"), ("yes", '"yes"'), (None, "null")):
            error = b.request("diag", action="memory", reset=bad)["error"]
            assert error == {"code": "bad_request",
                             "message": '"reset" must be true or false, got %s.' % shown}
        message = b.request("diag", action="heap")["error"]["message"]
        assert "memory" in message and "scan" in message


@pytest.mark.parametrize("profile,rules", GAMES)
def test_whole_game_at_the_sims_default_heap(profile, rules):
    # `make sim` must play; bench/board.py reports the smallest heap that works.
    _whole_game(profile, DEFAULT_HEAPSIZE, rules)


def test_parts_used_now_and_then_are_not_kept_loaded(tmp_path):
    # What the board needs only at boot or for a moment (profile checks, config checks, the
    # menu, the self-test) is forgotten after use, so its heap is the game's.
    import os
    import sys

    from mancala_fw import profile as profiles
    from mancala_fw.app import App
    from mancala_fw.app.hardware import NullDisplay
    from boardsim import PROFILES
    from mancala_fw.selftest import Bringup

    gone = ("mancala_fw.app.config", "mancala_fw.app.menu", "mancala_fw.selftest.calibration",
            "mancala_fw.selftest.core", "mancala_fw.app.takeback")
    # Start as a board does, with none of them loaded (another test in this process may have
    # imported one directly).
    for name in gone:
        sys.modules.pop(name, None)
        package, _, leaf = name.rpartition(".")
        if package in sys.modules:
            vars(sys.modules[package]).pop(leaf, None)
    prof = profiles.load(os.path.join(PROFILES, "duo.json"))
    assert "mancala_fw.profile.checks" in sys.modules
    profiles.release_checks()
    assert "mancala_fw.profile.checks" not in sys.modules and "checks" not in vars(profiles)
    assert profiles.load(os.path.join(PROFILES, "duo.json")).name == "duo"  # loads again
    profiles.release_checks()
    app = App(prof, NullDisplay(), lambda name, fields: None, str(tmp_path) + os.sep)
    app.boot()
    Bringup(prof, None, None, str(tmp_path) + os.sep)
    assert [m for m in gone if m in sys.modules] == []
    app.set_config({"brightness": 10}, "test")
    assert app.config["brightness"] == 10 and "mancala_fw.app.config" not in sys.modules
    store = app.seating.store(0)
    app.touch("long", store, 0)
    assert app.menu is not None and "mancala_fw.app.menu" in sys.modules
    app.touch("press", app.seating.store(1), 100)  # another store closes the menu
    assert app.menu is None and [m for m in gone if m in sys.modules] == []
    opening = app.state()
    app.press(None, 3, "test")
    assert app.undo("test") == opening  # a take-back
    assert [m for m in gone if m in sys.modules] == []


def test_the_boot_is_forgotten_once_the_board_is_built(tmp_path):
    # app.loop.boot builds the board with app.boot and then forgets it: on CircuitPython a
    # loaded module's code stays on the heap, and the boot's runs once.
    import io
    import os
    import shutil
    import sys

    import mancala_fw.app as app_package
    from mancala_fw.app import loop
    from mancala_fw.app.hardware import NullDisplay
    from boardsim import PROFILES

    flash = str(tmp_path) + os.sep
    shutil.copy(os.path.join(PROFILES, "duo.json"), flash + "profile.json")
    events = io.StringIO()

    def build(prof):
        return None, NullDisplay(), None  # no pads, no LEDs, no watchdog

    parts = loop.boot(flash, events.write, events, build)
    assert parts is not None and '"event": "boot"' in events.getvalue()
    assert "mancala_fw.app.boot" not in sys.modules and "boot" not in vars(app_package)
