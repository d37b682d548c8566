"""CPU seats, the move timer and hints: in-process (the App with a null display and a clock
the test sets) and over the protocol with the real firmware."""
import json
import os
import re

import pytest

from mancala_fw import profile as profiles
from mancala_fw.app import App, autoplay
from mancala_fw.app.hardware import NullDisplay

from boardsim import Board, PROFILES


def _app(tmp_path, seats, limit=0, irq=None):
    events = []
    app = App(profiles.load(os.path.join(PROFILES, "duo.json")), NullDisplay(),
              lambda name, fields: events.append(dict(fields, event=name)),
              str(tmp_path) + os.sep, irq)  # the App's files go into the test's directory
    app.boot()
    app.set_config({"seats": seats, "move_time_limit": limit, "animation_ms": 0}, "test")
    app.new_game("test", {"variant": "kalah"}, 0)
    return app, events


def _run(app, start, ms, step=10):
    for t in range(start, start + ms, step):
        app.tick(t)


def test_cpu_seat_moves_and_people_cannot_play_its_pits(tmp_path):
    app, events = _app(tmp_path, [{"kind": "human"}, {"kind": "cpu", "level": 2}])
    app.press(0, 1, "serial")  # seat 0 -> seat 1 (the CPU) to move
    assert app.session.game.turn == 1
    # a touch on the CPU seat's pit is refused
    app.touch("press", app.seating.position(1, 2), 0)
    assert events[-1]["event"] == "refused" and "CPU" in events[-1]["reason"]
    _run(app, 0, 5000)
    moves = [e for e in events if e["event"] == "move" and e["by"] == "cpu"]
    assert moves and all(m["seat"] == 1 for m in moves)
    assert app.session.game.turn == 0 or app.session.game.over


def test_cpu_against_cpu_finishes_a_game(tmp_path):
    app, events = _app(tmp_path, [{"kind": "cpu", "level": 1}, {"kind": "cpu", "level": 3}])
    t = 0
    while not app.session.game.over and t < 10 ** 6:
        app.tick(t)
        t += 10
    assert app.session.game.over
    assert [e for e in events if e["event"] == "game_over"]
    assert {e["by"] for e in events if e["event"] == "move"} == {"cpu"}


def test_timer_plays_for_an_absent_person(tmp_path):
    app, events = _app(tmp_path, [{"kind": "human"}, {"kind": "human"}], limit=30)
    t0 = 10000
    app.autoplay.changed(t0)
    app.tick(t0 + 20000)
    assert app.autoplay.seconds_left(t0 + 20000, app.session.game, app.config) == 10
    assert not [e for e in events if e["event"] == "move"]
    _run(app, t0 + 30000, 3000)
    (move,) = [e for e in events if e["event"] == "move"]
    assert move["by"] == "timeout" and move["seat"] == 0


def test_undo_drops_the_cpu_search(tmp_path):
    app, events = _app(tmp_path, [{"kind": "human"}, {"kind": "cpu", "level": 5}])
    app.press(0, 1, "serial")
    app.tick(0)  # the CPU starts thinking
    assert app.autoplay.search is not None
    app.undo("serial")
    assert app.autoplay.search is None and app.session.game.turn == 0


def _answers(events):
    # A deferred answer reaches the emit function with no event name (app.autoplay).
    return [e for e in events if e["event"] is None]


def test_a_serial_hint_while_the_cpu_thinks_is_the_move_it_plays(tmp_path, monkeypatch):
    monkeypatch.setattr(autoplay, "THINK_MS", 50)  # a short search keeps the test fast
    # A clock one millisecond further at every read, for the app and the search: the CPU is
    # still thinking after the first pass however slow this machine is.
    from mancala import cpu, negamax
    clock = [0]

    def one_ms_a_read():
        clock[0] += 1
        return clock[0]

    for module in (autoplay, cpu, negamax):
        monkeypatch.setattr(module, "ticks_ms", one_ms_a_read)
    app, events = _app(tmp_path, [{"kind": "human"}, {"kind": "cpu", "level": 5}])
    app.press(0, 1, "serial")
    app.tick(0)  # the CPU starts thinking
    assert app.autoplay.search is not None and not app.autoplay.hinting
    app.hint("serial", "h")
    assert app.autoplay.hinting is None  # no second search: the hint waits for the CPU's
    _run(app, 10, 3000)
    kinds = [e["event"] for e in events]
    first_cpu = [e for e in events if e["event"] == "move" and e["by"] == "cpu"][0]
    (answer,) = _answers(events)
    assert answer == {"event": None, "id": "h", "ok": True, "seat": 1, "pit": first_cpu["pit"]}
    assert kinds.index(None) < events.index(first_cpu)


