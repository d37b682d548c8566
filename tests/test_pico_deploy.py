"""The maker's path, on the emulated Pico: a blank stock MicroPython board on a pty, `deploy`
(mpy-cross, then mpremote over the emulated USB), the game after a reset; mpremote breaking in
to the running game; and a second deploy onto the running board, whose 5 s watchdog keeps
counting after mpremote's Ctrl-C (machine.WDT cannot stop it; the firmware pauses it on a
break-in and deploy pauses it first, mancala_fw.app.hardware.pause_watchdog)."""
import json
import os
import subprocess
import sys
import time

from conftest import ROOT
from test_rp2040_harness import MIRROR, needs_emulator

from mancala_host.sim import rp2040

pytestmark = needs_emulator

STEP_S = 300  # host seconds for one tool run; reached only when something is broken
# `mancala-board sim ARGS` with --pty, as the launcher runs it, except that the harness skips
# the chip's idle waits instead of sleeping through them (--pace free): the same emulated run,
# in less host time.
FREE_PACE_PTY = """
import sys
from mancala_host.sim import launcher, serve
setup = launcher.Setup(launcher._parser().parse_args(sys.argv[1:]))
setup.argv += ["--pace", "free"]
sys.exit(serve.run_pty(setup, setup.args.pty))
"""


def _tool(*args):
    return subprocess.run(list(args), cwd=ROOT, capture_output=True, text=True, timeout=STEP_S)


def _board_tool(*args):
    return _tool(sys.executable, "-m", "mancala_host.commands.cli", *args)


def _mpremote(link, *args):
    return _tool(os.path.join(os.path.dirname(sys.executable), "mpremote"), "connect", link,
                 *args)


def _boots(trace):
    """How many times the game has started: its boot events on the serial line."""
    count = 0
    with open(trace) as f:
        for line in f:
            if not line.endswith("\n"):
                break  # still being written
            entry = json.loads(line)
            text = entry.get("line", "")
            # (after a reset the line may follow the REPL's answers to a tool's last bytes)
            if entry["kind"] == "serial_out" and "{" in text:
                try:
                    count += json.loads(text[text.index("{"):]).get("event") == "boot"
                except ValueError:
                    pass  # a REPL line with a brace in it
    return count


def _wait_for_boot(trace, count):
    end = time.monotonic() + STEP_S
    while _boots(trace) < count:
        assert time.monotonic() < end, "the game did not start after the reset"
        time.sleep(0.2)


def test_deploy_onto_a_blank_board_then_again_onto_the_running_game(tmp_path):
    link = str(tmp_path / "pico.pty")
    trace = tmp_path / "trace.jsonl"
    env = dict(os.environ)
    env.setdefault(rp2040.MIRROR_ENV, MIRROR)
    sim = subprocess.Popen(
        [sys.executable, "-c", FREE_PACE_PTY, "--target", "rp2040", "--blank", "--pty", link,
         "--flash", str(tmp_path / "flash"), "--trace", str(trace)],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert "virtual board" in sim.stdout.readline()  # the pty is there
        # a blank board: the stock image and an empty filesystem
        blank = _mpremote(link, "fs", "ls")
        assert blank.returncode == 0 and "main.py" not in blank.stdout, blank
        # --no-tables: copying the 632 KiB of endgame tables through mpremote's REPL takes
        # this host about a minute of the emulated chip; deploy stages them (test_host_deploy)
        # and the board reads them where it puts them (test_pico_endgame), and a file is
        # copied here as any other
        first = _board_tool("--port", link, "deploy", "--profile", "duo", "--no-tables")
        assert first.returncode == 0, first.stderr
        assert "runs firmware" in first.stdout
        assert _board_tool("--port", link, "state").returncode == 0  # the game, after a reset
        # mpremote breaks in to the running game; the REPL then outlives the 5 s watchdog
        awake = _mpremote(link, "exec", "import time; time.sleep(6); print('still', 'here')",
                          "fs", "ls", "+", "soft-reset")
        assert awake.returncode == 0, awake.stderr
        assert "still here" in awake.stdout and "main.py" in awake.stdout
        assert "lib/" in awake.stdout and "game.json" in awake.stdout
        assert "tables/" not in awake.stdout
        assert _mpremote(link, "reset").returncode == 0
        _wait_for_boot(trace, 2)  # the game again
        assert _board_tool("--port", link, "state").returncode == 0
        # again onto the running game: each file hash-checked against the board's copy
        second = _board_tool("--port", link, "deploy", "--profile", "duo", "--no-tables")
        assert second.returncode == 0, second.stderr
        assert "runs firmware" in second.stdout
        assert "tables/" not in second.stdout
    finally:
        sim.terminate()
        sim.wait(30)
    with open(trace) as f:
        resets = [json.loads(line) for line in f if '"reset"' in line]
    causes = [r["cause"] for r in resets if r["kind"] == "reset"]
    # deploy's reset twice and mpremote's once; never the watchdog
    assert causes == ["machine.reset"] * 3, causes
