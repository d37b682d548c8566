"""Run a script on the emulated Pico (the `sim --target rp2040` harness) and read what it
prints: the benches' one instrument for time on the board (bench/pico.py, cpu.py,
pico_frames.py, circuitpy_frames.py).

The flash holds what `make deploy` puts on a Pico (the whole firmware as armv6m .mpy and a
board profile), with the script as main.py instead of the board's, on the stock MicroPython
v1.28.0 RPI_PICO image; or, with circuitpython=True, what `deploy --circuitpython` copies
onto a CIRCUITPY drive, with the script as code.py, on stock CircuitPython 9.2.9. Other
files (`files`: {path on the board: bytes}) go beside it, for the script to import. No pad
chips answer on its I2C bus: the script computes, it does not play. The harness runs with
--pace free: emulated time is the chip's own cycle count, so one run is a measurement,
however busy this machine is.

    from pico_run import available, run_script
    why = available()                      # None, or one sentence why it cannot run here
    for line in run_script(text):          # each line the script prints, until it prints END
        ...

An exception in the script, or the board stopping, ends the run with a RuntimeError that
holds the board's last lines (the traceback). As on a real Pico, what the script prints
before the host has enumerated the USB serial line (the first few hundred emulated ms) is
lost: a script computes, or waits, before its first line.
"""
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if os.path.join(ROOT, "host_tools") not in sys.path:
    sys.path.insert(0, os.path.join(ROOT, "host_tools"))

from mancala_host.sim import rp2040  # noqa: E402

PROFILES = os.path.join(ROOT, "hardware", "profiles")
END = "END"
CIRCUITPYTHON_IMAGE = "circuitpython-9.2.9-raspberry_pi_pico.uf2"
# CircuitPython sets the terminal's title (an OSC escape sequence) in the console's stream.
_TITLE = re.compile(r"\x1b\][^\x1b\x07]*(\x1b\\|\x07)")


def _image(circuitpython):
    return CIRCUITPYTHON_IMAGE if circuitpython else rp2040.IMAGE


def available(circuitpython=False):
    """None when the emulated Pico can run here, else one sentence why not."""
    folder = rp2040.mirror(ROOT)
    try:
        rp2040.checked(folder, _image(circuitpython))
        rp2040.checked(folder, rp2040.BOOTROM)
        rp2040.find_node()
    except Exception as e:  # the launcher's UsageError: one sentence
        return str(e)
    return None


def _flash(path, profile_path, main_py, circuitpython, files):
    if circuitpython:
        from mancala_host.sim import circuitpy_flash as cp

        board = rp2040.circuitpython_files(ROOT, profile_path, main_py)
        board.update(files or {})
        rp2040.prepare_flash(path, cp.fat_image(board), cp.FS_OFFSET, cp.FS_SIZE)
    else:
        board = rp2040.deploy_files(ROOT, profile_path, main_py)
        board.update(files or {})
        rp2040.prepare_flash(path, board)


def run_script(text, profile="duo", circuitpython=False, files=None):
    """Yields each line (str, stripped) the script prints until a line END, with the board
    profile `profile` (hardware/profiles) on the flash as profile.json and `files` beside
    the script; raises RuntimeError with the board's last lines if the script raises or the
    board stops before END."""
    folder = rp2040.mirror(ROOT)
    with tempfile.TemporaryDirectory(prefix="mancala-pico-run-") as tmp:
        main_py = os.path.join(tmp, "main.py")
        with open(main_py, "w") as f:
            f.write(text)
        flash = os.path.join(tmp, rp2040.FLASH_FILE)
        _flash(flash, os.path.join(PROFILES, profile + ".json"), main_py, circuitpython, files)
        argv = [rp2040.find_node(), rp2040.HARNESS,
                "--bootrom", rp2040.checked(folder, rp2040.BOOTROM),
                "--image", rp2040.checked(folder, _image(circuitpython)),
                "--flash", flash, "--pace", "free"]
        with open(os.path.join(tmp, "stderr.txt"), "w+b") as err:
            proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=err)
            last = []
            failing = False
            try:
                for raw in proc.stdout:
                    line = _TITLE.sub("", raw.decode("utf-8", "replace")).rstrip()
                    if line == END:
                        return
                    last = (last + [line])[-20:]
                    if failing and not line.startswith(" "):
                        # the exception's own line ends the traceback; the board then idles
                        # at its REPL, so nothing more is coming
                        raise RuntimeError("the script failed on the emulated Pico:\n" +
                                           "\n".join(last))
                    failing = failing or line.startswith("Traceback (most recent call last)")
                    if not failing:
                        yield line.strip()
                err.seek(0)
                said = err.read().decode("utf-8", "replace").strip().splitlines()[-5:]
                raise RuntimeError("the emulated Pico stopped before the script ended:\n" +
                                   "\n".join(last + said))
            finally:
                proc.kill()
                proc.wait()
