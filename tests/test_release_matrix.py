"""The release matrix: every way a board is made, played the way people use it, on the
emulated Pico (`sim --target rp2040`, real machine, heap and flash):

- "image": the firmware image from `make firmware`, its modules frozen into flash;
- "deploy": the stock MicroPython v1.28.0 image with `make deploy`'s files on its littlefs;
- "circuitpython": stock CircuitPython 9.2.9 with `deploy --circuitpython`'s files.

Each way plays, on both profiles, a whole game against CPU seats at the edition's strongest
level (5 on MicroPython, 4 on CircuitPython): duo Kalah with one CPU seat, and quad 4-player
Basic (4 pits, 3 seeds) with three. The person's seat presses seeded random pits over serial; every state the
board announces is checked against the engine played alongside, and every CPU move must say
it thought for at most THINK_MS (the budget: a CPU move at the strongest level in at most a
second, emulated Pico time). Part way through, the power is cut (SIGKILL) while a CPU seat
is to move, and the board must come back in the game it saved and play the CPU's move: the
first CPU move of a boot, the cold path (its modules imported or compiled, then the search),
where the image once locked up and rebooted into the same move again and again. Animations
are off so that the emulated time goes to the searches.

Power cuts inside flash operations are tests/test_powercut.py (both MicroPython ways) and
tests/test_circuitpython.py; timing figures are `make bench`'s.
"""
import os
import random

import pytest

from mancala import Game

import firmware_image
from boardsim import Board, BoardGone
from test_rp2040_harness import needs_emulator

pytestmark = needs_emulator

THINK_MS = 1000
STRONGEST = {"image": 5, "deploy": 5, "circuitpython": 4}
GAMES = {
    "duo": ({"variant": "kalah"}, [1]),
    # 4 pits and 3 seeds a side: about 75 moves (the 6-pit, 4-seed game takes about 200,
    # bench/soak.py plays the same game 20 times on one boot)
    "quad": ({"variant": "basic", "players": 4, "pits": 4, "seeds": 3}, [1, 2, 3]),
}
CUT_AFTER = 6  # moves played before the power cut (the CPU seat then to move)


def _image(way):
    if way == "image":
        return firmware_image.image()
    if way == "circuitpython":
        return firmware_image.mirror_file(firmware_image.CIRCUITPYTHON_IMAGE)
    firmware_image.mirror_file(firmware_image.STOCK_IMAGE)
    return None


class Match:
    """The game as the board plays it, checked move by move against the engine."""

    def __init__(self, state, cpu_seats, rng):
        self.mirror = Game.from_dict(state)
        self.state = state
        self.cpu_seats = cpu_seats
        self.rng = rng
        self.moves = 0
        self.cpu_moves = []  # think_ms of each CPU move

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
    rules, cpu_seats = GAMES[profile]
    level = STRONGEST[way]
    flash = str(tmp_path / "flash")
    seats = [{"kind": "cpu", "level": level} if s in cpu_seats else {"kind": "human"}
             for s in range(2 if profile == "duo" else 4)]
    b = Board(profile, target="rp2040", image=image, flash=flash)
    try:
        b.start()
        b.ok("set_config", config={"animation_ms": 0, "seats": seats})
        state = b.ok("new_game", rules=rules, first=0)["state"]
        match = Match(state, cpu_seats, random.Random("%s/%s" % (way, profile)))
        while match.moves < CUT_AFTER or match.state["turn"] not in cpu_seats:
            assert not match.state["over"]
            match.step(b, b.timeout)
        assert match.cpu_moves, "the CPU seat never moved before the cut"
        b.kill()  # the power goes while the CPU seat is to move (or thinking)
        match.catch_up(b)
    finally:
        b.close()

    b = Board(profile, target="rp2040", image=image, flash=flash)
    try:
        b.start()  # the boot event: the board came back
        assert b.ok("get_config")["config"]["seats"] == seats
        match.resume(b)
        before = len(match.cpu_moves)
        while not match.state["over"]:
            match.step(b, b.timeout)
        assert len(match.cpu_moves) > before  # the first CPU move of this boot is among them
        over = b.wait_event("game_over", b.timeout)  # after the last move's event
        assert over["places"] == match.state["places"]
        assert b.ok("state")["state"] == match.state
        if way == "deploy":
            assert "main.py" in b.flash_files()
    finally:
        b.close()
