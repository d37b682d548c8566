"""The board side of the serial protocol (docs/protocol.md): requests in, answers and events out.

Protocol knows JSON lines, request ids and error codes, and nothing of Mancala: the app gives
it a table that maps each command name to a handler. A handler takes the request dict and
returns the answer's fields, or raises CommandError(code, message), or returns LATER: then
the app answers the request itself later (hint, whose search runs in slices), by sending
reply(request_id(req), fields) or error(...) through event(None, answer). Bad input of
any kind is answered with an error and never reaches a handler half-read.
"""

import json

from mancala_fw.protocol.lines import LineReader, TOO_LONG, MAX_LINE

PROTOCOL_VERSION = 2

# Stable error codes (docs/protocol.md §3).
TOO_LONG_CODE = "too_long"
BAD_JSON = "bad_json"
BAD_REQUEST = "bad_request"
UNKNOWN_CMD = "unknown_cmd"
ILLEGAL_MOVE = "illegal_move"
NOTHING_TO_UNDO = "nothing_to_undo"
BAD_CONFIG = "bad_config"
INTERNAL = "internal"
HINT_DROPPED = "hint_dropped"
UNKNOWN_GAME = "unknown_game"

LATER = object()  # a handler's result when the app sends the answer later (see above)


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


class _Dict(dict):
    pass


try:
    json.dumps(_Dict())
    _PLAIN_ONLY = False
except TypeError:  # CircuitPython's json takes no dict subclass (the engine's Record is one)
    _PLAIN_ONLY = True


def plain(obj):
    """obj with each dict subclass inside it as a plain dict; containers without one are
    returned as they are."""
    if isinstance(obj, dict):
        items = [(k, plain(v)) for k, v in obj.items()]
        if type(obj) is not dict or any(v is not obj[k] for k, v in items):
            return dict(items)
        return obj
    if isinstance(obj, list):
        values = [plain(v) for v in obj]
        return values if any(a is not b for a, b in zip(values, obj)) else obj
    return obj


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
        if _PLAIN_ONLY:
            obj = plain(obj)
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
        if name is not None:  # None: fields is a deferred answer, sent as it is
            fields["event"] = name
        self.send(fields)

    def feed(self, byte):
        """Takes one received byte; answers the line when it is complete."""
        line = self.reader.feed(byte)
        if line is not None:
            answer = self.answer(line)
            if answer is not None:  # None: the handler answers later (LATER)
                self.send(answer)

    def answer(self, line):
        """The answer dict for one line (bytes, or TOO_LONG); None if it comes LATER."""
        if line is TOO_LONG:
            return error(None, TOO_LONG_CODE,
                         "The line was longer than %d bytes and was ignored." % MAX_LINE)
        try:
            req = json.loads(str(line, "utf-8"))
        except (ValueError, UnicodeError):
            # UnicodeError subclasses ValueError on CPython but not on MicroPython.
            return error(None, BAD_JSON, "The line is not a JSON object; send one per line.")
        if not isinstance(req, dict):
            return error(None, BAD_REQUEST, "A request must be a JSON object with a \"cmd\".")
        rid = request_id(req)
        cmd = req.get("cmd")
        if cmd is None:
            return error(rid, BAD_REQUEST, "The request has no \"cmd\".")
        if not isinstance(cmd, str):
            return error(rid, BAD_REQUEST, "\"cmd\" must be a string naming a command.")
        handler = self.commands.get(cmd)
        if handler is None:
            return error(rid, UNKNOWN_CMD, "There is no command %s; send hello for the list."
                         % json.dumps(cmd[:40]))
        try:
            result = handler(req)
            if result is LATER:
                return None
        except CommandError as e:
            return error(rid, e.code, e.message)
        except Exception as e:  # the board must stay up; the app decides how to report it
            if self._on_error:
                self._on_error(e)
            return error(rid, INTERNAL, "The board hit an internal error (%s); send state "
                         "to see where the game stands." % type(e).__name__)
        return reply(rid, result)


def request_id(req):
    """The id to answer a request dict with."""
    return _clean(req.get("id"))


def reply(rid, fields):
    """A successful answer line (dict) with the answer's fields."""
    answer = {"id": rid, "ok": True}
    if fields:
        for k in fields:
            answer[k] = fields[k]
    return answer


def error(rid, code, message):
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