def test_a_failing_search_still_answers_the_serial_hint(tmp_path):
    app, events = _app(tmp_path, [{"kind": "human"}, {"kind": "human"}])
    app.hint("serial", 9)

    def broken(ms):
        raise MemoryError("no heap")

    app.autoplay.search.step = broken
    with pytest.raises(MemoryError):  # the main loop reports it as a log event
        app.tick(0)
    (answer,) = _answers(events)
    assert answer["id"] == 9 and answer["error"]["code"] == "internal"
    assert app.autoplay.search is None
    _run(app, 10, 100)
    assert len(_answers(events)) == 1


def test_a_hint_whose_search_cannot_start_is_answered_once(tmp_path, monkeypatch):
    import mancala.cpu
    from mancala_fw.app.commands import table
    from mancala_fw.protocol import Protocol

    out = []
    proto = Protocol(out.append, {})
    app = App(profiles.load(os.path.join(PROFILES, "duo.json")), NullDisplay(), proto.event,
              str(tmp_path) + os.sep)
    proto.commands = table(app)
    app.boot()

    def no_heap(*args):
        raise MemoryError("no heap")

    monkeypatch.setattr(mancala.cpu, "Search", no_heap)
    for byte in b'{"id": 1, "cmd": "hint"}\n':
        proto.feed(byte)
    _run(app, 0, 100)
    app.press(None, 1, "test")  # a change would answer a hint still waiting
    lines = [json.loads(line) for line in "".join(out).splitlines()]
    answers = [m for m in lines if "event" not in m]
    assert len(answers) == 1 and answers[0]["error"]["code"] == "internal", answers


def test_the_board_menu_drops_a_serial_hint(tmp_path):
    app, events = _app(tmp_path, [{"kind": "human"}, {"kind": "human"}])
    app.hint("serial", 3)
    store = app.seating.store(1)
    app.touch("press", store, 0)
    app.touch("long", store, 1000)  # the menu opens
    app.tick(1000)
    (answer,) = _answers(events)
    assert answer["id"] == 3 and answer["error"]["code"] == "hint_dropped"
    assert not [e for e in events if e["event"] == "hint"]


def test_cpu_seat_and_hint_over_the_protocol():
    with Board("duo") as b:
        b.ok("set_config", config={"seats": [{"kind": "human"}, {"kind": "cpu", "level": 1}],
                                   "animation_ms": 0})
        b.ok("new_game", rules={"variant": "kalah"}, first=0)
        hint = b.ok("hint")
        assert hint["seat"] == 0 and 1 <= hint["pit"] <= 6
        b.ok("press", pit=1)
        move = b.wait_event("move")
        while move["source"] != "cpu":
            move = b.wait_event("move")
        assert move["by"] == "cpu" and move["seat"] == 1
        # demo mode over serial: every seat plays by itself until it is switched off
        assert b.ok("demo", on=True)["on"] is True
        for _ in range(3):
            move = b.wait_event("move")
            assert move["by"] == "cpu" and move["source"] == "cpu"
        b.ok("demo", on=False)
        assert b.request("demo", on="yes")["error"]["code"] == "bad_request"


def test_demo_plays_game_after_game_until_a_touch(tmp_path, monkeypatch):
    from mancala_fw.app import flow as firmware_app
    clock = [0]
    # The app stamps each change with ticks_ms(); on the test's clock, the 5 s pause between
    # demo games does not depend on how long the machine has been up.
    monkeypatch.setattr(firmware_app, "ticks_ms", lambda: clock[0])
    app, events = _app(tmp_path, [{"kind": "human"}, {"kind": "human"}])
    app.set_demo(True, "test")
    t = 0
    while len([e for e in events if e["event"] == "game_over"]) < 2 and t < 10 ** 7:
        clock[0] = t
        app.tick(t)
        t += 10
    assert len([e for e in events if e["event"] == "new_game" and e["source"] == "cpu"]) >= 1
    assert {e["by"] for e in events if e["event"] == "move"} == {"cpu"}
    # a touch anywhere ends the demo; the board then waits for people again
    app.touch("press", app.seating.position(0, 1), t)
    assert app.autoplay.demo is False and events[-1] == {"event": "demo", "on": False,
                                                         "source": "pad"}
    moves = len([e for e in events if e["event"] == "move"])
    for k in range(200):
        app.tick(t + 10 * k)
    assert len([e for e in events if e["event"] == "move"]) == moves


