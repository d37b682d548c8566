# What the image freezes into flash, read by MicroPython's tools/makemanifest.py (relative
# paths are from this folder).  Frozen bytecode runs from flash: importing it costs the heap
# only the objects it creates, not the code.
#
# - the stock Pico modules (asyncio, rp2, neopixel, ...), as the stock image has them;
# - every firmware module under firmware/lib, by its path there (lib/mancala/game.py is
#   `mancala.game`); freezing manifests of their own (drivers/manifest.py) are build input;
# - firmware/main.py as the frozen main.py, which MicroPython runs at boot before any main.py
#   on the flash filesystem.
import os

include("$(PORT_DIR)/boards/manifest.py")


def _firmware_modules(top):
    found = []
    for folder, dirs, names in os.walk(top):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(names):
            if name.endswith(".py") and name != "manifest.py":
                found.append(os.path.relpath(os.path.join(folder, name), top))
    return found


freeze("../lib", _firmware_modules("../lib"))
freeze("..", "main.py")
