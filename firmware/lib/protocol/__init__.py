"""The board side of the serial protocol (docs/protocol.md): requests in, answers and events out.

Protocol knows JSON lines, request ids and error codes, and nothing of Mancala: the app gives
it a table that maps each command name to a handler. A handler takes the request dict and
returns the answer's fields, or raises CommandError(code, message). Bad input of any kind is
answered with an error and never reaches a handler half-read.
"""

import json

from protocol.lines import LineReader, TOO_LONG, MAX_LINE

PROTOCOL_VERSION = 1

# Stable error codes (docs/protocol.md §3).
TOO_LONG_CODE = "too_long"
BAD_JSON = "bad_json"
BAD_REQUEST = "bad_request"
UNKNOWN_CMD = "unknown_cmd"
ILLEGAL_MOVE = "illegal_move"
NOTHING_TO_UNDO = "nothing_to_undo"
BAD_CONFIG = "bad_config"
INTERNAL = "internal"


class CommandError(Exception):
    """A request that cannot be carried out; code is one of the stable codes above."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message


def _clean(v, depth=0):
    # An id is echoed back as given, except what JSON cannot carry (inf/nan from "1e999").
    if isinstance(v, float):
        return v if v == v and v not in (float("inf"), float("-inf")) else None
    if depth > 8:
        return None
    if isinstance(v, list):
        return [_clean(x, depth + 1) for x in v]
    if isinstance(v, dict):
        return {k: _clean(x, depth + 1) for k, x in v.items()}
    return v


class Protocol:
    def __init__(self, write, commands, on_error=None, stream=None):
        """write(str) sends text on the line; commands maps a name to handler(request) -> dict;
        on_error(exc) is told of an unexpected exception in a handler. stream (optional, the
        board's sys.stdout): lines are encoded straight into it, with no string of the line."""
        self._write = write
        self._stream = stream
        self.commands = commands
        self._on_error = on_error
        self.reader = LineReader(MAX_LINE)

    def send(self, obj):
        if self._stream is None:
            # Two writes rather than a concatenated copy of a line that may hold a state.
            self._write(json.dumps(obj))
            self._write("\n")
            return
        # A line with a whole state is a few KB; encoding it into the stream piece by piece
        # needs no block that big, which a fragmented heap may not have.
        try:
            json.dump(obj, self._stream)
        finally:
            self._write("\n")  # even after a failure, the next line starts clean

    def event(self, name, fields):
        fields["event"] = name
        self.send(fields)

    def feed(self, byte):
        """Takes one received byte; answers the line when it is complete."""
        line = self.reader.feed(byte)
        if line is not None:
            self.send(self.answer(line))

    def answer(self, line):
        """The answer dict for one line (bytes, or TOO_LONG)."""
        if line is TOO_LONG:
            return _error(None, TOO_LONG_CODE,
                          "The line was longer than %d bytes and was ignored." % MAX_LINE)
        try:
            req = json.loads(str(line, "utf-8"))
        except (ValueError, UnicodeError):
            # UnicodeError subclasses ValueError on CPython but not on MicroPython.
            return _error(None, BAD_JSON, "The line is not a JSON object; send one per line.")
        if not isinstance(req, dict):
            return _error(None, BAD_REQUEST, "A request must be a JSON object with a \"cmd\".")
        rid = _clean(req.get("id"))
        cmd = req.get("cmd")
        if cmd is None:
            return _error(rid, BAD_REQUEST, "The request has no \"cmd\".")
        if not isinstance(cmd, str):
            return _error(rid, BAD_REQUEST, "\"cmd\" must be a string naming a command.")
        handler = self.commands.get(cmd)
        if handler is None:
            return _error(rid, UNKNOWN_CMD, "There is no command %s; send hello for the list."
                          % json.dumps(cmd[:40]))
        try:
            result = handler(req)
        except CommandError as e:
            return _error(rid, e.code, e.message)
        except Exception as e:  # the board must stay up; the app decides how to report it
            if self._on_error:
                self._on_error(e)
            return _error(rid, INTERNAL, "The board hit an internal error (%s); send state "
                          "to see where the game stands." % type(e).__name__)
        answer = {"id": rid, "ok": True}
        if result:
            for k in result:
                answer[k] = result[k]
        return answer


def _error(rid, code, message):
    return {"id": rid, "ok": False, "error": {"code": code, "message": message}}


def need_int(req, key, low, high, default=None):
    """The integer argument key of a request, checked against low..high (else bad_request)."""
    v = req.get(key, default)
    if isinstance(v, bool) or not isinstance(v, int) or not low <= v <= high:
        if key not in req and default is None:
            raise CommandError(BAD_REQUEST, "The request needs \"%s\", a number from %d to %d."
                               % (key, low, high))
        raise CommandError(BAD_REQUEST, "\"%s\" must be a number from %d to %d, got %s."
                           % (key, low, high, json.dumps(v)[:40]))
    return v
