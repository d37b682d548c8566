"""Opening the board for a command: transport, client, hello; and closing it again.

Tests replace `open_transport` (module attribute) to hand the CLI a fake port.
"""

import contextlib

from . import transport as _transport
from .client import Client

# The factory the CLI uses; tests swap it for one returning a scripted fake.
open_transport = _transport.open_transport


@contextlib.contextmanager
def connect(args):
    """A Client on args.port (or the board found by USB ID) that has said hello."""
    client = open_client(getattr(args, "port", None), getattr(args, "timeout", 5.0))
    try:
        yield client
    finally:
        client.close()


def open_client(port, timeout=5.0):
    line = open_transport(port)
    client = Client(line, timeout=timeout)
    try:
        client.hello()
    except BaseException:
        client.close()
        raise
    return client
