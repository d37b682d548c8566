"""Key map of the virtual board: which key touches which pad, and the touch lines it sends.

One rule covers every profile: each side of the board is one keyboard row, in sowing order,
and the key after a side's pits is that side's store.

    side 0: 1 2 3 4 5 6 7 | 8      (duo: 7 pits, store 8; quad: pits 1-6, store 7)
    side 1: q w e r t y u | i      (quad: pits q-y, store u)
    side 2: a s d f g h | j        (quad only)
    side 3: z x c v b n | m        (quad only)

A key press is a short touch (touch, then release after SHORT_S). A capital letter, or Space
followed by any pad key, is a long press (release after LONG_S), because a terminal reports
no key-up.  The touch lines follow docs/architecture.md section 4:
`<addr-hex> <electrode> <1|0>`.
"""

from __future__ import annotations

from typing import Any


KEY_ROWS = ("1234567890", "qwertyuiop", "asdfghjkl;", "zxcvbnm,./")
SHORT_S = 0.12
LONG_S = 1.5
LONG_PREFIX = " "


def position_ids(profile: dict[str, Any]) -> list[list[str]]:
    """The profile's physical positions of each side in sowing order, store last."""
    sides = []
    for side in range(profile["sides"]):
        ids = ["%d.%d" % (side, pit) for pit in range(1, profile["pits_per_side"] + 1)]
        ids.append("%d.S" % side)
        sides.append(ids)
    return sides


def key_map(profile: dict[str, Any]) -> dict[str, str]:
    """Map each key to a physical position id ("0.3", "1.S") for this profile.

    Raises ValueError when the profile has more sides or pits than the keyboard has rows or
    keys, with a sentence that says which.
    """
    sides = position_ids(profile)
    if len(sides) > len(KEY_ROWS):
        raise ValueError("the profile has %d sides but the key map has only %d keyboard rows"
                         % (len(sides), len(KEY_ROWS)))
    keys = {}
    for side, ids in enumerate(sides):
        row = KEY_ROWS[side]
        if len(ids) > len(row):
            raise ValueError("side %d has %d pads but keyboard row %r has only %d keys"
                             % (side, len(ids), row, len(row)))
        for index, pid in enumerate(ids):
            keys[row[index]] = pid
    return keys


def keys_by_position(profile: dict[str, Any]) -> dict[str, str]:
    """The inverse of key_map: position id -> key."""
    return {pid: key for key, pid in key_map(profile).items()}


def touch_line(profile: dict[str, Any], pid: str, touched: bool) -> str:
    """The MANCALA_SIM_TOUCH line that touches (or releases) the pad of position pid."""
    pad = profile["positions"][pid]["pad"]
    return "%x %d %d\n" % (int(str(pad["chip"]), 16), pad["electrode"], 1 if touched else 0)


def chip_line(address: int, present: bool) -> str:
    """The MANCALA_SIM_TOUCH line that unplugs (present False) or replugs an MPR121."""
    return "chip %x %s\n" % (address, "on" if present else "off")


class KeyReader:
    """Turns typed characters into pad presses: (position id, hold seconds) or a command.

    feed(char) returns ("press", pid, seconds), ("quit",), ("long-armed",) or None.
    """

    def __init__(self, profile):
        self.keys = key_map(profile)
        self.long_armed = False

    def feed(self, char: str) -> tuple[Any, ...] | None:
        if char in ("\x03", "\x04", "\x1b"):
            return ("quit",)
        if char == LONG_PREFIX:
            self.long_armed = not self.long_armed
            return ("long-armed",) if self.long_armed else ("long-cancelled",)
        long_press = self.long_armed
        key = char
        if char.isalpha() and char.isupper():
            key = char.lower()
            long_press = True
        pid = self.keys.get(key)
        if pid is None:
            return None
        self.long_armed = False
        return ("press", pid, LONG_S if long_press else SHORT_S)


def describe(profile: dict[str, Any]) -> list[str]:
    """The key map in short, one entry per side: "side 0: 1-7, store 8"."""
    out = []
    for side, ids in enumerate(position_ids(profile)):
        row = KEY_ROWS[side]
        pits, store = row[:len(ids) - 1], row[len(ids) - 1]
        out.append("side %d: %s-%s, store %s" % (side, pits[0], pits[-1], store))
    return out
