"""Per-file work: read, hash and prefilter every file, then extract the facts of the
files that can matter, in worker processes.

Reading, hashing and prefiltering run here: a byte scan, about a second for saleor's 28
MB. Parsing costs a hundred times more per byte, so only the files the prefilter kept
go to the workers, each as its content, its facts coming back as a small picklable
object. Files are read largest first (by their stat size) and each kept one is handed
to the workers at once: they parse while this process reads the rest, the longest
parses start early, and the small ones fill the gaps at the end. When the files to
parse are few, forking workers and importing libcst in them would cost more than it
saves, and they are parsed here.

Workers are forked after this process imported libcst and compiled the prefilter, so
they start with both. While they parse, the parent is not idle: ``on_result`` lets the
caller start work that needs a file's facts (astroid inference) as they arrive.
"""

from __future__ import annotations

import gc
import hashlib
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from jobcheck.cache import content_hash
from jobcheck.discovery.reading import (
    DEFAULT_MAX_FILE_SIZE,
    Oversized,
    ReadError,
    describe_size,
    read_source,
)
from jobcheck.facts import FileFacts

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

# Parse in worker processes only when there is at least this much to parse: below it,
# forking and starting workers costs more than parsing here (libcst parses roughly
# 200-300 KB per second and core).
MIN_BYTES_FOR_POOL = 200_000
MIN_FILES_FOR_POOL = 2


@dataclass(frozen=True, slots=True)
class FileTask:
    display: str
    path: str
    module: str
    is_package: bool
    size: int = 0
    """From ``stat``, for progress and scheduling."""
    data: bytes | None = None
    """Content to use instead of reading ``path`` (an unsaved editor buffer)."""
    analyse: bool = False
    """Extract facts whatever the prefilter says (a file named on the command line, a
    module another file needs, a run without the prefilter)."""
    known_digest: bytes | None = None
    """The cached content hash: when the content still has it, facts are not
    extracted again (the cache has them)."""
    need_facts: bool = True
    """When the content is unchanged, whether the cached entry lacks needed facts."""
    max_size: int = DEFAULT_MAX_FILE_SIZE
    """Larger files are not parsed (``max-file-size``)."""


@dataclass(frozen=True, slots=True)
class FileResult:
    display: str
    digest: bytes | None
    """Content hash; None when the file could not be read."""
    kept: bool
    """The prefilter's own verdict (whether or not the run uses the prefilter)."""
    sends: bool
    facts: FileFacts | None
    read_error: str | None = None
    unchanged: bool = False
    """The content hash equals ``known_digest``: reuse the cached entry."""
    read_at_ns: int = 0
    empty: bool = False


@dataclass(slots=True)
class _Read:
    """A file read and prefiltered, waiting to be parsed."""

    task: FileTask
    data: bytes
    result: FileResult
    """The result without facts."""


def scan_file(task: FileTask, use_prefilter: bool = True) -> FileResult:
    """Read, hash and prefilter one file; extract its facts when it can matter."""
    read = _read(task, use_prefilter)
    if not isinstance(read, _Read):
        return read
    return _with_facts(read, extract(task.display, read.data, task.module, task.is_package))


def _read(task: FileTask, use_prefilter: bool) -> FileResult | _Read:
    """The first phase for one file: a finished result, or a file to parse."""
    read_at = time.time_ns()
    data: bytes | Oversized | None = task.data
    if data is not None and len(data) > task.max_size:
        data = Oversized(task.path, len(data))
    if data is None:
        try:
            data = read_source(task.path, task.max_size)
        except ReadError as error:
            return _unread(task, str(error), read_at)
    if isinstance(data, Oversized):
        return _oversized(task, data, read_at)
    digest = content_hash(data)
    if task.known_digest == digest and not task.need_facts:
        return FileResult(
            task.display, digest, False, False, None, unchanged=True, read_at_ns=read_at
        )
    from jobcheck.extract import files
    from jobcheck.prefilter import decide

    decision = decide(task.display, data, task.module)
    # A file Python cannot read as source (UTF-16, NUL bytes) is reported, not skipped.
    unreadable = b"\x00" in data and files.kind_of(task.display) is None
    result = FileResult(
        task.display,
        digest,
        decision.kept or unreadable,
        decision.sends,
        None,
        read_at_ns=read_at,
        empty=not data.strip(),
    )
    if decision.kept or task.analyse or not use_prefilter or unreadable:
        return _Read(task, data, result)
    return result


def _unread(task: FileTask, message: str, read_at: int) -> FileResult:
    return FileResult(task.display, None, False, False, None, message, read_at_ns=read_at)


