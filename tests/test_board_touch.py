"""Pad touches through the MPR121 register models (MANCALA_SIM_TOUCH), the real MPR121 driver
and the touch layer: moves, refused touches, take-back, the settings menu and resigning.
In-process (CPython): what comes before the first LED change after a touch."""
import json
import os
import sys
from contextlib import contextmanager

from mancala_fw import profile as profiles
from mancala_fw.app import App
from mancala_fw.display import Display, reader

from boardsim import Board, PROFILES, ROOT
from waits import wait_for

if os.path.join(ROOT, "tests", "mp") not in sys.path:
    sys.path.append(os.path.join(ROOT, "tests", "mp"))  # the display tests' own helpers
from displayhelp import Leds  # noqa: E402

DUO = profiles.load(os.path.join(PROFILES, "duo.json"))
QUAD = profiles.load(os.path.join(PROFILES, "quad.json"))


def pad(seating, seat, pit):
    """(chip address, electrode) of seat's pit (0 = its store) in this seating."""
    return DUO.pad[seating.position(seat, pit)]


@contextmanager
def kalah_on_duo(first=0, **board):
    """The duo board with its pads (boardsim.Board("duo", touch=True, **board)), a Kalah game
    started with seat `first` to move and no animation to skip; yields (board, the game's
    first state), with no event pending."""
    with Board("duo", touch=True, **board) as b:
        b.ok("set_config", config={"animation_ms": 0})
        start = b.ok("new_game", rules={"variant": "kalah"}, first=first)["state"]
        b.take_events()
        yield b, start


def test_touches_play_refuse_and_take_back():
    kalah = profiles.seating(DUO, 2, 6)
    with kalah_on_duo() as (b, start):
        # seat 0 plays pit 3 by touch: 4 seeds end in its store, so it moves again
        b.touch(*pad(kalah, 0, 3))
        move = b.wait_event("move")
        assert (move["seat"], move["pit"], move["source"]) == (0, 3, "pad")
        assert move["record"]["extra"] is True
        after = move["state"]
        # pit 3 is empty now: the touch is refused and changes nothing
        b.touch(*pad(kalah, 0, 3))
        refused = b.wait_event("refused")
        assert refused["pos"] == kalah.position(0, 3) and (refused["seat"], refused["pit"]) == (0, 3)
        # a pit of the seat that is not to move is refused too
        b.touch(*pad(kalah, 1, 2))
        refused = b.wait_event("refused")
        assert (refused["seat"], refused["pit"]) == (1, 2) and "turn" in refused["reason"]
        # the physical pit Kalah leaves unused on the duo board
        b.touch(0x5A, 0)
        assert b.wait_event("refused")["seat"] is None
        assert b.ok("state")["state"] == after
        assert b.take_events("move") == []
        # double tap on a store takes the move back
        addr, electrode = pad(kalah, 1, 0)
        b.touch(addr, electrode, taps=2)
        undo = b.wait_event("undo")
        assert undo["state"] == start and undo["source"] == "pad"
        assert b.ok("state")["state"] == start


def test_a_board_without_the_irq_line_polls_its_pads(tmp_path):
    # The same touches on a duo whose profile wires no IRQ line (i2c.irq left out): the pads
    # are polled, and a move, a refusal and a second move all come through.
    with open(os.path.join(PROFILES, "duo.json")) as f:
        d = json.load(f)
    del d["i2c"]["irq"]
    with open(str(tmp_path / "profile.json"), "w") as f:
        json.dump(d, f)
    kalah = profiles.seating(DUO, 2, 6)
    with kalah_on_duo(flash=str(tmp_path)) as (b, _):
        b.touch(*pad(kalah, 0, 3))
        assert b.wait_event("move")["pit"] == 3
        b.touch(*pad(kalah, 0, 3))
        assert b.wait_event("refused")["pit"] == 3
        b.touch(*pad(kalah, 0, 2))
        move = b.wait_event("move")
        assert (move["seat"], move["pit"]) == (0, 2)


