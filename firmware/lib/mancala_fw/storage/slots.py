"""Saves on CircuitPython: the same save/load/remove as storage's files, kept in
microcontroller.nvm as a log of records instead of on the flash filesystem.

CircuitPython's CIRCUITPY drive belongs to the computer while USB is connected: code can
write it only after boot.py remounts it, and then the computer cannot. So saves live in nvm,
which on the Pico is one 4 KiB flash sector. CircuitPython 9 writes an nvm slice in one of
two ways: if every byte it replaces is still erased (0xFF) it programs just the 256-byte
pages the slice touches; otherwise it erases the whole sector and programs all of it again,
and a power cut in between loses everything in it. So a save never overwrites: it appends
one record into the erased tail, which costs no erase, and the older records stay intact
beside it until the new one is whole. Only when the tail has no room left does a save
compact: it writes the newest record of every file, its own first, over the whole sector
(one erase). docs/storage.md has the layout, the figures and the remaining risk.

A record is "Mr", the length of path + JSON (2 bytes, little-endian), the length of the
path (1 byte), the path, the JSON, and a CRC-32 of everything after "Mr" (4 bytes, little-
endian). An append writes the CRC last, in its own write after the rest is programmed: a
record cut short fails it and is passed over for the file's older record. A record with no
JSON removes its file. The newest record of a file is the last valid one in the sector.

save returns only after the record is in nvm and read back, so an acknowledged save is
stored. An append writes the JSON text from where json.dumps made it, with the header and
CRC from two small buffers made once: a save allocates its JSON text and nothing the size of
it besides. Reading the sector (at the first use) and a compaction take a 4 KiB buffer for
as long as they run.

A sector written by the earlier layout (two 2 KiB slots, "MNCL", newest sequence number
wins) is read as it was, and the first save then compacts it into records.
"""

import json
from binascii import crc32

SECTOR = 4096
KEPT = 1  # finished games kept (app.finished): the settings, the game and one fit the sector
HEAD = 5  # "Mr", the length of path + JSON (2 bytes), the length of the path (1 byte)
TAIL = 4  # CRC-32
M0 = 0x4D  # "M"
M1 = 0x72  # "r"
OLD_SLOT = 2048  # the earlier layout: two slots of a 12-byte header and the JSON
OLD_HEADER = 12
OLD_MAGIC = b"MNCL"
SEPARATORS = (",", ":")
_ENOSPC = 28
_EIO = 5

_nvm = None
_head = bytearray(HEAD)  # an append's header
_tail = bytearray(TAIL)  # and its CRC
_files = None  # type: dict | None  # {path: obj}: each file's newest record
_free = 0  # where the erased tail starts: the next record goes there
_torn = False  # the sector holds bytes that are no valid record (a write cut short)


def _memory():
    global _nvm
    if _nvm is None:
        import microcontroller

        _nvm = microcontroller.nvm
    return _nvm


def _raw(text):
    """text's UTF-8 bytes without a copy where the interpreter allows it."""
    try:
        return memoryview(text)  # MicroPython and CircuitPython: a str is a buffer
    except TypeError:
        return text.encode()  # CPython


def _record(buf, at, files):
    """Reads the record at `at` into files; returns its size, or 0 if there is none."""
    if buf[at] != M0 or buf[at + 1] != M1 or at + HEAD + TAIL > SECTOR:
        return 0
    n = buf[at + 2] | buf[at + 3] << 8
    plen = buf[at + 4]
    end = at + HEAD + n
    if plen > n or end + TAIL > SECTOR:
        return 0
    check = buf[end] | buf[end + 1] << 8 | buf[end + 2] << 16 | buf[end + 3] << 24
    if crc32(memoryview(buf)[at + 2:end]) & 0xFFFFFFFF != check:
        return 0
    path = bytes(buf[at + HEAD:at + HEAD + plen]).decode()
    if plen == n:
        files.pop(path, None)
    else:
        try:
            files[path] = json.loads(buf[at + HEAD + plen:end])
        except ValueError:
            return 0
    return end + TAIL - at


def _old_slots(buf, files):
    """The earlier two-slot layout's newest valid slot into files; True if one was."""
    best = -1
    for base in (0, OLD_SLOT):
        if buf[base:base + 4] != OLD_MAGIC:
            continue
        seq = buf[base + 4] | buf[base + 5] << 8
        n = buf[base + 6] | buf[base + 7] << 8
        check = buf[base + 8] | buf[base + 9] << 8 | buf[base + 10] << 16 | buf[base + 11] << 24
        body = buf[base + OLD_HEADER:base + OLD_HEADER + n]
        if n > OLD_SLOT - OLD_HEADER or crc32(body) & 0xFFFFFFFF != check:
            continue
        try:
            got = json.loads(body)
        except ValueError:
            continue
        if isinstance(got, dict) and (best < 0 or ((seq - best) & 0xFFFF) < 0x8000):
            best = seq
            files.clear()
            files.update(got)
    return best >= 0


