# The move timer's countdown on a store and the hint's pulsing pit: what the rings
# show, that counts still read back from the frame, that both stay within the power budget,
# and that a move or a new state clears them. Runs under MicroPython and CPython.
from mancala_fw.display import counts, power, reader
from mancala_fw import profile
from displayhelp import WireLeds, new_game, run_out


def _game(name="duo", rules=None, brightness=60):
    p = profile.load("../../hardware/profiles/%s.json" % name)
    leds = WireLeds([n for pin, n in p.chains])
    d, g, rings = new_game(p, leds, rules or {"variant": "kalah", "players": 2, "pits": 6,
                                              "seeds": 4}, (brightness, p.budget_ma, 100))
    leds.limiter = d.limiter
    d.tick(0)
    d.tick(10)
    return p, d, g, leds, rings


def _kinds(leds, rings, r):
    chain, start, n = rings[r]
    return reader.read_ring(leds.bufs[chain], start, n, reader.frame_max(leds.bufs))


def _reads_back(d, state, leds, rings):
    got = reader.read_counts(leds.bufs, rings)
    for seat in range(len(state["stores"])):
        assert got[d.ring(seat, 0)] == state["stores"][seat], (seat, got)
        for pit in range(1, len(state["pits"][seat]) + 1):
            assert got[d.ring(seat, pit)] == state["pits"][seat][pit - 1], (seat, pit, got)


def test_countdown_shows_the_seconds_left_on_the_seats_store():
    p, d, g, leds, rings = _game()
    store = d.ring(0, 0)
    t = 100
    for left in (10, 7, 3, 1):
        d.countdown(0, left)
        t += 1000
        d.tick(t)
        kinds = _kinds(leds, rings, store)
        assert list(kinds).count(counts.WARN) == left, (left, counts.text(kinds))
        # a bar ending at the top of the ring
        assert counts.text(kinds).endswith("w" * left)
        _reads_back(d, g.to_dict(), leds, rings)
        assert leds.over == []
    d.countdown(0, None)
    d.tick(t + 1000)
    assert list(_kinds(leds, rings, store)).count(counts.WARN) == 0
    assert list(_kinds(leds, rings, d.ring(1, 0))).count(counts.WARN) == 0


def test_countdown_beside_a_full_store_uses_the_dark_leds_and_reads_back():
    p, d, g, leds, rings = _game("quad", {"variant": "basic", "players": 4, "pits": 6,
                                          "seeds": 4}, 100)
    state = g.to_dict()
    state["stores"] = [0, 0, 72, 0]             # 24 stones left on the pits, 72 in a store
    state["pits"] = [[1] * 6 for _ in range(4)]
    state["turn"] = 2
    d.set_state(state)
    d.countdown(2, 30)                          # more than 10 shows 10
    d.tick(50)
    kinds = _kinds(leds, rings, d.ring(2, 0))
    warn = list(kinds).count(counts.WARN)
    assert 0 < warn <= 10, counts.text(kinds)
    assert counts.decode(kinds) == 72
    _reads_back(d, state, leds, rings)
    assert leds.over == [], (leds.over, d.limiter.allowed)


def test_a_move_clears_the_countdown_and_the_hint():
    p, d, g, leds, rings = _game()
    d.countdown(0, 5)
    d.hint(_pos(p, d, 0, 3), now=20)
    d.tick(20)
    record = g.play(3)
    d.play(record, g.to_dict(), g.legal_moves(), now=40)
    d.tick(run_out(d, 40) + 1000)
    assert list(_kinds(leds, rings, d.ring(0, 0))).count(counts.WARN) == 0
    assert d.hint_ring == -1
    _reads_back(d, g.to_dict(), leds, rings)


def test_hint_pulses_the_pit_and_keeps_its_count():
    p, d, g, leds, rings = _game()
    r = d.ring(0, 4)
    chain, start, n = rings[r]

    def strength():
        return max(leds.bufs[chain][start * 3:(start + n) * 3])
    steady = strength()
    d.hint(_pos(p, d, 0, 4), now=1000)
    seen = {}
    for step in range(40):          # more than one pulse, a tick per 20 ms
        t = 1000 + step * 20
        d.tick(t)
        seen[strength()] = 1
        _reads_back(d, g.to_dict(), leds, rings)
    assert len(seen) >= 4, seen     # it really changes brightness
    assert max(seen) == steady      # the top of the pulse is the pit's full level
    assert min(seen) < steady * 3 // 4
    d.hint(None)
    d.tick(3000)
    assert strength() == steady


def test_a_hint_of_several_pits_pulses_each_of_them_and_no_other():
    # The coach's hint in a covered endgame: every pit that keeps the exact value pulses.
    p, d, g, leds, rings = _game()

    def strength(pit):
        chain, start, n = rings[d.ring(0, pit)]
        return max(leds.bufs[chain][start * 3:(start + n) * 3])
    d.tick(900)
    steady = [strength(pit) for pit in range(1, 7)]
    d.hint([_pos(p, d, 0, 2), _pos(p, d, 0, 5)], now=1000)
    seen = [{} for _ in range(6)]
    for step in range(40):
        d.tick(1000 + step * 20)
        for pit in range(1, 7):
            seen[pit - 1][strength(pit)] = 1
        _reads_back(d, g.to_dict(), leds, rings)
    for pit in range(1, 7):
        if pit in (2, 5):
            assert len(seen[pit - 1]) >= 4, (pit, seen[pit - 1])
            assert max(seen[pit - 1]) == steady[pit - 1]
        else:
            assert list(seen[pit - 1]) == [steady[pit - 1]], (pit, seen[pit - 1])
    record = g.play(3)                  # a move ends the hint on every pit
    d.play(record, g.to_dict(), g.legal_moves(), now=2000)
    d.tick(run_out(d, 2000) + 1000)
    assert d.hint_ring == -1


def test_hint_and_countdown_at_full_brightness_keep_the_wire_within_budget():
    p, d, g, leds, rings = _game("quad", {"variant": "basic", "players": 4, "pits": 6,
                                          "seeds": 4}, 100)
    t = 0
    for i in range(6):
        seat = g.turn
        legal = g.legal_moves()
        d.hint(_pos(p, d, seat, legal[0]), now=t)
        for left in range(10, 0, -3):
            d.countdown(seat, left)
            t += 250
            d.tick(t)
        assert leds.over == [], (leds.over[:3], d.limiter.allowed)
        assert d.limiter.estimate_ma(power.channel_sum(leds.bufs)) <= p.budget_ma
        record = g.play(legal[-1])
        d.play(record, g.to_dict(), g.legal_moves(), now=t)
        t = run_out(d, t)
    assert leds.over == []


def _pos(p, d, seat, pit):
    r = d.ring(seat, pit)
    for pid in p.positions:
        if d.ring_of[pid] == r:
            return pid


def test_bad_countdown_and_hint_calls_are_one_sentence():
    p, d, g, leds, rings = _game()
    for seat, left in ((5, 3), (-1, 3), (0, -2), (0, "3"), (0, 2.5)):
        try:
            d.countdown(seat, left)
        except ValueError as e:
            assert "countdown needs" in str(e), str(e)
        else:
            assert False, (seat, left)
    for pos in ("9.9", "0.S.1", 3):
        try:
            d.hint(pos)
        except ValueError as e:
            assert "hint needs" in str(e), str(e)
        else:
            assert False, pos
