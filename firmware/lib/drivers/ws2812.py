"""WS2812 (NeoPixel) output on one or several data pins, without stalling the CPU.

On rp2 each pin gets a PIO state machine running an 800 kHz WS2812 program and a DMA channel
that feeds it one byte per transfer, paced by the state machine's TX FIFO request, so show()
returns at once and the CPU keeps running while the frame is on the wire. Each chain is
double-buffered: the app draws into buffer(i) while the DMA sends a copy. Elsewhere it falls
back to MicroPython's `neopixel` (which blocks while it writes).

    leds = WS2812((2, 3), (108, 108))   # data pins, LEDs per pin
    buf = leds.buffer(0)                # GRB, 3 bytes per LED
    buf[0:3] = b"\\x10\\x00\\x00"          # first LED dim green
    leds.show(0)
"""
from mpcompat import const, ticks_us, ticks_diff, ticks_add

try:
    import rp2
    _PIO = True
except ImportError:  # no PIO here: the neopixel fallback
    _PIO = False

US_PER_LED = const(30)  # 24 bits at 1.25 us
LATCH_US = const(280)  # the line low this long ends a frame (WS2812B V5; older parts: 50)
LAST_BYTE_US = const(10)  # a byte still shifting out when a frame is cut

if _PIO:
    # 10 PIO cycles per bit at 8 MHz = 1.25 us: high 2 cycles (0.25 us) for a 0, 7 cycles
    # (0.875 us) for a 1. The DMA writes single bytes, which the bus replicates into all four
    # byte lanes of the FIFO word, so shifting left out of an 8-bit threshold sends the byte
    # MSB first. Joining the FIFOs gives 8 queued bytes of slack.
    @rp2.asm_pio(sideset_init=rp2.PIO.OUT_LOW, out_shiftdir=rp2.PIO.SHIFT_LEFT,
                 autopull=True, pull_thresh=8, fifo_join=rp2.PIO.JOIN_TX)
    def _ws2812():
        # asm_pio runs this body with the PIO instructions (wrap_target, label, out, x, jmp,
        # not_x, nop, wrap) as its globals: no stub can declare them, hence the ignores.
        wrap_target()  # type: ignore[name-defined]
        label("bit")  # type: ignore[name-defined]
        out(x, 1).side(0)[2]  # type: ignore[name-defined]
        jmp(not_x, "zero").side(1)[1]  # type: ignore[name-defined]
        jmp("bit").side(1)[4]  # type: ignore[name-defined]
        label("zero")  # type: ignore[name-defined]
        nop().side(0)[4]  # type: ignore[name-defined]
        wrap()  # type: ignore[name-defined]


class WS2812:
    """pins: one pin or a sequence (int GPIO numbers or machine.Pin); lengths: LEDs per pin.
    sm_base: the first PIO state machine to use (0..7; one per pin, PIO1 after sm 3)."""

    def __init__(self, pins, lengths, *, sm_base=0, use_pio=True):
        if not isinstance(pins, (list, tuple)):
            pins = (pins,)
        if not isinstance(lengths, (list, tuple)):
            lengths = (lengths,)
        if len(pins) != len(lengths) or not pins:
            raise ValueError("need one LED count per data pin, got %d pins and %d counts"
                             % (len(pins), len(lengths)))
        import machine

        self.lengths = tuple(lengths)
        self.pio = use_pio and _PIO
        if self.pio and sm_base + len(pins) > 8:
            raise ValueError("%d pins from state machine %d need more than the 8 there are"
                             % (len(pins), sm_base))
        self._back = []
        self._front = []
        self._sm = []
        self._dma = []
        self._ctrl = []
        self._np = []
        self._until = []  # ticks_us when each chain's frame is off the wire and latched
        self._wire_us = []
        for i in range(len(pins)):
            pin = pins[i]
            n = lengths[i]
            if isinstance(pin, int):
                pin = machine.Pin(pin, machine.Pin.OUT)
            if self.pio:
                sm_id = sm_base + i
                sm = rp2.StateMachine(sm_id, _ws2812, freq=8000000, sideset_base=pin)
                sm.active(1)
                dma = rp2.DMA()
                # TX DREQ of state machine k: PIO number * 8 + k % 4
                self._ctrl.append(dma.pack_ctrl(size=0, inc_write=False,
                                                treq_sel=(sm_id >> 2) << 3 | (sm_id & 3)))
                self._sm.append(sm)
                self._dma.append(dma)
                self._back.append(bytearray(3 * n))
                self._front.append(bytearray(3 * n))
            else:
                import neopixel

                np = neopixel.NeoPixel(pin, n)
                self._np.append(np)
                self._back.append(np.buf)
            self._until.append(ticks_us() if self.pio else 0)
            # Microseconds, not ms: a guard rounded up to whole ms held a touch's frame back
            # by up to 1.1 ms on a 120-LED chain (3.88 ms of wire and latch).
            self._wire_us.append(n * US_PER_LED + LATCH_US)

    def __len__(self):
        return len(self._back)

    def buffer(self, i):
        """The GRB bytearray (3 bytes per LED) of chain i to draw the next frame into."""
        return self._back[i]

    def busy(self, i):
        """True while chain i's previous frame is still on the wire (or latching)."""
        if not self.pio:
            return False  # neopixel.write() returns only when the frame is out
        if self._dma[i].active():
            return True
        # A wait longer than a whole frame is a tick count that wrapped (no frame for
        # minutes), not a frame on the wire.
        left = ticks_diff(self._until[i], ticks_us())
        return 0 < left <= self._wire_us[i]

    def show(self, i):
        """Send chain i's buffer. On rp2 this returns once the DMA is started; it waits only
        if the previous frame of this chain is still being sent."""
        while self.busy(i):
            pass
        if self.pio:
            front = self._front[i]
            front[:] = self._back[i]
            self._dma[i].config(read=front, write=self._sm[i], count=len(front),
                                ctrl=self._ctrl[i], trigger=True)
            self._until[i] = ticks_add(ticks_us(), self._wire_us[i])
        else:
            self._np[i].write()

    def cut(self, i):
        """Stop chain i's frame if it is still being sent, so that the next show(i) starts
        after the latch gap instead of after the rest of the frame (a 120-LED chain: 0.3 ms
        instead of up to 3.9). The LEDs the cut frame reached show it, the others keep the
        frame before; the next show(i) sends the whole chain again. Returns True if a frame
        was cut."""
        if not self.pio or not self._dma[i].active():
            return False
        self._dma[i].active(0)  # aborts the transfer; the FIFO's queued bytes still go out
        sm = self._sm[i]
        while sm.tx_fifo():
            pass
        until = ticks_add(ticks_us(), LAST_BYTE_US + LATCH_US)
        if ticks_diff(until, self._until[i]) < 0:
            self._until[i] = until
        return True

    def show_all(self):
        for i in range(len(self._back)):
            self.show(i)

    def deinit(self):
        """Stop the outputs and free the DMA channels and state machines (a frame still on
        the wire is cut short)."""
        for i in range(len(self._dma)):
            self._dma[i].close()
            self._sm[i].active(0)
        if self._sm:
            rp2.PIO(0).remove_program(_ws2812)
        self._dma = []
        self._sm = []