def test_menu_starts_a_new_game_and_resigns():
    kalah = profiles.seating(DUO, 2, 6)
    with kalah_on_duo() as (b, _):
        store = pad(kalah, 1, 0)
        # hold seat 1's store: the menu opens for seat 1
        b.touch(*store, hold_s=1.4)
        opened = b.wait_event("menu")
        assert opened["open"] is True and opened["seat"] == 1
        assert opened["rules"]["variant"] == "kalah"
        # pit 1 steps the variant to basic, pit 4 steps the seeds
        b.touch(*pad(kalah, 1, 1))
        assert b.wait_event("menu")["rules"]["variant"] == "basic"
        b.touch(*pad(kalah, 1, 4))
        chosen = b.wait_event("menu")["rules"]
        assert chosen["variant"] == "basic" and chosen["seeds"] != 4
        # a tap on the same store starts that game and saves its rules
        b.touch(*store)
        new = b.wait_event("new_game")
        assert new["source"] == "pad"
        assert [e["open"] for e in b.take_events("menu")] == [False]
        for key in ("variant", "players", "pits", "seeds"):
            assert new["state"]["rules"][key] == chosen[key]
        assert b.ok("get_config")["config"]["rules"]["variant"] == "basic"
        # hold the store to open the menu, hold it again to resign
        basic = profiles.seating(DUO, 2, new["state"]["rules"]["pits"])
        store = pad(basic, 0, 0)
        b.touch(*store, hold_s=1.4)
        assert b.wait_event("menu")["seat"] == 0
        b.touch(*store, hold_s=1.4)
        resign = b.wait_event("resign")
        assert resign["seat"] == 0 and resign["source"] == "pad" and resign["state"]["over"]
        assert b.wait_event("game_over")["places"] == [2, 1]


def test_menu_closes_without_change_on_another_store():
    kalah = profiles.seating(DUO, 2, 6)
    with Board("duo", touch=True) as b:
        state = b.ok("new_game", rules={"variant": "kalah"}, first=0)["state"]
        config = b.ok("get_config")["config"]
        b.take_events()
        b.touch(*pad(kalah, 0, 0), hold_s=1.4)
        assert b.wait_event("menu")["open"] is True
        b.touch(*pad(kalah, 0, 2))
        b.wait_event("menu")
        b.touch(*pad(kalah, 1, 0))
        closed = b.wait_event("menu")
        assert closed["open"] is False
        assert b.ok("state")["state"] == state
        assert b.ok("get_config")["config"] == config


def test_lost_pad_chip_is_survived():
    kalah = profiles.seating(DUO, 2, 6)
    with Board("duo", touch=True) as b:
        b.ok("new_game", rules={"variant": "kalah"}, first=0)
        with open(b.touch_path, "a") as f:
            f.write("chip 5a off\n")
        b.touch(*pad(kalah, 0, 3))
        assert b.ok("state")["state"]["pits"][0][2] == 4  # the unplugged chip saw nothing
        with open(b.touch_path, "a") as f:
            f.write("chip 5a on\n")
        # the driver retries about once a second; keep touching until the move comes (once
        # played, seat 0 moves again and a touch on the emptied pit is refused)
        def played():
            b.touch(*pad(kalah, 0, 3))
            return b.ok("state")["state"]["pits"][0][2] == 0
        wait_for("a touch on the replugged chip to play", played, interval_s=0.3)


def test_a_touch_during_the_animation_skips_it():
    kalah = profiles.seating(DUO, 2, 6)
    with Board("duo", touch=True) as b:
        b.ok("set_config", config={"animation_ms": 1000})  # 4 stones: over 4 s of sowing
        b.ok("new_game", rules={"variant": "kalah"}, first=0)
        b.touch(*pad(kalah, 0, 3))
        after = b.wait_event("move")["state"]
        b.take_events()
        # this touch only skips the animation: seat 1's pit would otherwise be refused
        b.touch(*pad(kalah, 1, 2))
        # the animation has ended, so this touch is judged as a move again (and refused)
        b.touch(*pad(kalah, 0, 3))
        refused = b.wait_event("refused")
        assert (refused["seat"], refused["pit"]) == (0, 3)
        assert b.take_events() == []
        assert b.ok("state")["state"] == after