def _demo_games(tmp_path, monkeypatch, seed, count):
    """The pits played in each of the first `count` demo games with this seed."""
    from mancala_fw.app import flow as firmware_app
    clock = [0]
    monkeypatch.setattr(firmware_app, "ticks_ms", lambda: clock[0])
    app, events = _app(tmp_path, [{"kind": "human"}, {"kind": "human"}])
    app.set_demo(True, "test", seed)
    t = 0
    while len([e for e in events if e["event"] == "game_over"]) < count and t < 10 ** 7:
        clock[0] = t
        app.tick(t)
        t += 10
    games, moves = [], None
    for e in events:
        if e["event"] == "demo":
            moves = []
            games.append(moves)
        elif e["event"] == "new_game" and moves is not None:
            moves = []
            games.append(moves)
        elif e["event"] == "move" and moves is not None:
            moves.append((e["seat"], e["pit"]))
    return games[:count], events


def test_demo_games_differ_from_one_game_to_the_next(tmp_path, monkeypatch):
    (tmp_path / "a").mkdir()
    games, events = _demo_games(tmp_path / "a", monkeypatch, 7, 3)
    assert [e for e in events if e["event"] == "demo"][0] == {
        "event": "demo", "on": True, "source": "test", "level": autoplay.DEMO_LEVEL}
    assert len(games) == 3 and all(games)
    pits = [[pit for _, pit in g] for g in games]
    # the starter rotates, so a repeated game would show the same pits from another seat
    for a, b in zip(pits, pits[1:]):
        assert a != b and a[0] != b[0]
    # the same seed gives the same games: a demo can be shown again
    (tmp_path / "b").mkdir()
    again, _ = _demo_games(tmp_path / "b", monkeypatch, 7, 3)
    assert again == games
    (tmp_path / "c").mkdir()
    other, _ = _demo_games(tmp_path / "c", monkeypatch, 8, 1)
    assert other[0] != games[0]


def test_demo_over_the_protocol_says_its_level_and_the_state_says_demo():
    with Board("duo") as b:
        b.ok("set_config", config={"animation_ms": 0})
        assert b.ok("state")["demo"] is False
        assert b.ok("demo", on=True, seed=5)["on"] is True
        assert b.wait_event("demo") == {"event": "demo", "on": True, "source": "serial",
                                        "level": autoplay.DEMO_LEVEL}
        assert b.ok("state")["demo"] is True
        b.ok("demo", on=False)
        assert b.wait_event("demo") == {"event": "demo", "on": False, "source": "serial"}
        assert b.ok("state")["demo"] is False
        assert b.request("demo", on=True, seed="x")["error"]["code"] == "bad_request"


def test_menu_pit_5_hands_a_seat_to_the_cpu_and_back(tmp_path):
    app, events = _app(tmp_path, [{"kind": "human"}, {"kind": "human"}])
    store = app.seating.store(1)
    app.touch("press", store, 0)
    app.touch("long", store, 1000)
    assert app.menu is not None and app.menu.seat == 1
    app.touch("release", store, 1100)  # the end of the hold that opened the menu
    for level in (1, 2):
        app.touch("press", app.seating.position(1, 5), 1200)
        assert app.config["seats"][1] == {"kind": "cpu", "level": level}
        assert app.menu is not None  # the menu stays open
    assert [e["config"]["seats"][1] for e in events if e["event"] == "config"][-1] == \
        {"kind": "cpu", "level": 2}
    # the menu event says who plays the seat, as pit 5 shows it, from opening on
    assert [e["plays"] for e in events if e["event"] == "menu"] == [0, 1, 2]
    for _ in range(4):
        app.touch("press", app.seating.position(1, 5), 1300)
    assert app.config["seats"][1] == {"kind": "human"}
    app.touch("press", app.seating.store(0), 1400)  # another store closes the menu
    assert app.menu is None