def _oversized(task: FileTask, file: Oversized, read_at: int) -> FileResult:
    """A file above ``max-file-size``: scanned in chunks for whether it can matter; an
    error when it can (or was named on the command line), else skipped like any file
    that cannot matter."""
    from jobcheck.prefilter import decide

    digest = hashlib.blake2b(digest_size=16)
    kept = sends = False
    try:
        chunks = [task.data] if task.data is not None else file.chunks()
        for chunk in chunks:
            digest.update(chunk)
            decision = decide(task.display, chunk, task.module)
            kept, sends = kept or decision.kept, sends or decision.sends
    except ReadError as error:
        return FileResult(task.display, None, False, False, None, str(error), read_at_ns=read_at)
    if kept or task.analyse:
        message = (
            f"{describe_size(file.size)}, larger than max-file-size "
            f"({describe_size(task.max_size)}): not checked; raise max-file-size in "
            "[tool.jobcheck] (or --max-file-size) to check it"
        )
        return _unread(task, message, read_at)
    return FileResult(task.display, digest.digest(), False, sends, None, read_at_ns=read_at)


def _with_facts(read: _Read, facts: FileFacts) -> FileResult:
    result = read.result
    return FileResult(
        result.display,
        result.digest,
        result.kept,
        result.sends,
        facts,
        read_at_ns=result.read_at_ns,
        empty=result.empty,
    )


def extract(display: str, data: bytes, module: str, is_package: bool) -> FileFacts:
    """The facts of one file by its kind (``jobcheck/extract/files.py``: Python to
    :func:`jobcheck.extract.extract_file`, manifests and crontabs to their readers), with
    the cyclic garbage collector paused: a libcst tree is hundreds of thousands of
    objects, none in a cycle, and collections that walk them again and again while they
    are built cost a quarter of the parse."""
    from jobcheck.extract import files

    enabled = gc.isenabled()
    gc.disable()
    try:
        return files.extract(display, data, module, is_package)
    finally:
        if enabled:
            gc.enable()


def scan_all(
    tasks: Sequence[FileTask],
    jobs: int,
    use_prefilter: bool = True,
    progress: Callable[[int, int], None] | None = None,
    on_result: Callable[[FileResult, bool], None] | None = None,
) -> list[FileResult]:
    """Every task's result, in task order. Files to parse go to ``jobs`` worker
    processes when there is enough to parse; ``on_result(result, in_workers)`` sees
    each parsed file's result as it arrives (while the workers go on, when
    ``in_workers``); ``progress`` gets (parsed, to parse)."""
    results: list[FileResult | None] = [None] * len(tasks)
    parser = _Parser(jobs)
    # Largest first (by the size stat gave), and each kept file handed to the workers as
    # soon as it is read: they parse while this process reads and prefilters the rest.
    for index in sorted(range(len(tasks)), key=lambda i: -tasks[i].size):
        read = _read(tasks[index], use_prefilter)
        if isinstance(read, _Read):
            parser.add(index, read)
        else:
            results[index] = read
    in_workers = parser.pool is not None
    for done, (index, facts) in enumerate(parser.results(), start=1):
        results[index] = result = _with_facts(parser.reads[index], facts)
        if on_result is not None:
            on_result(result, in_workers)
        if progress is not None:
            progress(done, len(parser.reads))
    return results  # type: ignore[return-value]


class _Parser:
    """Parses files as they are added: here, until there is enough to parse to be worth
    worker processes, then in them (the files added so far go first)."""

    def __init__(self, jobs: int) -> None:
        self.jobs = jobs
        self.reads: dict[int, _Read] = {}
        self.pool: ProcessPoolExecutor | None = None
        self._futures: dict[object, int] = {}
        self._waiting: list[tuple[int, _Read]] = []
        self._bytes = 0
        self._pool_failed = False
        self._broken = False

    def add(self, index: int, read: _Read) -> None:
        self.reads[index] = read
        self._waiting.append((index, read))
        self._bytes += len(read.data)
        if self.pool is None and not self._pool_failed and self._worth_a_pool():
            self.pool = _pool(self.jobs)
            self._pool_failed = self.pool is None
        if self.pool is not None and not self._broken:
            self._submit_waiting()

    def results(self) -> Iterator[tuple[int, FileFacts]]:
        """(task index, facts) for every file added, as they are done. When a worker
        died (out of memory, a crash in a native extension), the pool is broken: each
        file whose facts had not arrived is parsed again in a process of its own, so
        that one bad file costs only its own facts, never the run (and is never
        parsed in this process, which it would take down too)."""
        pending = set(self.reads)
        if self.pool is None:
            for index in sorted(pending):
                yield index, _extract(self.reads[index])
            return
        from concurrent.futures import FIRST_COMPLETED, wait
        from concurrent.futures.process import BrokenProcessPool

        try:
            with self.pool:
                while self._futures:
                    finished, _ = wait(self._futures, return_when=FIRST_COMPLETED)
                    for future in finished:
                        index = self._futures.pop(future)
                        facts = future.result()  # type: ignore[attr-defined]
                        pending.discard(index)  # only once its facts are in hand
                        yield index, facts
        except BrokenProcessPool:
            pass
        for index in sorted(pending):
            yield index, _extract_isolated(self.reads[index])

    def _worth_a_pool(self) -> bool:
        return (
            self.jobs > 1
            and len(self._waiting) >= MIN_FILES_FOR_POOL
            and self._bytes >= MIN_BYTES_FOR_POOL
        )

    def _submit_waiting(self) -> None:
        """Hand the waiting files to the pool; a pool that broke meanwhile takes no more
        (they stay pending, for :meth:`results` to parse here)."""
        from concurrent.futures.process import BrokenProcessPool

        assert self.pool is not None
        submitted = 0
        try:
            for index, read in self._waiting:
                task = read.task
                future = self.pool.submit(
                    extract, task.display, read.data, task.module, task.is_package
                )
                self._futures[future] = index
                submitted += 1
        except BrokenProcessPool:
            self._broken = True
        del self._waiting[:submitted]


