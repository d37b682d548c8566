"""The board side both sowing-frames benches share (bench/pico_frames.py on MicroPython,
bench/circuitpy_frames.py on CircuitPython): each puts this file on the emulated Pico's
flash beside its own script, which imports it. It builds the display as the app does, on
the profile's chains through the edition's LED output, and plays the two sowing moves both
editions time: the opening move of 4-player Basic (4 stones) and a move of a pit holding 48
stones (every ring of the board changes count). The animation runs at MS_PER_STONE a
stone, so every display tick of the sowing repaints. How a tick is timed, and what is taken
off as the LEDs' output, is each edition's own.

    d, leds, seating = display(Output)       # Output(pins, lengths): the edition's LEDs
    for name, now in sowings(d, seating):    # the move's sowing has started at now
        moments = ticks(d, now)              # made before a count of the heap starts
        for now in moments:                  # each tick's moment, once the clock is there
            ... d.tick(now), timed ...
"""
from mancala import Game, Rules
from mancala_fw import profile as profiles
from mancala_fw.display import Display
from drivers.compat import ticks_ms, ticks_add, ticks_diff

MS_PER_STONE = 16
MOST = 400  # ticks a sowing may show at most: what a bench's buffers hold


def display(output):
    """(display, leds, seating) on profile.json, as the app builds them, for 4 players
    of 6 pits; leds = output(pins, lengths)."""
    p = profiles.load_board("profile.json")
    leds = output([pin for pin, _ in p.chains], [n for _, n in p.chains])
    d = Display(p, leds)
    d.set_speed(MS_PER_STONE)
    return d, leds, profiles.seating(p, 4, 6)


def sowings(d, seating):
    """Yields (name, now) for each move: the display has shown the position before it at
    now (ticks_ms) and started the move's sowing there."""
    rules = Game(Rules.from_dict({"variant": "basic", "players": 4, "pits": 6,
                                  "seeds": 4})).to_dict()["rules"]
    opening = {"rules": rules,
               "pits": [[4] * 6 for _ in range(4)], "stores": [0] * 4, "turn": 0,
               "active": [0, 1, 2, 3], "places": [None] * 4, "over": False}
    heap = {"rules": rules, "pits": [[0, 0, 0, 0, 0, 48], [2] * 6, [2] * 6, [2] * 6],
            "stores": [0, 4, 4, 4], "turn": 0, "active": [0, 1, 2, 3],
            "places": [None] * 4, "over": False}
    for name, state, pit in (("4 stones", opening, 6), ("48 stones in one pit", heap, 6)):
        g = Game.from_dict(state)
        d.set_game(seating, g.to_dict())
        now = ticks_ms()
        d.tick(now)
        record = g.play(pit)
        d.play(record, g.to_dict(), now=now)
        yield name, now


def ticks(d, now):
    """Yields the moment of each tick of the sowing, MS_PER_STONE ms apart from now, when
    the board's clock reaches it, while the display is busy. Allocates nothing once made."""
    while d.busy():
        now = ticks_add(now, MS_PER_STONE)
        while ticks_diff(now, ticks_ms()) > 0:
            pass  # the frame's moment on the board's clock, as the loop waits for it
        yield now