@pytest.mark.parametrize("where", ["start", "step"])
def test_a_cpu_seat_whose_search_fails_plays_its_first_legal_pit(tmp_path, monkeypatch, where):
    # Out of heap at every try would starve the watchdog into a reset loop: the game goes on.
    import mancala.cpu

    app, events = _app(tmp_path, [{"kind": "human"}, {"kind": "cpu", "level": 5}])
    app.press(0, 1, "serial")  # seat 1, the CPU, to move
    first = app.session.game.legal_moves()[0]

    def no_heap(*args, **kwargs):
        raise MemoryError("no heap")

    if where == "start":
        monkeypatch.setattr(mancala.cpu, "Search", no_heap)
    else:
        app.tick(0)
        app.autoplay.search.step = no_heap
    with pytest.raises(MemoryError):  # the main loop reports it as a log event
        app.tick(10)
    (move,) = [e for e in events if e["event"] == "move" and e["seat"] == 1]
    assert move["pit"] == first and move["by"] == "cpu" and app.autoplay.search is None


def test_a_cpu_move_says_how_long_it_thought(tmp_path, monkeypatch):
    # think_ms is the board clock from the start of the search to the move: on a clock that
    # the test steps by 7 ms at every reading, it is exactly the readings in between.
    clock = [1000]

    def ticks():
        clock[0] += 7
        return clock[0]

    monkeypatch.setattr(autoplay, "ticks_ms", ticks)
    app, events = _app(tmp_path, [{"kind": "human"}, {"kind": "cpu", "level": 3}])
    app.press(0, 1, "serial")
    app.tick(0)  # the search starts (level 3 finishes in its first slice) and plays
    (human,) = [e for e in events if e["event"] == "move" and e["by"] == "human"]
    (cpu,) = [e for e in events if e["event"] == "move" and e["by"] == "cpu"]
    assert "think_ms" not in human
    # readings: at the start and at the move
    assert cpu["think_ms"] == 7


@pytest.mark.parametrize("by", ["timeout", "fallback"])
def test_moves_the_cpu_plays_for_a_person_or_after_a_failure_carry_think_ms(tmp_path,
                                                                            monkeypatch, by):
    import mancala.cpu

    app, events = _app(tmp_path, [{"kind": "human"}, {"kind": "human"}], limit=30)
    if by == "fallback":
        def no_heap(*args, **kwargs):
            raise MemoryError("no heap")
        monkeypatch.setattr(mancala.cpu, "Search", no_heap)
    app.autoplay.changed(0)
    try:
        _run(app, 30000, 3000)
    except MemoryError:
        pass  # the main loop reports it; the seat has played its first legal pit
    (move,) = [e for e in events if e["event"] == "move"]
    assert move["by"] == "timeout" and isinstance(move["think_ms"], int)
    assert move["think_ms"] >= 0


def test_the_heap_mark_is_sampled_after_saves_and_search_slices(tmp_path, monkeypatch):
    from mancala_fw.app import flow as firmware_app
    import mancala.cpu

    calls = []
    monkeypatch.setattr(firmware_app, "sample_heap", lambda: calls.append("save"))
    monkeypatch.setattr(autoplay, "sample_heap", lambda: calls.append("sample"))
    real_step = mancala.cpu.Search.step

    def step(search, ms):
        calls.append("slice")
        return real_step(search, ms)

    monkeypatch.setattr(mancala.cpu.Search, "step", step)
    monkeypatch.setattr(autoplay, "THINK_MS", 50)
    app, events = _app(tmp_path, [{"kind": "human"}, {"kind": "cpu", "level": 5}])
    calls.clear()
    app.press(0, 1, "serial")
    assert calls == ["save"]  # the move is saved, and the mark read after it
    calls.clear()
    _run(app, 0, 2000)
    assert [e for e in events if e["event"] == "move" and e["by"] == "cpu"]
    # each search's first slice is followed by a sample (not the slices after it: a read
    # walks the whole heap); then each CPU move (an extra turn makes two) is saved and read
    assert re.fullmatch(r"(slice sample (slice )*save ?)+", " ".join(calls)), calls


class _Pin:
    """A pin whose falling edge the test makes: what drivers.irqline.IrqLine needs of one."""
    IRQ_FALLING = 2

    def __init__(self):
        self.handler = None
        self.level = 1

    def irq(self, handler=None, trigger=0, hard=False):
        self.handler = handler

    def value(self):
        return self.level

    def fall(self):
        self.level = 0
        self.handler(self)


def _thinking(tmp_path, monkeypatch):
    """An app whose CPU seat (level 5) is thinking, the pads' IRQ line handed to it as
    app.boot hands it over, and a clock that stands still: a slice then ends only when the
    search is done or paused."""
    import mancala.cpu
    import mancala.negamax
    from drivers.irqline import IrqLine
    monkeypatch.setattr(mancala.cpu, "ticks_ms", lambda: 5000)
    monkeypatch.setattr(mancala.negamax, "ticks_ms", lambda: 5000)
    pin = _Pin()
    irq = IrqLine(pin)
    app, events = _app(tmp_path, [{"kind": "human"}, {"kind": "cpu", "level": 5}], irq=irq)
    assert irq.on_edge == app.autoplay.pause
    app.press(0, 1, "serial")
    return app, events, pin, irq


