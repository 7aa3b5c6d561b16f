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

Workers are forked after this process imported the extraction and compiled the
prefilter, so they start with both.

Each file has a time budget (:func:`file_budget`, 20 s unless
``JOBCHECK_FILE_TIME_BUDGET`` says otherwise): a worker still on one file past it is
killed and replaced, and the file is an error of the report, so one pathological file
(a pull request is free to write one) never stalls the run. Where workers are forked
(Linux) even a handful of files is parsed in one, as a fork costs milliseconds; where
they would be spawned afresh, a few files are parsed here, without a budget.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

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
    pass

# Parse in worker processes only when there is at least this much to parse: below it,
# forking and starting workers costs more than parsing here (libcst parses roughly
# 200-300 KB per second and core).
MIN_BYTES_FOR_POOL = 200_000
MIN_FILES_FOR_POOL = 2

# How often the reading loop looks for a worker done with its file.
POLL_SECONDS = 0.002

DEFAULT_FILE_BUDGET = 20.0
"""Seconds one file's extraction may take before its worker is killed."""
BUDGET_VARIABLE = "JOBCHECK_FILE_TIME_BUDGET"


def file_budget() -> float | None:
    """The per-file time budget in seconds: :data:`DEFAULT_FILE_BUDGET`, or the value of
    ``JOBCHECK_FILE_TIME_BUDGET`` (``0`` or ``off``: none)."""
    given = os.environ.get(BUDGET_VARIABLE, "").strip().lower()
    if not given:
        return DEFAULT_FILE_BUDGET
    if given in ("off", "none"):
        return None
    try:
        seconds = float(given)
    except ValueError:
        return DEFAULT_FILE_BUDGET
    return seconds if 0 < seconds < float("inf") else None


OVER_BUDGET_WORDS = "to analyse (the per-file time budget"


def over_budget_message(budget: float) -> str:
    return (
        f"took longer than {budget:g} s {OVER_BUDGET_WORDS}, "
        f"{BUDGET_VARIABLE}); the file was not checked"
    )


CRASHED = "the parser crashed on this file (its worker process died); the file was not checked"


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
    over_budget: bool = False
    """Its extraction was stopped at the time budget: its error is not to be cached (a
    busier or quieter machine may finish it)."""


@dataclass(slots=True)
class _Read:
    """A file read and prefiltered, waiting to be parsed."""

    task: FileTask
    data: bytes
    result: FileResult
    """The result without facts."""


def scan_file(
    task: FileTask, use_prefilter: bool = True, budget: float | None = None
) -> FileResult:
    """Read, hash and prefilter one file; extract its facts when it can matter (with a
    ``budget``, in a worker process that is killed past it, where workers are forked)."""
    read = _read(task, use_prefilter)
    if not isinstance(read, _Read):
        return read
    if budget is None or not _forks():
        return _with_facts(read, _extract(read))
    return _with_facts(read, *_on_demand_worker(budget).run(read))


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


def _with_facts(read: _Read, facts: FileFacts, over_budget: bool = False) -> FileResult:
    result = read.result
    return FileResult(
        result.display,
        result.digest,
        result.kept,
        result.sends,
        facts,
        read_at_ns=result.read_at_ns,
        empty=result.empty,
        over_budget=over_budget,
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
    budget: float | None = None,
    keep_workers: bool = False,
) -> list[FileResult]:
    """Every task's result, in task order. Files to parse go to ``jobs`` worker
    processes when there is enough to parse (or, with a ``budget``, to one where workers
    are forked); ``progress`` gets (parsed, to parse). With ``keep_workers``, the
    workers wait for the next scan (forking them again cost the second pass more than
    its parsing), until ``close_workers``."""
    results: list[FileResult | None] = [None] * len(tasks)
    parser = _Parser(jobs, budget, keep_workers)
    # Largest first (by the size stat gave), and each kept file handed to the workers as
    # soon as it is read: they parse while this process reads and prefilters the rest.
    for index in sorted(range(len(tasks)), key=lambda i: -tasks[i].size):
        read = _read(tasks[index], use_prefilter)
        if isinstance(read, _Read):
            parser.add(index, read)
        else:
            results[index] = read
            parser.poll()
    for done, (index, facts, over_budget) in enumerate(parser.results(), start=1):
        results[index] = _with_facts(parser.reads[index], facts, over_budget)
        if progress is not None:
            progress(done, len(parser.reads))
    return results  # type: ignore[return-value]


