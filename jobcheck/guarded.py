"""Every file jobcheck reads or writes goes through here.

jobcheck runs in CI on strangers' pull requests, so the tree it reads is hostile: a file
named ``x.py`` may be a FIFO (an ordinary ``open`` blocks until a writer comes), a
symbolic link to ``/dev/zero`` (``read`` never ends) or to a file outside the project
(``/etc/shadow``, ``/etc/cron.d/job``). So:

- a read opens without blocking, takes regular files only and never more than a limit;
- a read or a write of a path inside the project (a :class:`Boundary`) refuses a path
  that symbolic links lead outside it; a path the user named outside the project (``--output
  /tmp/report.json``) is theirs to name;
- a write replaces the file atomically (a temporary file beside the real target, then
  ``os.replace``), so an interrupted run never leaves half a file, and a link inside the
  project stays a link.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from typing import BinaryIO

_KINDS = (
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISDIR, "a folder"),
)
SMALL_FILE_BYTES = 1024 * 1024
"""The cap for files jobcheck reads whole that are not sources: ``.gitignore`` files,
configuration, documents, baselines."""


class ReadError(OSError):
    """A file that is not read; the message says why, in one line."""


class WriteError(OSError):
    """A file that is not written; the message says why, in one line."""


@dataclass(frozen=True)
class Boundary:
    """The folders of a project: what a path inside them may lead to.

    A path spelled inside one of the folders must resolve (through every symbolic link)
    inside one of them too; a path spelled outside all of them was named by the user and
    is taken as it is."""

    spelled: tuple[str, ...]
    """Each folder as an absolute path, and as its real path."""
    real: tuple[str, ...]

    @classmethod
    def of(cls, folders: Iterable[str | os.PathLike[str]]) -> Boundary:
        spelled: list[str] = []
        real: list[str] = []
        for folder in folders:
            text = os.fspath(folder)
            spelled += [os.path.abspath(text), os.path.realpath(text)]
            real.append(os.path.realpath(text))
        return cls(tuple(dict.fromkeys(spelled)), tuple(dict.fromkeys(real)))

    def admits(self, path: str | os.PathLike[str]) -> bool:
        """Whether ``path`` may be read or written: it is spelled outside the project, or
        it resolves inside it."""
        text = os.fspath(path)
        if not any(_inside(os.path.abspath(text), folder) for folder in self.spelled):
            return True
        resolved = os.path.realpath(text)
        return any(_inside(resolved, folder) for folder in self.real)

    def contains(self, path: str | os.PathLike[str]) -> bool:
        """Whether ``path`` resolves inside the project."""
        resolved = os.path.realpath(os.fspath(path))
        return any(_inside(resolved, folder) for folder in self.real)


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


LEADS_OUTSIDE = "a symbolic link that leads outside the project"
OUTSIDE = f"{LEADS_OUTSIDE}; not read"


def open_regular(path: str | os.PathLike[str], boundary: Boundary | None = None) -> BinaryIO:
    """``open(path, "rb")`` for a regular file only, without blocking on a FIFO; with a
    ``boundary``, only for a file inside it."""
    if boundary is not None and not boundary.admits(path):
        raise ReadError(OUTSIDE)
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as error:
        raise ReadError(os_message(error)) from None
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


def read_bytes(
    path: str | os.PathLike[str],
    limit: int = SMALL_FILE_BYTES,
    boundary: Boundary | None = None,
) -> bytes:
    """The bytes of the regular file at ``path``; :class:`ReadError` for anything else,
    or for a file larger than ``limit``."""
    with open_regular(path, boundary) as stream:
        if os.fstat(stream.fileno()).st_size > limit:
            raise ReadError(f"larger than {describe_size(limit)}; not read")
        data = stream.read(limit + 1)
    if len(data) > limit:  # it grew since the stat
        raise ReadError(f"larger than {describe_size(limit)}; not read")
    return data


def read_text(
    path: str | os.PathLike[str],
    limit: int = SMALL_FILE_BYTES,
    boundary: Boundary | None = None,
    errors: str = "strict",
) -> str:
    """The UTF-8 text of a regular file (see :func:`read_bytes`); ``UnicodeDecodeError``
    when it is not UTF-8 and ``errors`` is strict."""
    return read_bytes(path, limit, boundary).decode("utf-8", errors)


def write_atomically(
    path: str | os.PathLike[str],
    data: bytes,
    boundary: Boundary | None = None,
    private: bool = False,
) -> None:
    """Replace the file at ``path`` with ``data``: written to a temporary file beside the
    file the path leads to, then renamed over it (a symbolic link inside the project
    stays a link). :class:`WriteError` when the path leads outside ``boundary`` or to
    something that is not a regular file. ``private``: readable by the owner only."""
    text = os.fspath(path)
    if boundary is not None and not boundary.admits(text):
        raise WriteError(
            f"{_shown(text)}: a symbolic link that leads outside the project; not written"
        )
    target = os.path.realpath(text)
    try:
        existing: os.stat_result | None = os.stat(target)
    except FileNotFoundError:
        existing = None
    except OSError as error:
        raise WriteError(f"{_shown(text)}: {os_message(error)}") from None
    if existing is not None and not stat.S_ISREG(existing.st_mode):
        raise WriteError(f"{_shown(text)}: not a regular file; not written")
    folder, name = os.path.split(target)
    try:
        handle, temporary = tempfile.mkstemp(dir=folder or ".", prefix=f".{name}.", suffix=".tmp")
    except OSError as error:
        raise WriteError(f"{_shown(text)}: cannot write: {error.strerror or error}") from None
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        if not private:
            os.chmod(temporary, _mode(existing))
        os.replace(temporary, target)
    except OSError as error:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise WriteError(f"{_shown(text)}: cannot write: {error.strerror or error}") from None
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def _mode(existing: os.stat_result | None) -> int:
    """The existing file's permissions, else what a plain ``open`` would give
    (``mkstemp`` makes files private)."""
    if existing is not None:
        return stat.S_IMODE(existing.st_mode)
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def _shown(path: str) -> str:
    """A path for a message: undecodable bytes escaped, never raw."""
    return path.encode("utf-8", "backslashreplace").decode("utf-8")


def os_message(error: OSError) -> str:
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
