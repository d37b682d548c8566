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
from test_fakes import _board, _expect, _with_devices
from test_sim_helpers import start_sim
from test_sim_launcher import alive, child_pids

sys.path.insert(0, os.path.join(ROOT, "host_tools"))
from mancala_host.sim import devices  # noqa: E402
from waits import HANG_S, wait_for  # noqa: E402


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

    def ask(op, addr, reg, count, data=b"", answer=1, before=b""):
        os.write(req_w, before + struct.pack("4B", ord(op), addr, reg, count) + data)
        return devices._read_exactly(ans_r, answer)

    def close():
        os.close(req_w)
        thread.join(HANG_S)
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


def test_the_emulated_clock_and_the_irq_line():
    """The emulated Pico's requests: 'c' sets the models' clock (it has no answer), 'i' reads
    the chips' shared IRQ line: low from a touch status change until the status is read."""
    ask, close, bus = _serve({"MANCALA_SIM_CHIPS": "5a,5b"})  # puts the fakes on sys.path
    import simclock

    def irq_at(ms):
        clock = struct.pack("4B", ord("c"), 0, 0, 8) + (ms * 1000).to_bytes(8, "little")
        return ask("i", 0, 0, 1, answer=2, before=clock)

    try:
        assert ask("w", 0x5A, 0x41, 2, b"\x0c\x06") == b"\0"  # electrode 0: touch 12, release 6
        assert ask("w", 0x5A, 0x5E, 1, b"\x01") == b"\0"      # run mode, electrode 0
        assert irq_at(0) == b"\0\0"
        bus.chips[0x5A].set_finger(0, True)
        assert irq_at(1) == b"\0\0"            # the finger is on, the filters not there yet
        assert simclock.now_us() == 1000
        assert irq_at(100) == b"\0\1"          # the status changed: IRQ low
        assert ask("r", 0x5A, 0x00, 2, answer=3) == b"\0\x01\0"
        assert irq_at(101) == b"\0\0"          # reading the status released it
    finally:
        simclock.thaw()
        assert close()


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
        assert b.devices.proc.wait(timeout=HANG_S) == 0  # EOF on its pipe, not a kill
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
        # The board (the launcher's pid, after its exec) has the device process as a child.
        devices = child_pids(proc.pid)["devices"]
        assert len(devices) == 1 and alive(devices[0])
    finally:
        proc.stdin.close()
        proc.wait(timeout=HANG_S)
    wait_for("the device process to end with the board", lambda: not alive(devices[0]))


def test_a_scan_sees_a_chip_unplugged_in_the_touch_file_at_once():
    # The self-test's scan reads no pads in between, so the scan itself must apply the
    # touch commands written before it.
    with Board("duo", touch=True, chips="5a,5b") as b:
        for i in range(4):
            with open(b.touch_path, "a") as f:
                f.write("chip 5b off\n" if i % 2 == 0 else "chip 5b on\n")
            found = b.ok("diag", action="scan")["found"]
            assert found == (["0x5A"] if i % 2 == 0 else ["0x5A", "0x5B"]), (i, found)
        b.ok("diag", action="stop")


def test_a_garbled_touch_line_is_reported_and_the_bus_goes_on():
    with Board("duo", touch=True) as b:
        with open(b.touch_path, "ab") as f:
            f.write(b"\xff\xfe garbled\n")
        assert b.ok("diag", action="scan")["missing"] == []
        b.ok("diag", action="stop")
        assert b.devices.proc.poll() is None  # the device process is still there
        assert "ignored touch command" in b.stderr_text()


def test_a_transfer_past_255_bytes_fails_like_a_nak_and_the_bus_goes_on(tmp_path):
    script = ("import machine\ni2c = machine.I2C(0)\n"
              "try:\n    i2c.readfrom_mem(0x5a, 0, 256)\nexcept OSError as e:\n"
              "    print('error', e.args[0])\n"
              "print('config2', i2c.readfrom_mem(0x5a, 0x5d, 1)[0])\n")
    env, dev = _with_devices({"MANCALA_SIM_CHIPS": "5a"})
    try:
        board = _board(script, env, pass_fds=dev.fds)
    finally:
        dev.handed_over()
    assert _expect(board, "error") == "5"
    assert _expect(board, "config2") == "36"  # 0x24, the chip's reset value
    board.wait(timeout=HANG_S)
    assert dev.proc.wait(timeout=HANG_S) == 0



def test_timed_touch_lines_land_when_they_are_due():
    # "+D" (D µs after the line is read) and "at T" (on the models' clock, which the emulated
    # Pico sets to its own time): a test or bench can place a finger at an exact emulated
    # moment, and the filters start responding from that moment, not from the next bus read.
    sys.path.append(devices.FAKES)
    import mpr121_model
    import simclock

    simclock.freeze(1000)
    try:
        bus = mpr121_model.Bus([0x5A])
        seen = []
        bus.listen(lambda addr, e, on, t_us: seen.append((e, on, t_us)))
        bus.command("+5000 5a 3 1")
        bus.command("at 9000 5a 3 0")
        bus.command("5a 4 1")  # untimed, after timed ones: it keeps its place in the file
        bus.command("at 9500 5a 99 1")  # a bad line is refused when read, not when due
        assert bus.bad_lines == 1 and seen == []
        simclock.advance_us(4999)
        bus.poll_feed()
        assert seen == [] and bus.chips[0x5A].finger[3] is False
        simclock.advance_us(1500)  # 7499: read late, the finger still landed at 6000
        bus.poll_feed()
        assert seen == [(3, True, 6000)] and bus.chips[0x5A].changed_us[3] == 6000
        simclock.advance_us(3000)  # 10499
        bus.poll_feed()
        assert seen == [(3, True, 6000), (3, False, 9000), (4, True, 10499)]
    finally:
        simclock.thaw()