class _Parser:
    """Parses files as they are added: here, until there is enough to parse to be worth
    worker processes, then in them (the files added so far go first). With a budget and
    forked workers, always in them."""

    def __init__(self, jobs: int, budget: float | None = None, keep: bool = False) -> None:
        self.jobs = jobs
        self.budget = budget
        self.keep = keep
        """Keep the workers for the next scan (``close_workers`` stops them)."""
        self.reads: dict[int, _Read] = {}
        self.workers: _Workers | None = None
        self._waiting: list[tuple[int, _Read]] = []
        self._done: list[Outcome] = []
        self._bytes = 0
        self._pool_failed = False
        self._polled = 0.0

    def add(self, index: int, read: _Read) -> None:
        self.reads[index] = read
        self._waiting.append((index, read))
        self._bytes += len(read.data)
        if self.workers is None and not self._pool_failed and self._worth_a_pool():
            self._start(self.jobs)
        if self.workers is not None:
            self._done += self.workers.finished(wait=False)
            self._hand_over()

    def poll(self) -> None:
        """Hand the next waiting file to a worker that is done (a worker takes one file
        at a time: were it told only when a file is added, it would wait while this
        process reads the twenty it skips for each it keeps)."""
        if self.workers is None or not self._waiting:
            return
        now = time.monotonic()
        if now - self._polled < POLL_SECONDS:
            return
        self._polled = now
        self._done += self.workers.finished(wait=False)
        self._hand_over()

    def results(self) -> Iterator[Outcome]:
        """(task index, facts, stopped at the budget) for every file added, as they are
        done. A file a worker dies on twice (out of memory, a crash in a native
        extension), or that runs past the budget, is an error; the others are parsed as
        usual."""
        if self.workers is None and self._waiting and self.budget is not None and _forks():
            self._start(1)
        if self.workers is None:
            for index, read in sorted(self._waiting, key=lambda item: item[0]):
                yield index, _extract(read), False
            return
        workers = self.workers
        finished = False
        try:
            yield from self._done
            while self._waiting or workers.busy():
                self._hand_over()
                yield from workers.finished(wait=True)
            finished = True
        finally:
            if finished and self.keep and not workers.busy():
                _keep(self.budget, workers)
            else:
                workers.close()

    def _start(self, jobs: int) -> None:
        kept = _KEPT.pop(self.budget, None)
        self.workers = kept if kept is not None else _Workers.start(jobs, self.budget)
        self._pool_failed = self.workers is None

    def _hand_over(self) -> None:
        assert self.workers is not None
        while self._waiting and self.workers.idle():
            index, read = self._waiting.pop(0)
            self.workers.give(index, read)

    def _worth_a_pool(self) -> bool:
        return (
            self.jobs > 1
            and len(self._waiting) >= MIN_FILES_FOR_POOL
            and self._bytes >= MIN_BYTES_FOR_POOL
        )


def _extract(read: _Read) -> FileFacts:
    task = read.task
    return extract(task.display, read.data, task.module, task.is_package)


Outcome = tuple[int, FileFacts, bool]
"""(task index, facts, whether the extraction was stopped at the time budget)."""


def _stopped(read: _Read, message: str) -> FileFacts:
    """The facts of a file whose extraction was stopped: only its error."""
    task = read.task
    failed = FileFacts(path=task.display, module=task.module)
    failed.error = message
    failed.parsed = False
    return failed


def _forks() -> bool:
    """Whether worker processes are forked here (cheap, and they inherit the imports)."""
    return sys.platform.startswith("linux")


