# What is ON THE WIRE never exceeds the power budget (budget: LED current never above the
# profile's budget, on any frame). The LED output sends one chain per show(i), so the LEDs
# show a mix: the chains sent so far in this frame and the others as last sent. The fake
# output (displayhelp.WireLeds) keeps a copy of every chain as sent and checks the whole
# board's estimate after every single show(), the way tests/test_board_frames.py reads the
# virtual board's frames.
# Runs under MicroPython and CPython.
from mancala_fw.display import power, reader
from mancala_fw.display.board import Board
from mancala_fw import profile
from displayhelp import WireLeds, new_game


def _profile(name):
    return profile.load("../../hardware/profiles/%s.json" % name)


def test_two_chains_a_frame_that_scales_down_never_mixes_scales_on_the_wire():
    # Ring 0 on chain 0, ring 1 on chain 1. Frame 1: ring 0 dark, ring 1 full white at a
    # budget that just fits it (scale 256). Frame 2: ring 0 lights too, so the whole frame
    # scales down. Sending chain 0 (brighter) before chain 1 (dimmer) would put the new
    # ring 0 beside the old, unscaled ring 1 on the wire: over budget for that moment.
    lim = power.Limiter(100000, 20, 0, 0, 0)
    leds = WireLeds([12, 12], lim)
    b = Board([(0, 0, 12), (1, 0, 12)], leds.bufs, leds.show, lim)
    b.set_seating([[1, 0]])          # seat 0: store = ring 1, pit 1 = ring 0
    state = {"pits": [[0]], "stores": [30], "turn": None, "over": False, "places": [None],
             "active": [0], "rules": {"variant": "kalah"}}
    b.set_state(state)
    b.tick(0)
    lim.set_budget(lim.estimate_ma(b.frame.sums[1]))
    b.tick(1)
    assert b.frame.scale == 256 and leds.over == []
    state["pits"][0][0] = 9
    b.set_state(state)
    b.tick(2)
    assert b.frame.scale < 256                      # the frame really was limited
    assert leds.over == [], (leds.over, lim.allowed)
    assert reader.read_counts(leds.wire, [(0, 0, 12), (1, 0, 12)]) == [9, 30]


def _play_game(name, rules, budget, brightness, moves):
    p = _profile(name)
    leds = WireLeds([n for pin, n in p.chains])
    d, g, _ = new_game(p, leds, rules, (brightness, budget, 40))
    leds.limiter = d.limiter
    t = 0
    d.tick(t)
    scales = {}
    for i in range(moves):
        if g.over:
            break
        legal = g.legal_moves()
        record = g.play(legal[(i * 5) % len(legal)])
        d.play(record, g.to_dict(), g.legal_moves(), now=t)
        if i % 3 == 1:
            d.refuse(p.positions[i % len(p.positions)], now=t)   # a red ring: brighter
        while d.busy():
            t += 33
            d.tick(t)
            scales[d.frame.scale] = 1
        for _ in range(20):          # effects end, the store breathes
            t += 33
            d.tick(t)
            scales[d.frame.scale] = 1
    return d, leds, scales


def test_four_player_game_at_full_brightness_keeps_the_wire_within_budget():
    d, leds, scales = _play_game("quad", {"variant": "basic", "players": 4, "pits": 6,
                                          "seeds": 4}, 1500, 100, 24)
    assert len(scales) > 3              # the limiter's scale changed from frame to frame
    assert leds.over == [], (leds.over[:5], d.limiter.allowed)
    assert d.limiter.estimate_ma(leds.worst) <= 1500


def test_kalah_near_the_lowest_budget_keeps_the_wire_within_budget():
    p = _profile("quad")
    low = p.min_budget_ma() + 200
    d, leds, scales = _play_game("quad", {"variant": "kalah", "players": 2, "pits": 6,
                                          "seeds": 5}, low, 100, 30)
    assert len(scales) > 3
    assert leds.over == [], (leds.over[:5], d.limiter.allowed)