class _Leds(Leds):
    """An LED output that notes, at every show(), what the rest of the board had done by
    then: the engine's state, the events sent and the saved game."""

    def __init__(self, lengths, spy):
        Leds.__init__(self, lengths)
        self.spy = spy
        self.shows = []

    def show(self, i):
        self.shows.append((i, self.spy()))


def _quad_app(tmp_path):
    events = []
    game_file = os.path.join(str(tmp_path), "game.json")
    box = {}

    def spy():
        app = box["app"]
        with open(game_file) as f:
            saved = json.load(f)["state"]
        return {"state": app.session.game.to_dict(), "saved": saved,
                "events": [e["event"] for e in events]}

    leds = _Leds([n for _, n in QUAD.chains], spy)
    display = Display(QUAD, leds)
    app = App(QUAD, display, lambda name, fields: events.append(dict(fields, event=name)),
              str(tmp_path) + os.sep)
    box["app"] = app
    app.boot()
    app.set_config({"animation_ms": 100}, "test")
    app.new_game("test", {"variant": "basic", "players": 4, "pits": 6}, 0)
    display.tick(None)
    del events[:]
    del leds.shows[:]
    return app, display, leds, events


def test_a_legal_touch_shows_its_pit_before_the_engine_the_save_and_the_events(tmp_path):
    app, display, leds, events = _quad_app(tmp_path)
    before = app.state()
    pos = app.seating.position(0, 3)
    chain, start, n = QUAD.ring[pos]
    app.touch("press", pos, 0)
    first_chain, seen = leds.shows[0]
    # The first chain sent is the touched pit's, showing it empty ...
    assert first_chain == chain
    assert reader.read_counts(leds.bufs, [QUAD.ring[pos]]) == [0]
    # ... and it went out before the engine played the move, before the game was saved and
    # before any event was sent.
    assert seen == {"state": before, "saved": before, "events": []}
    assert app.state() != before and app.state()["pits"][0][2] == 0
    assert [e["event"] for e in events] == ["move"]


def test_a_refused_touch_blinks_before_the_event(tmp_path):
    app, display, leds, events = _quad_app(tmp_path)
    before = app.state()
    pos = app.seating.position(1, 2)  # seat 1's pit: not its turn
    chain, start, n = QUAD.ring[pos]
    app.touch("press", pos, 0)
    # Its chain went out before the event (on this limited frame the red ring scales the
    # whole frame down, so every chain is sent, the darker ones first).
    assert chain in [c for c, _ in leds.shows]
    assert [seen["events"] for _, seen in leds.shows] == [[]] * len(leds.shows)
    assert leds.bufs[chain][start * 3 + 1] > 0 and leds.bufs[chain][start * 3] == 0  # red
    assert [e["event"] for e in events] == ["refused"] and app.state() == before


def _sowing(app, display, events, seat, pit):
    """Play seat's pit by touch; returns the animation's start and the time its last stone
    lands (the steps are laid out at fixed offsets, so the test sets the clock)."""
    from mancala_fw.display.animation import SOW
    app.touch("press", app.seating.position(seat, pit), 0)
    anim = display.anim
    assert anim.active and events[-1]["event"] == "move"
    last = max(t for t, kind, *_ in anim._steps if kind == SOW)
    return anim._start, last


def test_a_touch_while_stones_still_fly_only_skips_the_animation(tmp_path):
    app, display, leds, events = _quad_app(tmp_path)
    start, last = _sowing(app, display, events, 0, 1)
    display.tick(start + last - 1)  # the last stone is still in the air
    assert display.busy() and display.sowing()
    after = app.state()
    del events[:]
    app.touch("press", app.seating.position(1, 2), start + last - 1)  # seat 1's legal pit
    assert events == [] and app.state() == after and not display.busy()


