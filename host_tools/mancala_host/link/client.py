"""The board's JSON-lines protocol over a transport: requests matched by id, events collected.

`Client.request("press", seat=0, pit=3)` sends `{"id": n, "cmd": "press", ...}` and waits for
the answer with the same id; events (`{"event": ...}`) that arrive meanwhile are kept in
`client.events` for `next_event`. The board's refusals become `BoardRefused` carrying its own
code and words; silence and garbage become one-sentence `BoardError`s.
"""

from __future__ import annotations

import collections
import json
import random
import time
from typing import TYPE_CHECKING, Any

from ..errors import BoardError, BoardRefused

if TYPE_CHECKING:
    from .transport import Transport

PROTOCOL = 2  # the newest protocol this tool speaks
PROTOCOLS = (1, 2)  # every protocol it can follow (1: no game ids; docs/protocol.md)
HELLO_NOT_A_BOARD_S = 0.5  # the one wait for hello on a port that is known to be no board


def _sample(line):
    text = line.decode("utf-8", "replace")
    return text if len(text) <= 40 else text[:40] + "..."


class Client:
    def __init__(self, transport: Transport, timeout: float = 5.0) -> None:
        self.transport = transport
        self.timeout = timeout
        self.events: collections.deque[dict[str, Any]] = collections.deque()
        self.hello_answer: dict[str, Any] = {}  # filled by hello()
        # Requests are numbered from a random start: an answer an earlier program left on
        # the line (its request timed out, then it exited) is not taken for one of ours.
        self._next_id = random.randrange(1, 1 << 29)
        self._garbage: list[bytes] = []

    @property
    def name(self) -> str:
        return self.transport.name

    def close(self) -> None:
        self.transport.close()

    def _receive(self, timeout):
        """One parsed message, or None on timeout or on a line that is not a JSON object."""
        line = self.transport.read_line(timeout)
        if line is None:
            return None
        if not line.strip():
            return None
        try:
            msg = json.loads(line.decode("utf-8"))
        except ValueError:
            msg = None
        if not isinstance(msg, dict):
            self._garbage.append(line)
            return None
        return msg

    def _others(self):
        others = getattr(self.transport, "others", None)
        return others() if others else "another program may have the port open: close it"

    def _garbage_error(self, what):
        first = self._garbage[0]
        return BoardError("The device on %s sent %d line(s) that are not the board's protocol "
                          "(first: %r) while waiting for %s: the Mancala firmware is not running "
                          "on it, or %s." % (self.name, len(self._garbage), _sample(first), what,
                                             self._others()))

    def send(self, cmd: str, **fields: Any) -> int:
        """Send a request and return its id, without waiting: the follower matches answers."""
        req_id = self._next_id
        self._next_id += 1
        msg = dict(fields)
        msg["id"] = req_id
        msg["cmd"] = cmd
        self._garbage = []
        self.transport.write_line(json.dumps(msg, separators=(",", ":")).encode("utf-8"))
        return req_id

    def receive(self, timeout: float) -> dict[str, Any] | None:
        """The next message on the line (an answer or an event), or None within `timeout`."""
        msg = self._receive(timeout)
        if msg is not None:
            self._garbage = []
        elif len(self._garbage) > 20:  # twenty lines in a row that are not the protocol
            raise self._garbage_error("the board's lines")
        return msg

    def request(self, cmd: str, timeout: float | None = None, **fields: Any) -> dict[str, Any]:
        """The board's answer to `cmd` (a dict with ok: true); BoardRefused if it says no."""
        req_id = self.send(cmd, **fields)
        wait = self.timeout if timeout is None else timeout
        deadline = time.monotonic() + wait
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                if self._garbage:
                    raise self._garbage_error("the answer to '%s'" % cmd)
                raise BoardError("The board on %s did not answer '%s' within %g s: check that "
                                 "the firmware is running." % (self.name, cmd, wait))
            msg = self._receive(left)
            if msg is None:
                if len(self._garbage) > 20:
                    raise self._garbage_error("the answer to '%s'" % cmd)
                continue
            if "event" in msg and "id" not in msg:
                self.events.append(msg)
                continue
            if msg.get("id") != req_id:
                continue  # a late answer to an earlier request that timed out
            if msg.get("ok") is True:
                return msg
            err = msg.get("error") or {}
            if not isinstance(err, dict):
                err = {"message": str(err)}
            raise BoardRefused(str(err.get("code", "error")), str(err.get("message", "no reason given")), msg)

    def hello(self) -> dict[str, Any]:
        """Say hello, check the protocol version and keep the answer in `hello_answer`.

        A board that just booted may have eaten the first line, so hello is sent twice within
        `timeout` in all. A port the system knows is no board (a built-in serial port, another
        USB device) gets one short try: a Pico answers hello within milliseconds."""
        answer: dict[str, Any] = {}
        not_a_board = getattr(self.transport, "not_a_board", None)
        first = min(self.timeout, HELLO_NOT_A_BOARD_S if not_a_board else 2.0)
        waits = [first] if not_a_board else [first, max(self.timeout - first, 0.5)]
        for attempt, wait in enumerate(waits):
            try:
                answer = self.request("hello", timeout=wait)
                break
            except BoardRefused:
                raise
            except BoardError:
                if attempt == len(waits) - 1 or self._garbage:
                    if self._garbage:
                        raise self._garbage_error("the answer to hello")
                    if not_a_board:
                        raise BoardError("The device on %s does not answer hello, and %s: give "
                                         "the board's port with --port, or leave --port out to "
                                         "find the board by its USB ID." % (self.name, not_a_board))
                    raise BoardError("The device on %s does not answer hello: it is not a Mancala "
                                     "board, its firmware is not running (see the REPL with "
                                     "mpremote), or %s." % (self.name, self._others()))
        if "protocol" not in answer or "firmware" not in answer:
            raise BoardError("The answer to hello on %s came without %s: %s." % (
                self.name, "its protocol version" if "protocol" not in answer else "the firmware "
                "version", self._others()))
        if answer.get("protocol") not in PROTOCOLS:
            raise BoardError("The board on %s speaks protocol %r; this tool speaks protocols "
                             "1 and %d: update the firmware (mancala-board deploy) or this tool."
                             % (self.name, answer.get("protocol"), PROTOCOL))
        self.hello_answer = answer
        return answer

    def next_event(self, timeout: float) -> dict[str, Any] | None:
        """The next event, or None when `timeout` seconds pass without one."""
        if self.events:
            return self.events.popleft()
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            msg = self._receive(left)
            if msg is not None and "event" in msg and "id" not in msg:
                return msg
