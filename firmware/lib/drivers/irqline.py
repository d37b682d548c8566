"""IrqLine: the MPR121s' shared IRQ output on one input pin, as a stream select.poll() waits
on, so a loop can read the chips (drivers.mpr121) the moment a pad changes instead of
polling. A module of its own: a board without the line, or without pin interrupts
(CircuitPython), never loads it.

    irq = IrqLine(machine.Pin(8, machine.Pin.IN, machine.Pin.PULL_UP))
    poller.register(irq, select.POLLIN)    # ready when a chip's touch status changed
    if irq.due(ticks_ms()): irq.taken(ticks_ms()); masks = pads.poll()
    irq.on_edge = stop_work                # called in the interrupt at each edge
"""
import io

from mpcompat import const, ticks_ms, ticks_diff

_POLL = const(3)  # MP_STREAM_POLL: the request select.poll() makes of a stream object
_POLLIN = const(1)


class IrqLine(io.IOBase):
    """The MPR121s' IRQ outputs on one input pin (open drain, active low, one pull-up for all).

    A chip pulls the line low when its touch status changes and lets go when the status is
    read. The pin's falling edge sets a flag in a hard interrupt (no allocation there); the
    object is a stream for select.poll(), ready while a read is due, so a loop waiting in
    poll() wakes at once. An edge is lost when a second chip pulls the line while the first
    still holds it, so a line found low again retry_ms after the last read is due as well
    (this also bounds the reads when a fault holds the line low).

    on_edge: a function of no arguments, or None, called inside the interrupt at each edge,
    so a loop busy with long work (a CPU search slice, native code that a scheduled call
    would not interrupt) can end it and read the pads at once. Like the handler it runs in,
    it must allocate nothing: set a flag. If it raises, the edge still counts."""

    def __init__(self, pin, retry_ms=2):
        self.pin = pin
        self.retry_ms = retry_ms
        self.pending = False
        self.edges = 0  # falling edges seen, for diagnostics and tests
        self.on_edge = None
        self._read_at = ticks_ms()
        self._handler = self._edge  # bound once: the interrupt must not allocate
        pin.irq(handler=self._handler, trigger=pin.IRQ_FALLING, hard=True)

    def _edge(self, pin):
        self.pending = True
        self.edges += 1
        hook = self.on_edge
        if hook is not None:
            try:
                hook()
            except Exception:  # an exception here would switch the interrupt off for good
                pass

    def due(self, now):
        """True when the chips should be read now (call taken() before reading them)."""
        low = self.pin.value() == 0  # first: on the virtual board this samples the line
        return self.pending or (low and ticks_diff(now, self._read_at) >= self.retry_ms)

    def taken(self, now):
        """The chips are about to be read: an edge from now on is a new change."""
        self.pending = False
        self._read_at = now

    def ioctl(self, req, arg):
        if req == _POLL:
            return arg & _POLLIN if self.due(ticks_ms()) else 0
        return -1  # no file descriptor, nothing else to do

    def deinit(self):
        self.pin.irq(handler=None)
