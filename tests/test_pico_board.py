"""The firmware on the emulated Pico (`mancala-board sim --target rp2040`): the stock
MicroPython image, our firmware on its littlefs as deploy puts it there, real machine, PIO,
DMA and heap. Boots, whole games over the serial line (every state checked against the
engine, every move's LED frame read back), a missing pad controller, and the heap's floor.

The emulated chip computes at about a third of a Pico's speed on this kind of host, so these
are few and whole; tests/test_board_*.py run the same firmware on the unix port at length.
Timing figures belong to `make bench` (bench/pico.py), never to a test.
"""
import os
import random

import pytest

from mancala_fw import profile as profiles

import firmware_image
from boardsim import Board, PROFILES
from test_board_frames import wait_for_counts
from test_board_games import play_out
from test_rp2040_harness import needs_emulator

pytestmark = needs_emulator

DUO = profiles.load(os.path.join(PROFILES, "duo.json"))
QUAD = profiles.load(os.path.join(PROFILES, "quad.json"))
# The heap a game must leave free on the Pico: the budget is a third of the heap to spare
# through a whole game, CPU search included (docs/architecture.md §10); a human game's floor
# must clear that with room, so 32 KB is the least that passes (docs/performance.md has the
# measured figure).
FLOOR = 32 * 1024


def _whole_game(prof, rules, seed):
    rng = random.Random(seed)
    with Board(prof.name, target="rp2040", frames=True) as b:
        hello = b.ok("hello")
        assert hello["board"] == prof.name and hello["sides"] == prof.sides
        scan = b.ok("diag", action="scan")
        assert scan["missing"] == [] and set(scan["expected"]) <= set(scan["found"])
        b.ok("set_config", config={"animation_ms": 0})
        state = b.ok("new_game", rules=rules, first=0)["state"]
        r = state["rules"]
        seating = profiles.seating(prof, r["players"], r["pits"])

        def rings_show(state):
            # the move's frames reach the wire around its answer; the rings then show it
            assert wait_for_counts(b, prof, seating, state), state

        moves = play_out(b, rng, state, rings_show)
        memory = b.ok("diag", action="memory")
        return moves, memory


def test_duo_plays_a_whole_kalah_game():
    moves, memory = _whole_game(DUO, {"variant": "kalah"}, 3)
    assert moves > 10
    assert memory["min_free"] >= FLOOR, memory


def test_quad_plays_a_whole_three_player_basic_game_above_the_heap_floor():
    moves, memory = _whole_game(QUAD, {"variant": "basic", "players": 3, "pits": 6}, 4)
    assert moves > 10
    # the stock image's whole heap: 245,888 bytes on MicroPython v1.28.0 for RPI_PICO
    assert memory["free"] + memory["alloc"] == 245888
    assert FLOOR <= memory["min_free"] <= memory["free"], memory


@pytest.mark.parametrize("way", ["deploy", "image"])
def test_a_missing_pad_controller_is_reported_and_the_game_goes_on(way):
    # duo without 0x5B: seat 0's pads are all on 0x5A (tests/test_profile.py), seat 1's
    # are on 0x5B. The chip that answers keeps working after the one that NAKs.
    image = firmware_image.image() if way == "image" else None
    with Board("duo", target="rp2040", chips="5a", touch=True, image=image) as b:
        scan = b.ok("diag", action="scan")
        assert scan["found"] == ["0x5A"] and len(scan["missing"]) == 1
        assert "0x5B" in scan["missing"][0]
        b.ok("set_config", config={"animation_ms": 0})
        state = b.ok("new_game", rules={"variant": "kalah"}, first=0)["state"]
        seating = profiles.seating(DUO, 2, 6)
        pit = 3  # 4 stones from pit 3 end in the store: seat 0 moves again, by pad
        for _ in range(2):
            addr, electrode = DUO.pad[seating.position(0, pit)]
            assert addr == 0x5A
            b.take_events()
            b.touch(addr, electrode)
            move = b.wait_event("move")
            assert (move["source"], move["seat"], move["pit"]) == ("pad", 0, pit)
            state = move["state"]
            pit = [i + 1 for i, n in enumerate(state["pits"][0]) if n][0]
            if state["turn"] != 0:
                break
        assert state["turn"] == 1
        # seat 1's pads are gone with their chip; the serial line still plays for it
        ans = b.ok("press", pit=[i + 1 for i, n in enumerate(state["pits"][1]) if n][0])
        assert ans["state"]["turn"] in (0, 1)
        # the firmware that played came from where this way puts it
        files = b.flash_files()
        assert ("lib" in files and "main.py" in files) == (way == "deploy"), files
