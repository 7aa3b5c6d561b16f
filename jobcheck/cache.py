"""The results cache: per-file facts and prefilter decisions, kept between runs.

One file per cache key in ``.jobcheck_cache/`` at the project root (or ``--cache-dir``),
of plain data records, each checked before use (``jobcheck/storage.py``; never pickle,
which runs code as it loads): a run that changed nothing reads that one file and one
``stat`` per source file, and parses nothing. The key covers everything per-file facts depend on
besides the file itself: the jobcheck version and the code of the installed package
(so an edited checkout never reads stale facts), Python's and libcst's versions. Each
entry is keyed by the file's path as displayed and records its module name and whether
it is a package's ``__init__`` (both shape its facts), its ``stat`` signature and a hash
of its content. The project-wide pass (project model and checks) always reruns on the
facts, so a changed settings module changes findings in the files that read it.

Writes are atomic (a temporary file, then ``os.replace``); the folder carries a
``CACHEDIR.TAG`` (backup tools skip it) and a ``.gitignore`` of ``*``.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import os
import re
import stat
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from jobcheck import __version__
from jobcheck.discovery import WalkCache
from jobcheck.notices import warn_once
from jobcheck.storage import (
    Loaded,
    StorageError,
    dump_records,
    load_records,
    read_regular_file,
)

if TYPE_CHECKING:
    from jobcheck.facts import FileFacts

CACHE_DIR_NAME = ".jobcheck_cache"
_FORMAT = 3
_CACHEDIR_TAG = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by jobcheck.\n"
    "# For information about cache directory tags see https://bford.info/cachedir/\n"
)
# A file whose modification time is this close to the moment it was read may change
# again within the file system's timestamp granularity: its stat is not trusted.
_RACY_NS = 2_000_000_000


def content_hash(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=16).digest()


class Entry(NamedTuple):
    """What the cache knows about one file (a tuple: thousands load in milliseconds)."""

    mtime_ns: int
    size: int
    digest: bytes
    module: str
    is_package: bool
    kept: bool
    """The prefilter keeps the file."""
    sends: bool
    """The file calls ``.send(`` (for the Dramatiq second pass)."""
    facts: FileFacts | None
    """The file's facts, when it was analysed (kept, or needed by another file)."""
    trusted: bool = True
    """The stat signature identifies the content (the file was not modified just
    before it was read)."""
    empty: bool = False
    """The file holds nothing but whitespace."""

    def fresh(self, stat: os.stat_result, module: str, is_package: bool) -> bool:
        return (
            self.trusted
            and self.mtime_ns == stat.st_mtime_ns
            and self.size == stat.st_size
            and self.module == module
            and self.is_package == is_package
        )


class Parts(NamedTuple):
    """Parts of one file read for call summaries (``jobcheck/extract/parts.py``), for
    the content with ``digest``: the facts of each group read together, and the group
    of each part (``"name:method"``)."""

    digest: bytes
    groups: dict[str, int]
    read: list[FileFacts]


class FactsCache:
    """The cache of one project; load with :meth:`open`, then :meth:`save` when done."""

    def __init__(
        self, directory: Path, key: str, entries: dict[str, Entry], walk: WalkCache | None = None
    ) -> None:
        self.directory = directory
        self.key = key
        self.entries = entries
        self.walk = walk or WalkCache()
        """Folder listings of earlier walks (``jobcheck.discovery``)."""
        self.extras: dict[str, object] = {}
        """Other results worth keeping, by name."""
        self.parts: dict[str, Parts] = {}
        """Parts of files not analysed whole, by file (read by call summaries)."""
        self.dirty = False
        self._lines: dict[str, bytes] = {}
        self._part_lines: dict[str, bytes] = {}
        """The same, of each file's parts."""
        """The stored record of each entry not replaced since it was read (written back
        as it is, without encoding it again)."""

    @classmethod
    def open(cls, directory: Path, extra_key: tuple[object, ...] = ()) -> FactsCache:
        """The cache in ``directory`` for this jobcheck (empty when there is none yet,
        or it cannot be used: damaged records are dropped with one warning line)."""
        key = cache_key(extra_key)
        path = directory / _file_name(key)
        loaded = read_store(path, {"kind": "facts", "format": _FORMAT, "key": key})
        entries: dict[str, Entry] = {}
        extras: dict[str, object] = {}
        parts: dict[str, Parts] = {}
        walk = None
        for name, value in loaded.records.items():
            kind, _, rest = name.partition(":")
            if kind == "entry" and isinstance(value, Entry):
                entries[rest] = value
            elif kind == "extra":
                extras[rest] = value
            elif kind == "walk" and isinstance(value, WalkCache):
                walk = value
            elif kind == "parts" and isinstance(value, Parts):
                parts[rest] = value
        cache = cls(directory, key, entries, walk)
        cache.extras = extras
        cache.parts = parts
        cache._lines = {
            path: line
            for path in entries
            if (line := loaded.lines.get(f"entry:{path}")) is not None
        }
        cache._part_lines = {
            path: line for path in parts if (line := loaded.lines.get(f"parts:{path}")) is not None
        }
        return cache

    def get(self, path: str) -> Entry | None:
        return self.entries.get(path)

    def put(self, path: str, entry: Entry) -> None:
        self.entries[path] = entry
        self._lines.pop(path, None)
        self.dirty = True

    def get_part(self, path: str, digest: bytes, key: str) -> FileFacts | None:
        """The cached part ``key`` ("name:method") of the file with this content."""
        parts = self.parts.get(path)
        if parts is None or parts.digest != digest:
            return None
        group = parts.groups.get(key)
        return None if group is None else parts.read[group]

    def put_part(self, path: str, digest: bytes, keys: list[str], facts: FileFacts) -> None:
        """The facts of the parts ``keys`` of a file, read together."""
        parts = self.parts.get(path)
        if parts is None or parts.digest != digest:
            parts = self.parts[path] = Parts(digest, {}, [])
        parts.groups.update((key, len(parts.read)) for key in keys)
        parts.read.append(facts)
        self._part_lines.pop(path, None)
        self.dirty = True

    def put_extra(self, name: str, value: object) -> None:
        self.extras[name] = value
        self.dirty = True

    def forget_missing(self, roots: list[str], seen: set[str]) -> None:
        """Drop entries of files under ``roots`` (the folders this run walked) that the
        run did not see: deleted, renamed or now excluded."""
        prefixes = tuple(r.rstrip("/") + "/" for r in roots if r not in ("", "."))
        walked_cwd = any(r in ("", ".") for r in roots)
        for path in list(self.entries):
            if path in seen:
                continue
            if (walked_cwd and not os.path.isabs(path)) or path.startswith(prefixes):
                del self.entries[path]
                self.dirty = True
        for path in [p for p in self.parts if p not in self.entries]:
            del self.parts[path]
            self.dirty = True

    def save(self) -> bool:
        """Write the cache atomically; False when the folder cannot be written (a
        read-only checkout): the run goes on without a cache."""
        if not self.dirty and not self.walk.changed:
            return True
        self.walk.changed = False
        records: list[tuple[str, object]] = [("walk", self.walk)]
        records += [(f"extra:{name}", value) for name, value in self.extras.items()]
        records += [
            (f"parts:{path}", parts)
            for path, parts in self.parts.items()
            if path not in self._part_lines
        ]
        records += [
            (f"entry:{path}", entry)
            for path, entry in self.entries.items()
            if path not in self._lines
        ]
        unchanged = [line for path, line in self._lines.items() if path in self.entries]
        unchanged += [line for path, line in self._part_lines.items() if path in self.parts]
        header = {"kind": "facts", "format": _FORMAT, "key": self.key}
        data = dump_records(header, records, unchanged)
        if not write_atomically(self.directory, _file_name(self.key), data):
            return False
        with contextlib.suppress(OSError):
            _prune(self.directory, keep=_file_name(self.key))
        self.dirty = False
        return True


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Load without the cyclic garbage collector: unpickling a project's facts makes
    hundreds of thousands of objects (none in a cycle), and the collections their
    allocation triggers would walk them again and again. Afterwards they are moved out
    of the collector's sight (``gc.freeze``); reference counting still frees them."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


def new_entry(
    stat: os.stat_result | None,
    digest: bytes,
    module: str,
    is_package: bool,
    kept: bool,
    sends: bool,
    facts: FileFacts | None,
    read_at_ns: int,
    empty: bool = False,
) -> Entry:
    mtime = stat.st_mtime_ns if stat is not None else -1
    return Entry(
        mtime_ns=mtime,
        size=stat.st_size if stat is not None else -1,
        digest=digest,
        module=module,
        is_package=is_package,
        kept=kept,
        sends=sends,
        facts=facts,
        trusted=stat is not None and mtime < read_at_ns - _RACY_NS,
        empty=empty,
    )


def cache_key(extra: tuple[object, ...] = ()) -> str:
    """A hash of everything facts depend on besides the files themselves."""
    parts = (
        _FORMAT,
        __version__,
        sys.version_info[:3],
        sys.implementation.name,
        library_version("libcst"),
        code_fingerprint(),
        extra,
    )
    return hashlib.blake2b(repr(parts).encode(), digest_size=10).hexdigest()


def code_fingerprint() -> str:
    """The installed jobcheck's source files' sizes and modification times: an edited
    checkout must not read facts an older version of the code extracted."""
    package = Path(__file__).parent
    signature = []
    for folder, _, names in os.walk(package):
        for name in sorted(names):
            if name.endswith(".py"):
                stat = os.stat(os.path.join(folder, name))
                signature.append((folder, name, stat.st_size, stat.st_mtime_ns))
    signature.sort()
    return hashlib.blake2b(repr(signature).encode(), digest_size=10).hexdigest()


def library_version(name: str) -> tuple:
    """A signature of an installed library (its folder and version file), cheaper than
    ``importlib.metadata``, which scans every installed distribution."""
    import importlib.util

    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        return ()
    folder = spec.submodule_search_locations[0]
    signature: list[object] = [folder]
    for entry in (folder, *(os.path.join(folder, n) for n in ("_version.py", "__pkginfo__.py"))):
        try:
            stat = os.stat(entry)
        except OSError:
            continue
        signature.append((stat.st_mtime_ns, stat.st_size))
    return tuple(signature)


_ROOT_MARKERS = ("pyproject.toml", "setup.cfg", "setup.py", ".git")


def default_directory(config_root: str | None, targets: list[str]) -> Path:
    """``.jobcheck_cache`` in the project root: the folder of the configuration file;
    else the nearest folder, from the first path checked upwards, that holds a
    ``pyproject.toml``, ``setup.cfg``, ``setup.py`` or ``.git``; else the first folder
    checked."""
    if config_root:
        return Path(config_root) / CACHE_DIR_NAME
    first = Path(targets[0]) if targets else Path(".")
    folder = first if first.is_dir() else first.parent
    resolved = folder.resolve()
    for candidate in (resolved, *resolved.parents):
        if any((candidate / marker).exists() for marker in _ROOT_MARKERS):
            return candidate / CACHE_DIR_NAME
    return folder / CACHE_DIR_NAME


def _file_name(key: str) -> str:
    return f"facts-{key}.json"


def read_store(path: Path, header: dict[str, object]) -> Loaded:
    """The records of a cache file (``jobcheck/storage.py``): none when there is no
    such file or it belongs to another version; damaged records, or a file that is
    not a regular one, are left out with one warning line."""
    reason = refusal(path.parent)
    if reason is not None:
        warn_once(f"results cache not used: {reason}")
        return Loaded()
    try:
        data = read_regular_file(path)
    except FileNotFoundError:
        return Loaded()
    except OSError as error:
        warn_once(f"results cache not used: {error.strerror or error}")
        return Loaded()
    try:
        with gc_paused():
            loaded = load_records(data, header)
    except StorageError:
        return Loaded()  # another version's cache: replaced when this run saves
    if loaded.damaged:
        warn_once(f"results cache {path}: {loaded.damaged} damaged records dropped (rebuilt)")
    return loaded


def write_atomically(directory: Path, name: str, data: bytes) -> bool:
    """Write ``data`` to ``directory/name`` through a temporary file and ``os.replace``
    (creating the cache folder with its tag); False when the folder cannot be written."""
    try:
        _prepare(directory)
        handle, temporary = tempfile.mkstemp(dir=directory, prefix=".tmp-", suffix=".json")
        try:
            with os.fdopen(handle, "wb") as stream:
                stream.write(data)
            _default_mode(temporary)
            os.replace(temporary, directory / name)
        except BaseException:
            _unlink(Path(temporary))
            raise
    except OSError:
        return False
    return True


def refusal(directory: Path) -> str | None:
    """Why ``directory`` cannot be the cache folder, or None. A ``.jobcheck_cache``
    committed as a symbolic link would have jobcheck write into, and prune files of,
    any folder; one committed as a folder holds records made with another key (never
    read, see ``jobcheck/storage.py``) and is not jobcheck's to write into."""
    try:
        info = os.lstat(directory)
    except FileNotFoundError:
        return None
    except OSError as error:
        return f"{_shown(directory)}: {error.strerror or error}"
    if stat.S_ISLNK(info.st_mode):
        return f"{_shown(directory)} is a symbolic link"
    if not stat.S_ISDIR(info.st_mode):
        return f"{_shown(directory)} is not a folder"
    if hasattr(os, "getuid") and info.st_uid != os.getuid():
        return f"{_shown(directory)} belongs to another user"
    try:
        names = set(os.listdir(directory))
    except OSError as error:
        return f"{_shown(directory)}: {error.strerror or error}"
    if names and not _is_our_tag(directory / "CACHEDIR.TAG"):
        return f"{_shown(directory)} is not a jobcheck cache folder"
    return None


def remove_caches(roots: list[Path]) -> Iterator[str]:
    """Remove every ``.jobcheck_cache`` folder under ``roots`` that jobcheck made (its
    own ``CACHEDIR.TAG``, owned by this user, not a link), without following links;
    the removed folders' paths."""
    import shutil

    for root in roots:
        for folder, names, _ in os.walk(root, followlinks=False):
            if CACHE_DIR_NAME in names:
                names.remove(CACHE_DIR_NAME)
                cache = Path(folder) / CACHE_DIR_NAME
                if refusal(cache) is None and _is_our_tag(cache / "CACHEDIR.TAG"):
                    shutil.rmtree(cache)
                    yield _shown(cache)
            names[:] = [n for n in names if n not in (".git", "node_modules")]


def _is_our_tag(path: Path) -> bool:
    try:
        return read_regular_file(path, limit=4096).decode("utf-8", "replace") == _CACHEDIR_TAG
    except OSError:
        return False


def _shown(path: Path) -> str:
    return os.fspath(path).encode("utf-8", "backslashreplace").decode("utf-8")


def _prepare(directory: Path) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    reason = refusal(directory)
    if reason is not None:
        warn_once(f"results cache not written: {reason}")
        raise OSError(reason)
    tag = directory / "CACHEDIR.TAG"
    if not tag.exists():
        _write_small(tag, _CACHEDIR_TAG)
    ignore = directory / ".gitignore"
    if not ignore.exists():
        _write_small(ignore, "# Created by jobcheck automatically.\n*\n")


def _write_small(path: Path, text: str) -> None:
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    with os.fdopen(handle, "w", encoding="utf-8") as stream:
        stream.write(text)
    _default_mode(temporary)
    os.replace(temporary, path)


def _default_mode(path: str) -> None:
    """The mode a plain ``open`` would give (``mkstemp`` makes files private)."""
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(path, 0o666 & ~umask)


def _prune(directory: Path, keep: str) -> None:
    """Remove cache files of other keys (older jobcheck versions, edited code) and
    temporary files left by interrupted runs more than an hour ago."""
    now = time.time()
    for child in directory.iterdir():
        name = child.name
        if name == keep:
            continue
        if _FACTS_FILE.fullmatch(name) or name == "runs.pickle":
            _unlink(child)  # other keys, and the pickle files of earlier versions
        elif _TEMPORARY_FILE.fullmatch(name):
            try:
                if now - child.stat().st_mtime > 3600:
                    _unlink(child)
            except OSError:
                pass


# The names jobcheck gives its files: only these are ever removed.
_FACTS_FILE = re.compile(r"facts-[0-9a-f]{20}\.json")
_TEMPORARY_FILE = re.compile(r"\.tmp-[A-Za-z0-9_]{1,16}(?:\.json)?")


def _unlink(path: Path) -> None:
    with contextlib.suppress(OSError):
        path.unlink()
