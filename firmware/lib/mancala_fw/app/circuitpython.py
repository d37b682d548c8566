"""The CircuitPython hardware layer: builds the same (pads, display, wdt) as app.hardware does
on MicroPython, from the same profile, with CircuitPython's modules. Everything above it (the
engine, the app, the touch layer, the display, the protocol) is the one shared code.

- Pads: our MPR121 driver (drivers.mpr121: fast response, our thresholds, baseline filter and
  autoconfiguration) on busio.I2C, through RegisterBus, which gives busio the two register
  calls of machine.I2C the driver uses.
- LEDs: Adafruit's neopixel.NeoPixel on each data pin, GRB order, auto_write off. The display
  draws finished frames (count encoding, power limit) into one GRB buffer per chain, which is
  the strip's wire order, so a frame goes out as it is through the NeoPixel's transmit;
  assigning it pixel by pixel would re-encode every frame through Python tuples.
- No watchdog: CircuitPython keeps a started watchdog running in its REPL and after code.py
  ends, where it would reset the board under a person at the REPL.
"""

from mancala_fw.app.hardware import _display


def _pin(gpio):
    # CircuitPython's modules are imported where they are used, so this imports on a PC.
    import microcontroller

    return getattr(microcontroller.pin, "GPIO%d" % gpio)


class RegisterBus:
    """busio.I2C with machine.I2C's writeto_mem() and readfrom_mem_into(), as drivers.mpr121
    calls them. The bus is locked for good: nothing else uses it. Buffers are made once."""

    def __init__(self, bus, longest=32):
        self.bus = bus
        while not bus.try_lock():
            pass
        self._out = bytearray(longest + 1)  # register address, then the data
        self._reg = bytearray(1)

    def writeto_mem(self, address, reg, buf):
        n = len(buf) + 1
        out = self._out
        out[0] = reg
        out[1:n] = buf
        self.bus.writeto(address, out, end=n)

    def readfrom_mem_into(self, address, reg, buf):
        self._reg[0] = reg
        self.bus.writeto_then_readfrom(address, self._reg, buf)


class NeoPixelChains:
    """The LED output the display draws into (as drivers.ws2812.WS2812): buffer(i) is chain
    i's GRB bytearray, show(i) sends it. neopixel_write returns when the frame is on the wire,
    so a chain is never busy after show()."""

    def __init__(self, pins, lengths):
        import neopixel

        self.lengths = tuple(lengths)
        self._np = []
        self._back = []
        for i in range(len(pins)):
            n = lengths[i]
            self._np.append(neopixel.NeoPixel(_pin(pins[i]), n, brightness=1.0,
                                              auto_write=False, pixel_order=neopixel.GRB))
            self._back.append(bytearray(3 * n))

    def __len__(self):
        return len(self._back)

    def buffer(self, i):
        return self._back[i]

    def busy(self, i):
        return False

    def show(self, i):
        self._np[i]._transmit(self._back[i])

    def show_all(self):
        for i in range(len(self._back)):
            self.show(i)

    def deinit(self):
        for px in self._np:
            px.deinit()
        self._np = []


def _chains():
    import neopixel  # noqa: F401  (a missing lib/neopixel.py is said here, as "No LED display")
    return NeoPixelChains


def build(profile):
    """Returns (pads, display, None) for profile, as app.hardware.build does."""
    import gc
    import busio
    from drivers.mpr121 import MPR121Group

    gc.collect()
    bus = busio.I2C(_pin(profile.scl), _pin(profile.sda), frequency=profile.i2c_freq)
    pads = MPR121Group(RegisterBus(bus), profile.pad_chips)
    return pads, _display(profile, _chains), None
