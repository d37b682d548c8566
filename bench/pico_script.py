# The code bench/pico.py times, run as main.py on the emulated Pico (with the firmware's lib
# on its flash) and under the MicroPython unix port. bench/pico.py puts before it: SCALE
# (None on the Pico; on the unix port the calibration ms of add_test, so that the CPU reads a
# Pico clock), WHAT (which parts), SLICE_MS, and the text of tests/mp/perft.py (search_nodes,
# the CPU's lean path). Prints "R <figure> <values...>" lines, then END.
import gc
from time import ticks_ms, ticks_us, ticks_diff
from mancala import Game, Record, Rules
from mancala.cpu import Rng, Search, Memory
import mancala.cpu as CPU
import mancala.negamax as NEG

if SCALE is not None:
    # The unix port's estimate: the search reads a Pico clock (this machine's ticks_us
    # slowed by the calibration ratio), so budget_ms = 1000 is a Pico's second.
    T0 = ticks_us()
    CAL_US = int(SCALE * 1000)

    def pico_ms():
        return (ticks_diff(ticks_us(), T0) * 7984 // CAL_US) & 0x3FFFFFFF
    CPU.ticks_ms = pico_ms
    NEG.ticks_ms = pico_ms
    clock = pico_ms
else:
    clock = ticks_ms

KALAH = {"variant": "kalah"}


def rate(fn, ms):
    moves = 0
    t = ticks_ms()
    rng = Rng(11)
    while ticks_diff(ticks_ms(), t) < ms:
        moves += fn(rng)
    return moves * 1000 // ticks_diff(ticks_ms(), t)


def public(rng):
    g = Game(Rules.from_dict(KALAH))
    n = 0
    while not g.over:
        legal = g.legal_moves()
        g.play(legal[rng.below(len(legal))])
        n += 1
    return n


class _Lean(Search):
    # perft's search_nodes asks for a budget past the Pico's ticks range: it never stops on
    # the clock anyway.
    def __init__(self, game, level, budget_ms, **kw):
        Search.__init__(self, game, level, min(budget_ms, 10 ** 8), **kw)


def lean(rng):
    CPU.Search = _Lean
    try:
        return search_nodes(Game(Rules.from_dict(KALAH)), 6)
    finally:
        CPU.Search = Search


def record_us(typed, n=500):
    """µs to build one move record as play() builds it: the engine's Record, or the plain dict
    literal it stands for (what the named fields cost the public path)."""
    sown = [[0, 4], [0, 5], [0, 6], [0, 0]]
    places = [None, None]
    gc.collect()
    t = ticks_us()
    for _ in range(n):
        if typed:
            r = Record(kind="sow", seat=0, pit=3, stones=4, sown=sown, capture=None, extra=True,
                       finished=[], sweep=None, over=False, places=list(places), turn=0)
        else:
            r = {"kind": "sow", "seat": 0, "pit": 3, "stones": 4, "sown": sown, "capture": None,
                 "extra": True, "finished": [], "sweep": None, "over": False,
                 "places": list(places), "turn": 0}
    return ticks_diff(ticks_us(), t) / n


if "engine" in WHAT:
    print("R engine_public", rate(public, 1000))
    print("R engine_lean", rate(lean, 1000))
    print("R record_us %.1f %.1f" % (record_us(True), record_us(False)))

if "frame" in WHAT:
    # One display tick that repaints while a sowing animation runs, on this board's profile
    # (quad): the LED output takes no CPU here, as PIO and DMA send a frame on the Pico.
    from mancala_fw import profile as profiles
    from mancala_fw.display import Display

    class Leds:
        def __init__(self, lengths):
            self.bufs = [bytearray(3 * n) for n in lengths]
            self.shown = 0

        def __len__(self):
            return len(self.bufs)

        def buffer(self, i):
            return self.bufs[i]

        def show(self, i):
            self.shown += 1

        def busy(self, i=None):
            return False

    p = profiles.load("profile.json")
    leds = Leds([n for pin, n in p.chains])
    d = Display(p, leds)
    d.settings(40, 1500, 120)
    g = Game(Rules.from_dict({"variant": "basic", "players": 4}))
    d.set_game(profiles.seating(p, 4, 6), g.to_dict())
    now = 0
    d.tick(now)
    times = []
    for pit in (6, 5, 4):
        if g.over or pit not in g.legal_moves():
            continue
        record = g.play(pit)
        d.play(record, g.to_dict(), now=now)
        while d.busy():
            now += 10
            shown = leds.shown
            t = ticks_us()
            d.tick(now)
            dt = ticks_diff(ticks_us(), t)
            if leds.shown != shown:
                times.append(dt)
    times.sort()
    print("R frame_ms", times[len(times) // 2] / 1000, len(times))

GAMES = (("kalah", KALAH), ("basic2", {"variant": "basic"}),
         ("basic4", {"variant": "basic", "players": 4}))
for name, rules in GAMES:
    if name not in WHAT:
        continue
    g = Game(Rules.from_dict(rules))
    memory = Memory()
    moves = 0
    while not g.over and moves < MAX_MOVES:
        s = Search(g, 5, 1000, memory=memory)
        while not s.step(SLICE_MS):
            pass
        think = ticks_diff(clock(), s.started)
        print("R cpu", name, s.nodes, think)
        g.play(s.best)
        moves += 1
    print("R game", name, moves, 1 if g.over else 0)
print("END")
