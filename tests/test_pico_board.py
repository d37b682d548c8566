"""The firmware on the emulated Pico (`mancala-board sim --target rp2040`), both ways a board
is made: the stock MicroPython image with deploy's files on its littlefs ("deploy"), and the
firmware image from `make firmware`, its modules frozen into flash and only the profile on
its littlefs ("image"). Real machine, PIO, DMA and heap.

Each way plays a whole Kalah game on duo with one pad controller unplugged (diag scan names
it, the other chip's pads play, the serial line plays for the seat whose pads are gone) and a
whole 3-player Basic game on quad with every chip, each state checked against the engine and
each move's LED frames read back, above the heap floor. The code is the same on both ways;
what differs is where it lives (frozen in flash, or .mpy read into the heap), so each way
boots and imports every module a game needs, on its own heap. The quad games split the
seatings: stock MicroPython, with the least heap, plays 6 pits a side on every ring; the
image plays 4, leaving pits dark, in half the moves.

The emulated chip computes at about a third of a Pico's speed on this kind of host, so these
are few and whole; tests/test_board_*.py run the same firmware on the unix port at length.
Power cuts on the emulated flash are in tests/test_powercut.py. Timing figures belong to
`make bench` (bench/pico.py), never to a test.
"""
import json
import os
import random

import pytest

from mancala_fw import profile as profiles
from mancala_fw.display.reader import read_counts

import firmware_image
from boardsim import Board, PROFILES
from test_board_games import play_out
from test_rp2040_harness import needs_emulator
from waits import wait_for

pytestmark = needs_emulator

DUO = profiles.load(os.path.join(PROFILES, "duo.json"))
QUAD = profiles.load(os.path.join(PROFILES, "quad.json"))
WAYS = ("deploy", "image")
# The heap a game must leave free on the Pico: the budget is a third of the heap to spare
# through a whole game, CPU search included (docs/architecture.md §10); a human game's floor
# must clear that with room, so 32 KB is the least that passes (docs/performance.md §1 has the
# measured figures).
FLOOR = 32 * 1024
# The stock image's whole heap: 245,888 bytes on MicroPython v1.28.0 for RPI_PICO.
STOCK_HEAP = 245888
# The firmware image's bytecode stays in flash: on quad at least 150 KB of the heap is free
# after boot (docs/performance.md §1).
IMAGE_BOOT_FREE = 150 * 1024


def _board(way, name, **kw):
    image = firmware_image.image() if way == "image" else None
    return Board(name, target="rp2040", image=image, frames=True, **kw)


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


def _code_came_from_its_way(b, way):
    files = b.flash_files()
    assert ("lib" in files and "main.py" in files) == (way == "deploy"), files


@pytest.mark.parametrize("way", WAYS)
def test_duo_plays_a_whole_kalah_game_with_a_pad_controller_missing(way):
    # duo without 0x5B: seat 0's pads are all on 0x5A (tests/test_profile.py), seat 1's
    # are on 0x5B. The chip that answers keeps working after the one that NAKs.
    with _board(way, "duo", chips="5a", touch=True) as b:
        hello = b.ok("hello")
        assert (hello["board"], hello["sides"]) == ("duo", 2)
        scan = b.ok("diag", action="scan")
        assert scan["found"] == ["0x5A"] and len(scan["missing"]) == 1
        assert "0x5B" in scan["missing"][0]
        b.ok("set_config", config={"animation_ms": 0})
        state = b.ok("new_game", rules={"variant": "kalah"}, first=0)["state"]
        seating = profiles.seating(DUO, 2, 6)
        rings = Rings(b, DUO, seating)
        assert rings.show(state)
        # Seat 0 by pad: 4 stones from pit 3 end in its store, so it moves again, from pit 1,
        # and the turn passes.
        for pit, turn in ((3, 0), (1, 1)):
            addr, electrode = DUO.pad[seating.position(0, pit)]
            assert addr == 0x5A
            b.take_events()
            b.touch(addr, electrode)
            move = b.wait_event("move")
            assert (move["source"], move["seat"], move["pit"]) == ("pad", 0, pit)
            state = move["state"]
            assert state["turn"] == turn and rings.show(state)
        b.take_events()
        # seat 1's pads are gone with their chip; the serial line plays the game out
        moves = play_out(b, random.Random(3), state, rings.show)
        assert moves > 10
        memory = b.ok("diag", action="memory")
        assert memory["min_free"] >= FLOOR, memory
        _code_came_from_its_way(b, way)


@pytest.mark.parametrize("way, pits", [("deploy", 6), ("image", 4)])
def test_quad_plays_a_whole_three_player_basic_game_above_the_heap_floor(way, pits):
    with _board(way, "quad") as b:
        booted = b.ok("diag", action="memory")
        if way == "image":
            assert booted["free"] >= IMAGE_BOOT_FREE, booted
        else:
            assert booted["free"] + booted["alloc"] == STOCK_HEAP, booted
        hello = b.ok("hello")
        assert (hello["board"], hello["sides"]) == ("quad", 4)
        scan = b.ok("diag", action="scan")
        assert scan["missing"] == [] and set(scan["expected"]) <= set(scan["found"])
        b.ok("set_config", config={"animation_ms": 0})
        state = b.ok("new_game", rules={"variant": "basic", "players": 3, "pits": pits},
                     first=0)["state"]
        rings = Rings(b, QUAD, profiles.seating(QUAD, 3, pits))
        assert rings.show(state)
        moves = play_out(b, random.Random(4), state, rings.show)
        assert moves > 10
        memory = b.ok("diag", action="memory")
        assert FLOOR <= memory["min_free"] <= memory["free"], memory
        _code_came_from_its_way(b, way)
