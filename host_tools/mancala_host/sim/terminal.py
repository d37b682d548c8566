"""The interactive terminal board: keys become pad touches, LED frames become the drawing.

One select() loop serves the keyboard, the board's stderr and the serial relay, and reads
the frames file on every pass.  The terminal goes into raw mode on an alternate screen and
is restored on every exit path.  Redraws happen only when something changed, at most FPS
times a second.
"""
import json
import os
import select
import signal
import sys
import termios
import time

from . import keys, view
from .status import legend, summary

FPS = 30
STDERR_LINES = 40
FRAMES_FILE_MAX = 4 << 20
TAP_GAP_S = 0.06        # between a release and the next touch of one pad: over the debounce


class Terminal:
    """Raw keys and an alternate screen; restore() puts the terminal back as it was."""

    def __init__(self, fd_in=0, out=None):
        self.fd_in = fd_in
        self.out = out or sys.stdout
        self.saved = termios.tcgetattr(fd_in)
        mode = termios.tcgetattr(fd_in)
        mode[0] &= ~(termios.IXON | termios.ICRNL)
        mode[3] &= ~(termios.ICANON | termios.ECHO | termios.ISIG | termios.IEXTEN)
        mode[6][termios.VMIN] = 1
        mode[6][termios.VTIME] = 0
        termios.tcsetattr(fd_in, termios.TCSAFLUSH, mode)
        self.out.write("\x1b[?1049h\x1b[?25l\x1b[2J")
        self.out.flush()

    def restore(self):
        self.out.write("\x1b[0m\x1b[?25h\x1b[?1049l")
        self.out.flush()
        termios.tcsetattr(self.fd_in, termios.TCSAFLUSH, self.saved)


