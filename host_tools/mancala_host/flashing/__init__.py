"""Building, flashing and bringing up a board: the firmware image from MicroPython's source
(imagebuild.py), UF2 files (uf2.py), copying an image onto a Pico in BOOTSEL mode (flash.py),
copying firmware/ onto a board's filesystem (deploy.py; circuitpy.py for the CircuitPython
edition), and the board's profile and self-test (bringup.py: profile check/install, diag,
and where the firmware's own files are for the views that use them)."""