def test_a_touch_after_the_last_stone_lands_plays(tmp_path):
    app, display, leds, events = _quad_app(tmp_path)
    start, last = _sowing(app, display, events, 0, 1)
    display.tick(start + last)  # every stone is down; the last count is still to show
    assert display.busy() and not display.sowing()
    del events[:]
    app.touch("press", app.seating.position(1, 2), start + last)
    assert [(e["event"], e["seat"], e["pit"]) for e in events] == [("move", 1, 2)]


def test_a_wrong_touch_after_the_last_stone_lands_is_refused_visibly(tmp_path):
    app, display, leds, events = _quad_app(tmp_path)
    start, last = _sowing(app, display, events, 0, 1)
    display.tick(start + last)
    after = app.state()
    del events[:]
    pos = app.seating.position(0, 3)  # seat 0 has moved: not its turn
    app.touch("press", pos, start + last)
    assert [e["event"] for e in events] == ["refused"] and "turn" in events[0]["reason"]
    assert app.state() == after
    chain, first, n = QUAD.ring[pos]
    assert leds.bufs[chain][first * 3 + 1] > 0 and leds.bufs[chain][first * 3] == 0  # red


class _Recorder:
    """The pieces app.loop.loop() drives, each noting its call in one shared list."""

    def __init__(self, calls):
        self.calls = calls
        self.commands = {}

    # pads
    def poll(self):
        self.calls.append("poll")
        return [0, 0, 0]

    # touch layer
    def update(self, masks, now):
        return []

    # protocol
    def feed(self, byte):
        self.calls.append("serial")

    # app
    def touch(self, kind, pos, now):
        self.calls.append("touch")

    def tick(self, now):
        self.calls.append("tick")

    def thinking(self):
        return False  # no CPU search

    def animating(self):
        return False


def test_idle_frames_go_out_only_after_a_pad_poll(monkeypatch):
    # The loop ticks the app (which sends idle frames: breathing, hint, timer) only in a pass
    # that polled the pads, not in the passes that serial bytes wake up between polls: a
    # chain sent between two polls could still be on the wire when the next touch wants it.
    # No thread and no wall clock: each pad poll writes the next serial bytes, and the loop's
    # clock moves 1 ms each time it is read, so every run takes the same passes.
    from mancala_fw.app import loop as mainloop

    calls = []
    clock = [0]
    fed_at = []     # the loop's time at each serial byte
    polled_at = []  # and at each pad poll

    def ticks_ms():
        clock[0] += 1
        return clock[0]

    rfd, wfd = os.pipe()
    stdin = os.fdopen(rfd, "rb", buffering=0)  # unbuffered, as the board's line
    monkeypatch.setattr(sys, "stdin", stdin)
    monkeypatch.setattr(mainloop, "ticks_ms", ticks_ms)

    class Board(_Recorder):
        def poll(self):
            polled_at.append(clock[0])
            if len(polled_at) <= 10:
                os.write(wfd, b"   ")  # three serial bytes, here before the next poll is due
            elif len(polled_at) == 11:
                os.close(wfd)  # then the host closes the line
            return _Recorder.poll(self)

        def feed(self, byte):
            fed_at.append(clock[0])
            _Recorder.feed(self, byte)

    fake = Board(calls)
    try:
        mainloop.loop(fake, fake, fake, fake, None)
    finally:
        stdin.close()
    assert calls.count("serial") == 30 and calls.count("poll") == 11
    # the bytes came in passes of their own, before the next poll was due
    for i in range(10):
        assert all(polled_at[i] < t < polled_at[i] + mainloop.PAD_MS for t in fed_at[3 * i:3 * i + 3])
        assert polled_at[i + 1] >= polled_at[i] + mainloop.PAD_MS
    # every tick comes right after a poll, in the same pass; serial passes do not tick
    for i, c in enumerate(calls):
        if c == "tick":
            assert calls[i - 1] == "poll", calls[max(0, i - 4):i + 1]
    assert calls.count("tick") == calls.count("poll")


