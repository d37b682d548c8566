# The MPR121 driver against the MPR121 register model (host_tools/.../sim/fakes), through the
# fake machine.I2C: configuration in stop mode, thresholds in their registers, touches and
# releases, the fast-response sampling, a lost chip survived and recovered.
# Runs under MicroPython and CPython (the fakes import on both).
import os
import sys

_FAKES = "../../host_tools/mancala_host/sim/fakes"
if _FAKES not in sys.path:
    sys.path.insert(0, _FAKES)

import machine  # noqa: E402
import mpr121_model  # noqa: E402
import simclock  # noqa: E402
from drivers.mpr121 import MPR121, MPR121Group  # noqa: E402


def _setup(addresses=(0x5A, 0x5B), touch_path=None):
    simclock.freeze(0)
    bus = mpr121_model.reset_bus(list(addresses), touch_path)
    return machine.I2C(0, scl=machine.Pin(5), sda=machine.Pin(4)), bus


def _settle(chip_or_group, ms=10):
    """Advance the virtual clock in 1 ms steps, polling like the app does."""
    for _ in range(ms):
        simclock.advance_ms(1)
        if isinstance(chip_or_group, MPR121):
            chip_or_group.touched()
        else:
            chip_or_group.poll()


def _raises_oserror(fn, *args):
    try:
        fn(*args)
    except OSError as e:
        return e.args[0]
    raise AssertionError("no OSError from %r%r" % (fn, args))


def test_configuration_written_in_stop_mode_then_run():
    i2c, bus = _setup()
    MPR121(i2c, 0x5A)
    chip = bus.chips[0x5A]
    assert chip.violations == [], chip.violations
    assert chip.regs[0x5E] == 0x8C  # CL=10, 12 electrodes: run mode
    # fast response: touch debounce 0, release 1; FFI 6 / CDC 16 uA, CDT 0.5 us / SFI 4 /
    # ESI 1 ms
    assert bytes(chip.regs[0x5B:0x5E]) == b"\x10\x10\x20"
    # baseline filter: rising fast, falling slow, touched frozen
    assert bytes(chip.regs[0x2B:0x36]) == b"\x01\x01\x00\x00\x01\x01\xff\x02\x00\x00\x00"
    # autoconfig on, limits for 3.3 V
    assert bytes(chip.regs[0x7B:0x80]) == b"\x0b\x00\xc9\x83\xb5"


def test_thresholds_land_in_their_registers():
    i2c, bus = _setup()
    mpr = MPR121(i2c, 0x5A, touch=10, release=5)
    chip = bus.chips[0x5A]
    for e in range(12):
        assert chip.thresholds(e) == (10, 5)
    mpr.set_thresholds(20, 8, electrode=4)
    assert chip.thresholds(4) == (20, 8)
    assert chip.thresholds(3) == (10, 5) and chip.thresholds(5) == (10, 5)
    assert mpr.thresholds(4) == (20, 8)
    mpr.set_thresholds(14, 7)
    assert [chip.thresholds(e) for e in range(12)] == [(14, 7)] * 12
    pairs = [(20 + e, 3 + e) for e in range(12)]
    mpr.load_thresholds(pairs)
    assert [chip.thresholds(e) for e in range(12)] == pairs
    mpr.reset()  # a re-initialised chip gets the thresholds last set, not the defaults
    assert [chip.thresholds(e) for e in range(12)] == pairs
    assert chip.violations == [], chip.violations  # written in stop mode
    assert chip.regs[0x5E] == 0x8C  # and back in run mode


def test_bad_thresholds_are_refused():
    i2c, _ = _setup()
    mpr = MPR121(i2c, 0x5A)
    for touch, release in ((5, 5), (4, 6), (300, 2), (10, -1)):
        try:
            mpr.set_thresholds(touch, release)
        except ValueError as e:
            assert "release < touch" in str(e)
        else:
            raise AssertionError("accepted touch=%d release=%d" % (touch, release))


