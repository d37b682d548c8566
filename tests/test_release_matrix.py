"""The release matrix: every way a board is made, played the way people use it, on the
emulated Pico (`sim --target rp2040`, real machine, heap and flash):

- "image": the firmware image from `make firmware`, its modules frozen into flash;
- "deploy": the stock MicroPython v1.28.0 image with `make deploy`'s files on its littlefs;
- "circuitpython": stock CircuitPython 9.2.9 with `deploy --circuitpython`'s files.

Each way plays, on both profiles, a game to its end against CPU seats at the edition's
strongest level (5 on MicroPython, 4 on CircuitPython): duo Kalah with one CPU seat, from the
opening, and quad 4-player Basic (4 pits, 3 seeds) with three, from the position 40 seeded
random moves in (new_game with its state): the middle game on, where the level-5 searches
use their whole budget (the opening's take a fraction of it; the whole game took twice the
host time). The person's seat presses seeded random pits over serial; every state the
board announces is checked against the engine played alongside, and every CPU move must say
it thought for at most THINK_MS (the budget: a CPU move at the strongest level in at most a
second, emulated Pico time). Part way through, the power is cut (SIGKILL) while a CPU seat
is to move, and the board must come back in the game it saved and play the CPU's move: the
first CPU move of a boot, the cold path (its modules imported or compiled, then the search),
where the image once locked up and rebooted into the same move again and again. Animations
are off so that the emulated time goes to the searches.

On CircuitPython a level-5 seat is refused in one sentence, and after the power cut the
settings saved on the flash are given a level-5 CPU seat, as MicroPython saves them: the
board plays it at 4 and says so in one warning.

The image, which carries the 8-stone endgame tables of both Kalah rule presets in its flash,
then plays covered endgames from them on duo: the coach's hint and a level-5 move, judged by
the host's exact solver.

On duo, once the CPU has replied to the person, the person takes back: by a double tap on
their store on the two MicroPython ways, by the serial `undo` on CircuitPython. The board
goes back to the person's last move, the CPU's replies taken back with it, and the CPU waits:
the next move is the person's.

Each game is also read back off the LED rings (the frames the chip's PIO sends) whenever the
board rests, waiting for a person, and the code that played must have come from where its way
puts it (frozen in flash, or .mpy files on the littlefs). On the two MicroPython ways:
- duo plays with pad controller 0x5B unplugged: `diag scan` names it, seat 0 plays its first
  two moves by pad on 0x5A, and the CPU seat, whose pads went with the chip, plays on;
- quad finds every chip, and the heap is as that way leaves it after boot (the stock image's
  whole heap; at least 150 KB free on the image, whose bytecode stays in flash);
- the game ends with `diag memory`'s low-water mark above the budget: a third of the heap
  free through the whole game, CPU searches included (docs/architecture.md §10).

Power cuts inside flash operations are tests/test_powercut.py (both MicroPython ways) and
tests/test_circuitpython.py; timing figures are `make bench`'s.
"""
import json
import os
import random

import pytest

from mancala import Game, Rules
from mancala_fw import profile as profiles
from mancala_fw.display.reader import read_counts

import firmware_image
from boardsim import Board, BoardGone, PROFILES
from mancala_host.sim.rp2040 import FLASH_FILE
from test_circuitpython import LEVEL_5_REFUSED, LEVEL_5_RESTORED, _in_nvm, _saved_at_level_5
from test_rp2040_harness import needs_emulator
from waits import wait_for

pytestmark = needs_emulator

THINK_MS = 1000
STRONGEST = {"image": 5, "deploy": 5, "circuitpython": 4}
# profile: (rules, CPU seats, seeded random moves played before the board takes the game)
GAMES = {
    "duo": ({"variant": "kalah"}, [1], 0),
    # 4 pits and 3 seeds a side: about 75 moves (the 6-pit, 4-seed game takes about 200,
    # bench/soak.py plays the same game 20 times on one boot). On the stock image (deploy)
    # the whole game took 77 moves and 112 host CPU seconds of the emulated Pico, 27 of them
    # in the first 34 moves, whose searches took 11 to 350 ms of the 1 s budget (23 of the
    # rest used it all); from 40 random moves in, 50 moves and 48 s (9 used the budget).
    "quad": ({"variant": "basic", "players": 4, "pits": 4, "seeds": 3}, [1, 2, 3], 40),
}
CUT_AFTER = 6  # moves played before the power cut (the CPU seat then to move)
MICROPYTHON = ("deploy", "image")
# The stock image's whole heap: 245,888 bytes on MicroPython v1.28.0 for RPI_PICO.
STOCK_HEAP = 245888
# The MicroPython budget: a third of the heap free through the whole game, searches included.
BUDGET = STOCK_HEAP // 3
# The firmware image's bytecode stays in flash: at least 150 KB of the heap is free after boot
# (docs/performance.md §1).
IMAGE_BOOT_FREE = 150 * 1024
# duo without 0x5B: seat 0's pads are all on 0x5A (tests/test_profile.py), seat 1's on 0x5B.
DUO_CHIPS = "5a"
# Seat 0's first two moves by pad: 4 stones from pit 3 end in its store, so it moves again,
# from pit 1, and the turn passes.
PAD_MOVES = ((3, 0), (1, 1))