def test_the_loop_lets_go_of_the_self_test_once_it_is_idle(monkeypatch):
    # The loop asks the held Bringup at each pad poll whether it is idle (with the loop's
    # time), and then has it release its self-test and modules before dropping it.
    from mancala_fw.app import loop as mainloop

    calls = []
    clock = [0]

    def ticks_ms():
        clock[0] += 1
        return clock[0]

    rfd, wfd = os.pipe()
    stdin = os.fdopen(rfd, "rb", buffering=0)
    monkeypatch.setattr(sys, "stdin", stdin)
    monkeypatch.setattr(mainloop, "ticks_ms", ticks_ms)

    class Held:
        def __init__(self):
            self.asked = []
            self.released = 0

        def active(self):
            return False

        def gesture(self, masks, now):
            return False

        def idle(self, now):
            self.asked.append(now)
            return len(self.asked) == 3  # idle at the third poll

        def release(self):
            self.released += 1

    class Board(_Recorder):
        def poll(self):
            if calls.count("poll") == 5:
                os.close(wfd)  # the host closes the line: the loop returns
            return _Recorder.poll(self)

    fake = Board(calls)
    bringup = Held()
    held = [bringup]
    try:
        mainloop.loop(fake, fake, fake, fake, None, held)
    finally:
        stdin.close()
    assert held == [None] and bringup.released == 1
    assert len(bringup.asked) == 3 and bringup.asked == sorted(bringup.asked) and \
        bringup.asked[-1] <= clock[0]


def test_a_lifted_pit_comes_back_when_the_move_fails_inside(tmp_path):
    # The touched pit goes dark before the engine plays; if anything after that fails (out of
    # heap), the display shows the game again rather than an empty pit that is not empty.
    from mancala_fw.app.hardware import NullDisplay

    class Seen(NullDisplay):
        def __init__(self):
            self.calls = []

        def lift(self, pos):
            self.calls.append(("lift", pos))

        def set_state(self, state):
            self.calls.append(("state", state["pits"][0][2]))

    display = Seen()
    app = App(DUO, display, lambda name, fields: None, str(tmp_path) + os.sep)
    app.boot()
    app.new_game("test", {"variant": "kalah"}, 0)
    seating = profiles.seating(DUO, 2, 6)

    def no_heap(seat, pit):
        raise MemoryError("no heap")

    app.session.play = no_heap
    display.calls = []
    try:
        app.touch("press", seating.position(0, 3), 0)
    except MemoryError:
        pass
    else:
        raise AssertionError("the failure was swallowed")
    assert display.calls == [("lift", seating.position(0, 3)), ("state", 4)]


def test_the_user_guide_counts_the_menus_pits():
    # docs/user-guide.md §4: its table lists every menu pit, and its prose counts them.
    import re
    from mancala_fw.app import menu
    guide = open(os.path.join(os.path.dirname(PROFILES), "..", "docs", "user-guide.md")).read()
    section = guide.split("## 4. The settings menu")[1].split("## 5.")[0]
    pits = [int(n) for n in re.findall(r"^\| (\d) \|", section, re.M)]
    assert pits == list(range(1, len(menu.FIELDS) + 2))  # the settings, then who plays the seat
    assert "That is five pits in all" in " ".join(section.split()) and len(pits) == 5


def test_a_paused_board_refuses_touches_and_its_cpu_waits():
    kalah = profiles.seating(DUO, 2, 6)
    with kalah_on_duo() as (b, start):
        b.ok("set_config", config={"paused": True,
                                   "seats": [{"kind": "human"}, {"kind": "cpu", "level": 1}]})
        b.touch(*pad(kalah, 0, 3))
        ev = b.wait_event("refused")
        assert "paused" in ev["reason"], ev
        # seat 1 (the CPU) to move: unpaused it plays at its first slice (no animation, so no
        # pause after the move); paused, a hundred round trips of the main loop later it has not
        b.ok("new_game", first=1)
        for _ in range(100):
            assert b.ok("state")["moves"] == 0
        assert b.ok("press", seat=1, pit=2)["state"]["turn"] == 0  # serial still plays
        b.ok("set_config", config={"paused": False})
        b.take_events()
        b.touch(*pad(kalah, 0, 1))
        assert b.wait_event("move")["by"] == "human"
        assert b.wait_event("move")["by"] == "cpu"
