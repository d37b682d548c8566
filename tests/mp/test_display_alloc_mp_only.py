# Display.tick() must not allocate on the board (hot paths do not allocate), while
# idle, breathing, animating, limiting and blinking. MicroPython only: it uses gc.mem_alloc.
import gc
from mancala_fw import profile
from displayhelp import Leds, new_game


def _allocated(fn):
    gc.collect()
    before = gc.mem_alloc()
    fn()
    return gc.mem_alloc() - before


def test_tick_allocates_nothing():
    p = profile.load("../../hardware/profiles/quad.json")
    d, g, _ = new_game(p, Leds([n for pin, n in p.chains]),
                       {"variant": "basic", "players": 4, "pits": 6, "seeds": 4})
    d.set_speed(100)
    d.tick(0)
    clock = [0]

    def idle():
        for _ in range(100):      # the store breathes: a ring repaints every few ticks
            clock[0] += 33
            d.tick(clock[0])
    assert _allocated(idle) == 0
    record = g.play(6)
    d.play(record, g.to_dict(), now=clock[0])
    d.refuse("1.2", now=clock[0])
    ticks = [0]

    def animate():
        while d.busy():
            clock[0] += 33
            d.tick(clock[0])
            ticks[0] += 1
    assert _allocated(animate) == 0
    assert ticks[0] > 5     # the sowing took several frames
    # The move timer's countdown and a hint: one ring pulses, one store counts down.
    seat = g.turn
    d.hint(profile.seating(p, 4, 6).position(seat, g.legal_moves()[0]), now=clock[0])
    repaints = [0]

    def timer():
        for left in range(10, 0, -1):
            d.countdown(seat, left)
            for _ in range(30):
                clock[0] += 33
                if d.tick(clock[0]):
                    repaints[0] += 1
    assert _allocated(timer) == 0
    assert repaints[0] > 10
