"""The strongest CPU level is one constant (app.autoplay.STRONGEST_LEVEL: 5 on MicroPython, 4
on CircuitPython) that the config check, the setup menu, a saved config's restore and the
hint all follow; and the CPU is loaded as soon as a seat is the CPU's, so that no move's
budget pays for loading it. On CPython, with the cap set as CircuitPython sets it where the
test says so; tests/test_circuitpython.py checks the refusal and the restore on stock
CircuitPython 9.2.9 on the emulated Pico."""
import json
import os

import pytest

from mancala_fw import profile as profiles
from mancala_fw.app import App, autoplay, config
from mancala_fw.app.hardware import NullDisplay

from boardsim import PROFILES

DUO = profiles.load(os.path.join(PROFILES, "duo.json"))
HUMANS = [{"kind": "human"}, {"kind": "human"}]


@pytest.fixture
def circuitpython(monkeypatch):
    """The cap as CircuitPython sets it."""
    monkeypatch.setattr(autoplay, "STRONGEST_LEVEL", 4)


def _app(tmp_path, events=None):
    events = [] if events is None else events
    app = App(DUO, NullDisplay(), lambda name, fields: events.append(dict(fields, event=name)),
              str(tmp_path) + os.sep)
    app.boot()
    return app, events


def _seat(level):
    return {"seats": [{"kind": "human"}, {"kind": "cpu", "level": level}]}


@pytest.mark.parametrize("strongest, plies, table", [(5, 30, True), (4, 4, False)])
def test_the_hint_is_a_search_at_the_strongest_level(tmp_path, monkeypatch, strongest, plies,
                                                     table):
    # 5: MicroPython's (as CPython imports it); 4: CircuitPython's
    assert autoplay.STRONGEST_LEVEL == autoplay.CPU_LEVELS == 5
    monkeypatch.setattr(autoplay, "STRONGEST_LEVEL", strongest)
    app, _ = _app(tmp_path)
    app.hint("pad")
    search = app.autoplay.search
    assert app.autoplay.hinting == "pad"
    assert (search.maxd, search.tt is not None) == (plies, table)


def test_config_takes_levels_up_to_the_strongest(circuitpython):
    old = config.defaults(DUO)
    new, _ = config.check(old, _seat(4), DUO)
    assert new["seats"][1] == {"kind": "cpu", "level": 4}
    with pytest.raises(ValueError) as e:
        config.check(old, _seat(5), DUO)
    assert str(e.value) == (
        "seats[1].level must be an integer from 1 to 4, got 5: 4 is the strongest level on "
        "CircuitPython, where level 5's search table needs more memory than the board has "
        "free.")


def test_micropython_takes_level_5_and_names_the_range_alone():
    old = config.defaults(DUO)
    assert config.check(old, _seat(5), DUO)[0]["seats"][1]["level"] == 5
    with pytest.raises(ValueError) as e:
        config.check(old, _seat(6), DUO)
    assert str(e.value) == "seats[1].level must be an integer from 1 to 5, got 6."


def test_menu_pit_5_steps_through_the_strongest_level_and_back(tmp_path, circuitpython):
    app, events = _app(tmp_path)
    app.set_config({"seats": HUMANS, "animation_ms": 0}, "test")
    store = app.seating.store(1)
    app.touch("press", store, 0)
    app.touch("long", store, 1000)
    app.touch("release", store, 1100)
    for _ in range(6):
        app.touch("press", app.seating.position(1, 5), 1200)
    assert [e["plays"] for e in events if e["event"] == "menu"] == [0, 1, 2, 3, 4, 0, 1]


def test_a_saved_seat_above_the_strongest_level_keeps_the_cpu_and_is_said_once(
        tmp_path, monkeypatch):
    # Saved where level 5 is played (MicroPython, or before the cap) ...
    app, _ = _app(tmp_path)
    app.set_config({"seats": [{"kind": "cpu", "level": 5}, {"kind": "cpu", "level": 2}],
                    "brightness": 70}, "test")
    # ... and booted where it is not.
    monkeypatch.setattr(autoplay, "STRONGEST_LEVEL", 4)
    app, events = _app(tmp_path)
    assert app.config["seats"] == [{"kind": "cpu", "level": 4}, {"kind": "cpu", "level": 2}]
    assert app.config["brightness"] == 70
    said = [e for e in events if e["event"] == "log"]
    assert [(e["level"], e["message"]) for e in said] == [(
        "warning", "The saved seat 0 played at CPU level 5, which CircuitPython does not "
                   "offer; it plays at level 4, the strongest here.")]
    with open(tmp_path / "settings.json") as f:
        assert json.load(f)["config"]["seats"][0] == {"kind": "cpu", "level": 4}
    app, events = _app(tmp_path)
    assert app.config["seats"][0] == {"kind": "cpu", "level": 4}
    assert not [e for e in events if e["event"] == "log"]


