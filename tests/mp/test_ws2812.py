# The WS2812 driver through the fake rp2 (PIO assembler + timing check, DMA into a state
# machine) and the fake neopixel fallback: frames per pin, double buffering, and the fake's
# own checks (wrong DREQ, torn frame, bad PIO timing) so a passing test means something.
# Runs under MicroPython and CPython (the fakes import on both).
import json
import os
import sys

_FAKES = "../../host_tools/mancala_host/sim/fakes"
if _FAKES not in sys.path:
    sys.path.insert(0, _FAKES)

import frame_capture  # noqa: E402
import rp2  # noqa: E402
import simclock  # noqa: E402
from drivers.ws2812 import WS2812  # noqa: E402


def _fresh():
    simclock.freeze(0)
    del rp2.violations[:]
    rp2.torn_frames = 0
    frame_capture.record(64)
    frame_capture.set_path(None)


def _pattern(n, seed):
    return bytearray((seed * 31 + i * 7) & 0xFF for i in range(3 * n))


def test_each_pin_gets_its_own_frame():
    _fresh()
    leds = WS2812((2, 3, 6), (12, 24, 1))
    try:
        for i in range(3):
            leds.buffer(i)[:] = _pattern(leds.lengths[i], i + 1)
        leds.show_all()
        got = dict(frame_capture.frames)
        assert sorted(got) == [2, 3, 6]
        assert got[2] == _pattern(12, 1)
        assert got[3] == _pattern(24, 2)
        assert got[6] == _pattern(1, 3)
        assert rp2.violations == [], rp2.violations
    finally:
        leds.deinit()


def test_frames_file_has_one_json_line_per_frame():
    _fresh()
    path = "/tmp/mancala-test-frames-%s" % "".join("%02x" % b for b in os.urandom(4))
    frame_capture.set_path(path)
    leds = WS2812(4, 2)
    try:
        leds.buffer(0)[:] = b"\x01\x02\x03\xfe\xff\x00"
        leds.show(0)
        simclock.advance_ms(1)
        leds.buffer(0)[0] = 0x80
        leds.show(0)
        frame_capture.set_path(None)
        with open(path) as f:
            lines = [json.loads(line) for line in f]
        assert lines == [{"pin": 4, "grb": "010203feff00"}, {"pin": 4, "grb": "800203feff00"}]
    finally:
        leds.deinit()
        os.remove(path)


def test_app_draws_next_frame_while_dma_sends_the_last():
    _fresh()
    leds = WS2812(2, 120)
    try:
        buf = leds.buffer(0)
        buf[:] = _pattern(120, 5)
        leds.show(0)
        assert leds.busy(0)  # 120 LEDs = 3.6 ms on the wire; the clock stands still
        buf[:] = _pattern(120, 6)  # drawing the next frame at once is safe
        assert leds.busy(0)
        assert rp2.torn_frames == 0
        assert frame_capture.frames[-1] == (2, bytes(_pattern(120, 5)))
        simclock.advance_ms(4)
        leds.show(0)
        assert frame_capture.frames[-1] == (2, bytes(_pattern(120, 6)))
        assert rp2.violations == [], rp2.violations
    finally:
        simclock.advance_ms(10)
        leds.deinit()


def _running_sm_and_dma():
    """A fresh capture, state machine 0 running the driver's program on pin 9, and a DMA
    channel: what the torn-frame tests feed by hand."""
    _fresh()
    import machine

    sm = rp2.StateMachine(0, _driver_program(), freq=8000000, sideset_base=machine.Pin(9))
    sm.active(1)
    return sm, rp2.DMA()


def test_fake_dma_catches_a_buffer_changed_on_the_wire():
    # What a driver without double buffering would do; the fake must notice it.
    sm, dma = _running_sm_and_dma()
    try:
        buf = bytearray(30)
        ctrl = dma.pack_ctrl(size=0, inc_write=False, treq_sel=0)
        dma.config(read=buf, write=sm, count=len(buf), ctrl=ctrl, trigger=True)
        buf[0] = 1
        assert dma.active()
        assert rp2.torn_frames == 1
    finally:
        simclock.advance_ms(10)
        dma.close()


def test_fake_dma_refuses_a_transfer_not_paced_by_the_fifo():
    _fresh()
    import machine

    sm = rp2.StateMachine(5, _driver_program(), freq=8000000, sideset_base=machine.Pin(9))
    sm.active(1)
    dma = rp2.DMA()
    try:
        buf = bytearray(6)
        ctrl = dma.pack_ctrl(size=0, inc_write=False, treq_sel=5)  # sm 5 is DREQ 9
        dma.config(read=buf, write=sm, count=6, ctrl=ctrl, trigger=True)
        assert frame_capture.frames == []
        assert len(rp2.violations) == 1 and "DREQ 9" in rp2.violations[0]
    finally:
        dma.close()