def _image(way):
    if way == "image":
        return firmware_image.image()
    if way == "circuitpython":
        return firmware_image.mirror_file(firmware_image.CIRCUITPYTHON_IMAGE)
    firmware_image.mirror_file(firmware_image.STOCK_IMAGE)
    return None


class Rings:
    """What the board's rings show, from the LED frames it has sent (MANCALA_SIM_FRAMES),
    read on from where the last look stopped: a whole game's frames are read once."""

    def __init__(self, b, prof, seating):
        self.path, self.prof, self.seating = b.frames_path, prof, seating
        self.index = {pin: i for i, (pin, _) in enumerate(prof.chains)}
        self.chains = [bytearray(leds * 3) for _, leds in prof.chains]
        self.offset = 0

    def _read_on(self):
        if not os.path.exists(self.path):
            return
        with open(self.path, "rb") as f:
            f.seek(self.offset)
            for line in f:
                if not line.endswith(b"\n"):
                    break  # the board is still writing this one
                self.offset += len(line)
                msg = json.loads(line)
                self.chains[self.index[msg["pin"]]] = bytearray.fromhex(msg["grb"])

    def shown(self):
        """(pits per seat, stores) as the last frames show them."""
        self._read_on()
        prof, seating = self.prof, self.seating
        by_id = dict(zip(prof.positions,
                         read_counts(self.chains, [prof.ring[p] for p in prof.positions])))
        pits = [[by_id[seating.position(s, p)] for p in range(1, seating.pits + 1)]
                for s in range(seating.players)]
        return pits, [by_id[seating.store(s)] for s in range(seating.players)]

    def show(self, state):
        """The rings come to show state (the move's frames reach the wire around its answer);
        the bound is only reached when they never do."""
        want = (state["pits"], state["stores"])
        return wait_for("the rings to show %r" % (want,), lambda: self.shown() == want,
                        interval_s=0.05)


def _rings(b, profile, rules):
    prof = profiles.load(os.path.join(PROFILES, profile + ".json"))
    return Rings(b, prof, profiles.seating(prof, rules.get("players", 2), rules.get("pits", 6)))


def _boots_as_its_way_leaves_it(b, way, profile):
    """The heap after boot, and the pad controllers the board finds."""
    booted = b.ok("diag", action="memory")
    if way == "image":
        assert booted["free"] >= IMAGE_BOOT_FREE, booted
    else:
        assert booted["free"] + booted["alloc"] == STOCK_HEAP, booted
    scan = b.ok("diag", action="scan")
    if profile == "duo":
        assert scan["found"] == ["0x5A"] and len(scan["missing"]) == 1, scan
        assert "0x5B" in scan["missing"][0]
    else:
        assert scan["missing"] == [] and set(scan["expected"]) <= set(scan["found"]), scan


def _code_came_from_its_way(b, way):
    files = b.flash_files()
    assert ("lib" in files and "main.py" in files) == (way == "deploy"), files


