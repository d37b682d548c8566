"""The virtual board's one error for a person: bad arguments or a setup that cannot run (a
missing image, a pty link in use). The launcher (`mancala-board sim`) says its message in
one sentence and exits; every part of the sim raises it, so none of them needs the launcher.
"""


class UsageError(Exception):
    """Bad arguments or setup: the message is one sentence for a person."""
