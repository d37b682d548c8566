"""Device drivers in the micropython-lib style: the bus or pin is passed in, buffers are
allocated once, and nothing here knows about Mancala.

mpr121: MPR121 capacitive touch controller (MPR121, MPR121Group).
irqline: the chips' shared IRQ line as a stream select.poll() waits on (IrqLine).
ws2812: WS2812 LED chains on one or several pins (PIO + DMA on rp2, neopixel elsewhere).
Both take const() and the wrapping ticks_* from mpcompat, a top-level module installed
beside this package (package.json, manifest.py); compat is its old name here.
"""
