"""Board gestures and displays: a tap on your store asks for a hint, holding a pit
once a game is over starts the demo, and the move timer counts its last seconds down on the
mover's store. In-process (the App with a recording display and a clock the test sets) and,
for the hint, through the real firmware and the MPR121 models."""
import os

from mancala_fw import profile as profiles
from mancala_fw.app import App
from mancala_fw.app.hardware import NullDisplay

from boardsim import PROFILES
from test_board_touch import kalah_on_duo, pad

DUO = profiles.load(os.path.join(PROFILES, "duo.json"))


class RecordingDisplay(NullDisplay):
    """The null display, remembering the timer and hint calls the app makes."""

    def __init__(self):
        self.countdowns = []
        self.hints = []

    def countdown(self, seat, seconds_left):
        self.countdowns.append((seat, seconds_left))

    def hint(self, pos):
        self.hints.append(pos)


def _app(tmp_path, seats=None, limit=0):
    events = []
    display = RecordingDisplay()
    app = App(DUO, display, lambda name, fields: events.append(dict(fields, event=name)),
              str(tmp_path) + os.sep)
    app.boot()
    app.set_config({"seats": seats or [{"kind": "human"}, {"kind": "human"}],
                    "move_time_limit": limit, "animation_ms": 0}, "test")
    app.new_game("test", {"variant": "kalah"}, 0)
    return app, events, display


def _run(app, start, ms, step=10):
    for t in range(start, start + ms, step):
        app.tick(t)


def test_a_tap_on_the_movers_store_shows_a_hint_and_changes_nothing(tmp_path):
    app, events, display = _app(tmp_path)
    before = app.state()
    store = app.seating.position(0, 0)
    app.touch("press", store, 1000)
    _run(app, 1000, 3000)
    (hint,) = [e for e in events if e["event"] == "hint"]
    assert hint["seat"] == 0 and hint["pit"] in app.session.game.legal_moves()
    assert display.hints[-1] == app.seating.position(0, hint["pit"])
    assert app.state() == before and not [e for e in events if e["event"] == "move"]


def test_no_hint_for_the_seat_not_to_move(tmp_path):
    app, events, display = _app(tmp_path)
    app.touch("press", app.seating.position(1, 0), 1000)
    _run(app, 1000, 2000)
    assert not [e for e in events if e["event"] == "hint"] and display.hints == []


def test_holding_a_pit_after_the_game_starts_the_demo(tmp_path):
    app, events, _ = _app(tmp_path)
    pit = app.seating.position(0, 2)
    app.touch("long", pit, 100)  # while the game runs a hold does nothing
    assert not app.autoplay.demo
    app.resign(1, "test")
    app.touch("long", pit, 200)
    assert app.autoplay.demo
    assert [e for e in events if e["event"] == "demo"][-1]["source"] == "pad"
    app.touch("press", pit, 300)  # a touch ends it
    assert not app.autoplay.demo


def test_the_move_timer_counts_down_on_the_movers_store(tmp_path):
    app, events, display = _app(tmp_path, limit=30)
    t0 = 10000
    app.autoplay.changed(t0)
    app.tick(t0 + 5000)
    assert display.countdowns[-1] == (0, None)  # 25 s left: nothing shown yet
    app.tick(t0 + 21500)  # 8.5 s left
    assert display.countdowns[-1] == (0, 9)
    app.tick(t0 + 29500)
    assert display.countdowns[-1] == (0, 1)


def test_no_countdown_without_a_time_limit(tmp_path):
    app, events, display = _app(tmp_path)
    _run(app, 0, 40000, step=1000)
    assert {c[1] for c in display.countdowns} == {None}


def test_hint_by_touch_through_the_real_firmware():
    with kalah_on_duo(first=1) as (b, _):
        b.touch(*pad(profiles.seating(DUO, 2, 6), 1, 0))
        hint = b.wait_event("hint")
        assert hint["seat"] == 1 and 1 <= hint["pit"] <= 6 and hint["source"] == "pad"
        assert b.ok("state")["state"]["turn"] == 1
