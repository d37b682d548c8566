# Display tests that run under MicroPython and CPython (tests/test_micropython.py runs them).
# Count encoding, the power limiter on worst-case frames, the sowing animation, and a whole
# board rendered and read back from its chain buffers.
from mancala_fw.display import counts, palette, power, reader
from mancala_fw.display.animation import Sowing, derive_before, SOW, LIFT, FINAL
from drivers.compat import ticks_add
from mancala_fw import profile
from mancala import Rules, Game
from displayhelp import SentLeds, new_game, run_out

RING_SIZES = (12, 16, 24)
MOST = 96  # Basic, 4 players x 6 pits x 4 seeds: every stone could end in one store


def _profile(name):
    return profile.load("../../hardware/profiles/%s.json" % name)


def test_decode_encode_every_count_every_ring():
    for leds in RING_SIZES:
        out = bytearray(leds)
        for n in range(MOST + 1):
            counts.encode(n, leds, out)
            assert counts.decode(out) == n, (leds, n, counts.text(out))


def test_distinct_counts_give_distinct_patterns():
    for leds in RING_SIZES:
        seen = {}
        for n in range(MOST + 1):
            key = bytes(counts.encode(n, leds))
            assert key not in seen, (leds, n, seen.get(key))
            seen[key] = n


def test_zero_is_a_dark_ring_and_small_counts_are_plain_dots():
    for leds in RING_SIZES:
        assert counts.text(counts.encode(0, leds)) == "." * leds
        p = counts.encode(7, leds)
        assert counts.text(p)[:8] == "ooooooo."
        p = counts.encode(23, leds)
        assert counts.text(p).count("T") == 2 and counts.text(p).count("o") == 3


def test_fallback_marks_only_where_the_plain_form_does_not_fit():
    # 24-LED rings never need FIFTY or FIVE up to 96; a 12-LED ring needs them for 49.
    for n in range(MOST + 1):
        t = counts.text(counts.encode(n, 24))
        assert "L" not in t and "V" not in t, (n, t)
    t12 = counts.text(counts.encode(49, 12))
    assert "V" in t12 and counts.decode(counts.encode(49, 12)) == 49


def test_a_mark_does_not_change_the_count():
    for leds in RING_SIZES:
        for n in (0, 3, 37, 96):
            p = counts.encode(n, leds)
            counts.add_mark(p, leds)
            assert counts.decode(p) == n


def test_bad_count_is_one_sentence():
    for bad in (-1, "3", 1000):
        try:
            counts.encode(bad, 12)
        except ValueError as e:
            assert "count" in str(e) or "fit" in str(e)
        else:
            assert False, bad


def test_limiter_caps_all_white_on_every_led():
    for name in ("duo", "quad"):
        p = _profile(name)
        lim = power.Limiter(p.budget_ma, p.ma_per_channel, p.idle_ma_per_led,
                            p.total_leds, p.base_ma)
        chains = [bytearray(b"\xff" * (3 * n)) for pin, n in p.chains]
        assert lim.estimate_ma(power.channel_sum(chains)) > p.budget_ma
        s = power.limit(chains, lim)
        assert s < 256
        assert lim.estimate_ma(power.channel_sum(chains)) <= p.budget_ma


def test_limiter_leaves_frames_under_budget_alone():
    lim = power.Limiter(1500, 20, 1, 480, 60)
    chains = [bytearray(360) for _ in range(4)]
    for i in range(0, 360, 7):
        chains[i % 4][i] = 200
    before = [bytes(c) for c in chains]
    assert power.limit(chains, lim) == 256
    assert [bytes(c) for c in chains] == before


def test_limiter_with_budget_below_idle_goes_dark():
    lim = power.Limiter(100, 20, 1, 480, 60)
    chains = [bytearray(b"\x80" * 30)]
    power.limit(chains, lim)
    assert power.channel_sum(chains) == 0


def _ring_map(rings):
    # rings(seat, pit) for the animation: ring index = seat * 7 + pit
    return lambda seat, pit: seat * 7 + pit


def test_animation_sows_in_record_order_and_ends_on_final():
    game = Game(Rules.from_dict({"variant": "kalah", "seeds": 4}))
    record = game.play(3)   # 4 stones: pits 4, 5, 6 and the store: an extra move
    anim = Sowing()
    seen = []

    def apply(kind, a, b, c, n, skipping):
        seen.append((kind, a))
    anim.start(record, _ring_map(None), 100, 1000)
    t = 1000
    while anim.active:
        anim.step(t, apply)
        t += 10
    sows = [a for kind, a in seen if kind == SOW]
    assert seen[0] == (LIFT, 3)
    assert sows == [p[0] * 7 + p[1] for p in record["sown"]]
    assert seen[-1][0] != SOW and FINAL in [k for k, a in seen]


