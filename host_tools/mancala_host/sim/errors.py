"""The virtual board's one error for a person: bad arguments or a setup that cannot run (a
missing image, a pty link in use). Every part of the sim raises it, so none of them needs the
launcher; `mancala-board` (cli.main) says it as `mancala-board sim: ...` and exits with 2,
as it says every fault under the one root in errors.py.
"""

from ..errors import MancalaError


class UsageError(MancalaError):
    """Bad arguments or setup: the message is one sentence for a person."""

    exit_code = 2
    prefix = "mancala-board sim: "
