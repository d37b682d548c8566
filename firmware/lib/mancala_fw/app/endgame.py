"""Where the board's endgame tables come from: find(rules) gives the mancala.endgame.Table for
a game's rules, or None, from two sources in this order:

1. files in the flash's tables/ folder (tables/kalah-N.bin, tables/kalah-empty-capture-N.bin,
   as `make tables` names them and `make deploy` copies them); the file is kept open and read
   a byte a probe. Of several for the same rules, the one covering the most stones is used.
2. the frozen module mancala_tables of the firmware image: its attributes kalah and
   kalah_empty_capture each hold a whole table file as bytes, which stay in the image's flash
   and are indexed in place.

The engine reads the bytes (mancala.endgame); this module does the I/O, which the engine
keeps out of. A table that is missing, unreadable or of another format leaves the board
playing by its search alone: find() then gives None and, for a file that is there but
unusable, one sentence the app logs quietly (level "info").
"""

import os

from mancala.endgame import Table, NAMES, rules_byte

FOLDER = "tables"


def find(rules, flash=""):
    """(table or None, a sentence for the log or None)."""
    byte = rules_byte(rules)
    if byte is None:
        return None, None
    name = NAMES[byte]
    table, note = _from_files(flash + FOLDER, name, byte)
    if table is None:
        table = _frozen(name, byte)
    return table, note


def _stones(filename, name):
    # "kalah-10.bin" -> 10 for name "kalah"; None for any other name
    # ("kalah-empty-capture-10.bin" is not a "kalah" table: its middle is not a number).
    head = name + "-"
    if not (filename.startswith(head) and filename.endswith(".bin")):
        return None
    middle = filename[len(head):-4]
    return int(middle) if middle.isdigit() else None


def _from_files(folder, name, byte):
    try:
        names = os.listdir(folder)
    except OSError:
        return None, None  # no tables/ folder: nothing to say
    best = None
    note = None
    for filename in names:
        if _stones(filename, name) is None:
            continue
        path = folder + "/" + filename
        f = None
        try:
            f = open(path, "rb")
            table = Table(f)
            if table.rules != byte:
                raise ValueError("its header names other capture rules")
        except (OSError, ValueError) as e:
            if f is not None:
                f.close()
            note = "%s is not used: %s; the CPU plays without it." % (path, e)
            continue
        if best is None or table.stones > best.stones:
            if best is not None:
                best.close()
            best = table
        else:
            f.close()
    return best, None if best is not None else note


def _frozen(name, byte):
    try:
        import mancala_tables  # type: ignore[import-not-found]  # only in the firmware image
    except ImportError:
        return None
    data = getattr(mancala_tables, name.replace("-", "_"), None)
    if data is None:
        return None
    try:
        table = Table(data)
    except (ValueError, TypeError, AttributeError):  # not a table, or not bytes at all
        return None
    return table if table.rules == byte else None
