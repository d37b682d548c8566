"""SHA-256 of files, and the sums a SHA256SUMS file lists (`sha256sum`'s format), for the
images and source archives the sim and the image build check before they use them."""

from __future__ import annotations

import hashlib


def file_sha256(path: str) -> str:
    """The file's SHA-256, hex, read in blocks."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def listed_sha256(lines: list[str], name: str) -> str | None:
    """The sum SHA256SUMS lines list for the file name (lower case), or None."""
    for line in lines:
        parts = line.split()
        if len(parts) == 2 and parts[1].lstrip("*") == name:
            return parts[0].lower()
    return None
