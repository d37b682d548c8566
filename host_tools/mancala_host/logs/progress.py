"""The progress line of an exact search that takes a while (`hint --exact`, `analyze --exact`).

Once a command has searched for half a second, one line on stderr when it is a terminal,
rewritten a few times a second and wiped when the search ends, so whoever waits sees what is
searched (an analysis: which move of the game), how much of its budget it has used, and how to
stop it:

    Exact search: move 7 of 43, 2.5 of 5 s, 8.1 million positions (Ctrl-C stops it)

Nothing is written when stderr is not a terminal (a pipe, a log file, a test's capture).
"""

from __future__ import annotations

import sys
import threading
import time
from typing import Any, Callable, TextIO

# The line shows once a search has run this long, and is rewritten this often.
DELAY_S = 0.5
EVERY_S = 0.25


class Progress:
    """A context manager around one command's searches: `what` says what is being valued
    (the caller updates it between positions), `nodes()` counts the solver's positions."""

    def __init__(self, nodes: Callable[[], int], seconds: float | None,
                 stream: TextIO | None = None) -> None:
        self.nodes = nodes
        self.seconds = seconds
        self.stream = sys.stderr if stream is None else stream
        self.what = ""
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._shown = 0
        self._began = self._entered = 0.0
        self._first = 0
        self._active = True  # False from clear() to the next start(): others write meanwhile
        self._lock = threading.Lock()

    def _tty(self) -> bool:
        try:
            return self.stream.isatty()
        except (AttributeError, ValueError):
            return False

    def start(self, what: str) -> None:
        """A new position: the clock starts again for its line."""
        with self._lock:
            self.what = what
            self._active = True
            self._began = time.monotonic()
            self._first = self.nodes()

    def __enter__(self) -> "Progress":
        if self._tty():
            self._began = self._entered = time.monotonic()
            self._first = self.nodes()
            self._thread = threading.Thread(target=self._run, daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        self.clear()

    def clear(self) -> None:
        """Wipe the line, and keep it away until the next start(): the command writes."""
        with self._lock:
            self._active = False
            if self._shown:
                self.stream.write("\r%s\r" % (" " * self._shown))
                self.stream.flush()
                self._shown = 0

    def line(self) -> str:
        spent = time.monotonic() - self._began
        count = max(0, self.nodes() - self._first)
        budget = " of %g" % self.seconds if self.seconds else ""
        return "Exact search: %s%.1f%s s, %.1f million positions (Ctrl-C stops it)" % (
            self.what + ", " if self.what else "", spent, budget, count / 1e6)

    def _run(self) -> None:
        while not self._stop.wait(EVERY_S):
            with self._lock:
                if not self._active or (not self._shown and
                                        time.monotonic() - self._entered < DELAY_S):
                    continue
                text = self.line()
                pad = max(0, self._shown - len(text))
                self.stream.write("\r" + text + " " * pad)
                self.stream.flush()
                self._shown = len(text)
