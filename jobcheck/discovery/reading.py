"""Reading a source file: regular files only, never more than a limit at once.

A file named ``x.py`` may be a FIFO (``open`` blocks until a writer comes), a symbolic
link to ``/dev/zero`` (``read`` never ends), a socket or a device: none is read, each is
reported. A regular file larger than ``max-file-size`` is not parsed (libcst needs
about 150 bytes of memory per byte of source, and seconds per megabyte): it is only
scanned, a chunk at a time, for whether it could matter at all.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass

DEFAULT_MAX_FILE_SIZE = 1024 * 1024
"""1 MiB, as Biome's ``files.maxSize``: job modules and settings are far smaller, and a
generated file above it costs more to parse than a whole project."""
CHUNK = 1024 * 1024
MAX_SCANNED_BYTES = 256 * 1024 * 1024
"""An oversized file is scanned up to this much; past it, it is reported unread."""

_KINDS = (
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISDIR, "a folder"),
)


class ReadError(OSError):
    """A file that is not read; the message says why, in one line."""


@dataclass(frozen=True)
class Oversized:
    """A regular file larger than the limit, left open for scanning in chunks."""

    path: str
    size: int

    def chunks(self, overlap: int = 4096) -> Iterator[bytes]:
        """The file's bytes in chunks, each starting with the last ``overlap`` bytes of
        the one before (so a word split across chunks is seen whole)."""
        tail = b""
        with open_regular(self.path) as stream:
            scanned = 0
            while scanned < MAX_SCANNED_BYTES:
                chunk = stream.read(CHUNK)
                if not chunk:
                    return
                scanned += len(chunk)
                yield tail + chunk
                tail = chunk[-overlap:]
        raise ReadError(f"larger than {describe_size(MAX_SCANNED_BYTES)}; not read")


def read_source(path: str, limit: int) -> bytes | Oversized:
    """The bytes of the regular file at ``path``, or :class:`Oversized` when it holds
    more than ``limit`` bytes; raises :class:`ReadError` for anything else."""
    with open_regular(path) as stream:
        size = os.fstat(stream.fileno()).st_size
        if size > limit:
            return Oversized(path, size)
        data = stream.read(limit + 1)
    if len(data) > limit:  # it grew since the stat
        return Oversized(path, len(data))
    return data


def open_regular(path: str):  # type: ignore[no-untyped-def]
    """``open(path, "rb")`` for a regular file only, without blocking on a FIFO."""
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as error:
        raise ReadError(_os_message(error)) from None
    try:
        mode = os.fstat(descriptor).st_mode
        if not stat.S_ISREG(mode):
            kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
            raise ReadError(f"{kind}, not a regular file; not read")
        if hasattr(os, "set_blocking"):
            os.set_blocking(descriptor, True)
        return os.fdopen(descriptor, "rb")
    except BaseException:
        os.close(descriptor)
        raise


def _os_message(error: OSError) -> str:
    if error.errno == errno.ELOOP:
        return "cannot read: a loop of symbolic links"
    if error.errno == errno.ENOENT:
        return "cannot read: a broken symbolic link or a file that disappeared"
    return f"cannot read: {error.strerror or error}"


def describe_size(size: int) -> str:
    """``1048576`` -> ``1 MiB``; ``56623104`` -> ``54.0 MiB``."""
    for unit, factor in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= factor:
            value = size / factor
            return f"{value:.0f} {unit}" if value == int(value) else f"{value:.1f} {unit}"
    return f"{size} bytes"


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
    value = float(number) * units[unit]
    if value <= 0 or value != value:
        raise ValueError(text)
    return int(value)
