"""A virtual board for tests: the real firmware under the MicroPython unix port.

Starts `.venv/bin/micropython -X heapsize=N firmware/main.py` as docs/architecture.md §4 says
(cwd = a flash directory holding profile.json, MICROPYPATH = the sim fakes then firmware/lib,
both compiled to .mpy as the launcher does, stdin/stdout = the serial line) and talks JSON lines to it. A reader thread collects every
line the board sends, so a test can wait with a timeout instead of blocking forever.

    with Board("duo") as b:
        b.request("press", pit=3)        # -> the answer dict (ok or not); events in b.events
        b.touch(0x5A, 2)                 # finger on and off a pad through the MPR121 model
"""
import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HOST_TOOLS = os.path.join(ROOT, "host_tools")
if HOST_TOOLS not in sys.path:
    sys.path.insert(0, HOST_TOOLS)
from mancala_host.sim import mpy_lib  # noqa: E402
from mancala_host.sim.devices import Devices  # noqa: E402
from waits import HANG_S  # noqa: E402

MICROPYTHON = os.path.join(ROOT, ".venv", "bin", "micropython")
MAIN = os.path.join(ROOT, "firmware", "main.py")
FAKES = os.path.join(ROOT, "host_tools", "mancala_host", "sim", "fakes")  # the sources
LIB = os.path.join(ROOT, "firmware", "lib")                                # the sources
PROFILES = os.path.join(ROOT, "hardware", "profiles")
HEAP = "1M"  # the memory tests use less: tests/test_board_memory.py
TIMEOUT = HANG_S  # seconds; only ever reached when something is broken
PICO_TIMEOUT = max(HANG_S, 120.0)  # the emulated Pico computes at a fraction of a Pico's speed
CIRCUITPY_TIMEOUT = max(HANG_S, 300.0)  # CircuitPython also compiles the firmware at each boot


def micropypath(source=None):
    """MICROPYPATH for the board, as the launcher builds it: the fakes, then the firmware's
    lib, both compiled to .mpy as on a Pico (source=True, or MANCALA_SIM_SOURCE=1: the
    sources, which need more heap while importing)."""
    if source is None:
        source = mpy_lib.from_source()
    return os.pathsep.join([mpy_lib.fakes_path(ROOT, source), ".frozen",
                            mpy_lib.firmware_path(ROOT, source)])


class TapWriter:
    """Writes taps to a touch file (MANCALA_SIM_TOUCH): the finger on for hold_s and off for
    hold_s, `taps` times. A tap's lines go out at once, timed on the models' clock ("+D": D
    µs after the board reads them; emulated time on the emulated Pico), so a busy test
    process cannot stretch a tap into a long press or pull a double tap apart. A tap written
    while earlier ones are still due starts after them."""

    def __init__(self, path):
        self.path = path
        self.free = 0.0  # time.monotonic() when the taps written so far are done

    def tap(self, addr, electrode, hold_s=0.08, taps=1):
        now = time.monotonic()
        start = max(now, self.free)
        lines = []
        for i in range(2 * taps):
            due = int((start - now + i * hold_s) * 1e6)
            lines.append("%s%x %d %d\n" % ("+%d " % due if due > 0 else "", addr, electrode,
                                            1 - i % 2))
        with open(self.path, "a") as f:
            f.write("".join(lines))
        self.free = start + 2 * taps * hold_s


class BoardGone(Exception):
    """The board process ended or stopped answering."""


