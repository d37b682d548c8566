"""Opening the board for a command: transport, client, hello; and closing it again.

Tests replace `open_transport` (module attribute) to hand the CLI a fake port.
"""

from __future__ import annotations

import argparse
import contextlib
import threading
import time
from typing import Iterator

from . import transport as _transport
from .client import Client
from ..errors import BoardError

# The factory the CLI uses; tests swap it for one returning a scripted fake.
open_transport = _transport.open_transport


@contextlib.contextmanager
def connect(args: argparse.Namespace) -> Iterator[Client]:
    """A Client on args.port (or the board found by USB ID) that has said hello."""
    client = open_client(getattr(args, "port", None), getattr(args, "timeout", 5.0))
    try:
        yield client
    finally:
        client.close()


def open_client(port: str | None, timeout: float = 5.0) -> Client:
    line = open_transport(port)
    client = Client(line, timeout=timeout)
    try:
        client.hello()
    except BaseException:
        client.close()
        raise
    return client


def reopen(port: str | None, timeout: float = 5.0,
           stop: threading.Event | None = None) -> Client | None:
    """Opens the board on port again after it went away (cable bumped, sim restarted), trying
    a few times a second: a live view should wait for it, not die. Returns the client, or None
    once stop (a threading.Event) is set. Ctrl-C ends the wait as usual."""
    while stop is None or not stop.is_set():
        try:
            return open_client(port, timeout)
        except BoardError:
            if stop is None:
                time.sleep(0.3)
            else:
                stop.wait(0.3)
    return None
