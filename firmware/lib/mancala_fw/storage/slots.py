"""Saves on CircuitPython: the same save/load/remove as storage's files, kept in
microcontroller.nvm instead of the flash filesystem.

CircuitPython's CIRCUITPY drive belongs to the computer while USB is connected: code can
write it only after boot.py remounts it, and then the computer cannot (a teacher could no
longer copy the firmware or edit a profile). So the saved files live together in nvm (4 KiB)
as one JSON object {path: obj}, written whole into one of two 2 KiB slots, the one not
holding the newest copy. A slot is a header (magic, sequence number, length, CRC-32) and the
JSON. load picks the valid slot with the newest sequence number, so a slot written only in
part is passed over for the other one. save returns only after the slot is written and read
back, so an acknowledged change is in nvm.

On the Pico nvm is one 4 KiB flash sector (flash offset 0xFF000, between CircuitPython and
its drive), and CircuitPython stores any change to it by erasing the whole sector and
programming it again from its start. A power cut after the answer loses nothing; a cut
during the erase, or while the first slot is programmed again, can leave neither slot
readable, and the board then starts with defaults and says so.
"""

import json
from binascii import crc32

SLOT = 2048
HEADER = 12  # b"MNCL", sequence (2 bytes), length (2 bytes), CRC-32 of the JSON (4 bytes)
MAGIC = b"MNCL"
_ENOSPC = 28
_EIO = 5

_nvm = None
_files = None  # type: dict | None  # {path: obj}, the newest valid slot's content
_slot = -1  # the slot holding it (-1: none yet)
_seq = 0
_problem = None  # a sentence when nvm held slots that could not be read


def _memory():
    global _nvm
    if _nvm is None:
        import microcontroller

        _nvm = microcontroller.nvm
    return _nvm


def _read(slot):
    """(sequence, files) of a valid slot, or None."""
    nvm = _memory()
    base = slot * SLOT
    head = nvm[base:base + HEADER]
    if head[0:4] != MAGIC:
        return None
    seq = head[4] | head[5] << 8
    n = head[6] | head[7] << 8
    check = head[8] | head[9] << 8 | head[10] << 16 | head[11] << 24
    if n > SLOT - HEADER:
        return None
    body = nvm[base + HEADER:base + HEADER + n]
    if crc32(body) & 0xFFFFFFFF != check:
        return None
    try:
        files = json.loads(body)
    except ValueError:
        return None
    return (seq, files) if isinstance(files, dict) else None


def _newer(a, b):
    return ((a - b) & 0xFFFF) < 0x8000


def _open():
    global _files, _slot, _seq, _problem
    files = _files
    if files is not None:
        return files
    best = None
    for slot in (0, 1):
        got = _read(slot)
        if got is not None and (best is None or _newer(got[0], best[1])):
            best = (slot, got[0], got[1])
    if best is None:
        files = dict()
        nvm = _memory()
        if nvm[0:4] == MAGIC or nvm[SLOT:SLOT + 4] == MAGIC:
            _problem = "The saves in nvm could not be read (corrupt); defaults are used."
    else:
        _slot, _seq, files = best
    _files = files
    return files


def save(path, obj):
    """Stores obj under path. Raises OSError if it does not fit or nvm does not take it."""
    files = _open()
    had = path in files
    old = files.get(path)
    files[path] = obj
    try:
        _write(files)
    except BaseException:
        if had:
            files[path] = old
        else:
            files.pop(path, None)
        raise


def _write(files):
    global _slot, _seq
    body = json.dumps(files).encode()
    n = len(body)
    if n > SLOT - HEADER:
        raise OSError(_ENOSPC)
    seq = (_seq + 1) & 0xFFFF
    slot = 1 - _slot if _slot >= 0 else 0
    check = crc32(body) & 0xFFFFFFFF
    block = bytearray(HEADER + n)
    block[0:4] = MAGIC
    block[4] = seq & 0xFF
    block[5] = seq >> 8
    block[6] = n & 0xFF
    block[7] = n >> 8
    for i in range(4):
        block[8 + i] = (check >> (8 * i)) & 0xFF
    block[HEADER:] = body
    nvm = _memory()
    base = slot * SLOT
    nvm[base:base + HEADER + n] = block  # one erase-and-write of the nvm sector
    if nvm[base:base + HEADER + n] != block:
        raise OSError(_EIO)
    _slot = slot
    _seq = seq


def load(path, kind="mancala"):
    """(obj, problem) as storage.load, with its format check."""
    global _problem
    from mancala_fw.storage import checked

    files = _open()
    if _problem is not None:
        problem, _problem = _problem, None
        return None, problem
    obj = files.get(path)
    if obj is None:
        return None, None
    return checked(obj, path, kind)


def remove(path):
    files = _open()
    if path in files:
        del files[path]
        try:
            _write(files)
        except OSError:
            pass