class _Workers:
    """Worker processes, each given one file at a time through a pipe, so that this
    process knows which file each is on and since when: a worker past the budget is
    killed (pure Python, a native parser, a regular expression: whatever it runs) and
    replaced, and a worker that dies costs only the file it was on."""

    def __init__(self, context: Any, size: int, budget: float | None) -> None:
        self._context = context
        self._size = size
        self.budget = budget
        self._slots: list[_Worker | None] = [None] * size

    @classmethod
    def start(cls, jobs: int, budget: float | None) -> _Workers | None:
        """``jobs`` workers (started as files come); None where processes cannot be."""
        import multiprocessing

        # Forked workers inherit the recognizers and what extraction imports on first use.
        import jobcheck.extract.pipeline
        import jobcheck.syntax.comments  # noqa: F401

        try:
            context = multiprocessing.get_context("fork" if _forks() else "spawn")
        except ValueError:
            return None
        return cls(context, max(1, jobs), budget)

    def idle(self) -> bool:
        return any(worker is None or worker.current is None for worker in self._slots)

    def busy(self) -> bool:
        return any(worker is not None and worker.current is not None for worker in self._slots)

    def give(self, index: int, read: _Read, retried: bool = False) -> None:
        slot = next(i for i, w in enumerate(self._slots) if w is None or w.current is None)
        worker = self._slots[slot]
        if worker is None:
            worker = self._slots[slot] = _Worker(self._context)
        worker.give(index, read, retried)

    def finished(self, wait: bool) -> list[Outcome]:
        """The files done since the last call (waiting for at least one, with ``wait``,
        while any is being parsed), and those stopped: past the budget, or crashed."""
        from multiprocessing.connection import wait as ready

        busy = [w for w in self._slots if w is not None and w.current is not None]
        if not busy:
            return []
        timeout = self._until_first_deadline(busy) if wait else 0.0
        waiting_on = {w.connection: w for w in busy} | {w.process.sentinel: w for w in busy}
        answered = {waiting_on[o] for o in ready(list(waiting_on), timeout)}  # type: ignore[index]
        done: list[Outcome] = []
        for worker in busy:
            if worker in answered:
                outcome = self._answer(worker)
                if outcome is not None:
                    done.append(outcome)
            elif self.budget is not None and worker.elapsed() > self.budget:
                done.append(self._stop(worker, over_budget_message(self.budget), True))
        return done

    def _until_first_deadline(self, busy: list[_Worker]) -> float | None:
        if self.budget is None:
            return None
        return max(0.0, min(self.budget - w.elapsed() for w in busy)) + 0.01

    def _answer(self, worker: _Worker) -> Outcome | None:
        """The facts a worker sent; when it died instead (out of memory, a crash in
        native code), its file is given to a new worker once (None), then an error."""
        try:
            facts = worker.connection.recv()
        except (EOFError, OSError):
            facts = None
        index, read = worker.current  # type: ignore[misc]
        if isinstance(facts, FileFacts):
            worker.current = None
            return index, facts, False
        if worker.retried:
            return self._stop(worker, CRASHED)
        self._stop(worker, CRASHED)
        self.give(index, read, retried=True)
        return None

    def _stop(self, worker: _Worker, message: str, over_budget: bool = False) -> Outcome:
        index, read = worker.current  # type: ignore[misc]
        worker.kill()
        self._slots[self._slots.index(worker)] = None  # replaced when a file comes
        return index, _stopped(read, message), over_budget

    def close(self) -> None:
        for worker in self._slots:
            if worker is not None:
                worker.close()
        self._slots = [None] * self._size


class _Worker:
    """One worker process and the file it is on."""

    def __init__(self, context: Any) -> None:
        self.connection, child = context.Pipe()
        self.process = context.Process(target=_serve, args=(child,), daemon=True)
        self.process.start()
        child.close()
        self.current: tuple[int, _Read] | None = None
        self.retried = False
        """Whether the current file is given again, after a worker died on it."""
        self._since = 0.0

    def give(self, index: int, read: _Read, retried: bool = False) -> None:
        task = read.task
        self.current = (index, read)
        self.retried = retried
        self._since = time.monotonic()
        self.connection.send((task.display, read.data, task.module, task.is_package))

    def elapsed(self) -> float:
        return time.monotonic() - self._since

    def kill(self) -> None:
        self.current = None
        self.process.kill()
        self.process.join()
        self.connection.close()

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.connection.send(None)
        self.process.join(timeout=5)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()
        self.connection.close()


def _serve(connection: Any) -> None:
    """A worker's loop: facts for each file sent, until None (or the pipe closes)."""
    while True:
        try:
            work = connection.recv()
        except (EOFError, OSError):
            return
        if work is None:
            return
        try:
            facts: object = extract(*work)
        except Exception:  # extract never raises; if it did, the file is the error
            facts = None
        connection.send(facts)


class _OnDemand:
    """One worker kept for files read one at a time (modules the checks look up), so
    that they too have a budget."""

    def __init__(self, budget: float) -> None:
        self.budget = budget
        self._workers: _Workers | None = None

    def run(self, read: _Read) -> tuple[FileFacts, bool]:
        """The file's facts, and whether it was stopped at the budget."""
        if self._workers is None:
            self._workers = _Workers.start(1, self.budget)
            if self._workers is None:
                return _extract(read), False
        self._workers.give(0, read)
        while True:
            for _, facts, over_budget in self._workers.finished(wait=True):
                return facts, over_budget

    def close(self) -> None:
        if self._workers is not None:
            self._workers.close()
            self._workers = None


_ON_DEMAND: dict[float, _OnDemand] = {}


_KEPT: dict[float | None, _Workers] = {}
"""Workers a scan kept for the next (the second pass's rounds), by time budget."""


def _keep(budget: float | None, workers: _Workers) -> None:
    previous = _KEPT.pop(budget, None)
    if previous is not None:
        previous.close()
    _KEPT[budget] = workers


def close_workers() -> None:
    """Stop the workers kept for later scans and for files read one at a time (started
    again when such a file comes): while other workers run, and once gathering is
    over, each holds memory for nothing."""
    for workers in _KEPT.values():
        workers.close()
    _KEPT.clear()
    for worker in _ON_DEMAND.values():
        worker.close()


def _on_demand_worker(budget: float) -> _OnDemand:
    worker = _ON_DEMAND.get(budget)
    if worker is None:
        worker = _ON_DEMAND[budget] = _OnDemand(budget)
    return worker