def _extract(read: _Read) -> FileFacts:
    task = read.task
    return extract(task.display, read.data, task.module, task.is_package)


def _extract_isolated(read: _Read) -> FileFacts:
    """The facts of one file, extracted in a worker process of its own: when that
    process dies too, the file is an error (and this process goes on)."""
    from concurrent.futures.process import BrokenProcessPool

    task = read.task
    pool = _pool(1)
    if pool is None:  # no worker processes on this platform
        return _extract(read)
    try:
        with pool:
            future = pool.submit(extract, task.display, read.data, task.module, task.is_package)
            return future.result()
    except BrokenProcessPool:
        failed = FileFacts(path=task.display, module=task.module)
        failed.error = (
            "the parser crashed on this file (its worker process died); the file was not checked"
        )
        failed.parsed = False
        return failed


def _pool(jobs: int) -> ProcessPoolExecutor | None:
    """Worker processes that inherit this process's imports (fork) where that is safe;
    elsewhere (macOS, Windows) each worker starts afresh and imports what it needs."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    import jobcheck.extract  # noqa: F401  (forked workers inherit libcst and the recognizers)

    method = "fork" if sys.platform.startswith("linux") else "spawn"
    try:
        context = multiprocessing.get_context(method)
        return ProcessPoolExecutor(max_workers=jobs, mp_context=context)
    except (OSError, ValueError, NotImplementedError):
        return None


PartRequest = tuple[str, frozenset[str]]
"""(top-level name, methods kept of it when it is a class)."""


def extract_parts(
    display: str, data: bytes, module: str, is_package: bool, wanted: Sequence[PartRequest]
) -> list[FileFacts]:
    """The facts of several parts of one file (``jobcheck/extract/parts.py``), its
    outline read once; with the cyclic collector paused, as :func:`extract`."""
    from jobcheck.extract import extract_functions
    from jobcheck.extract.parts import outline

    enabled = gc.isenabled()
    gc.disable()
    try:
        read = outline(data)
        return [
            extract_functions(display, data, module, is_package, frozenset({n}), m, read)
            for n, m in wanted
        ]
    finally:
        if enabled:
            gc.enable()


@dataclass(frozen=True, slots=True)
class PartsTask:
    """Parts of one file to extract."""

    display: str
    data: bytes
    module: str
    is_package: bool
    wanted: tuple[PartRequest, ...]


def _extract_parts_task(task: PartsTask) -> list[FileFacts]:
    return extract_parts(task.display, task.data, task.module, task.is_package, task.wanted)


# Below this many parts, forking workers costs more than extracting them here.
MIN_PARTS_FOR_POOL = 24


def extract_parts_all(
    tasks: Sequence[PartsTask], jobs: int
) -> Iterator[tuple[PartsTask, list[FileFacts]]]:
    """Each task's parts, in worker processes when there are enough of them. A task
    whose worker died is left out (the caller reads those parts one by one later, as it
    would have without this batch)."""
    count = sum(len(task.wanted) for task in tasks)
    pool = _pool(jobs) if jobs > 1 and count >= MIN_PARTS_FOR_POOL else None
    if pool is None:
        for task in tasks:
            yield (
                task,
                extract_parts(task.display, task.data, task.module, task.is_package, task.wanted),
            )
        return
    from concurrent.futures import as_completed
    from concurrent.futures.process import BrokenProcessPool

    try:
        with pool:
            futures = {
                pool.submit(_extract_parts_task, task): task
                for task in sorted(tasks, key=lambda t: -len(t.wanted))
            }
            for future in as_completed(futures):
                try:
                    yield futures[future], future.result()
                except BrokenProcessPool:
                    continue
    except BrokenProcessPool:
        return
