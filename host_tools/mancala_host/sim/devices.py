"""The virtual board's I2C devices, in a process of their own (CPython).

On a Pico the MPR121 chips sit outside the RP2040 and cost its heap nothing. So here: the
register models (fakes/mpr121_model.py) and the touch feed run in this process, and the
board's fake machine.I2C talks to them over two pipes (MANCALA_SIM_BUS = "<rx fd>,<tx fd>"
in the board's environment). The firmware's own MPR121 driver runs unchanged; only the wire
is a pipe. Messages, as fakes/machine.py's _Wire sends them:

    request   op, address, register, count (4 bytes), then count data bytes for "w"
    answer    status (0, or the errno machine.I2C raises: 5 = EIO, no ACK), then for "r"
              count bytes, for "s" 8 address slots (0 = empty)
    ops       "r" read from a register on, "w" write from a register on, "s" scan,
              "i" the chips' shared IRQ line (answer: status, then 1 if it is low),
              "c" clock (no answer): count is 8 and the data the emulated time in µs
              (little-endian), which the models' clock follows from then on. The emulated
              Pico (sim/rp2040/) sends it before every transfer, so the models run on
              emulated time; the unix target never does, and they run on the real clock.

With MANCALA_SIM_TRACE set (the emulated Pico's --trace file), each finger change the models
apply is appended to it as {"t_us": T, "kind": "pad", "chip": "0x5a", "electrode": E,
"on": true}.

The process ends when the board closes its end (the board stopped, or was killed: a power
cut takes the chips' power too). Touch commands (MANCALA_SIM_TOUCH, docs/sim.md §6) are read
here, before each read of the bus, as the in-process bus does.

    dev = Devices(env)          # starts the process; sets env["MANCALA_SIM_BUS"]
    Popen(board_argv, env=env, pass_fds=dev.fds)
    dev.handed_over()           # close this process's copies of the board's ends
"""

from __future__ import annotations

import errno
import os
import stat
import subprocess
import sys
from typing import Any

FAKES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fakes")
ENV = "MANCALA_SIM_BUS"


class Devices:
    """Starts the device process for a board about to start with env."""

    def __init__(self, env: dict[str, str], stderr: Any = None, cwd: str | None = None) -> None:
        """cwd: the board's working directory (its flash), so that a relative
        MANCALA_SIM_TOUCH names the same file for both."""
        req_r, req_w = os.pipe()
        ans_r, ans_w = os.pipe()
        try:
            self.proc = subprocess.Popen(
                [sys.executable, os.path.abspath(__file__), str(req_r), str(ans_w)],
                env=env, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=stderr, pass_fds=(req_r, ans_w), start_new_session=True)
        except OSError:
            for fd in (req_r, req_w, ans_r, ans_w):
                os.close(fd)
            raise
        os.close(req_r)
        os.close(ans_w)
        self.fds: tuple[int, ...] = (ans_r, req_w)  # the board's ends: it reads answers, writes requests
        env[ENV] = "%d,%d" % self.fds

    def inheritable(self) -> None:
        """For a board that replaces this process (exec): keep its ends across the exec."""
        for fd in self.fds:
            os.set_inheritable(fd, True)

    def handed_over(self) -> None:
        """The board has its copies: close ours, so its end is the only one (EOF = gone)."""
        for fd in self.fds:
            try:
                os.close(fd)
            except OSError:
                pass
        self.fds = ()

    def stop(self, timeout: float = 2) -> None:
        """Wait for the process to end after the board did; kill it if it does not."""
        self.handed_over()
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


class _Feed:
    """Touch commands from a regular file (read on from where the last read stopped) or a
    FIFO (opened read-write so opening never waits for a writer), without blocking."""

    def __init__(self, path):
        self.path = path
        self.fd = None
        self.partial = b""

    def read_lines(self):
        if self.fd is None:
            try:
                fifo = stat.S_ISFIFO(os.stat(self.path).st_mode)
                self.fd = os.open(self.path, (os.O_RDWR | os.O_NONBLOCK) if fifo else os.O_RDONLY)
            except OSError:
                return None  # not there yet: tried again at the next read of the bus
        chunk = b""
        while True:
            try:
                data = os.read(self.fd, 4096)
            except BlockingIOError:
                break
            if not data:
                break
            chunk += data
        if not chunk:
            return None
        lines = (self.partial + chunk).split(b"\n")
        self.partial = lines.pop()
        return lines


def _read_exactly(fd, n):
    out = b""
    while len(out) < n:
        data = os.read(fd, n - len(out))
        if not data:
            return None
        out += data
    return out


def serve(rx: int, tx: int, bus: Any) -> None:
    """Answers the board's transfers until it closes the pipe."""
    while True:
        head = _read_exactly(rx, 4)
        if head is None:
            return
        op, addr, reg, count = head
        data = b""
        if op in (ord("w"), ord("c")) and count:
            data = _read_exactly(rx, count)
            if data is None:
                return
        if op == ord("c"):
            _emulated_clock(int.from_bytes(data, "little"))
            continue
        try:
            if op == ord("w"):
                bus.write(addr, reg, data)
                answer = b"\0"
            elif op == ord("r"):
                buf = bytearray(count)
                bus.read(addr, reg, buf)
                answer = b"\0" + bytes(buf)
            elif op == ord("i"):
                answer = b"\0" + (b"\1" if bus.irq_line() else b"\0")
            elif op == ord("s"):
                found = bus.scan()[:8]
                answer = b"\0" + bytes(found) + bytes(8 - len(found))
            else:
                sys.stderr.write("virtual board: unknown bus request %r\n" % (head,))
                answer = bytes([errno.EIO])
        except OSError as e:
            answer = bytes([e.args[0] if e.args and isinstance(e.args[0], int) else errno.EIO])
        except Exception as e:  # a fault in a model: this transfer fails, the bus goes on
            sys.stderr.write("virtual board: the I2C device model failed: %s: %s\n"
                             % (type(e).__name__, e))
            answer = bytes([errno.EIO])
        try:
            os.write(tx, answer)
        except BrokenPipeError:
            return


def _emulated_clock(us):
    import simclock  # from FAKES, on sys.path once main() has run

    simclock.freeze(us)


def _trace_writer(path):
    import json

    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    def pad_changed(addr, electrode, on, t_us):
        line = {"t_us": t_us, "kind": "pad", "chip": "0x%02x" % addr, "electrode": electrode,
                "on": on}
        os.write(fd, (json.dumps(line) + "\n").encode())
    return pad_changed


def main(argv: list[str]) -> int:
    rx, tx = int(argv[1]), int(argv[2])
    sys.path.append(FAKES)
    import mpr121_model

    bus = mpr121_model.reset_bus()
    path = os.getenv("MANCALA_SIM_TOUCH")
    bus.feed = _Feed(path) if path else None
    trace = os.getenv("MANCALA_SIM_TRACE")
    if trace:
        bus.listen(_trace_writer(trace))
    try:
        serve(rx, tx, bus)
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