def test_a_pad_change_while_the_cpu_thinks_ends_the_slice(tmp_path, monkeypatch):
    import mancala.negamax
    app, events, pin, irq = _thinking(tmp_path, monkeypatch)
    looks = [0]

    def clock():
        # 1 ms a look from the slice's start (5000): a 7 ms slice ends at look 7 by itself
        looks[0] += 1
        if looks[0] == 3:
            pin.fall()  # a finger, while the slice runs: the line's edge pauses the search
        return 5000 + looks[0]

    monkeypatch.setattr(mancala.negamax, "ticks_ms", clock)
    app.tick(0)  # the search starts, and its slice runs until the edge
    s = app.autoplay.search
    assert s is not None and looks[0] == 3, looks  # the slice returned at its next look
    assert irq.pending and irq.edges == 1
    assert not [e for e in events if e.get("by") == "cpu"]


def test_no_slice_starts_while_a_pad_change_waits_to_be_read(tmp_path, monkeypatch):
    import mancala.cpu
    import mancala.negamax
    app, events, pin, irq = _thinking(tmp_path, monkeypatch)
    clock = [5000]

    def ticks():
        clock[0] += 8  # every look at the clock ends the slice
        return clock[0]

    monkeypatch.setattr(mancala.negamax, "ticks_ms", ticks)
    steps = []
    real_step = mancala.cpu.Search.step
    monkeypatch.setattr(mancala.cpu.Search, "step",
                        lambda search, ms: steps.append(ms) or real_step(search, ms))
    app.tick(0)
    assert len(steps) == 1 and app.autoplay.search is not None
    pin.fall()  # between two slices (the loop was drawing, say)
    app.tick(10)
    app.tick(20)
    assert len(steps) == 1  # the loop reads the pads first
    irq.taken(30)  # ... as MPR121Group.poll() marks it
    app.tick(30)
    assert len(steps) == 2


def test_without_an_irq_line_the_search_runs_its_slices(tmp_path, monkeypatch):
    # The poll fallback: no line wired, so nothing pauses the search and every tick steps it.
    import mancala.cpu
    app, events = _app(tmp_path, [{"kind": "human"}, {"kind": "cpu", "level": 5}])
    assert app.autoplay.irq is None
    steps = []
    real_step = mancala.cpu.Search.step
    monkeypatch.setattr(mancala.cpu.Search, "step",
                        lambda search, ms: steps.append(ms) or real_step(search, ms))
    app.press(0, 1, "serial")
    for t in range(0, 50, 10):
        app.tick(t)
    assert steps == [autoplay.SLICE_MS] * 5


# ------------------------------------------------------------------ take-back against the CPU
def _until_the_person_is_to_move(app, events, t):
    """Ticks until the CPU seat (seat 1) has replied and seat 0 is to move again."""
    while app.session.game.turn != 0 and t < 10 ** 6:
        app.tick(t)
        t += 10
    assert app.session.game.turn == 0
    return t


def test_a_take_back_against_the_cpu_goes_back_to_the_persons_move(tmp_path):
    app, events = _app(tmp_path, [{"kind": "human"}, {"kind": "cpu", "level": 3}])
    start = app.state()
    app.press(0, 4, "pad")  # 4 stones from pit 4 end on seat 1's side: the CPU to move
    t = _until_the_person_is_to_move(app, events, 0)
    replies = [e for e in events if e["event"] == "move" and e["by"] == "cpu"]
    assert replies
    del events[:]
    store = app.seating.store(0)
    app.touch("double", store, t)  # the double tap on a store
    undos = [e for e in events if e["event"] == "undo"]
    # one undo event for each move taken back, the CPU's replies first, ending at the start
    assert len(undos) == len(replies) + 1 and undos[-1]["state"] == start
    assert [u["state"]["turn"] for u in undos] == [r["seat"] for r in replies[::-1]] + [0]
    assert app.state() == start and app.session.moves == bytearray()
    # the CPU waits for the person: it does not play its reply again
    _run(app, t, 10000)
    assert not [e for e in events if e["event"] == "move"]
    app.press(0, 1, "pad")
    _until_the_person_is_to_move(app, events, t + 10000)
    assert [e["by"] for e in events if e["event"] == "move"][0] == "human"