class Match:
    """The game as the board plays it, checked move by move against the engine."""

    def __init__(self, state, cpu_seats, rng):
        self.mirror = Game.from_dict(state)
        self.state = state
        self.cpu_seats = cpu_seats
        self.rng = rng
        self.moves = 0
        self.cpu_moves = []  # think_ms of each CPU move
        self.rings = None  # Rings: read back whenever the board waits for a person

    def rests(self):
        """The rings show the game whenever the board waits for a person, or the game is
        over (between CPU moves the next may already be on its way)."""
        if self.rings is not None and self.state["turn"] not in self.cpu_seats:
            assert self.rings.show(self.state)

    def pad(self, b, pit, turn, prof):
        """The person's move by a touch on its pit's pad, on chip 0x5A."""
        seating = self.rings.seating
        addr, electrode = prof.pad[seating.position(self.state["turn"], pit)]
        assert addr == 0x5A
        b.take_events()
        b.touch(addr, electrode)
        move = b.wait_event("move")
        assert (move["source"], move["seat"], move["pit"]) == ("pad", self.state["turn"], pit)
        assert move["record"] == self.mirror.play(pit)
        assert move["state"] == self.mirror.to_dict() and move["state"]["turn"] == turn
        self.state = move["state"]
        self.moves += 1
        self.rests()

    def step(self, b, timeout):
        """One move: the person's press, or the CPU seat's move as the board announces it."""
        seat = self.state["turn"]
        if seat in self.cpu_seats:
            move = b.wait_event("move", timeout)
            assert (move["seat"], move["by"]) == (seat, "cpu"), move
            assert isinstance(move["think_ms"], int) and 0 <= move["think_ms"] <= THINK_MS, move
            self.cpu_moves.append(move["think_ms"])
            record = self.mirror.play(move["pit"])
            assert move["record"] == record
            state = move["state"]
        else:
            pit = self.rng.choice(self.mirror.legal_moves())
            answer = b.ok("press", pit=pit)
            (move,) = b.take_events("move")
            assert move["state"] == answer["state"] and move["source"] == "serial"
            assert answer["record"] == self.mirror.play(pit)
            state = answer["state"]
        assert state == self.mirror.to_dict()
        self.state = state
        self.moves += 1
        assert self.moves < 1000
        self.rests()

    def take_back(self, b, pad=None):
        """A person's take-back (pad: the double tap on a store, at (addr, electrode); else
        the serial `undo`) once the CPU has replied: the board goes back to the person's last
        move, the CPU's replies with it, and waits for the person (their press is the next
        move, step() checks)."""
        taken = [self.state]
        person = None
        while person is None:
            self.mirror.undo()
            taken.append(self.mirror.to_dict())
            if taken[-1]["turn"] not in self.cpu_seats:
                person = taken[-1]["turn"]
        b.take_events()
        if pad is not None:
            b.touch(*pad, taps=2)
            undos = [b.wait_event("undo") for _ in taken[1:]]
        else:
            assert b.ok("undo")["state"] == taken[-1]
            undos = b.take_events("undo")
        assert [u["state"] for u in undos] == taken[1:]
        self.state = taken[-1]
        self.moves -= len(undos)
        self.rests()
        assert b.ok("state")["state"] == self.state

    def catch_up(self, b):
        """The CPU moves the board announced before the power went that the test had not
        read yet: checked as any other (the saved game may be one more move on still)."""
        while True:
            try:
                msg = b.next_line(b.timeout)
            except BoardGone:  # its last line read, or one the cut left half written
                break
            if "event" in msg:
                b.events.append(msg)
        while any(e["event"] == "move" for e in b.events):
            assert self.state["turn"] in self.cpu_seats, b.events
            self.step(b, b.timeout)

    def resume(self, b):
        """After a power cut the board boots into the game it saved: the last state announced,
        or one CPU move on from it (it saves before it announces, and the cut fell in
        between). A CPU seat to move may play before the board answers `state`; such moves
        are left for step() to check, and the saved game is the one before the first."""
        answer = b.ok("state")["state"]
        early = [e for e in b.events if e["event"] == "move"]

        def booted_in(game):
            if not early:
                return game.to_dict() == answer
            first = early[0]
            if game.over or first["pit"] not in game.legal_moves():
                return False
            game.play(first["pit"])
            fits = game.to_dict() == first["state"]
            game.undo()
            return fits

        if booted_in(self.mirror):
            return
        if self.state["turn"] in self.cpu_seats:
            for pit in self.mirror.legal_moves():
                self.mirror.play(pit)
                if booted_in(self.mirror):
                    self.state = self.mirror.to_dict()
                    self.moves += 1
                    return
                self.mirror.undo()
        raise AssertionError("after the power cut the board holds %r, not the game it played (%r)"
                             % (answer, self.state))


