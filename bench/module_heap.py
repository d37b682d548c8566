"""Where the heap goes, module by module, and what the booted app and a CPU search keep, on
the emulated Pico: stock CircuitPython 9.2.9 (the .py files deploy --circuitpython copies),
or with --micropython stock MicroPython v1.28.0 (make deploy's .mpy files).

    .venv/bin/python bench/module_heap.py [--profile duo] [--micropython]

A script in place of the entry point (bench/pico_run.py) imports the firmware's modules one
at a time, dependencies first, and reads gc.mem_free() after a collection before and after
each: a module's figure is what its import keeps (its bytecode and constants on
CircuitPython, which compiles our .py files on the board; the modules it imports are
counted where they are listed first). A second run boots the board as the entry point does
(mancala_fw.app.loop.boot with the edition's hardware layer, on the virtual board), loads
the CPU as a CPU seat does, and runs one search at each level 1-4 and then 5 in the
app's Memory (mancala.cpu), each stepped once in the app's slice, reading what stays
allocated after a collection: the heap the whole app leaves while the CPU thinks, without
the garbage CircuitPython lets pile up between collections. Emulated time and heap are the
chip's own, so one run is a measurement.
"""
import argparse
import json
import os
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))

import editions  # noqa: E402

# Dependencies first, so that a figure is the module's own. A package's __init__ imports its
# modules, so each package is one figure (mancala: the engine's rules and game; the display:
# its 10 modules; the profile: its board and seating modules).
MODULES = (
    "mpcompat", "mancala", "mancala_fw.protocol", "mancala_fw.storage", "mancala_fw.app",
    "mancala_fw.app.commands", "mancala_fw.app.boot", "mancala_fw.touch", "mancala_fw.profile",
    "mancala_fw.profile.checks", "mancala_fw.display", "drivers.mpr121",
    "mancala_fw.app.hardware", "mancala_fw.selftest", "mancala_fw.app.loop",
    "mancala_fw.app.config", "mancala_fw.app.menu", "mancala.evaluate", "mancala.searchboard",
    "mancala.negamax", "mancala.cpu",
)
CIRCUITPYTHON_ONLY = ("neopixel", "mancala_fw.app.circuitpython")

# Each script prints JSON lines (CircuitPython's console title may precede one) and stops.
IMPORTS = r"""
import gc
import sys
import time
if sys.implementation.name == "circuitpython":
    import supervisor
    supervisor.status_bar.console = False
time.sleep(1)  # what is printed before the host has opened the serial line is lost
gc.collect()
print('{"event": "heap", "what": "start", "free": %%d}' %% gc.mem_free())
for name in %(modules)r:
    gc.collect()
    free = gc.mem_free()
    __import__(name)
    gc.collect()
    print('{"event": "heap", "what": "%%s", "kept": %%d}' %% (name, free - gc.mem_free()))
print('{"event": "heap", "what": "end"}')
"""

BOOT = r"""
import gc
import sys
import time
if sys.implementation.name == "circuitpython":
    import supervisor
    supervisor.status_bar.console = False
time.sleep(1)  # what is printed before the host has opened the serial line is lost
gc.collect()
print('{"event": "heap", "what": "start", "free": %d}' % gc.mem_free())
from mancala_fw.app import loop
build = None
if sys.implementation.name == "circuitpython":
    from mancala_fw.app.circuitpython import build


def sink(text):
    pass


parts = loop.boot("", sink, sys.stdout, build)  # as app.loop.run boots the board
app = parts[0]
gc.collect()
print('{"event": "heap", "what": "booted", "free": %d}' % gc.mem_free())
from mancala.cpu import Search, Memory
gc.collect()
print('{"event": "heap", "what": "cpu", "free": %d}' % gc.mem_free())
memory = Memory()
for level in (1, 2, 3, 4, 5):
    s = Search(app.session.game, level, 1000, seed=1, memory=memory)
    s.step(7)
    gc.collect()
    print('{"event": "heap", "what": "search", "level": %d, "plies": %d, "free": %d}'
          % (level, s.maxd, gc.mem_free()))
    s = None
print('{"event": "heap", "what": "end"}')
"""


def run(script, profile, image):
    """The script's heap lines, run in place of the entry point on the emulated board."""
    with tempfile.TemporaryDirectory() as tmp:
        main = os.path.join(tmp, "code.py")
        with open(main, "w") as f:
            f.write(script)
        proc = editions.start(image, os.path.join(tmp, "flash"), profile, main)
        try:
            for raw in proc.stdout:
                # The app's boot event, without its line end, may precede a line.
                at = raw.rfind(b'{"event": "heap"')
                if at < 0:
                    continue
                obj = json.loads(raw[at:])
                if obj["what"] == "end":
                    return
                yield obj
        finally:
            proc.kill()
            proc.wait()
    raise SystemExit("the board stopped before the probe ended")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--profile", default="duo")
    p.add_argument("--micropython", action="store_true",
                   help="stock MicroPython v1.28.0 instead of CircuitPython 9.2.9")
    args = p.parse_args(argv)
    cp = not args.micropython
    name, image, _strongest = editions.IMAGES[1 if cp else 0]
    modules = MODULES + (CIRCUITPYTHON_ONLY if cp else ())
    print("%s, emulated Pico, %s: heap each import keeps (after a collection)"
          % (name, args.profile))
    total = 0
    for obj in run(IMPORTS % {"modules": modules}, args.profile, image):
        if obj["what"] == "start":
            print("  free before the firmware: %d bytes" % obj["free"])
        else:
            total += obj["kept"]
            print("  %-32s %6d bytes" % (obj["what"], obj["kept"]))
    print("  %-32s %6d bytes" % ("all of them", total))
    print("the booted board, then the CPU and a search at each level in one Memory:")
    labels = {"start": "free before the firmware", "booted": "free after boot",
              "cpu": "free with the CPU's modules loaded"}
    last = None
    for obj in run(BOOT, args.profile, image):
        if obj["what"] in labels:
            extra = "" if last is None else " (%d kept)" % (last - obj["free"])
            print("  %-40s %6d bytes%s" % (labels[obj["what"]], obj["free"], extra))
            if obj["what"] != "search":
                last = obj["free"]
        else:
            print("  free during a level-%d search (%d plies)     %6d bytes (the Memory so "
                  "far keeps %d)" % (obj["level"], obj["plies"], obj["free"],
                                     last - obj["free"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
