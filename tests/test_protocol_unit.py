"""The protocol layer alone (CPython): line limits, answers, and an unexpected error in a
handler, which is answered `internal`, reported, and leaves the line usable."""
import json

from mancala_fw.protocol import Protocol, CommandError, need_int
from mancala_fw.protocol.lines import LineReader, TOO_LONG


def _feed(reader, data):
    out = []
    for byte in data:
        line = reader.feed(byte)
        if line is not None:
            out.append(line)
    return out


def test_line_reader_limits_and_cr():
    r = LineReader(8)
    assert _feed(r, b"abc\r\n12345678\n123456789\n\n") == [b"abc", b"12345678", TOO_LONG, b""]
    # a too-long line keeps nothing: the next line is whole and clean
    assert _feed(r, b"x" * 10000 + b"\nok\n") == [TOO_LONG, b"ok"]
    assert r.pending() == 0
    assert _feed(r, b"12345678\r\n") == [b"12345678"]  # the CR does not count


def test_handler_crash_is_answered_internal_and_reported():
    sent = []
    seen = []

    def boom(req):
        raise ZeroDivisionError("x")

    def fine(req):
        return {"n": need_int(req, "n", 1, 3)}

    def refuse(req):
        raise CommandError("illegal_move", "No.")

    p = Protocol(sent.append, {"boom": boom, "fine": fine, "refuse": refuse}, seen.append)
    for line in (b'{"id": 1, "cmd": "boom"}\n', b'{"id": 2, "cmd": "fine", "n": 2}\n',
                 b'{"id": 3, "cmd": "fine", "n": 9}\n', b'{"id": 4, "cmd": "refuse"}\n'):
        for byte in line:
            p.feed(byte)
    sent = "".join(sent).splitlines(keepends=True)
    answers = [json.loads(s) for s in sent]
    assert [a["id"] for a in answers] == [1, 2, 3, 4]
    assert answers[0]["error"]["code"] == "internal"
    assert "ZeroDivisionError" in answers[0]["error"]["message"]
    assert len(seen) == 1 and isinstance(seen[0], ZeroDivisionError)
    assert answers[1] == {"id": 2, "ok": True, "n": 2}
    assert answers[2]["error"]["code"] == "bad_request" and "from 1 to 3" in \
        answers[2]["error"]["message"]
    assert answers[3]["error"] == {"code": "illegal_move", "message": "No."}
    assert all(s.endswith("\n") and s.count("\n") == 1 for s in sent)