@pytest.mark.parametrize("profile", sorted(GAMES))
@pytest.mark.parametrize("way", sorted(STRONGEST))
def test_a_cpu_game_at_the_strongest_level_through_a_power_cut(tmp_path, way, profile):
    image = _image(way)
    rules, cpu_seats, opening = GAMES[profile]
    level = STRONGEST[way]
    flash = str(tmp_path / "flash")
    seats = [{"kind": "cpu", "level": level} if s in cpu_seats else {"kind": "human"}
             for s in range(2 if profile == "duo" else 4)]
    micropython = way in MICROPYTHON
    chips = DUO_CHIPS if micropython and profile == "duo" else None
    b = Board(profile, target="rp2040", image=image, flash=flash, frames=True, chips=chips,
              touch=chips is not None)
    try:
        b.start()
        if micropython:
            _boots_as_its_way_leaves_it(b, way, profile)
        if way == "circuitpython":
            # Its strongest level is 4: a level-5 seat is refused in one sentence.
            refused = b.request("set_config", config={"seats": [
                dict(seat, level=5) if seat["kind"] == "cpu" else seat for seat in seats]})
            assert refused["error"] == {"code": "bad_config", "message": LEVEL_5_REFUSED}
        b.ok("set_config", config={"animation_ms": 0, "seats": seats})
        if opening:
            game = Game(Rules.from_dict(rules))
            moves = random.Random("%s/opening" % profile)
            for _ in range(opening):
                game.play(moves.choice(game.legal_moves()))
            state = b.ok("new_game", state=game.to_dict())["state"]
            assert state == game.to_dict()
        else:
            state = b.ok("new_game", rules=rules, first=0)["state"]
        match = Match(state, cpu_seats, random.Random("%s/%s" % (way, profile)))
        match.rings = _rings(b, profile, rules)
        match.rests()
        if chips:
            for pit, turn in PAD_MOVES:
                match.pad(b, pit, turn, match.rings.prof)
        if profile == "duo":
            # A take-back once the CPU has replied: by pad where seat 0 has its pads (the
            # double tap on its store, on 0x5A), else over serial; the CPU waits.
            match.step(b, b.timeout)
            while match.state["turn"] in cpu_seats:
                match.step(b, b.timeout)
            store = match.rings.prof.pad[match.rings.seating.store(0)] if chips else None
            match.take_back(b, store)
        while match.moves < CUT_AFTER or match.state["turn"] not in cpu_seats:
            assert not match.state["over"]
            match.step(b, b.timeout)
        assert match.cpu_moves, "the CPU seat never moved before the cut"
        b.kill()  # the power goes while the CPU seat is to move (or thinking)
        match.rings = None  # the last frames before the cut may not have reached the wire
        match.catch_up(b)
    finally:
        b.close()
    if way == "circuitpython":
        # The settings saved in the nvm sector get a level-5 CPU seat, as a board on
        # MicroPython saves them: this edition plays it at 4 and says so once.
        _in_nvm(os.path.join(flash, FLASH_FILE), _saved_at_level_5(cpu_seats[0]))

    b = Board(profile, target="rp2040", image=image, flash=flash, frames=True, chips=chips)
    try:
        b.start()  # the boot event: the board came back
        assert b.ok("get_config")["config"]["seats"] == seats
        if way == "circuitpython":
            assert [(e["level"], e["message"]) for e in b.take_events("log")] == [
                ("warning", LEVEL_5_RESTORED % cpu_seats[0])]
        match.rings = _rings(b, profile, rules)
        match.resume(b)
        before = len(match.cpu_moves)
        while not match.state["over"]:
            match.step(b, b.timeout)
        assert len(match.cpu_moves) > before  # the first CPU move of this boot is among them
        over = b.wait_event("game_over", b.timeout)  # after the last move's event
        assert over["places"] == match.state["places"]
        assert b.ok("state")["state"] == match.state
        if micropython:
            memory = b.ok("diag", action="memory")
            assert BUDGET <= memory["min_free"] <= memory["free"], memory
            _code_came_from_its_way(b, way)
        if way == "image" and profile == "duo":
            _plays_covered_endgames_from_its_frozen_tables(b)
    finally:
        b.close()


def _plays_covered_endgames_from_its_frozen_tables(b):
    """The image's own endgame tables (8 stones, both rule presets, frozen in its flash as
    mancala_tables; the flash has no tables/ folder): in a covered endgame the coach's hint
    names every pit that keeps the exact value, and a level-5 seat plays one, as the host's
    solver judges them."""
    from mancala_host.flashing.imagebuild import IMAGE_TABLE_STONES
    from mancala_host.solver import Exact, tables
    from test_board_endgame import positions

    assert "tables" not in b.flash_files()
    humans = [{"kind": "human"}, {"kind": "human"}]
    for name in sorted(tables.PRESETS):
        solver = Exact(Rules.from_dict({"preset": name}), tt_bits=18)
        for n, game in enumerate(positions(name, 2, "image/" + name,
                                           stones=(4, IMAGE_TABLE_STONES))):
            moves = solver.move_values(game)
            value = max(moves.values())
            best = sorted(p for p in moves if moves[p] == value)
            seats = list(humans)
            if n:  # the second position: the CPU's move
                seats[game.turn] = {"kind": "cpu", "level": 5}
            b.ok("set_config", config={"seats": seats})
            b.ok("new_game", state=game.to_dict())
            if n:
                move = b.wait_event("move", b.timeout)
                assert (move["seat"], move["by"]) == (game.turn, "cpu")
                # the table's choice: of the pits that keep the value, the one nearest the store
                assert move["pit"] == best[-1], (name, game.to_dict(), move["pit"], moves)
                continue
            b.take_events()
            answer = b.ok("hint")
            assert (answer["seat"], answer["exact"], answer["best"]) == (game.turn, value, best), \
                (name, game.to_dict(), answer)
    b.ok("set_config", config={"seats": humans})
