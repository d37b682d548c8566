"""Run a MicroPython script on the emulated Pico (the `sim --target rp2040` harness) and read
what it prints: the benches' instrument for time on the board.

The flash holds what `make deploy` puts on a Pico (the whole firmware as armv6m .mpy, the
duo profile), with the script as main.py instead of the board's, on the stock MicroPython
v1.28.0 RPI_PICO image. The harness runs with --pace free: emulated time is the chip's own
cycle count, so one run is a measurement, however busy this machine is.

    from pico_run import available, run_script
    for line in run_script(text):   # each line the script prints, until it prints END
        ...
"""
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "host_tools"))

from mancala_host.sim import rp2040  # noqa: E402

PROFILE = os.path.join(ROOT, "hardware", "profiles", "duo.json")


def available():
    """None when the emulated Pico can run here, else one sentence why not."""
    folder = rp2040.mirror(ROOT)
    try:
        rp2040.checked(folder, rp2040.IMAGE)
        rp2040.checked(folder, rp2040.BOOTROM)
        rp2040.find_node()
    except Exception as e:  # the launcher's UsageError: one sentence
        return str(e)
    return None


def run_script(text):
    """Yields each line (str, stripped) the script prints, until a line "END"; raises
    RuntimeError with the board's last lines if it stops before that."""
    folder = rp2040.mirror(ROOT)
    with tempfile.TemporaryDirectory() as tmp:
        main_py = os.path.join(tmp, "main.py")
        with open(main_py, "w") as f:
            f.write(text)
        flash = os.path.join(tmp, rp2040.FLASH_FILE)
        rp2040.prepare_flash(flash, rp2040.deploy_files(ROOT, PROFILE, main_py))
        argv = [rp2040.find_node(), rp2040.HARNESS,
                "--bootrom", rp2040.checked(folder, rp2040.BOOTROM),
                "--image", rp2040.checked(folder, rp2040.IMAGE),
                "--flash", flash, "--pace", "free"]
        proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)
        last = []
        try:
            for raw in proc.stdout:
                line = raw.decode("utf-8", "replace").strip()
                if line == "END":
                    return
                last = (last + [line])[-20:]
                yield line
            raise RuntimeError("the emulated Pico stopped before the script ended:\n" +
                               "\n".join(last))
        finally:
            proc.kill()
            proc.wait()
