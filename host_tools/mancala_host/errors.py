"""The one exception a person sees: a fault told in one clear sentence.

Every module of the host tool raises `BoardError` (or a subclass) for anything a person can
cause or fix: a missing port, a silent board, a bad log line. `cli.main` prints its message
and exits non-zero, so nobody ever sees a traceback.
"""

from __future__ import annotations

from typing import Any


class BoardError(Exception):
    """A fault with a message meant for a person. `exit_code` is what the CLI returns."""

    exit_code = 1

    def __init__(self, message: str, exit_code: int | None = None) -> None:
        Exception.__init__(self, message)
        if exit_code is not None:
            self.exit_code = exit_code


class PortLost(BoardError):
    """The serial line went away under us (board unplugged, sim killed)."""

    exit_code = 3


class BoardRefused(BoardError):
    """The board answered `ok: false`; `code` and `message` are the board's own words."""

    exit_code = 2

    def __init__(self, code: str, message: str, answer: dict[str, Any] | None = None) -> None:
        BoardError.__init__(self, "The board refused (%s): %s" % (code, message))
        self.code = code
        self.board_message = message
        self.answer = answer or {}
