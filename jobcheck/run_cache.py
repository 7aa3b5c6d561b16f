"""Replaying a run: when nothing a run reads has changed, its report is read back.

The facts cache (``jobcheck/cache.py``) spares a warm run the parsing; this one spares
it the rest: importing the facts, the project model and the checks, and running them,
which is most of what a warm run costs. A stored report is replayed only when

- its key matches: the jobcheck code and the Python and libcst versions (as for the
  facts) and astroid's, the options after reading the configuration, the selection as written on the
  command line, the paths to check, the prefilter switch and the current folder; and
- the signature of everything the run read still matches: the path and stat of every
  file discovered and of every document under the runbook folders, and the stat of
  every file astroid read for inference (installed packages included).

A run is not stored when one of those files was modified in the two seconds before it
was examined (its modification time could still change within the file system's
timestamp granularity), nor for an editor's unsaved buffers (the language server does
not use this cache).
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from jobcheck.cache import cache_key, read_store, write_atomically
from jobcheck.config import Options
from jobcheck.discovery import DiscoveryError, WalkCache, discover_for
from jobcheck.discovery.docs import find_docs
from jobcheck.findings import Report
from jobcheck.storage import dump_records

RUNS_FILE = "runs.json"
_FORMAT = 4
_KEPT_RUNS = 4
"""Reports kept (the last runs with different keys: a pre-commit hook and a CI step
may check the same project with different options)."""
_RACY_NS = 2_000_000_000

Signature = tuple[int, int] | None


@dataclass(frozen=True)
class _StoredRun:
    signature: bytes
    read_files: dict[str, Signature]
    """Files astroid read (absolute paths) with their stat signatures then."""
    report: Report


class RunCache:
    """The stored reports of one cache folder; :meth:`replay`, else run and :meth:`store`."""

    def __init__(self, directory: Path, key: str, runs: dict[str, _StoredRun], walk: WalkCache):
        self.directory = directory
        self.key = key
        self.runs = runs
        self.walk = walk
        self._signature: bytes | None = None
        self._trusted = False

    @classmethod
    def open(cls, directory: Path, run_key: tuple[object, ...]) -> RunCache:
        key = cache_key(("run", *run_key))
        records = read_store(directory / RUNS_FILE, {"kind": "runs", "format": _FORMAT}).records
        runs = {
            name.removeprefix("run:"): value
            for name, value in records.items()
            if name.startswith("run:") and isinstance(value, _StoredRun)
        }
        walk = records.get("walk")
        return cls(directory, key, runs, walk if isinstance(walk, WalkCache) else WalkCache())

    def replay(self, paths: Sequence[str], options: Options) -> Report | None:
        """The stored report of this key when nothing it read has changed, else None
        (the signature seen now is kept for :meth:`store`). A path that cannot be
        walked is a miss: the run that follows reports it."""
        try:
            self._signature, self._trusted = self._project_signature(paths, options)
        except (DiscoveryError, OSError):
            self._signature = None
            return None
        stored = self.runs.get(self.key)
        if stored is None or stored.signature != self._signature:
            return None
        if any(_stat(path) != signature for path, signature in stored.read_files.items()):
            return None
        if self.walk.changed:  # folders were listed again, with the same files
            self._write()
        return stored.report

    def store(self, report: Report, read_files: dict[str, Signature]) -> None:
        """Keep ``report`` for the signature :meth:`replay` saw, unless a file was too
        recently modified to trust its stat."""
        if self._signature is None or not self._trusted:
            return
        now = time.time_ns()
        if any(s is not None and s[0] >= now - _RACY_NS for s in read_files.values()):
            return
        self.runs.pop(self.key, None)
        self.runs[self.key] = _StoredRun(self._signature, dict(read_files), report)
        for old in list(self.runs)[:-_KEPT_RUNS]:
            del self.runs[old]
        self._write()

    def _write(self) -> None:
        self.walk.changed = False
        records: list[tuple[str, object]] = [("walk", self.walk)]
        records += [(f"run:{key}", run) for key, run in self.runs.items()]
        data = dump_records({"kind": "runs", "format": _FORMAT}, records)
        write_atomically(self.directory, RUNS_FILE, data)

    def _project_signature(self, paths: Sequence[str], options: Options) -> tuple[bytes, bool]:
        """A hash of the path and stat of every file the run would read (sources and
        documents), and whether every one of them is old enough to trust its stat."""
        exclude = (*options.exclude, *options.extend_exclude)
        sources = discover_for(options, paths, self.walk)
        roots = [Path(p) for p in paths if os.path.isdir(p)]
        if options.config_path:
            roots.append(Path(options.root))
        documents = (
            find_docs(roots, options.runbook_dirs, exclude, options.respect_gitignore, self.walk)
            if roots
            else []
        )
        digest = hashlib.blake2b(digest_size=16)
        trusted = True
        racy_after = time.time_ns() - _RACY_NS
        for kind, group in (("source", sources), ("document", documents)):
            for source in group:
                signature = _stat(source.fspath)
                digest.update(repr((kind, source.display, signature)).encode())
                trusted = trusted and (signature is None or signature[0] < racy_after)
        return digest.digest(), trusted


def _stat(path: str) -> Signature:
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return stat.st_mtime_ns, stat.st_size