def test_animation_survives_the_tick_counter_wrapping():
    game = Game(Rules.from_dict({"variant": "kalah", "seeds": 4}))
    record = game.play(1)
    anim = Sowing()
    seen = []
    start = ticks_add(0, -150)        # the port's counter wraps to 0 during the sowing
    anim.start(record, _ring_map(None), 100, start)
    t = start
    for _ in range(200):
        anim.step(t, lambda k, a, b, c, n, s: seen.append(k))
        t = ticks_add(t, 20)
    assert not anim.active and seen.count(SOW) == record["stones"]


def test_derive_before_undoes_sowing_and_capture():
    game = Game(Rules.from_dict({"variant": "kalah", "seeds": 4}))
    for pit in (3, 6):   # 3 ends in the store (extra move), then 6 sows round
        before = game.to_dict()
        record = game.play(pit)
        after = game.to_dict()
        pits = [list(p) for p in after["pits"]]
        stores = list(after["stores"])
        assert derive_before(record, pits, stores)
        assert pits == before["pits"] and stores == before["stores"]


def _board(name, players, pits, variant, seeds=4):
    p = _profile(name)
    leds = SentLeds([n for pin, n in p.chains])
    d, g, rings = new_game(p, leds, {"variant": variant, "players": players, "pits": pits,
                                     "seeds": seeds})
    return d, g, leds.bufs, rings, leds.sent


def _check_frame(d, state, chains, rings, lim):
    got = reader.read_counts(chains, rings)
    for seat in range(len(state["stores"])):
        assert got[d.ring(seat, 0)] == state["stores"][seat], (seat, got)
        for pit in range(1, len(state["pits"][seat]) + 1):
            r = d.ring(seat, pit)
            want = 0 if d.hidden[r] else state["pits"][seat][pit - 1]  # left the board
            assert got[r] == want, (seat, pit, got)
    assert lim.estimate_ma(power.channel_sum(chains)) <= lim.budget_ma


def test_display_frames_show_the_state_through_a_game():
    # Kalah on duo: after every move (animation run through), the frame reads back as the
    # engine's state and keeps to the power budget.
    d, g, chains, rings, sent = _board("duo", 2, 6, "kalah")
    d.set_brightness(200)
    d.set_state(g.to_dict(), g.legal_moves())
    t = 0
    d.tick(t)
    _check_frame(d, g.to_dict(), chains, rings, d.limiter)
    moves = 0
    while not g.over and moves < 80:
        legal = g.legal_moves()
        record = g.play(legal[(moves * 7) % len(legal)])
        state = g.to_dict()
        d.play(record, state, g.legal_moves(), now=t)
        while d.animating:
            t += 33
            d.tick(t)
            assert d.limiter.estimate_ma(power.channel_sum(chains)) <= d.limiter.budget_ma
        t += 1000   # past every flash
        d.tick(t)
        _check_frame(d, state, chains, rings, d.limiter)
        moves += 1
    assert g.over


def test_skip_lands_on_the_final_counts():
    d, g, chains, rings, sent = _board("quad", 4, 6, "basic")
    d.set_state(g.to_dict(), g.legal_moves())
    d.tick(0)
    record = g.play(6)
    d.play(record, g.to_dict(), g.legal_moves(), now=0)
    d.tick(10)
    assert d.animating
    d.skip()
    assert not d.animating
    d.tick(5000)    # the ring of the next stone first (tests/mp/test_display_touch.py)
    d.tick(5010)
    _check_frame(d, g.to_dict(), chains, rings, d.limiter)


def test_first_led_change_is_on_the_tick_of_the_touch():
    d, g, chains, rings, sent = _board("duo", 2, 6, "kalah")
    d.set_state(g.to_dict(), g.legal_moves())
    d.tick(0)
    before = bytes(chains[0])
    record = g.play(2)
    d.play(record, g.to_dict(), g.legal_moves(), now=100)
    assert d.tick(100)
    assert bytes(chains[0]) != before
    # the pit played is dark already
    r = d.ring(0, 2)
    chain, start, leds = rings[r]
    assert reader.read_counts(chains, [rings[r]]) == [0]