class View:
    """The loop state: board drawing, scheduled touches, status lines."""

    def __init__(self, setup, profile, link, touch_fd, frames_fd, err_fd):
        self.setup = setup
        self.profile = profile
        self.link = link
        self.touch_fd = touch_fd
        self.frames_fd = frames_fd
        self.err_fd = err_fd
        self.reader = keys.KeyReader(profile)
        self.board = view.Board(profile, keys.keys_by_position(profile),
                                view.count_reader(os.path.join(setup.root, "firmware", "lib")))
        self.legend = legend(profile["sides"])
        self.pending = []               # [(monotonic time, position id, touched)]
        self.pad_free = {}              # position id -> when its last scheduled release is
        self.frames_partial = b""
        self.frames_quiet_since = 0.0
        self.err_lines = []
        self.err_partial = b""
        self.err_open = True
        self.last_line = ""
        self.board_tail = []            # the board's last serial lines (tracebacks go there)
        self.note = "ready: press a key to touch a pad"
        self.dirty = True
        self.shown_connected = False
        self.quit = False

    # --- inputs -------------------------------------------------------------------------
    def board_line(self, line):
        text = line.decode("utf-8", "replace").rstrip()
        self.last_line = summary(text) or self.last_line
        self.board_tail.append(text)
        del self.board_tail[:-STDERR_LINES]
        self.dirty = True

    def on_keys(self, chunk):
        if chunk.startswith(b"\x1b") and len(chunk) > 1:
            return                          # an arrow or function key: not ours
        for char in chunk.decode("utf-8", "ignore"):
            action = self.reader.feed(char)
            if action is None:
                continue
            if action[0] == "quit":
                self.quit = True
            elif action[0] == "long-armed":
                self.note = "long press: now press the pad's key"
            elif action[0] == "long-cancelled":
                self.note = "long press cancelled"
            else:
                self.touch(action[1], action[2])
            self.dirty = True

    def touch(self, pid, hold, now=None):
        """Schedule a finger on pad pid for hold seconds.  A press that comes while the pad is
        still held (a quick double tap) waits for the release plus TAP_GAP_S, so the firmware
        sees two whole taps rather than one long one."""
        now = time.monotonic() if now is None else now
        start = max(now, self.pad_free.get(pid, 0.0) + TAP_GAP_S)
        self.pending.append((start, pid, True))
        self.pending.append((start + hold, pid, False))
        self.pad_free[pid] = start + hold
        self.note = "%s %s" % ("long press" if hold >= keys.LONG_S else "touch", pid)

    def _send(self, line):
        try:
            os.write(self.touch_fd, line.encode())
        except BlockingIOError:
            self.note = "touch channel full: the board is not reading its pads"

    def send_due(self, now):
        """Send every scheduled touch or release whose time has come, in time order."""
        due = sorted(e for e in self.pending if e[0] <= now)
        for event in due:
            self.pending.remove(event)
            self._send(keys.touch_line(self.profile, event[1], event[2]))

    def next_due(self):
        return min(e[0] for e in self.pending) if self.pending else None

    def on_frames(self, now):
        """Read new frame lines from the frames file (which the board appends to)."""
        chunk = os.read(self.frames_fd, 1 << 20)
        if chunk:
            self.frames_quiet_since = now
            *lines, self.frames_partial = (self.frames_partial + chunk).split(b"\n")
            for line in lines:
                try:
                    frame = json.loads(line)
                    grb = bytes.fromhex(frame["grb"])
                    self.dirty |= self.board.update(frame["pin"], grb)
                except (ValueError, KeyError, TypeError):
                    self.note = "unreadable frame line from the board"
        elif (not self.frames_partial and now - self.frames_quiet_since > 1.0
              and os.lseek(self.frames_fd, 0, os.SEEK_CUR) > FRAMES_FILE_MAX):
            # Quiet for a second and all read: start the file again.  The board appends
            # (O_APPEND), so its next frame lands at the new start.
            os.ftruncate(self.frames_fd, 0)
            os.lseek(self.frames_fd, 0, os.SEEK_SET)

    def on_stderr(self):
        try:
            chunk = os.read(self.err_fd, 1 << 16)
        except BlockingIOError:
            return
        if not chunk:
            self.err_open = False           # the board closed stderr: it is exiting
            return
        *lines, self.err_partial = (self.err_partial + chunk).split(b"\n")
        for line in lines:
            self.err_lines.append(line.decode("utf-8", "replace"))
            self.note = "board says: " + self.err_lines[-1].strip()
            self.dirty = True
        del self.err_lines[:-STDERR_LINES]

    def drain_stderr(self):
        """After the board exited: read what it wrote last, for the report on exit."""
        os.set_blocking(self.err_fd, True)
        while self.err_open:
            self.on_stderr()
        if self.err_partial:
            self.err_lines.append(self.err_partial.decode("utf-8", "replace"))
            self.err_partial = b""

    def stderr_tail(self):
        """What the board said last that was not a protocol line: its last words on exit."""
        said = [line for line in self.board_tail if not line.startswith("{")]
        return "".join(line + "\n" for line in (said + self.err_lines)[-15:])

    # --- output -------------------------------------------------------------------------
    def screen(self, width=100):
        """The whole screen as lines (board, then footer)."""
        lines = [""] + ["  " + line for line in self.board.render()] + [""]
        self.shown_connected = bool(self.link and self.link.host_connected())
        host = "a host is connected" if self.shown_connected else "no host"
        link = os.path.relpath(self.link.link) if self.link else "-"
        if len(link) > 40:
            link = self.link.link
        sides = keys.describe(self.profile)
        footer = ["pads: " + "   ".join(sides[:2])]
        if sides[2:]:
            footer.append("      " + "   ".join(sides[2:]))
        footer += ["hold: a capital letter, or Space then the key   "
                   "double tap: the key twice   quit: Esc or Ctrl-C",
                  "serial: %s, on %s   board: %s   heap: %s   counts: %s"
                  % (host, link, self.setup.args.profile, self.setup.heapsize,
                     getattr(self.board.count, "name", "?")),
                  "note: " + self.note,
                  "board: " + self.last_line]
        for i, line in enumerate(footer):
            style = "\x1b[2m" if i < len(footer) - 2 else "\x1b[1m"   # what just happened: bold
            lines.append(style + line[:width - 1] + "\x1b[0m")
        if self.legend:
            lines.insert(-len(footer), self.legend)
        return lines

    def draw(self, out):
        try:
            width = os.get_terminal_size(out.fileno()).columns or 100
        except OSError:
            width = 100
        text = "\x1b[H" + "".join(line + "\x1b[K\r\n" for line in self.screen(width)) + "\x1b[J"
        out.write(text)
        out.flush()
        self.dirty = False

    def run(self, relay):
        term = Terminal(0, sys.stdout)
        old_winch = signal.signal(signal.SIGWINCH, self._resized)
        try:
            last_draw = 0.0
            while not self.quit and not relay.board_closed:
                now = time.monotonic()
                self.send_due(now)
                timeout = 1.0 / (2 * FPS)        # the frames file cannot be select()ed
                if self.pending:
                    timeout = min(timeout, max(0.0, self.next_due() - now))
                if self.dirty:
                    wait = 1.0 / FPS - (now - last_draw)
                    if wait <= 0:
                        self.draw(sys.stdout)
                        last_draw = now
                    else:
                        timeout = min(timeout, wait)
                fds = relay.fds() + [0] + ([self.err_fd] if self.err_open else [])
                if relay.connected != self.shown_connected:
                    self.dirty = True
                ready, _, _ = select.select(fds, [], [], timeout)
                if 0 in ready:
                    self.on_keys(os.read(0, 256))
                self.on_frames(time.monotonic())
                if self.err_fd in ready:
                    self.on_stderr()
                relay.pump(ready)
            for _, pid, touched in self.pending:     # leave no finger on a pad
                if not touched:
                    self._send(keys.touch_line(self.profile, pid, False))
        finally:
            signal.signal(signal.SIGWINCH, old_winch)
            term.restore()

    def _resized(self, signum, frame):
        self.dirty = True               # redraw for the new size, even if no frame changed