class Board:
    """target "unix" (the default) or "rp2040": the emulated Pico (`sim --target rp2040`),
    started as the launcher starts it, with the harness's --pace free (waits take no host
    time; emulated time is deterministic either way). trace: a --trace file (rp2040).

    image (rp2040): a UF2 to run instead of the stock image with deploy's files, such as the
    frozen firmware image (tests/firmware_image.image()): `sim --image UF2`, whose filesystem
    gets only profile.json, as `mancala-board profile install` writes it; profile=None leaves
    the filesystem blank (`--blank`: a Pico just flashed, booting with the image's own
    profile). A CircuitPython image runs the CircuitPython edition from its CIRCUITPY drive
    (deploy --circuitpython's files): its console also carries CircuitPython's own text
    (banner, status, the REPL's prompts), which is kept apart (other, and every byte in raw:
    mark() and until() wait for a prompt that ends no line).

    main (rp2040): a file run in place of the entry point (`sim --main`); start() then does
    not wait for the game's boot event."""

    def __init__(self, profile="duo", flash=None, heapsize=HEAP, touch=False, frames=False,
                 chips=None, source=None, target="unix", trace=None, image=None, main=None):
        if image is not None and target != "rp2040":
            raise ValueError("image= needs target='rp2040'")
        if profile is None and image is None:
            raise ValueError("profile=None needs image= (the image's own profile)")
        if main is not None and target != "rp2040":
            raise ValueError("main= needs target='rp2040'")
        self.target = target
        self.image = image
        self.main = main
        self.circuitpython = False
        if image is not None:
            from mancala_host.sim.circuitpy_flash import image_kind
            self.circuitpython = image_kind(image) == "circuitpython"
        self.trace_path = trace
        self.timeout = TIMEOUT if target == "unix" else (
            CIRCUITPY_TIMEOUT if self.circuitpython else PICO_TIMEOUT)
        self.source = source
        self.own_flash = flash is None
        self.flash = flash or tempfile.mkdtemp(prefix="mancala-flash-")
        self.profile = profile
        self.heapsize = heapsize
        self.touch_path = os.path.join(self.flash, "touch.txt") if touch else None
        self.frames_path = os.path.join(self.flash, "frames.jsonl") if frames else None
        self.chips = chips
        self.proc = None
        self.devices = None
        self.lines = None
        self.events = []
        self.other = []  # CircuitPython: its console's lines that are not the protocol's
        self.raw = bytearray()  # CircuitPython: every byte the board sent
        self.arrived = threading.Condition()
        self.console_ended = False
        self._id = 0
        self.taps = TapWriter(self.touch_path) if touch else None

    # --------------------------------------------------------------- process
    def _argv_env(self):
        """The board's argv and environment, as the launcher makes them."""
        if self.target == "rp2040":
            from mancala_host.sim import launcher
            args = ["--target", "rp2040", "--stdio", "--flash", self.flash]
            if self.image is not None:
                args += ["--image", self.image]
            if self.profile is None:
                args += ["--blank"]
            else:
                args += ["--profile", self.profile]
            if self.chips is not None:
                with open(os.path.join(PROFILES, (self.profile or "duo") + ".json")) as f:
                    have = [c.lower() for c in json.load(f)["pad_chips"]]
                keep = ["0x" + c.strip().lower() for c in self.chips.split(",") if c.strip()]
                for c in have:
                    if c not in keep:
                        args += ["--missing-chip", c]
            if self.trace_path:
                args += ["--trace", self.trace_path]
            if self.main is not None:
                args += ["--main", self.main]
            env = dict(os.environ)
            env.setdefault("MANCALA_RP2_MIRROR", os.path.join(ROOT, "build", "rp2"))
            saved = dict(os.environ)
            os.environ.update(env)
            try:
                setup = launcher.Setup(launcher._parser().parse_args(args))
            finally:
                os.environ.clear()
                os.environ.update(saved)
            return setup.argv + ["--pace", "free"], dict(setup.env)
        target = os.path.join(self.flash, "profile.json")
        if not os.path.exists(target):
            shutil.copy(os.path.join(PROFILES, self.profile + ".json"), target)
        env = dict(os.environ)
        env["MICROPYPATH"] = micropypath(self.source)
        from mancala_host.sim.setup import irq_pin
        env.pop("MANCALA_SIM_IRQ", None)
        if irq_pin(target) is not None:
            env["MANCALA_SIM_IRQ"] = irq_pin(target)  # the pads' IRQ line, as the launcher
        if self.chips is not None:
            env["MANCALA_SIM_CHIPS"] = self.chips
        return [MICROPYTHON, "-X", "heapsize=" + self.heapsize, MAIN], env

    def start(self):
        argv, env = self._argv_env()
        for key, value in (("MANCALA_SIM_TOUCH", self.touch_path),
                           ("MANCALA_SIM_FRAMES", self.frames_path)):
            if value is not None:
                env[key] = value
            else:
                env.pop(key, None)
        if self.chips is None:
            env.pop("MANCALA_SIM_CHIPS", None)
        if self.touch_path and not os.path.exists(self.touch_path):
            open(self.touch_path, "w").close()
        self.stderr = open(os.path.join(self.flash, "stderr.txt"), "ab")
        try:
            self.devices = Devices(env, self.stderr, self.flash)  # the MPR121 models
        except OSError:
            self.stderr.close()
            raise
        try:
            self.proc = subprocess.Popen(
                argv, cwd=self.flash, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=self.stderr, bufsize=0, pass_fds=self.devices.fds)
        finally:
            self.devices.handed_over()
        self.lines = queue.Queue()
        self.events = []
        if self.circuitpython:
            threading.Thread(target=self._read_console, daemon=True).start()
        else:
            threading.Thread(target=self._read, args=(self.proc.stdout, self.lines),
                             daemon=True).start()
        if self.main is None:
            self.boot = self.wait_event("boot", self.timeout)
        return self

    @staticmethod
    def _read(stream, lines):
        for raw in iter(stream.readline, b""):
            lines.put(raw)
        lines.put(None)

    def _read_console(self):
        """CircuitPython's console: every byte into raw; each line holding a JSON object
        (CircuitPython may put its status line's escape codes before one) into lines, the
        other lines into other."""
        pending = b""
        while True:
            chunk = os.read(self.proc.stdout.fileno(), 4096)
            with self.arrived:
                self.raw += chunk
                self.console_ended = not chunk
                self.arrived.notify_all()
            if not chunk:
                break
            pending += chunk
            *whole, pending = pending.split(b"\n")
            for raw in whole:
                at = raw.find(b"{")
                try:
                    if at < 0 or not isinstance(json.loads(raw[at:]), dict):
                        raise ValueError
                except ValueError:
                    self.other.append(raw.decode("utf-8", "replace").strip())
                    continue
                self.lines.put(raw[at:])
        self.lines.put(None)

    def mark(self):
        """CircuitPython: where the bytes received so far end, for until()."""
        with self.arrived:
            return len(self.raw)

    def until(self, text, since=0):
        """CircuitPython: the bytes from since up to the end of the first text after it."""
        with self.arrived:
            self.arrived.wait_for(lambda: text in self.raw[since:] or self.console_ended,
                                  self.timeout)
            at = self.raw.find(text, since)
            if at < 0:
                raise BoardGone("no %r from the board; it sent: %r"
                                % (text, bytes(self.raw[since:])[-600:]))
            return bytes(self.raw[since:at + len(text)])

    def kill(self):
        """A power cut: SIGKILL, no chance to clean up."""
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()
        self.devices.stop()  # its pipe from the board is closed now: it ends by itself
        self.stderr.close()

    def close(self):
        if self.proc and self.proc.poll() is None:
            try:
                self.proc.stdin.close()  # end of the line: the board stops
                self.proc.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()
            self.stderr.close()
        if self.devices:
            self.devices.stop()
        if self.own_flash:
            shutil.rmtree(self.flash, ignore_errors=True)

    def __enter__(self):
        try:
            return self.start()
        except BaseException:
            self.close()  # a board that fails to boot leaves no process or flash behind
            raise

    def __exit__(self, *exc):
        self.close()

    def flash_files(self):
        """rp2040: the names at the top of the board's littlefs, read from its flash file (the
        image way holds no code there: only profile.json and what the board saved)."""
        from mancala_host.sim import rp2040
        with open(os.path.join(self.flash, rp2040.FLASH_FILE), "rb") as f:
            f.seek(rp2040.FS_OFFSET)
            fs = rp2040._littlefs(f.read(rp2040.FS_BLOCK * rp2040.FS_BLOCKS))
        return sorted(fs.listdir("/"))

    def stderr_text(self):
        with open(os.path.join(self.flash, "stderr.txt"), "rb") as f:
            return f.read().decode("utf-8", "replace")

    # --------------------------------------------------------------- lines
    def next_line(self, timeout=None):
        timeout = self.timeout if timeout is None else timeout
        try:
            raw = self.lines.get(timeout=timeout)
        except queue.Empty:
            raise BoardGone("no line from the board in %.0f s; stderr:\n%s"
                            % (timeout, self.stderr_text()[-2000:]))
        if raw is None:
            self.lines.put(None)
            raise BoardGone("the board ended; stderr:\n%s" % self.stderr_text()[-2000:])
        try:
            return json.loads(raw)
        except ValueError:
            raise BoardGone("the board sent a line that is not JSON: %r; stderr:\n%s"
                            % (raw[:300], self.stderr_text()[-2000:]))

    def send_raw(self, data):
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, obj):
        self.send_raw(json.dumps(obj).encode() + b"\n")

    def answer(self, timeout=None):
        """The next answer line; events on the way are kept in self.events."""
        while True:
            msg = self.next_line(timeout)
            if "event" in msg:
                self.events.append(msg)
            else:
                return msg

    def request(self, cmd, **args):
        self._id += 1
        msg = {"id": self._id, "cmd": cmd}
        msg.update(args)
        self.send(msg)
        ans = self.answer()
        assert ans.get("id") == self._id, ans
        return ans

    def ok(self, cmd, **args):
        """request() that must succeed."""
        ans = self.request(cmd, **args)
        assert ans["ok"], ans
        return ans

    def wait_event(self, name, timeout=None):
        for i, e in enumerate(self.events):
            if e["event"] == name:
                return self.events.pop(i)
        while True:
            msg = self.next_line(timeout)
            if msg.get("event") == name:
                return msg
            if "event" in msg:
                self.events.append(msg)

    def take_events(self, name=None):
        out = [e for e in self.events if name is None or e["event"] == name]
        self.events = [e for e in self.events if not (name is None or e["event"] == name)]
        return out

    # --------------------------------------------------------------- virtual pads
    def finger(self, addr, electrode, on):
        with open(self.touch_path, "a") as f:
            f.write("%x %d %d\n" % (addr, electrode, 1 if on else 0))

    def touch(self, addr, electrode, hold_s=0.08, taps=1):
        """Taps on a pad (taps=2: a double tap), timed on the models' clock: TapWriter."""
        self.taps.tap(addr, electrode, hold_s, taps)


def read_back(frames_path, prof, state):
    """(pits, stores) as the last frame of each chain shows them (the firmware's reader)."""
    from mancala_fw import profile as profiles
    from mancala_fw.display.reader import read_counts

    index = {pin: i for i, (pin, _) in enumerate(prof.chains)}
    chains = [bytearray(leds * 3) for _, leds in prof.chains]
    with open(frames_path) as f:
        for line in f:
            if line.endswith("\n"):
                msg = json.loads(line)
                chains[index[msg["pin"]]] = bytearray.fromhex(msg["grb"])
    r = state["rules"]
    seating = profiles.seating(prof, r["players"], r["pits"])
    counts = dict(zip(prof.positions, read_counts(chains, [prof.ring[p] for p in prof.positions])))
    pits = [[counts[seating.position(s, p)] for p in range(1, seating.pits + 1)]
            for s in range(seating.players)]
    return pits, [counts[seating.store(s)] for s in range(seating.players)]
