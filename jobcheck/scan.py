"""Per-file work, in worker processes: read, hash, prefilter, extract.

The parent sends small :class:`FileTask` objects (paths, not contents) and gets back
small picklable :class:`FileResult` objects: the content hash, the prefilter's verdict
and, for files that can matter, the file's facts. Reading, hashing and prefiltering run
in the workers too, so every core shares the whole per-file pass; the parent only walks
folders, checks the cache and runs the project-wide checks.

Workers are forked once per run, after the parent imported libcst and compiled the
prefilter (they inherit both), and get files largest first in small chunks, so the
biggest parses start early and no worker idles at the end.
"""

from __future__ import annotations

import gc
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from jobcheck.cache import content_hash
from jobcheck.facts import FileFacts

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

# Below this many files to read or parse, a process pool costs more than it saves.
MIN_FILES_FOR_POOL = 24
MIN_KEPT_FOR_POOL = 4
# Files per task sent to a worker; small enough to balance, large enough to amortise.
_CHUNK_BYTES = 256 * 1024
_CHUNK_FILES = 64


@dataclass(frozen=True, slots=True)
class FileTask:
    display: str
    path: str
    module: str
    is_package: bool
    size: int = 0
    """From ``stat``, to send the largest files first."""
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


def scan_file(task: FileTask, use_prefilter: bool = True) -> FileResult:
    """Read, hash and prefilter one file; extract its facts when it can matter."""
    read_at = time.time_ns()
    data = task.data
    if data is None:
        try:
            with open(task.path, "rb") as stream:
                data = stream.read()
        except OSError as error:
            message = f"cannot read: {error.strerror or error}"
            return FileResult(task.display, None, False, False, None, message, read_at_ns=read_at)
    digest = content_hash(data)
    empty = not data.strip()
    if task.known_digest == digest and not task.need_facts:
        return FileResult(
            task.display, digest, False, False, None, unchanged=True, read_at_ns=read_at
        )
    from jobcheck.extract.prefilter import compiled

    decision = compiled().decide(data, task.module)
    facts = None
    if decision.kept or task.analyse or not use_prefilter:
        facts = extract(task.display, data, task.module, task.is_package)
    return FileResult(
        task.display, digest, decision.kept, decision.sends, facts, read_at_ns=read_at, empty=empty
    )


def extract(display: str, data: bytes, module: str, is_package: bool) -> FileFacts:
    """:func:`jobcheck.extract.extract_file` with the cyclic garbage collector paused:
    a libcst tree is hundreds of thousands of objects, none in a cycle, and collections
    that walk them again and again while they are built cost a quarter of the parse.
    One young-generation collection afterwards frees the walker's own cycles."""
    from jobcheck.extract import extract_file

    enabled = gc.isenabled()
    gc.disable()
    try:
        return extract_file(display, data, module, is_package)
    finally:
        if enabled:
            gc.enable()
        gc.collect(0)


def scan_all(
    tasks: Sequence[FileTask],
    jobs: int,
    use_prefilter: bool = True,
    progress: Callable[[int, int], None] | None = None,
    on_result: Callable[[FileResult], None] | None = None,
) -> list[FileResult]:
    """:func:`scan_file` over every task, in ``jobs`` worker processes (in this process
    when ``jobs`` is 1 or there is little to do). Results come back in task order;
    ``on_result`` sees each as it arrives, while the workers go on."""
    if not tasks:
        return []
    ordered = sorted(range(len(tasks)), key=lambda i: -tasks[i].size)
    results: list[FileResult | None] = [None] * len(tasks)
    for done, (index, result) in enumerate(_run(tasks, ordered, jobs, use_prefilter), start=1):
        results[index] = result
        if on_result is not None:
            on_result(result)
        if progress is not None:
            progress(done, len(tasks))
    return results  # type: ignore[return-value]


def _run(
    tasks: Sequence[FileTask], ordered: list[int], jobs: int, use_prefilter: bool
) -> Iterator[tuple[int, FileResult]]:
    to_parse = sum(1 for t in tasks if t.analyse or not use_prefilter)
    small = len(tasks) < MIN_FILES_FOR_POOL and to_parse < MIN_KEPT_FOR_POOL
    if jobs <= 1 or small:
        for index in ordered:
            yield index, scan_file(tasks[index], use_prefilter)
        return
    from concurrent.futures import FIRST_COMPLETED, wait
    from concurrent.futures.process import BrokenProcessPool

    pool = _pool(jobs)
    if pool is None:
        for index in ordered:
            yield index, scan_file(tasks[index], use_prefilter)
        return
    pending_indexes: set[int] = set(ordered)
    try:
        with pool:
            futures = {
                pool.submit(_scan_chunk, [tasks[i] for i in chunk], use_prefilter): chunk
                for chunk in _chunks(tasks, ordered)
            }
            while futures:
                finished, _ = wait(futures, return_when=FIRST_COMPLETED)
                for future in finished:
                    chunk = futures.pop(future)
                    for index, result in zip(chunk, future.result(), strict=True):
                        pending_indexes.discard(index)
                        yield index, result
    except BrokenProcessPool:
        # A worker died (out of memory, a crash in a native extension): finish here,
        # file by file, so one bad file cannot take the whole run with it.
        for index in ordered:
            if index in pending_indexes:
                yield index, scan_file(tasks[index], use_prefilter)


def _chunks(tasks: Sequence[FileTask], ordered: list[int]) -> Iterator[list[int]]:
    chunk: list[int] = []
    size = 0
    for index in ordered:
        chunk.append(index)
        size += tasks[index].size
        if size >= _CHUNK_BYTES or len(chunk) >= _CHUNK_FILES:
            yield chunk
            chunk, size = [], 0
    if chunk:
        yield chunk


def _scan_chunk(tasks: list[FileTask], use_prefilter: bool) -> list[FileResult]:
    return [scan_file(task, use_prefilter) for task in tasks]


def _pool(jobs: int) -> ProcessPoolExecutor | None:
    """Worker processes that inherit this process's imports (fork) where that is safe;
    elsewhere (macOS, Windows) each worker starts afresh and imports what it needs."""
    # Workers inherit the compiled prefilter and libcst instead of importing them.
    from jobcheck.extract.prefilter import compiled

    compiled()
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    method = "fork" if sys.platform.startswith("linux") else "spawn"
    try:
        context = multiprocessing.get_context(method)
        return ProcessPoolExecutor(max_workers=jobs, mp_context=context)
    except (OSError, ValueError, NotImplementedError):
        return None