def test_fake_state_machine_checks_ws2812_timing():
    _fresh()
    import machine

    sm = rp2.StateMachine(0, _driver_program(), freq=8000000, sideset_base=machine.Pin(9))
    sm.active(1)
    assert rp2.violations == []
    sm = rp2.StateMachine(1, _driver_program(), freq=4000000, sideset_base=machine.Pin(9))
    sm.active(1)  # half speed: 2.5 us bits
    assert any("bit period" in v for v in rp2.violations), rp2.violations


def test_word_transfers_with_24_bit_threshold_give_the_same_wire_bytes():
    # The fake models the bus and shifter, not the driver's choice: GRB packed in the top
    # 24 bits of each word, 32-bit DMA, pull_thresh 24, must put the same bytes on the wire.
    _fresh()
    import machine

    sm = rp2.StateMachine(2, _driver_program(), freq=8000000, sideset_base=machine.Pin(7),
                          pull_thresh=24)
    sm.active(1)
    grb = (0x123456, 0xABCDEF)
    words = bytearray()
    for v in grb:
        words.extend((v << 8).to_bytes(4, "little"))
    dma = rp2.DMA()
    try:
        ctrl = dma.pack_ctrl(size=2, inc_write=False, treq_sel=2)
        dma.config(read=words, write=sm, count=2, ctrl=ctrl, trigger=True)
        assert frame_capture.frames[-1] == (7, b"\x12\x34\x56\xab\xcd\xef")
    finally:
        simclock.advance_ms(10)
        dma.close()


def test_neopixel_fallback_writes_the_buffer():
    _fresh()
    leds = WS2812((2, 3), (2, 1), use_pio=False)
    leds.buffer(0)[:] = b"\x0a\x0b\x0c\x0d\x0e\x0f"
    leds.buffer(1)[:] = b"\x01\x02\x03"
    leds.show(1)
    leds.show(0)
    assert not leds.busy(0)
    assert frame_capture.frames == [(3, b"\x01\x02\x03"), (2, b"\x0a\x0b\x0c\x0d\x0e\x0f")]
    leds.deinit()


def test_by_default_frames_holds_the_latest_frame_of_each_pin():
    _fresh()
    frame_capture.record(0)
    leds = WS2812((2, 3), (1, 1))
    try:
        for k in range(3):
            leds.buffer(0)[:] = bytes((k, 0, 0))
            leds.show(0)
            simclock.advance_ms(2)
        leds.buffer(1)[:] = b"\x09\x09\x09"
        leds.show(1)
        simclock.advance_ms(2)
        assert frame_capture.frames == [(2, b"\x02\x00\x00"), (3, b"\x09\x09\x09")]
        leds.buffer(0)[:] = b"\x07\x07\x07"
        leds.show(0)
        assert frame_capture.frames == [(3, b"\x09\x09\x09"), (2, b"\x07\x07\x07")]
    finally:
        simclock.advance_ms(2)
        leds.deinit()
        frame_capture.record(64)


def test_mismatched_pins_and_lengths_are_refused():
    try:
        WS2812((2, 3), (10,))
    except ValueError as e:
        assert "one LED count per data pin" in str(e)
    else:
        raise AssertionError("accepted 2 pins with 1 length")


def test_once_used_parts_of_the_fake_are_not_kept_loaded():
    # On a Pico rp2 is C and costs no heap; the fake keeps only the frame path loaded. The
    # assembler, the state machine setup and timing check, and the DMA control packing are
    # loaded for each call and dropped (they still ran: the timing test above needs them).
    _fresh()
    leds = WS2812((2, 3), (4, 4))
    try:
        leds.show_all()
        assert "pio_asm" not in sys.modules and "rp2_dma" not in sys.modules
        assert sorted(dict(frame_capture.frames)) == [2, 3]
        assert rp2.violations == [], rp2.violations
    finally:
        simclock.advance_ms(2)
        leds.deinit()


def test_dma_control_register_packing():
    _fresh()
    dma = rp2.DMA()
    try:
        ch = dma.channel
        # the reset value pack_ctrl() starts from: enable, 32-bit, inc_read, inc_write,
        # chain_to itself (no chaining), unpaced (TREQ 0x3F), irq_quiet
        assert dma.ctrl == dma.pack_ctrl() == 0x3F8039 | ch << 11
        ctrl = dma.pack_ctrl(size=0, inc_write=False, treq_sel=9, bswap=True)
        f = rp2.DMA.unpack_ctrl(ctrl)
        assert (f["size"], f["inc_write"], f["treq_sel"], f["bswap"], f["chain_to"]) == \
            (0, 0, 9, 1, ch)
        assert dma.pack_ctrl(ctrl) == ctrl
        assert dma.pack_ctrl(ctrl, treq_sel=3) == ctrl & ~(0x3F << 15) | 3 << 15
        assert f["busy"] == 0 and rp2.DMA.unpack_ctrl(1 << 24)["busy"] == 1
        try:
            dma.pack_ctrl(inc_wirte=False)
        except TypeError as e:
            assert "inc_wirte" in str(e)
        else:
            raise AssertionError("pack_ctrl accepted an unknown field")
    finally:
        dma.close()