def _open():
    global _files, _free, _torn
    files = _files
    if files is not None:
        return files
    buf = _memory()[0:SECTOR]  # a bytearray, garbage once read
    files = dict()
    torn = False
    at = 0
    free = 0
    while at < SECTOR:
        if buf[at] == 0xFF:
            at += 1
            continue
        size = _record(buf, at, files)
        if size:
            at += size
            free = at
        else:
            torn = True
            at += 1
            free = at
    if torn and not files and _old_slots(buf, files):
        torn = False
        free = SECTOR  # not appended to: the first save compacts it into records
    _files = files
    _free = free
    _torn = torn
    return files


def _header(buf, at, plen, n):
    buf[at] = M0
    buf[at + 1] = M1
    buf[at + 2] = n & 0xFF
    buf[at + 3] = n >> 8
    buf[at + 4] = plen


def _crc(buf, at, check):
    for i in range(4):
        buf[at + i] = (check >> (8 * i)) & 0xFF


def _put(buf, at, path, text):
    """Writes path's record into buf at `at` (a compaction); returns where it ends.
    OSError(ENOSPC) if the sector cannot hold it there."""
    p = _raw(path)
    body = _raw(text)
    plen = len(p)
    n = plen + len(body)
    end = at + HEAD + n
    if plen > 255 or end + TAIL > SECTOR:
        raise OSError(_ENOSPC)
    _header(buf, at, plen, n)
    buf[at + HEAD:at + HEAD + plen] = p
    buf[at + HEAD + plen:end] = body
    _crc(buf, end, crc32(memoryview(buf)[at + 2:end]) & 0xFFFFFFFF)
    return end + TAIL


def _store(at, data):
    """nvm[at:at + len(data)] = data, checked by reading it back; returns where it ends."""
    nvm = _memory()
    n = len(data)
    nvm[at:at + n] = data
    for i in range(n):
        if nvm[at + i] != data[i]:
            raise OSError(_EIO)
    return at + n


def _append(path, text):
    """path's record (text None: its removal) into the erased tail, or a compaction."""
    global _free
    p = _raw(path)
    body = _raw(text) if text is not None else b""
    plen = len(p)
    n = plen + len(body)
    if plen > 255 or HEAD + n + TAIL > SECTOR:
        raise OSError(_ENOSPC)
    at = _free
    if at + HEAD + n + TAIL > SECTOR:
        _compact(path, text)
        return
    head = _head
    _header(head, 0, plen, n)
    check = crc32(memoryview(head)[2:HEAD])
    check = crc32(p, check)
    check = crc32(body, check) & 0xFFFFFFFF
    _crc(_tail, 0, check)
    _free = at + HEAD + n + TAIL  # read back right or not, these bytes are no longer erased
    # Each write lands in erased space (CircuitPython programs pages, no erase); the CRC
    # goes last, so a record is valid only once all of it is programmed.
    at = _store(at, head)
    at = _store(at, p)
    at = _store(at, body)
    _store(at, _tail)


def _compact(path, text):
    """One erase: the sector becomes path's new record, then every other file's newest."""
    global _free, _torn
    files = _open()
    buf = bytearray(b"\xff") * SECTOR
    end = _put(buf, 0, path, text) if text is not None else 0
    for other in files:
        if other != path:
            end = _put(buf, end, other, json.dumps(files[other], separators=SEPARATORS))
    _free = SECTOR  # until it is read back right: the next save compacts again
    _store(0, buf)  # not all erased: CircuitPython erases the sector and programs it
    _free = end
    _torn = False


def save(path, obj):
    """Stores obj under path. Raises OSError if it does not fit or nvm does not take it.
    (The garbage of saves back to back is bounded by the app: app.heap.collect_if_due.)"""
    files = _open()
    _append(path, json.dumps(obj, separators=SEPARATORS))
    files[path] = obj


def load(path, kind="mancala"):
    """(obj, problem) as storage.load, with its format check."""
    from mancala_fw.storage import checked

    obj = _open().get(path)
    if obj is None:
        if _torn:
            return None, "%s could not be read from nvm (corrupt); it was replaced by " \
                         "defaults." % path
        return None, None
    return checked(obj, path, kind)


def remove(path):
    """Removes path's file (a record with no JSON); nothing to do if there is none. Raises
    OSError, as save does, if nvm does not take the record: the file is then still there,
    and the caller says so as it says a failed save."""
    files = _open()
    if path in files:
        _append(path, None)
        del files[path]
