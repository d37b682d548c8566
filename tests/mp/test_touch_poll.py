# The pad poll on the way from a finger to the first LED change: MPR121Group.poll() reads each
# chip's touch status, and of the once-a-second checks for a silently reset chip it does at
# most one per poll, the chips taking turns, so a poll never carries every chip's check.
# Against the MPR121 register models through the fake machine.I2C; MicroPython and CPython.
import sys

_FAKES = "../../host_tools/mancala_host/sim/fakes"
if _FAKES not in sys.path:
    sys.path.insert(0, _FAKES)

import machine  # noqa: E402
import mpr121_model  # noqa: E402
import simclock  # noqa: E402
from drivers.mpr121 import MPR121Group  # noqa: E402

_ECR = 0x5E
CHIPS = (0x5A, 0x5B, 0x5C)


class CountingBus:
    """The fake machine.I2C, counting the reads of each chip's ECR (the configured() check)."""

    def __init__(self, bus):
        self.bus = bus
        self.ecr_reads = []

    def readfrom_mem_into(self, addr, reg, buf):
        if reg == _ECR:
            self.ecr_reads.append(addr)
        self.bus.readfrom_mem_into(addr, reg, buf)

    def writeto_mem(self, addr, reg, buf):
        self.bus.writeto_mem(addr, reg, buf)


def _group(check_ms):
    simclock.freeze(0)
    bus = mpr121_model.reset_bus(list(CHIPS), None)
    counting = CountingBus(machine.I2C(0, scl=machine.Pin(5), sda=machine.Pin(4)))
    return MPR121Group(counting, CHIPS, check_ms=check_ms), counting, bus


def test_at_most_one_chip_is_checked_per_poll_and_they_take_turns():
    group, counting, _ = _group(check_ms=0)  # every chip's check is due at every poll
    seen = []
    for _ in range(6):
        del counting.ecr_reads[:]
        assert group.poll() == [0, 0, 0]
        assert len(counting.ecr_reads) == 1, counting.ecr_reads
        seen.append(counting.ecr_reads[0])
    assert seen == [0x5A, 0x5B, 0x5C, 0x5A, 0x5B, 0x5C]


def test_a_silently_reset_chip_is_still_found_when_it_is_not_first():
    group, counting, bus = _group(check_ms=0)
    group.poll()
    bus.chips[0x5C].power_on_reset()  # brown-out of the last chip: stop mode, no bus error
    for _ in range(len(CHIPS)):
        group.poll()
    assert bus.chips[0x5C].regs[_ECR] == 0x8C  # back in run mode with the driver's ECR
    mpr121_model.touch(0x5C, 3)
    for _ in range(10):
        simclock.advance_ms(1)
        group.poll()
    assert group.poll() == [0, 0, 1 << 3]


def test_no_check_before_check_ms():
    group, counting, _ = _group(check_ms=60000)
    group.poll()
    del counting.ecr_reads[:]
    for _ in range(5):
        group.poll()
    assert counting.ecr_reads == []
