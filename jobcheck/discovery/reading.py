"""Reading a source file: regular files only, never more than a limit at once.

A file named ``x.py`` may be a FIFO, a symbolic link to ``/dev/zero`` or to a file outside
the project, a socket or a device: none is read, each is reported (``jobcheck/guarded.py``
opens every file). A regular file larger than ``max-file-size`` is not parsed (libcst
needs about 150 bytes of memory per byte of source, and seconds per megabyte): it is only
scanned, a chunk at a time, for whether it could matter at all.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass

from jobcheck.guarded import Boundary, ReadError, describe_size, open_regular

__all__ = ["Oversized", "ReadError", "describe_size", "open_regular", "parse_size", "read_source"]

DEFAULT_MAX_FILE_SIZE = 1024 * 1024
"""1 MiB, as Biome's ``files.maxSize``: job modules and settings are far smaller, and a
generated file above it costs more to parse than a whole project."""
CONFIGURED_MAX_FILE_SIZE = 2 * 1024 * 1024
"""The most a repository's own configuration may raise ``max-file-size`` to (parsing
takes up to about 500 bytes of memory per byte of source: an 8 MB file took 4 GB). The
command line may go further, on purpose."""
CHUNK = 1024 * 1024
MAX_SCANNED_BYTES = 256 * 1024 * 1024
"""An oversized file is scanned up to this much; past it, it is reported unread."""


@dataclass(frozen=True)
class Oversized:
    """A regular file larger than the limit, left open for scanning in chunks."""

    path: str
    size: int
    boundary: Boundary | None = None

    def chunks(self, overlap: int = 4096) -> Iterator[bytes]:
        """The file's bytes in chunks, each starting with the last ``overlap`` bytes of
        the one before (so a word split across chunks is seen whole)."""
        tail = b""
        with open_regular(self.path, self.boundary) as stream:
            scanned = 0
            while scanned < MAX_SCANNED_BYTES:
                chunk = stream.read(CHUNK)
                if not chunk:
                    return
                scanned += len(chunk)
                yield tail + chunk
                tail = chunk[-overlap:]
        raise ReadError(f"larger than {describe_size(MAX_SCANNED_BYTES)}; not read")


def read_source(path: str, limit: int, boundary: Boundary | None = None) -> bytes | Oversized:
    """The bytes of the regular file at ``path``, or :class:`Oversized` when it holds
    more than ``limit`` bytes; raises :class:`ReadError` for anything else (with a
    ``boundary``: a link leading outside it too)."""
    with open_regular(path, boundary) as stream:
        size = os.fstat(stream.fileno()).st_size
        if size > limit:
            return Oversized(path, size, boundary)
        data = stream.read(limit + 1)
    if len(data) > limit:  # it grew since the stat
        return Oversized(path, len(data), boundary)
    return data


def parse_size(text: str | int) -> int:
    """``1048576``, ``"1 MiB"``, ``"512KB"``, ``"2M"`` -> bytes; ValueError otherwise."""
    if isinstance(text, bool):
        raise ValueError(text)
    if isinstance(text, int):
        if text <= 0:
            raise ValueError(text)
        return text
    cleaned = text.strip().replace(" ", "").lower()
    units = {"": 1, "b": 1, "k": 1 << 10, "kb": 1 << 10, "kib": 1 << 10}
    units.update({"m": 1 << 20, "mb": 1 << 20, "mib": 1 << 20})
    units.update({"g": 1 << 30, "gb": 1 << 30, "gib": 1 << 30})
    number = cleaned.rstrip("kmgib")
    unit = cleaned[len(number) :]
    if unit not in units or not number:
        raise ValueError(text)
    try:
        value = float(number) * units[unit]
    except OverflowError:
        raise ValueError(text) from None
    if value <= 0 or value != value or value == float("inf"):
        raise ValueError(text)
    return int(value)
