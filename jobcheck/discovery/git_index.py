"""The paths git tracks, read from the repository's index file (never by running git: a
repository under review may configure commands git would run, such as an fsmonitor hook).

git ignores only untracked files: a tracked file under a folder a ``.gitignore`` pattern
matches (``tasks/`` in the root ``.gitignore`` also matches ``backend/app/tasks/``) is
still part of the project, and discovery keeps it.

Index format (git Documentation/gitformat-index.txt): a 12-byte header (``DIRC``, the
version, the number of entries), then per entry 40 bytes of stat data, the object id
(20 bytes for SHA-1), 16 bits of flags (the low 12 bits: the path's length, 0xFFF when
longer), 16 more bits of extended flags in version 3+ when the extended bit is set, and
the path: NUL-terminated and padded to a multiple of 8 bytes (versions 2 and 3), or
prefix-compressed against the previous path (version 4).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from jobcheck.discovery.repository import git_dir_of, work_tree_top
from jobcheck.guarded import read_bytes

_STAT_BYTES = 40
_SHA1_BYTES = 20
_EXTENDED = 0x4000
_NAME_MASK = 0x0FFF
_MAX_ENTRIES = 2_000_000
_MAX_INDEX_BYTES = 1 << 30


@dataclass(frozen=True)
class Tracked:
    """The tracked files of a work tree, relative to its top, and the folders they are in."""

    top: str
    files: frozenset[str]
    folders: frozenset[str]
    index: str
    """The index file's path (its signature tells when a walk's listings are stale)."""


def tracked(start: str) -> Tracked | None:
    """The tracked paths of the git work tree holding ``start``; None outside a work tree
    or when the index cannot be read (an unknown version, a split index, a damaged file)."""
    top = work_tree_top(Path(start))
    git_dir = git_dir_of(top) if top is not None else None
    if top is None or git_dir is None:
        return None
    index = git_dir / "index"
    try:
        data = read_bytes(index, limit=_MAX_INDEX_BYTES)
    except OSError:
        return None
    paths = _paths(data)
    if paths is None:
        return None
    folders = {"/".join(p.split("/")[:i]) for p in paths for i in range(1, p.count("/") + 1)}
    return Tracked(str(top), frozenset(paths), frozenset(folders), str(index))


def _paths(data: bytes) -> list[str] | None:
    if len(data) < 12 or data[:4] != b"DIRC":
        return None
    version = int.from_bytes(data[4:8], "big")
    count = int.from_bytes(data[8:12], "big")
    if version not in (2, 3, 4) or count > _MAX_ENTRIES:
        return None
    paths: list[str] = []
    offset, previous = 12, b""
    try:
        for _ in range(count):
            start = offset
            offset += _STAT_BYTES + _SHA1_BYTES
            flags = int.from_bytes(data[offset : offset + 2], "big")
            offset += 2
            if version >= 3 and flags & _EXTENDED:
                offset += 2
            if version == 4:
                strip, offset = _varint(data, offset)
                end = data.index(b"\0", offset)
                name = previous[: len(previous) - strip] + data[offset:end]
                offset = end + 1
            else:
                length = flags & _NAME_MASK
                end = offset + length if length < _NAME_MASK else data.index(b"\0", offset)
                name = data[offset:end]
                offset = start + ((end - start) // 8 + 1) * 8  # NUL padding to 8 bytes
            previous = name
            paths.append(os.fsdecode(name))
    except (ValueError, IndexError):
        return None
    if offset > len(data):
        return None
    return paths


def _varint(data: bytes, offset: int) -> tuple[int, int]:
    """git's offset encoding (varint.c ``decode_varint``)."""
    byte = data[offset]
    value = byte & 0x7F
    offset += 1
    while byte & 0x80:
        byte = data[offset]
        value = ((value + 1) << 7) | (byte & 0x7F)
        offset += 1
    return value, offset