def test_touch_sets_the_bit_and_release_clears_it():
    i2c, _ = _setup()
    mpr = MPR121(i2c, 0x5A)
    assert mpr.touched() == 0
    mpr121_model.touch(0x5A, 3)
    _settle(mpr)
    assert mpr.touched() == 1 << 3
    assert mpr.filtered(3) < mpr.baseline(3)
    assert mpr.baseline(3) - mpr.filtered(3) > mpr.thresholds(3)[0]
    mpr121_model.touch(0x5A, 11)
    _settle(mpr)
    assert mpr.touched() == 1 << 3 | 1 << 11
    mpr121_model.touch(0x5A, 3, False)
    _settle(mpr)
    assert mpr.touched() == 1 << 11
    mpr.read_data()
    assert mpr.data[6] | mpr.data[7] << 8 == mpr.filtered(3)
    assert mpr.base[3] << 2 == mpr.baseline(3)


def test_fast_configuration_responds_where_reset_default_does_not():
    i2c, bus = _setup()
    mpr = MPR121(i2c, 0x5A)
    # The same chip left at the reset-default sampling (ESI 16 ms, SFI 4): only thresholds
    # and run mode, as a minimal driver would do.
    i2c.writeto_mem(0x5B, 0x41, bytes([12, 6] * 12))
    i2c.writeto_mem(0x5B, 0x5E, b"\x8c")
    mpr121_model.touch(0x5A, 0)
    mpr121_model.touch(0x5B, 0)
    fast = slow = None
    for ms in range(100):
        if fast is None and mpr.touched():
            fast = ms
        if slow is None and i2c.readfrom_mem(0x5B, 0x00, 1)[0]:
            slow = ms
        simclock.advance_ms(1)
    assert fast is not None and fast <= 4, fast  # SFI 4 x ESI 1 ms, no touch debounce
    assert slow is not None and slow >= 60, slow


def test_thresholds_decide_what_counts_as_a_touch():
    i2c, _ = _setup()
    default = MPR121(i2c, 0x5A)  # touch 12, release 6
    sensitive = MPR121(i2c, 0x5B)
    sensitive.set_thresholds(8, 4)
    mpr121_model.touch(0x5A, 2, delta=10)  # a light finger: 10 counts
    mpr121_model.touch(0x5B, 2, delta=10)
    _settle(default, 20)
    _settle(sensitive, 20)
    assert default.touched() == 0
    assert sensitive.touched() == 1 << 2


def test_finger_present_at_start_is_calibrated_away_like_the_chip():
    # ECR CL=10 loads the baseline from the first sample, finger or not; the pad reads as
    # untouched until the finger leaves and comes back.
    i2c, _ = _setup()
    mpr121_model.touch(0x5A, 9)
    mpr = MPR121(i2c, 0x5A)
    _settle(mpr)
    assert mpr.touched() == 0
    mpr121_model.touch(0x5A, 9, False)
    _settle(mpr)
    mpr121_model.touch(0x5A, 9)
    _settle(mpr)
    assert mpr.touched() == 1 << 9


def test_model_refuses_unknown_registers_and_records_run_mode_writes():
    i2c, bus = _setup()
    MPR121(i2c, 0x5A)
    assert _raises_oserror(i2c.readfrom_mem, 0x5A, 0x81, 1) == 5
    assert _raises_oserror(i2c.readfrom_mem, 0x5A, 0x7F, 2) == 5  # runs past the map
    assert _raises_oserror(i2c.writeto_mem, 0x5A, 0x90, b"\x00") == 5
    chip = bus.chips[0x5A]
    i2c.writeto_mem(0x5A, 0x41, b"\x01")  # threshold while running: the chip ignores it
    assert chip.thresholds(0) == (12, 6)
    assert chip.violations == ["write to 0x41 in run mode ignored"]


def test_absent_chip_raises_oserror_like_machine_i2c():
    i2c, _ = _setup((0x5A,))
    assert i2c.scan() == [0x5A]
    assert _raises_oserror(MPR121, i2c, 0x5B) == 5


