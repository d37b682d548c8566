"""The virtual board's I2C devices in their own process (host_tools/.../sim/devices.py): the
MPR121 register models answer the board's machine.I2C over two pipes, as chips outside a Pico
would, so they take none of the board's heap. Its message format, and what happens when
either side goes away; tests/test_fakes.py runs the touch scenarios through it."""
import os
import signal
import struct
import subprocess
import sys
import threading

from boardsim import Board
from conftest import ROOT
from test_sim_helpers import start_sim

sys.path.insert(0, os.path.join(ROOT, "host_tools"))
from mancala_host.sim import devices  # noqa: E402


def _serve(env):
    """The device process's loop in a thread of this process, on fresh pipes: returns a
    function that sends one request and returns the whole answer."""
    req_r, req_w = os.pipe()
    ans_r, ans_w = os.pipe()
    sys.path.append(devices.FAKES)
    import mpr121_model

    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        bus = mpr121_model.reset_bus()
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k)
            else:
                os.environ[k] = v
    bus.feed = None
    thread = threading.Thread(target=devices.serve, args=(req_r, ans_w, bus), daemon=True)
    thread.start()

    def ask(op, addr, reg, count, data=b"", answer=1):
        os.write(req_w, struct.pack("4B", ord(op), addr, reg, count) + data)
        return devices._read_exactly(ans_r, answer)

    def close():
        os.close(req_w)
        thread.join(5)
        ended = not thread.is_alive()
        for fd in (req_r, ans_r, ans_w):
            os.close(fd)
        return ended
    return ask, close, bus


def test_the_message_format():
    ask, close, bus = _serve({"MANCALA_SIM_CHIPS": "5a,5c"})
    try:
        assert ask("s", 0, 0, 8, answer=9) == b"\0" + bytes([0x5A, 0x5C]) + bytes(6)
        # a threshold register in stop mode: written, read back from it and from the pointer
        assert ask("w", 0x5A, 0x41, 2, b"\x0c\x06") == b"\0"
        assert bus.chips[0x5A].thresholds(0) == (12, 6)
        assert ask("r", 0x5A, 0x41, 2, answer=3) == b"\0\x0c\x06"
        # no ACK: an absent chip, a register past the map, an unknown request
        assert ask("r", 0x5B, 0x00, 2) == b"\x05"
        assert ask("r", 0x5A, 0x7F, 2) == b"\x05"
        assert ask("p", 0x5A, 0, 1) == b"\x05"  # not a request of this bus
        assert ask("r", 0x5C, 0x00, 2, answer=3) == b"\0\0\0"  # and the bus still answers
    finally:
        assert close()  # the loop ends when the board's end of the pipe closes


def test_a_game_survives_the_device_process_going_away():
    with Board("duo") as b:
        b.ok("new_game", rules={"variant": "kalah"})
        state = b.ok("press", pit=3)["state"]
        assert b.ok("diag", action="scan")["missing"] == []
        b.devices.proc.send_signal(signal.SIGKILL)  # as if the pad board lost its power
        b.devices.proc.wait()
        scan = b.ok("diag", action="scan")
        assert scan["found"] == [] and len(scan["missing"]) == 2
        assert b.ok("state")["state"] == state  # the game is intact and the board answers
        assert b.ok("press", pit=1)["state"] != state
        assert b.proc.poll() is None


def test_the_device_process_ends_after_a_power_cut(tmp_path):
    b = Board("duo", flash=str(tmp_path)).start()
    try:
        b.ok("new_game")
        b.proc.send_signal(signal.SIGKILL)
        b.proc.wait()
        assert b.devices.proc.wait(timeout=10) == 0  # EOF on its pipe, not a kill
    finally:
        b.close()


def test_a_board_started_by_the_launcher_with_stdio_gets_the_device_process(tmp_path):
    proc = start_sim("--stdio", "--flash", str(tmp_path / "flash"), stdin=subprocess.PIPE,
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        proc.stdin.write(b'{"id": 1, "cmd": "diag", "action": "scan"}\n')
        proc.stdin.flush()
        for line in proc.stdout:
            if b'"id": 1' in line:
                break
        assert b'"missing": []' in line, line  # every chip answered, through the pipes
    finally:
        proc.stdin.close()
        proc.wait(timeout=20)