@pytest.mark.parametrize("seats, bad", [
    ([{"kind": "cpu", "level": 9}, {"kind": "human"}], 0),
    # seat 0 alone would be kept at level 4, and is not said: seat 1 makes them all fall back
    ([{"kind": "cpu", "level": 5}, {"kind": "cpu", "level": 9}], 1),
])
def test_a_saved_level_out_of_every_range_still_falls_back(tmp_path, circuitpython, seats,
                                                           bad):
    with open(tmp_path / "settings.json", "w") as f:
        json.dump({"format": "mancala-settings", "config": {"seats": seats}}, f)
    app, events = _app(tmp_path)
    assert app.config["seats"] == HUMANS
    (said,) = [e["message"] for e in events if e["event"] == "log"]
    assert said.startswith("saved seats[%d].level must be an integer from 1 to 4, got 9" % bad)


# ------------------------------------------------------------------ loading the CPU
def test_the_cpu_is_loaded_when_a_seat_becomes_the_cpus_and_not_before(tmp_path):
    app, _ = _app(tmp_path)
    assert app.autoplay.memory is None  # all seats human: the CPU's heap stays free
    app.set_config({"brightness": 50, "move_time_limit": 30}, "test")
    assert app.autoplay.memory is None
    app.set_config(_seat(2), "test")
    assert app.autoplay.memory is not None


def test_a_board_with_a_cpu_seat_loads_the_cpu_at_boot(tmp_path):
    app, _ = _app(tmp_path)
    app.set_config(_seat(3), "test")
    app, _ = _app(tmp_path)  # the next power-up
    assert app.autoplay.memory is not None


def test_a_cpu_seat_that_does_not_play_loads_nothing_until_its_game(tmp_path):
    # quad keeps four seats; a 2-player game plays seats 0 and 1 only
    quad = profiles.load(os.path.join(PROFILES, "quad.json"))
    app = App(quad, NullDisplay(), lambda name, fields: None, str(tmp_path) + os.sep)
    app.boot()
    app.set_config({"rules": {"variant": "kalah"}}, "test")
    app.new_game("test")
    assert app.session.game.players == 2
    human, cpu = {"kind": "human"}, {"kind": "cpu", "level": 3}
    app.set_config({"seats": [human, human, cpu, human]}, "test")
    assert app.autoplay.memory is None
    app.new_game("test", {"variant": "basic", "players": 3, "pits": 6})
    assert app.session.game.players == 3 and app.autoplay.memory is not None


@pytest.mark.parametrize("how", ["menu", "demo"])
def test_the_menu_and_demo_mode_load_the_cpu(tmp_path, how):
    app, _ = _app(tmp_path)
    if how == "menu":
        store = app.seating.store(1)
        app.touch("long", store, 1000)
        app.touch("release", store, 1100)
        app.touch("press", app.seating.position(1, 5), 1200)
    else:
        app.set_demo(True, "serial", seed=1)
    assert app.autoplay.memory is not None


def test_loading_the_cpu_out_of_heap_is_one_sentence_and_the_seat_stays(tmp_path,
                                                                        monkeypatch):
    app, events = _app(tmp_path)

    def no_heap(self):
        raise MemoryError("memory allocation failed")

    monkeypatch.setattr(autoplay.Autoplay, "load_cpu", no_heap)
    app.set_config(_seat(3), "test")
    assert app.config["seats"][1] == {"kind": "cpu", "level": 3}
    assert [e["message"] for e in events if e["event"] == "log"] == [
        "The CPU player could not be loaded (out of memory); the board tries again at its "
        "first move."]


def test_a_moves_budget_starts_once_the_cpu_is_loaded(tmp_path, monkeypatch):
    # The move timer plays for a person on a board without CPU seats: the CPU is loaded at
    # that move. On a clock that steps 7 ms at every reading, and loading that takes 900 ms
    # of it, think_ms counts only the search: the readings at its start and at the move.
    clock = [1000]

    def ticks():
        clock[0] += 7
        return clock[0]

    load = autoplay.Autoplay.load_cpu

    def slow_load(self):
        if self.memory is None:
            clock[0] += 900
        load(self)

    monkeypatch.setattr(autoplay, "ticks_ms", ticks)
    monkeypatch.setattr(autoplay.Autoplay, "load_cpu", slow_load)
    app, events = _app(tmp_path)
    app.set_config({"move_time_limit": 30, "animation_ms": 0}, "test")
    app.new_game("test", {"variant": "kalah"}, 0)
    assert app.autoplay.memory is None
    app.autoplay.changed(0)  # the turn clock on the times this test passes to tick()
    for t in range(30000, 33000, 10):
        app.tick(t)
    (move,) = [e for e in events if e["event"] == "move"]
    assert move["by"] == "timeout" and move["think_ms"] == 7


def test_a_human_seat_takes_a_level_of_null_and_refuses_any_other():
    # null is a level unset, as a host turning a CPU seat back into a person's may send it
    old = config.defaults(DUO)
    new, _ = config.check(old, {"seats": [{"kind": "human", "level": None}]}, DUO)
    assert new["seats"][0] == {"kind": "human"}
    with pytest.raises(ValueError) as e:
        config.check(old, {"seats": [{"kind": "human", "level": 3}]}, DUO)
    assert str(e.value) == "seats[0]: a human seat takes only \"kind\", not level."
