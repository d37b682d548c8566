"""Atomic JSON files on the board's flash (littlefs on the Pico, the sim's flash directory);
on CircuitPython the same three calls keep them in nvm instead (storage/slots.py says why).

save() writes a temporary file and renames it over the old one, so a power cut leaves either
the old file or the new one, never a half-written one. load() never raises: a missing file is
(None, None); an unreadable or corrupt one is (None, "<one sentence saying so>"), so the caller
can report it and fall back to defaults without stopping the boot.

Both stream the JSON to and from the file rather than through one string of the whole
document: a saved game late in a long game is a few KB, and on a fragmented heap one block
that size may not be there when many small ones are.
"""

import json
import os

KEPT = 4  # finished games kept (app.finished): files on littlefs, a few KB each at most


def save(path, obj):
    """Writes obj as JSON to path atomically. Raises OSError if the flash cannot be written."""
    tmp = path + ".tmp"
    f = open(tmp, "w")
    try:
        json.dump(obj, f)  # a failure here leaves the old file: the rename never happens
    finally:
        f.close()
    # rename() replaces the old file in one step on littlefs and POSIX alike.
    os.rename(tmp, path)


def load(path, kind="mancala"):
    """Returns (obj, problem). obj is the parsed JSON object, or None."""
    try:
        f = open(path)
    except OSError as e:
        if e.args and e.args[0] == 2:  # ENOENT: nothing saved yet
            return None, None
        return None, "%s could not be opened; defaults are used." % path
    try:
        try:
            obj = json.load(f)
        finally:
            f.close()
    except (OSError, ValueError, UnicodeError, MemoryError):
        return None, "%s could not be read (corrupt); it was replaced by defaults." % path
    return checked(obj, path, kind)


def checked(obj, path, kind):
    """(obj, None) if obj is a saved file of this kind, else (None, a sentence)."""
    if not isinstance(obj, dict) or obj.get("format") != kind:
        return None, "%s is not a %s file; it was replaced by defaults." % (path, kind)
    return obj, None


def remove(path):
    """Deletes path if it exists. Raises OSError, as save does, if the flash does not let it
    go; the caller says so as it says a failed save."""
    try:
        os.remove(path)
    except OSError as e:
        if not e.args or e.args[0] != 2:  # ENOENT: nothing to remove
            raise


def _circuitpython_nvm():
    try:
        import microcontroller  # type: ignore[import-not-found]  # CircuitPython only
    except ImportError:
        return False
    return getattr(microcontroller, "nvm", None) is not None


if _circuitpython_nvm():
    from .slots import save, load, remove, KEPT  # noqa: F811
