# The first LED change after a touch is cheap (budget: touch to first LED change <= 30 ms):
# the tick after play(), lift(), refuse() or a skip paints and shows only the ring that
# changes first (the pit emptied, the refused pit, the next stone's ring); every other change
# follows on the next tick. Checked by what
# the tick writes into the chain buffers and which chains it shows, not by timing.
# Runs under MicroPython and CPython.
from mancala_fw.display import reader
from mancala_fw import profile
from displayhelp import SentLeds, new_game, run_out


BASIC4 = {"variant": "basic", "players": 4, "pits": 6, "seeds": 4}


def _quad_game(brightness=100, output=SentLeds):
    p = profile.load("../../hardware/profiles/quad.json")
    leds = output([n for pin, n in p.chains])
    # brightness 100 %: the frame is limited
    d, g, rings = new_game(p, leds, BASIC4, (brightness, p.budget_ma, 100))
    d.tick(0)
    d.tick(10)
    return p, d, g, leds, rings


def _changed_leds(before, chains):
    """(chain, led) of every LED whose bytes differ."""
    out = []
    for c in range(len(chains)):
        a = before[c]
        b = chains[c]
        for i in range(0, len(b), 3):
            if a[i:i + 3] != b[i:i + 3]:
                out.append((c, i // 3))
    return out


def _in_ring(changed, ring):
    chain, start, leds = ring
    for c, i in changed:
        if c != chain or not start <= i < start + leds:
            return False
    return True


def test_first_tick_after_a_move_shows_only_the_emptied_pit():
    p, d, g, leds, rings = _quad_game()
    assert d.frame.scale < 256               # a limited frame: the harder case
    before = [bytes(c) for c in leds.bufs]
    record = g.play(6)
    d.play(record, g.to_dict(), g.legal_moves(), now=1000)
    assert d.busy()
    del leds.sent[:]
    assert d.tick(1000)
    r = d.ring(0, 6)
    changed = _changed_leds(before, leds.bufs)
    assert changed and _in_ring(changed, rings[r]), (changed[:6], rings[r])
    assert leds.sent == [rings[r][0]]
    assert reader.read_counts(leds.bufs, [rings[r]]) == [0]
    # The next tick shows the rest: seat 1's pits come up to full, seat 0's go to rest.
    after_first = [bytes(c) for c in leds.bufs]
    d.tick(1010)
    changed = _changed_leds(after_first, leds.bufs)
    assert _touches(changed, rings[d.ring(1, 1)]) and _touches(changed, rings[d.ring(0, 1)])


def _shows(d, leds, rings, state):
    """Every ring of the quad game reads back as state's count."""
    got = reader.read_counts(leds.bufs, rings)
    for seat in range(4):
        assert got[d.ring(seat, 0)] == state["stores"][seat]
        for pit in range(1, 7):
            assert got[d.ring(seat, pit)] == state["pits"][seat][pit - 1]


def _touches(changed, ring):
    chain, start, leds = ring
    for c, i in changed:
        if c == chain and start <= i < start + leds:
            return True
    return False


def test_first_tick_after_a_refusal_shows_only_the_refused_pit():
    # Under the limit: a red ring at full brightness on a limited frame makes the whole frame
    # scale down, which re-sends every chain (tests/mp/test_display_wire.py covers that).
    p, d, g, leds, rings = _quad_game(30)
    d.tick(20)
    assert d.frame.scale == 256
    before = [bytes(c) for c in leds.bufs]
    del leds.sent[:]
    d.refuse("2.3", now=30)
    assert d.tick(30)
    r = d.ring_of["2.3"]
    changed = _changed_leds(before, leds.bufs)
    assert changed and _in_ring(changed, rings[r]), changed[:6]
    assert leds.sent == [rings[r][0]]
    chain, start, n = rings[r]
    assert leds.bufs[chain][start * 3 + 1] > 0 and leds.bufs[chain][start * 3] == 0  # red


def test_whole_sowing_still_lands_on_the_state_after_a_fast_first_tick():
    p, d, g, leds, rings = _quad_game()
    t = 0
    for i in range(8):
        record = g.play(g.legal_moves()[i % len(g.legal_moves())])
        state = g.to_dict()
        d.play(record, state, g.legal_moves(), now=t)
        t = run_out(d, t) + 1000
        d.tick(t)
        got = reader.read_counts(leds.bufs, rings)
        for seat in range(4):
            assert got[d.ring(seat, 0)] == state["stores"][seat]
            for pit in range(1, 7):
                if not d.hidden[d.ring(seat, pit)]:
                    assert got[d.ring(seat, pit)] == state["pits"][seat][pit - 1]


def test_finish_before_the_first_tick_lands_on_the_state():
    p, d, g, leds, rings = _quad_game()
    record = g.play(3)
    state = g.to_dict()
    d.play(record, state, g.legal_moves(), now=50)
    d.finish()                                # a touch before the main loop ticked
    assert not d.busy()
    d.tick(60)
    d.tick(2000)
    got = reader.read_counts(leds.bufs, rings)
    assert got[d.ring(0, 3)] == 0 and got[d.ring(0, 0)] == state["stores"][0]
    assert got[d.ring(0, 4)] == state["pits"][0][3]


def test_lift_shows_the_touched_pit_empty_before_the_move_is_played():
    # The app lifts a legal pit the moment its touch arrives, before the engine plays it:
    # that ring alone goes dark and only its chain is sent.
    p, d, g, leds, rings = _quad_game()
    before = [bytes(c) for c in leds.bufs]
    del leds.sent[:]
    pos = p.positions[d.ring(0, 6)]
    d.lift(pos, now=1000)
    r = d.ring(0, 6)
    changed = _changed_leds(before, leds.bufs)
    assert changed and _in_ring(changed, rings[r]), (changed[:6], rings[r])
    assert leds.sent == [rings[r][0]]
    assert reader.read_counts(leds.bufs, [rings[r]]) == [0]
    # play() of that move does not show the same ring alone again: its next tick is the
    # full one (the turn passes to seat 1, whose pits come up to full).
    record = g.play(6)
    d.play(record, g.to_dict(), g.legal_moves(), now=1005)
    after_lift = [bytes(c) for c in leds.bufs]
    del leds.sent[:]
    d.tick(1005)
    changed = _changed_leds(after_lift, leds.bufs)
    assert _touches(changed, rings[d.ring(1, 1)]) and len(leds.sent) > 1
    d.tick(run_out(d, 1005) + 1000)
    state = g.to_dict()
    _shows(d, leds, rings, state)


def test_lift_during_an_animation_ends_it_first():
    p, d, g, leds, rings = _quad_game()
    record = g.play(6)
    d.play(record, g.to_dict(), g.legal_moves(), now=100)
    d.tick(100)
    assert d.busy()
    d.lift(p.positions[d.ring(1, 2)], now=150)   # seat 1's pit 2, a legal move now
    assert not d.busy()
    assert reader.read_counts(leds.bufs, [rings[d.ring(1, 2)]]) == [0]
    record = g.play(2)
    d.play(record, g.to_dict(), g.legal_moves(), now=160)
    d.tick(run_out(d, 160) + 1000)
    state = g.to_dict()
    got = reader.read_counts(leds.bufs, rings)
    assert got[d.ring(1, 2)] == 0 and got[d.ring(1, 0)] == state["stores"][1]
    assert got[d.ring(0, 0)] == state["stores"][0]


def test_first_tick_after_a_skip_shows_the_next_stones_ring_then_the_rest():
    # Under the limit, as for a refusal: a brighter ring on a limited frame re-sends all.
    p, d, g, leds, rings = _quad_game(30)
    record = g.play(6)          # seat 0's pit 6: 4 stones, into its store and seat 1's pits
    state = g.to_dict()
    d.play(record, state, g.legal_moves(), now=0)
    d.tick(0)                   # the lift
    d.tick(10)                  # before the first stone lands
    assert d.busy()
    seat, pit = record["sown"][0]
    r = d.ring(seat, pit)
    before = [bytes(c) for c in leds.bufs]
    del leds.sent[:]
    d.finish()                  # a touch anywhere
    assert not d.busy()
    assert d.tick(20)
    changed = _changed_leds(before, leds.bufs)
    assert changed and _in_ring(changed, rings[r]), (changed[:6], rings[r])
    assert leds.sent == [rings[r][0]]
    want = state["stores"][seat] if pit == 0 else state["pits"][seat][pit - 1]
    assert reader.read_counts(leds.bufs, [rings[r]]) == [want]
    d.tick(30)
    d.tick(3000)
    _shows(d, leds, rings, state)


def test_a_fast_ring_that_looks_the_same_sends_the_whole_frame_at_once():
    p, d, g, leds, rings = _quad_game(30)
    d.tick(20)
    d.refuse("2.3", now=30)
    d.tick(30)
    del leds.sent[:]
    d.hint("0.2", now=40)       # a change elsewhere ...
    d.refuse("2.3", now=40)     # ... and a second refusal of a pit still blinking red
    assert d.tick(45)           # that pit looks the same: the full frame goes out at once
    assert rings[d.ring_of["0.2"]][0] in leds.sent


class _CutLeds(SentLeds):
    """An output that can stop a chain's frame on the wire (drivers.ws2812.WS2812.cut)."""

    def __init__(self, lengths):
        SentLeds.__init__(self, lengths)
        self.cuts = []

    def cut(self, i):
        self.cuts.append(i)
        self.sent.append(("cut", i))
        return True


def test_the_first_change_after_a_touch_cuts_its_chains_frame_short_and_nothing_else_does():
    # An idle frame (the breathing store) may still be on the touched pit's chain: the
    # touch's frame must not wait for it. Only that first change cuts; the frames after it
    # wait for the wire as usual (a cut on every show would starve the chain's far end).
    p, d, g, leds, rings = _quad_game(100, _CutLeds)
    assert leds.cuts == []                  # full frames never cut
    r = d.ring(0, 6)
    chain = rings[r][0]
    del leds.sent[:]
    d.lift(p.positions[r], now=1000)
    assert leds.sent == [("cut", chain), chain]   # cut first, then the touch's frame
    record = g.play(6)
    d.play(record, g.to_dict(), g.legal_moves(), now=1005)
    d.tick(1005)
    assert leds.cuts == [chain]             # the move's full frame waited instead
    del leds.sent[:]
    d.refuse("2.3", now=1100)
    assert d.tick(1100)
    # The refused pit's chain alone is cut and then sent: the red blink brightens the
    # frame, and that ring alone is scaled down to keep the whole within the budget (the
    # next full tick scales every ring).
    chain = rings[d.ring_of["2.3"]][0]
    assert leds.sent == [("cut", chain), chain]
    assert sum(sum(b) for b in leds.bufs) <= d.limiter.allowed
    d.tick(1110)
    assert sum(sum(b) for b in leds.bufs) <= d.limiter.allowed


def test_a_breath_step_sends_only_the_breathing_stores_chain():
    # The limiter counts the breathing store at its brightest, so its scale stays put
    # through the breath: a step repaints one ring and sends one chain, and a touch's chain
    # is not kept busy by idle frames of the whole board.
    p, d, g, leds, rings = _quad_game()
    assert d.frame.scale < 256               # over the budget: the scale matters
    store = rings[d.seat_rings[0][0]]        # seat 0 is to move: its store breathes
    scale = d.frame.scale
    sent = []
    for t in range(0, 2000, 20):             # a whole breath, at the loop's idle tick rate
        del leds.sent[:]
        d.tick(1000 + t)
        sent.extend(leds.sent)
        assert d.frame.scale == scale
    assert sent and set(sent) == {store[0]}


def test_idle_ticks_paint_nothing_between_breath_steps_and_effects_still_end():
    from drivers.compat import ticks_add
    p, d, g, leds, rings = _quad_game()
    painted = []
    real_paint = d.frame.paint
    d.frame.paint = lambda r, *a: painted.append(r) or real_paint(r, *a)
    # The breath counts 60 ms steps from the game's start on the board's clock.
    step = ticks_add(d._breath_start, 60 * 40)

    def at(ms):
        return ticks_add(step, ms)

    d.tick(at(0))
    del painted[:]
    del leds.sent[:]
    for t in (1, 10, 59):                     # the same breath step
        assert not d.tick(at(t))
    assert painted == [] and leds.sent == []
    # A countdown set at every tick changes nothing until its value changes.
    d.countdown(0, None)
    assert not d.tick(at(20))
    d.countdown(0, 7)
    assert d.tick(at(21))                     # shown at once, not at the next breath step
    # A refused pit blinks and then comes back to its look, with no other change to wake
    # the tick when the blink ends.
    d.countdown(0, None)
    d.tick(at(22))
    r = d.ring_of["2.3"]
    chain, start, n = rings[r]
    look = bytes(leds.bufs[chain][3 * start:3 * (start + n)])
    d.refuse("2.3", now=at(30))
    d.tick(at(30))
    assert bytes(leds.bufs[chain][3 * start:3 * (start + n)]) != look
    for t in range(40, 600, 20):
        d.tick(at(t))
    assert bytes(leds.bufs[chain][3 * start:3 * (start + n)]) == look