def test_group_reports_lost_chip_and_recovers_it():
    i2c, bus = _setup()
    group = MPR121Group(i2c, (0x5A, 0x5B), retry_ms=0)
    mpr121_model.touch(0x5B, 7)
    _settle(group)
    assert group.poll() == [0, 1 << 7]
    mpr121_model.command("chip 5b off")
    masks = group.poll()
    assert masks == [0, None] and not group.available(1) and group.available(0)
    mpr121_model.touch(0x5A, 1)
    _settle(group)
    assert group.poll() == [1 << 1, None]  # the other chip keeps working
    mpr121_model.touch(0x5B, 7, False)
    mpr121_model.command("chip 5b on")  # comes back with reset registers, in stop mode
    group.poll()
    chip = bus.chips[0x5B]
    assert chip.regs[0x5E] == 0x8C and chip.thresholds(5) == (12, 6)
    assert chip.violations == []
    mpr121_model.touch(0x5B, 10)
    _settle(group)
    assert group.poll() == [1 << 1, 1 << 10]
    assert group.failures[1] >= 1


def test_group_waits_before_retrying():
    i2c, _ = _setup()
    group = MPR121Group(i2c, (0x5A, 0x5B), retry_ms=60000)
    mpr121_model.command("chip 5a off")
    assert group.poll() == [None, 0]
    mpr121_model.command("chip 5a on")
    assert group.poll() == [None, 0]  # not retried before retry_ms


def test_group_reconfigures_a_chip_that_reset_silently():
    i2c, bus = _setup()
    group = MPR121Group(i2c, (0x5A,), check_ms=0)
    bus.chips[0x5A].power_on_reset()  # brown-out: no bus error, but stop mode again
    group.poll()
    mpr121_model.touch(0x5A, 4)
    _settle(group)
    assert group.poll() == [1 << 4]


def _temp_path(name):
    return "/tmp/mancala-test-%s-%s" % (name, "".join("%02x" % b for b in os.urandom(4)))


def test_touch_commands_from_file_and_quick_taps_are_not_lost():
    path = _temp_path("touch")
    open(path, "w").close()
    try:
        i2c, bus = _setup(touch_path=path)
        group = MPR121Group(i2c, (0x5A, 0x5B))
        with open(path, "a") as f:
            f.write("5a 6 1\n5a 6 0\n5b 0 1\n# a comment\n")
        seen = []
        for _ in range(40):
            simclock.advance_ms(1)
            seen.append(tuple(group.poll()))
        assert (1 << 6, 1) in seen, seen  # the tap was seen while the other pad went down
        assert seen[-1] == (0, 1)  # and released again
        with open(path, "a") as f:
            f.write("5b 0 0\nchip 5a off\nnonsense line\n")
        _settle(group)
        assert group.poll() == [None, 0]
        assert bus.bad_lines == 1
    finally:
        os.remove(path)


class _EdgePin:
    """What IrqLine needs of a pin; fall() is the line's falling edge."""
    IRQ_FALLING = 2

    def __init__(self):
        self.handler = None

    def irq(self, handler=None, trigger=0, hard=False):
        self.handler = handler

    def value(self):
        return 0

    def fall(self):
        self.handler(self)


def test_irq_line_calls_on_edge_at_each_edge_after_setting_its_flag():
    from drivers.irqline import IrqLine
    pin = _EdgePin()
    irq = IrqLine(pin)
    pin.fall()  # no on_edge: only the flag
    assert irq.pending and irq.edges == 1
    calls = []
    irq.on_edge = lambda: calls.append(irq.pending)
    pin.fall()
    assert calls == [True]  # after the flag was set: the hook sees the change waiting
    pin.fall()
    assert calls == [True, True] and irq.edges == 3


def test_a_failing_on_edge_does_not_lose_the_edge():
    from drivers.irqline import IrqLine
    pin = _EdgePin()
    irq = IrqLine(pin)
    irq.on_edge = lambda: 1 // 0
    pin.fall()  # on the board an exception would switch the interrupt off for good
    assert irq.pending and irq.edges == 1
