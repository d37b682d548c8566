"""A scripted fake serial line for the host tool's tests, with the Transport members.

`FakePort(script)` models what a board (or a wrong device) puts on the line: `script` maps a
command name to what comes back for it, as a list of items, each

- a dict: sent as one JSON line; the key "id" set to ANSWER is replaced by the request's id;
- bytes: sent as they are (garbage, a REPL banner, half a line);
- LOST: the line goes away (unplugged), reads and writes raise PortLost from then on.

A command missing from the script gets no answer at all (a silent device). Everything the
host wrote is kept, parsed, in `sent`. Reads with nothing queued wait a little and return None,
as a real port's read timeout does.
"""

import json
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
for _p in (os.path.join(ROOT, "host_tools"), os.path.join(ROOT, "firmware", "lib")):
    if _p not in sys.path:
        sys.path.insert(0, _p)

from mancala_host.errors import PortLost  # noqa: E402
from mancala_host.link.transport import Transport  # noqa: E402

ANSWER = object()
LOST = object()

HELLO = {"id": ANSWER, "ok": True, "firmware": "0.1.0", "protocol": 2, "board": "duo",
         "variants": ["kalah", "basic"], "sides": 2, "pits_per_side": 7,
         "commands": ["hello", "get_config", "set_config", "new_game", "state", "press", "resign", "undo"]}
CONFIG = {"rules": {"variant": "kalah", "players": 2, "pits": 6, "seeds": 4, "capture": "nonempty",
                    "wipeout_capture": True},
          "rotate_starter": True, "brightness": 40, "power_limit_ma": 1500, "animation_ms": 120,
          "seats": [{"kind": "human"}, {"kind": "human"}], "move_time_limit": 0}


def board_script(**more):
    """A script for a well-behaved board that answers hello and get_config, plus `more`."""
    script = {"hello": [HELLO], "get_config": [{"id": ANSWER, "ok": True, "config": CONFIG}]}
    script.update(more)
    return script


class FakePort(Transport):
    def __init__(self, script=None, name="fake://board", greeting=()):
        self.script = script or {}
        self.name = name
        self.sent = []
        self.closed = False
        self.lost = False
        self._queue = []
        for item in greeting:
            self._queue_item(item, None)

    def _queue_item(self, item, req_id):
        if item is LOST:
            self._queue.append(LOST)
        elif isinstance(item, bytes):
            self._queue.extend(item.split(b"\n")[:-1] if item.endswith(b"\n") else item.split(b"\n"))
        else:
            msg = dict(item)
            if msg.get("id") is ANSWER:
                msg["id"] = req_id
            self._queue.append(json.dumps(msg).encode())

    def push(self, item):
        """Put an event (dict), raw bytes or LOST on the line now."""
        self._queue_item(item, None)

    def write_line(self, data):
        if self.lost:
            raise PortLost("The board on %s went away." % self.name)
        request = json.loads(data.decode())
        self.sent.append(request)
        replies = self.script.get(request.get("cmd"), [])
        if callable(replies):
            replies = replies(request)
        for item in replies:
            self._queue_item(item, request.get("id"))

    def read_line(self, timeout):
        if self.lost:
            raise PortLost("The board on %s went away." % self.name)
        if self._queue:
            item = self._queue.pop(0)
            if item is LOST:
                self.lost = True
                raise PortLost("The board on %s went away." % self.name)
            return item
        time.sleep(min(timeout, 0.01))
        return None

    def close(self):
        self.closed = True


def run(monkeypatch, capsys, port, argv):
    """mancala-board argv against port (via cli.main); (exit code, stdout, stderr)."""
    from mancala_host.commands import cli
    from mancala_host.link import session
    monkeypatch.setattr(session, "open_transport", lambda name: port)
    code = cli.main(["--timeout", "0.3"] + argv)
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


def one_sentence(err):
    """The one non-empty line of err; fails when there are more."""
    lines = [l for l in err.splitlines() if l.strip()]
    assert len(lines) == 1, err
    return lines[0]