def test_state_machine_refuses_an_unknown_argument():
    try:
        rp2.StateMachine(0, _driver_program(), freq=8000000, pul_thresh=8)
    except TypeError as e:
        assert "pul_thresh" in str(e)
    else:
        raise AssertionError("StateMachine accepted pul_thresh")


def test_fake_dma_refuses_what_the_hardware_would_get_wrong():
    import machine

    sm = rp2.StateMachine(0, _driver_program(), freq=8000000, sideset_base=machine.Pin(9))
    dma = rp2.DMA()
    try:
        buf = bytearray(6)
        good = dma.pack_ctrl(size=0, inc_write=False, treq_sel=0)
        cases = [(False, good, 6, "state machine 0 is not active"),
                 (True, dma.pack_ctrl(size=0, treq_sel=0), 6, "inc_write set for a FIFO"),
                 (True, good, 7, "count 7 reads past the 6-byte source")]
        for running, ctrl, count, text in cases:
            _fresh()
            sm.active(running)
            dma.config(read=buf, write=sm, count=count, ctrl=ctrl, trigger=True)
            assert frame_capture.frames == []
            assert rp2.violations == ["DMA %d: %s" % (dma.channel, text)], rp2.violations
            assert not dma.active()
    finally:
        dma.close()


def test_torn_frame_is_caught_when_the_source_is_longer_than_the_transfer():
    sm, dma = _running_sm_and_dma()
    try:
        buf = bytearray(40)
        ctrl = dma.pack_ctrl(size=0, inc_write=False, treq_sel=0)
        dma.config(read=buf, write=sm, count=30, ctrl=ctrl, trigger=True)
        assert frame_capture.frames[-1] == (9, bytes(30))
        buf[35] = 1  # past the transfer: not on the wire
        assert dma.active() and rp2.torn_frames == 0
        buf[29] = 1
        assert dma.active() and dma.active()
        assert rp2.torn_frames == 1  # one count per frame
        simclock.advance_ms(1)
        assert not dma.active()
    finally:
        dma.close()


def test_frame_lines_for_every_length_and_pin():
    # The line is written in pieces from one 128-byte buffer: lengths around its edges, a
    # two-digit pin, and a named pin all give one whole JSON line.
    _fresh()
    frame_capture.record(0)
    path = "/tmp/mancala-test-frames-%s" % "".join("%02x" % b for b in os.urandom(4))
    frame_capture.set_path(path)
    sent = []
    try:
        for n in list(range(0, 4)) + list(range(56, 72)) + [300]:
            for pin in (5, 17, "LED"):
                grb = bytes((n + i * 37) & 0xFF for i in range(n))
                frame_capture.emit(pin, grb)
                sent.append({"pin": pin, "grb": "".join("%02x" % b for b in grb)})
        frame_capture.set_path(None)
        with open(path) as f:
            lines = [json.loads(line) for line in f]
        assert lines == sent
        assert frame_capture.frames[-1] == ("LED", grb)
    finally:
        frame_capture.record(64)
        os.remove(path)


def _driver_program():
    import drivers.ws2812

    return drivers.ws2812._ws2812


def test_cut_stops_a_frame_on_the_wire_so_the_next_waits_only_for_the_latch():
    from drivers.compat import ticks_us, ticks_diff
    from drivers.ws2812 import LAST_BYTE_US, LATCH_US
    _fresh()
    leds = WS2812(2, 120)
    try:
        assert not leds.cut(0)                  # nothing on the wire: nothing to cut
        dma = leds._dma[0]
        assert dma.cut_frames == 0
        leds.buffer(0)[:] = _pattern(120, 7)
        leds.show(0)                            # 3.6 ms of wire; the fake clock stands still
        assert leds.busy(0)
        assert leds.cut(0)
        assert dma.cut_frames == 1              # the DMA transfer was aborted
        # What is left to wait: the last byte and the latch gap, not the rest of the frame.
        assert ticks_diff(leds._until[0], ticks_us()) <= LAST_BYTE_US + LATCH_US
        leds.buffer(0)[:] = _pattern(120, 8)
        leds.show(0)
        assert frame_capture.frames[-1] == (2, bytes(_pattern(120, 8)))
        assert rp2.violations == [], rp2.violations
    finally:
        simclock.advance_ms(10)
        leds.deinit()


def test_cut_does_nothing_on_the_neopixel_fallback():
    _fresh()
    leds = WS2812(2, 4, use_pio=False)
    leds.show(0)
    assert not leds.cut(0)
    leds.deinit()


def test_busy_ignores_a_guard_from_before_the_tick_counter_wrapped():
    # A chain not shown for minutes: its guard time, compared across the wrap of ticks_us,
    # could read as far in the future. It is never more than one frame away.
    from drivers.compat import ticks_us, ticks_add
    _fresh()
    leds = WS2812(2, 120)
    try:
        leds._until[0] = ticks_add(ticks_us(), (1 << 29) - 1000)  # "9 minutes ahead"
        assert not leds.busy(0)
    finally:
        leds.deinit()
