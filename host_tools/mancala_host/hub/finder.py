"""The boards to hold: every serial port with a board's USB ID (MicroPython on an RP2040,
CircuitPython on a Pico: transport.BOARD_IDS), and the ports given with --port.

A board is known by a key that survives a replug: its USB serial number (a Pico's is its flash
chip's unique ID), else the device path; a --port board by its path; each made safe for a URL
and a file name.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Iterable

from ..link.transport import BOARD_IDS


def usb_boards(list_ports: Callable[[], Iterable[Any]] | None = None) -> dict[str, str]:
    """{key: device} for every board on USB now."""
    if list_ports is None:
        from serial.tools import list_ports as lp

        list_ports = lp.comports
    found = {}
    for p in list_ports():
        if (p.vid, p.pid) in BOARD_IDS:
            found[slug("usb-" + (p.serial_number or p.device))] = p.device
    return found


def slug(text: str) -> str:
    """A key that goes into a URL and a file name as it is."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_.") or "board"


def given_boards(ports: Iterable[str]) -> dict[str, str]:
    """{key: port} for the --port boards, in the order given."""
    return {slug(port): port for port in ports}