def test_a_take_back_before_any_person_has_moved_changes_nothing(tmp_path):
    # The CPU opens: there is no move of a person's to go back to, and the game stays.
    app, events = _app(tmp_path, [{"kind": "human"}, {"kind": "cpu", "level": 1}])
    app.new_game("test", first=1)
    _until_the_person_is_to_move(app, events, 0)
    before = app.state()
    moves = bytes(app.session.moves)
    del events[:]
    from mancala_fw.protocol import CommandError
    with pytest.raises(CommandError) as e:
        app.undo("serial")
    assert e.value.code == "nothing_to_undo" and "No person has moved" in e.value.message
    assert app.state() == before and bytes(app.session.moves) == moves and events == []


def test_a_take_back_in_a_demo_pauses_it_and_demo_on_goes_on(tmp_path):
    app, events = _app(tmp_path, [{"kind": "human"}, {"kind": "human"}])
    app.set_demo(True, "test", 7)
    t = 0
    while len([e for e in events if e["event"] == "move"]) < 4:
        app.tick(t)
        t += 10
    before = app.session.game.copy()
    before.undo()
    del events[:]
    app.undo("serial")  # a game no person plays: the last move, and the demo stops there
    assert [e["event"] for e in events] == ["undo"]
    assert app.state() == before.to_dict() and app.autoplay.demo
    _run(app, t, 20000)
    assert [e["event"] for e in events] == ["undo"]
    app.set_demo(True, "serial")  # demo on again: it goes on from there
    assert events[-1]["event"] == "demo" and events[-1]["on"] is True
    _run(app, t + 20000, 2000)
    assert [e for e in events if e["event"] == "move"]


def test_a_take_back_in_a_cpu_only_game_holds_the_cpu_until_the_seats_change(tmp_path):
    cpus = [{"kind": "cpu", "level": 1}, {"kind": "cpu", "level": 1}]
    app, events = _app(tmp_path, cpus)
    t = 0
    while len([e for e in events if e["event"] == "move"]) < 3:
        app.tick(t)
        t += 10
    moves = len(app.session.moves)
    app.undo("pad")
    assert len(app.session.moves) == moves - 1
    del events[:]
    _run(app, t, 10000)
    assert events == []
    app.set_config({"seats": [{"kind": "cpu", "level": 2}, cpus[1]]}, "test")
    _run(app, t + 10000, 1000)
    assert [e for e in events if e["event"] == "move"]


def test_a_person_takes_back_a_move_against_the_cpu_on_the_virtual_board():
    """The unix port's board, seat 1 the CPU's: seat 0 plays pit 4 by touch and the CPU
    replies; a double tap on seat 0's store takes back both, and the CPU waits (the next
    move is the person's). Then the same over the serial line's `undo`."""
    from mancala_fw import profile as profiles
    duo = profiles.load(os.path.join(PROFILES, "duo.json"))
    kalah = profiles.seating(duo, 2, 6)
    with Board("duo", touch=True) as b:
        b.ok("set_config", config={"seats": [{"kind": "human"}, {"kind": "cpu", "level": 3}],
                                   "animation_ms": 0})
        start = b.ok("new_game", rules={"variant": "kalah"}, first=0)["state"]
        b.take_events()

        def person_then_cpu(pit, by_pad):
            if by_pad:
                b.touch(*duo.pad[kalah.position(0, pit)])
            else:
                b.ok("press", pit=pit)
            move = b.wait_event("move")
            assert (move["seat"], move["by"]) == (0, "human") and move["state"]["turn"] == 1
            replies = []
            while move["state"]["turn"] != 0:
                move = b.wait_event("move")
                assert move["by"] == "cpu"
                replies.append(move)
            b.take_events()
            return replies

        replies = person_then_cpu(4, True)
        b.touch(*duo.pad[kalah.store(0)], taps=2)
        undos = [b.wait_event("undo") for _ in range(len(replies) + 1)]
        assert undos[-1]["state"] == start and undos[-1]["source"] == "pad"
        assert b.ok("state")["state"] == start
        # the CPU waits: the next move is the person's
        replies = person_then_cpu(2, True)
        answer = b.ok("undo")  # its events come before its answer
        undos = b.take_events("undo")
        assert len(undos) == len(replies) + 1 and b.take_events() == []
        assert answer["state"] == undos[-1]["state"] == start
        assert undos[-1]["source"] == "serial"
        assert person_then_cpu(1, False)  # the next move is the person's again