def test_refused_touch_blinks_then_restores():
    d, g, chains, rings, sent = _board("duo", 2, 6, "kalah")
    d.set_state(g.to_dict(), g.legal_moves())
    d.tick(0)
    r = d.ring(1, 3)
    chain, start, leds = rings[r]
    view = lambda: bytes(chains[chain][start * 3:(start + leds) * 3])
    normal = view()
    d.refuse_at(1, 3, now=1000)
    d.tick(1000)
    lit = view()
    assert lit != normal and lit[1] > 0 and lit[0] == 0   # GRB: red on, green off
    d.tick(5000)
    assert view() == normal


def test_basic_finished_seat_goes_dark_and_places_show_at_the_end():
    d, g, chains, rings, sent = _board("quad", 3, 4, "basic", seeds=3)
    d.set_state(g.to_dict(), g.legal_moves())
    t = 0
    while not g.over:
        record = g.play(g.legal_moves()[-1])
        d.play(record, g.to_dict(), g.legal_moves(), now=t)
        for _ in range(3):   # the lift alone; the rest and the finish blink; after the blink
            t += 100000
            d.tick(t)
        _check_frame(d, g.to_dict(), chains, rings, d.limiter)
    # the winner's store has one dim mark, the others as many as their place
    top = reader.frame_max(chains)
    st = g.to_dict()
    for seat in range(3):
        chain, start, leds = rings[d.ring(seat, 0)]
        kinds = reader.read_ring(chains[chain], start, leds, top)
        assert list(kinds).count(counts.MARK) == st["places"][seat], (seat, list(kinds))


def test_app_calls_refuse_by_position_and_settings():
    d, g, chains, rings, sent = _board("duo", 2, 6, "kalah")
    d.settings(50, 900, 80)
    assert d.frame.brightness == 127 and d.limiter.budget_ma == 900 and d.ms_per_stone == 80
    d.tick(0)
    r = d.ring_of["1.4"]
    chain, start, leds = rings[r]
    d.refuse("1.4", now=10)
    d.tick(10)
    assert chains[chain][start * 3 + 1] > 0 and chains[chain][start * 3] == 0   # red
    try:
        d.settings(300, 900, 80)
    except ValueError as e:
        assert "brightness" in str(e)
    else:
        assert False


def test_speed_zero_shows_the_move_at_once():
    d, g, chains, rings, sent = _board("duo", 2, 6, "kalah")
    d.set_speed(0)
    d.tick(0)
    while not g.over:
        record = g.play(g.legal_moves()[0])
        d.play(record, g.to_dict(), now=5)
        assert not d.busy()
    d.tick(10000)
    _check_frame(d, g.to_dict(), chains, rings, d.limiter)


def _held(obj, seen):
    # How many lists, tuples and dicts obj holds, walked through those and through the
    # display's own objects (the board, its animation, its frame): what a finished sowing
    # could leave behind.
    if id(obj) in seen:
        return 0
    seen[id(obj)] = obj
    if isinstance(obj, (list, tuple)):
        return 1 + sum(_held(x, seen) for x in obj)
    if isinstance(obj, dict):
        return 1 + sum(_held(k, seen) + _held(v, seen) for k, v in obj.items())
    if getattr(type(obj), "__module__", "").startswith("mancala_fw.display"):
        return sum(_held(v, seen) for v in obj.__dict__.values())
    return 0


def test_a_finished_sowing_leaves_nothing_held():
    # A sowing's steps (a tuple per stone) and the move's record (a list per stone sown) go
    # back to the heap when it ends, by its last step, by a skip or by a new state: the CPU
    # then thinks without them (a 40-stone sowing held about 4 KB of them).
    d, g, chains, rings, sent = _board("duo", 2, 6, "kalah", seeds=5)
    d.set_state(g.to_dict(), g.legal_moves())
    d.tick(0)
    before = _held(d, {})
    t = 0
    for end in ("steps", "skip", "new state"):
        record = g.play(g.legal_moves()[-1])
        assert len(record["sown"]) >= 5
        d.play(record, g.to_dict(), g.legal_moves(), now=t)
        d.tick(t + 10)
        assert d.animating and _held(d, {}) > before + 5
        if end == "steps":
            t = run_out(d, t + 10)
        elif end == "skip":
            d.skip()
        else:
            d.set_state(g.to_dict(), g.legal_moves())
        assert not d.animating
        t += 5000
        d.tick(t)
        assert _held(d, {}) == before, end
