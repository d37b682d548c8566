"""The CircuitPython hardware layer: builds the same (pads, display, wdt) as app.hardware does
on MicroPython, from the same profile, with CircuitPython's modules. Everything above it (the
engine, the app, the touch layer, the display, the protocol) is the one shared code.

- Pads: our MPR121 driver (drivers.mpr121: fast response, our thresholds, baseline filter and
  autoconfiguration) on busio.I2C, through RegisterBus, which gives busio the two register
  calls of machine.I2C the driver uses.
- LEDs: Adafruit's neopixel.NeoPixel on each data pin, auto_write off, through its public
  interface only: a frame is one slice assignment of the chain's bytes, then show(). The
  display draws finished frames (count encoding, power limit) into one buffer per chain,
  already in the strip's wire order (GRB), so each NeoPixel is made with the order that
  passes three bytes a pixel through as given ("RGB" to the library) and brightness 1.0,
  which scales nothing: the bytes on the pin are the display's. The library's pixel buffer
  (CircuitPython's built-in adafruit_pixelbuf) takes a flat run of bytes in C and allocates
  nothing, where colours as tuples would go through Python for every pixel.
- Watchdog: microcontroller.watchdog in RESET mode, fed by the main loop as machine.WDT is on
  MicroPython. It starts at the loop's first feed, not in build(): CircuitPython compiles
  each module from source as it is imported, and the app imports more of them between
  build() and the loop. The timeout is the RP2040's longest, 8 s, since the modules the app
  imports at their first use (the CPU's, when a seat becomes the CPU's; the menu's) are
  compiled inside a loop pass.
  code.py stops it when a host breaks in with Ctrl-C, so the REPL stays up;
  CircuitPython also stops it itself when code.py ends without an error, and keeps it
  running after an error, so a board stuck in one resets.
- Heap: CircuitPython keeps every imported module's bytecode on its heap (there is no frozen
  firmware), so build() forgets app.hardware once it has made the display: its one function
  this layer uses, _display, is needed only then (about 2 KB; docs/performance.md section 7).
"""


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


_WHOLE = slice(None)  # made once: a frame's `pixels[:] = ...` would make a slice each time


class NeoPixelChains:
    """The LED output the display draws into (as drivers.ws2812.WS2812): buffer(i) is chain
    i's bytearray in wire order (GRB), show(i) sends it. NeoPixel.show() returns when the
    frame is on the wire, so a chain is never busy after show()."""

    def __init__(self, pins, lengths):
        import neopixel

        self.lengths = tuple(lengths)
        self._np = []
        self._back = []
        for i in range(len(pins)):
            n = lengths[i]
            # The display's bytes are in wire order already: "RGB" passes them through.
            self._np.append(neopixel.NeoPixel(_pin(pins[i]), n, brightness=1.0,
                                              auto_write=False, pixel_order=neopixel.RGB))
            self._back.append(bytearray(3 * n))

    def __len__(self):
        return len(self._back)

    def buffer(self, i):
        return self._back[i]

    def busy(self, i):
        return False

    def show(self, i):
        pixels = self._np[i]
        pixels[_WHOLE] = self._back[i]  # 3 bytes a pixel, taken as they are
        pixels.show()

    def show_all(self):
        for i in range(len(self._back)):
            self.show(i)

    def deinit(self):
        for px in self._np:
            px.deinit()
        self._np = []


WATCHDOG_S = 8


class Watchdog:
    """The loop's wdt: feed() as machine.WDT's. The first feed starts the watchdog."""

    def __init__(self, timeout=WATCHDOG_S):
        self.timeout = timeout
        self._dog = None

    def feed(self):
        dog = self._dog
        if dog is None:
            dog = self._dog = start_watchdog(self.timeout)
        dog.feed()


def start_watchdog(timeout):
    import microcontroller
    from watchdog import WatchDogMode

    dog = microcontroller.watchdog
    dog.timeout = timeout
    dog.mode = WatchDogMode.RESET
    return dog


def _chains():
    import neopixel  # noqa: F401  (a missing lib/neopixel.py is said here, as "No LED display")
    return NeoPixelChains


def build(profile):
    """Returns (pads, display, wdt) for profile, as app.hardware.build does."""
    import gc
    import busio
    from drivers.mpr121 import MPR121Group
    from mancala_fw import forget
    from mancala_fw.app.hardware import _display

    gc.collect()
    bus = busio.I2C(_pin(profile.scl), _pin(profile.sda), frequency=profile.i2c_freq)
    pads = MPR121Group(RegisterBus(bus), profile.pad_chips)
    display = _display(profile, _chains)
    forget("mancala_fw.app.hardware")
    return pads, display, Watchdog()
