"""Helpers (no tests) for the sim tests: run `mancala-board sim` and a tiny stand-in firmware.

ECHO_MAIN is a few lines of MicroPython passed with --main, so the launcher's plumbing
(MICROPYPATH, cwd, profile.json, channels, pty, signals) is tested apart from the firmware:
- it first prints one JSON line describing where it runs;
- it answers every input line with {"echo": line};
- it polls three MPR121s with the firmware's driver and, when a pad's touch status
  changes, prints {"touched": {addr: mask}} and appends a frame on pin 2 lighting LED e of the
  first ring for each touched electrode e of 0x5A.
"""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HOST_TOOLS = os.path.join(ROOT, "host_tools")
if HOST_TOOLS not in sys.path:
    sys.path.insert(0, HOST_TOOLS)

ECHO_MAIN = r'''
import gc, json, os, select, sys
import machine
def env(name):
    return os.getenv(name)
print(json.dumps({"cwd": os.getcwd(), "path": sys.path, "heap": gc.mem_free() + gc.mem_alloc(),
                  "profile": open("profile.json").read(), "touch": env("MANCALA_SIM_TOUCH"),
                  "frames": env("MANCALA_SIM_FRAMES"), "chips": env("MANCALA_SIM_CHIPS")}))
from drivers.mpr121 import MPR121Group          # the firmware's own driver
chips = [0x5A, 0x5B, 0x5C]
pads = MPR121Group(machine.I2C(0), chips)
frames = env("MANCALA_SIM_FRAMES")
poller = select.poll()
poller.register(sys.stdin, select.POLLIN)
line = ""
last = None
while True:
    if poller.poll(10):
        c = sys.stdin.read(1)
        if not c:
            break
        if c == "\n":
            print(json.dumps({"echo": line}))
            line = ""
        else:
            line += c
    polled = pads.poll()
    masks = {"%x" % a: polled[i] for i, a in enumerate(chips)}
    if masks != last:
        last = masks
        if frames:
            grb = bytearray(108 * 3)
            for e in range(12):
                if (masks.get("5a") or 0) & (1 << e):
                    grb[3 * e + 1] = 255               # red: G=0, R=255, B=0
            with open(frames, "a") as f:
                f.write(json.dumps({"pin": 2, "grb": "".join("%02x" % b for b in grb)}) + "\n")
        print(json.dumps({"touched": masks}))       # after the frame: a reader may stop here
'''


def echo_main(tmp_path):
    path = tmp_path / "echo_main.py"
    path.write_text(ECHO_MAIN)
    return str(path)


def sim_command(*args):
    """argv that runs `mancala-board sim ARGS` in a fresh Python, like the console script."""
    code = ("import sys; from mancala_host.commands import cli; "
            "sys.exit(cli.main(['sim'] + sys.argv[1:]))")
    return [sys.executable, "-c", code] + list(args)


def sim_env(**extra):
    env = dict(os.environ)
    env["PYTHONPATH"] = HOST_TOOLS + os.pathsep + env.get("PYTHONPATH", "")
    for key in ("MANCALA_SIM_TOUCH", "MANCALA_SIM_FRAMES", "MANCALA_SIM_CHIPS", "MANCALA_SIM_BUS"):
        env.pop(key, None)
    env.update(extra)
    return env


def start_sim(*args, **popen):
    env = popen.pop("env", None) or sim_env()
    return subprocess.Popen(sim_command(*args), env=env, **popen)


def one_sentence(err):
    """The launcher's refusal: exactly one line, `mancala-board sim: ...`, no traceback."""
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert "Traceback" not in err
    assert lines[0].startswith("mancala-board sim: ")
    return lines[0]
