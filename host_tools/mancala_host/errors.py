"""The one root of every fault a person sees: `MancalaError`, told in one clear sentence.

Every module of the host tool raises a subclass for anything a person can cause or fix:
`BoardError` for the board, its line and its files (a missing port, a silent board, a bad log
line), `UsageError` (sim/errors.py) for the virtual board's arguments and setup, and the
hub's checks of a tournament (hub/tournament.py). `cli.main` is the one place that turns each
into its sentence on stderr and its exit status, so nobody ever sees a traceback.
"""

from __future__ import annotations

import sys
from typing import Any


class MancalaError(Exception):
    """A fault with a message meant for a person: one sentence. `exit_code` is what the CLI
    returns, `prefix` what it says before the sentence (the command that speaks, if any)."""

    exit_code = 1
    prefix = ""

    def __init__(self, message: str, exit_code: int | None = None) -> None:
        Exception.__init__(self, message)
        if exit_code is not None:
            self.exit_code = exit_code


def say(exc: MancalaError) -> int:
    """The one way a fault ends a command: its sentence on stderr, after its prefix, and its
    exit status returned. cli.main ends every command so, and the other entry point (make
    firmware's image build) too."""
    print(exc.prefix + str(exc), file=sys.stderr)
    return exc.exit_code


class BoardError(MancalaError):
    """A fault of the board, its line or its files (logs, images, profiles)."""


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
