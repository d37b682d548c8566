"""bench/pico_touch.py's reading of a trace: which frame is a touch's first LED change, and
when that ring's first word left the PIO. Synthetic traces on quad's profile."""
import os
import sys

from conftest import ROOT

sys.path.insert(0, os.path.join(ROOT, "bench"))

import pico_touch  # noqa: E402
from mancala_fw import profile as profiles  # noqa: E402

QUAD = profiles.load(os.path.join(ROOT, "hardware", "profiles", "quad.json"))


def _frame(t, leds, lit=()):
    grb = bytearray(3 * leds)
    for i in lit:
        grb[3 * i + 1] = 200
    return {"t_us": t, "kind": "frame", "pin": 2, "grb": grb.hex()}


def _finger(t):
    chip, electrode = QUAD.pad["0.3"]  # chain 0 (pin 2), LEDs 32..47
    return {"t_us": t, "kind": "pad", "chip": "0x%x" % chip, "electrode": electrode, "on": True}


def test_the_first_frame_that_changes_the_ring_counts_to_its_first_word():
    trace = [_frame(0, 120, lit=range(32, 36)), _finger(1000),
             _frame(4000, 120, lit=range(32, 36)),   # started before the finger
             _frame(9000, 120, lit=range(32, 36)),   # after it, but the ring looks the same
             _frame(15000, 120)]                     # the ring goes dark: this one
    (t, first, end, pos), = pico_touch.latencies(QUAD, trace)
    assert (t, pos) == (1000, "0.3")
    assert end == 14000 and first == 14000 - (120 - 32) * 30


def test_a_frame_cut_before_the_ring_is_not_the_change_and_leaves_the_rest_as_it_was():
    trace = [_frame(0, 120, lit=range(32, 36)), _finger(1000),
             _frame(5000, 20),                       # an idle frame, cut after 20 LEDs
             _frame(9000, 120, lit=range(32, 36)),   # the ring as before: not a change
             _frame(14000, 120)]
    (t, first, end, pos), = pico_touch.latencies(QUAD, trace)
    assert end == 13000 and first == end - (120 - 32) * 30


def test_a_cut_frame_that_reaches_the_ring_times_its_first_word_from_its_own_length():
    trace = [_frame(0, 120, lit=range(32, 36)), _finger(1000), _frame(6000, 60)]
    (t, first, end, pos), = pico_touch.latencies(QUAD, trace)
    assert end == 5000 and first == end - (60 - 32) * 30


def test_the_mpr121_response_follows_the_drivers_registers():
    assert pico_touch.mpr121_ms() == 4  # SFI 4 x ESI 1 ms, no touch debounce
