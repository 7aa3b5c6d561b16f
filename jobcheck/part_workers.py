"""Worker processes that read parts of files (``jobcheck/extract/parts.py``), each file
always in the same worker.

The parts the summaries follow are asked a call level at a time: a helper module may be
asked for one function now and another two levels later. A worker keeps the outlines
(the places of a file's statements, ``Outline``) of the files it read, and a file goes
back to the worker that first read it (a new one to the least loaded), so a file is
outlined once per run however many levels ask for it, and the levels still use every
core.
"""

from __future__ import annotations

import atexit
import re
import sys
import zlib
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass

from jobcheck.facts import FileFacts

# Below this many parts in a level, handing them to workers costs more than reading here.
MIN_PARTS_FOR_WORKERS = 24
# Outlines each worker keeps (a file's parts are asked over several levels).
OUTLINES_KEPT = 512


@dataclass(frozen=True, slots=True)
class PartsTask:
    """Parts of one file to read."""

    display: str
    data: bytes
    module: str
    is_package: bool
    names: frozenset[str]
    """The top-level definitions to read."""
    methods: frozenset[str]
    """The methods kept of those that are classes."""


class PartWorkers:
    """One single-process pool per core, kept while gathering (:meth:`close`)."""

    def __init__(self, jobs: int) -> None:
        self.jobs = jobs
        self._pools: list[ProcessPoolExecutor] | None = None
        self.broken = False
        self._homes: dict[str, int] = {}
        """The worker each file was read in."""
        self._libcst_home: int | None = None
        """The worker given the files this interpreter's parser cannot read."""

    def read(self, tasks: Sequence[PartsTask]) -> Iterator[tuple[PartsTask, FileFacts]]:
        """The facts of each task's parts; a task whose worker died is left out (the
        caller reads it itself)."""
        pools = self._start()
        if pools is None:
            return
        from concurrent.futures import as_completed
        from concurrent.futures.process import BrokenProcessPool

        futures: dict[Future[FileFacts], PartsTask] = {}
        try:
            for task, index in self._placed(tasks):
                futures[pools[index].submit(_read_parts, task)] = task
        except (BrokenProcessPool, RuntimeError):
            self.broken = True
        for future in as_completed(futures):
            try:
                yield futures[future], future.result()
            except BrokenProcessPool:
                self.broken = True

    def _placed(self, tasks: Sequence[PartsTask]) -> list[tuple[PartsTask, int]]:
        """Each task with the worker it goes to: a file's usual one (which keeps its
        outline), a new file to the worker with the fewest bytes to read in this
        level, largest files first (placed by a hash of the name, one worker took half
        as long again as the other)."""
        load = [0] * self.jobs
        placed: list[tuple[PartsTask, int]] = []
        new: list[PartsTask] = []
        for task in tasks:
            home = self._homes.get(task.display)
            if home is None:
                new.append(task)
            else:
                load[home] += len(task.data)
                placed.append((task, home))
        for task in sorted(new, key=lambda t: -len(t.data)):
            home = load.index(min(load))
            if _needs_libcst(task.data):
                # One worker imports libcst (a sixth of a second) for all such files.
                home = self._libcst_home = home if self._libcst_home is None else self._libcst_home
            self._homes[task.display] = home
            load[home] += len(task.data)
            placed.append((task, home))
        return placed

    def close(self) -> None:
        """Stop the workers, and wait until they have ended (idle, they end at once):
        a worker still running when the process exits is joined by multiprocessing's
        exit handler, and one not yet sent its stop message then waits for ever (``jobs``
        hung one run in fifteen when the pools were left to stop in the background)."""
        for pool in self._pools or ():
            pool.shutdown(wait=True, cancel_futures=True)
        self._pools = None
        if self in _open:
            _open.remove(self)

    def _start(self) -> list[ProcessPoolExecutor] | None:
        if self.broken:
            return None
        if self._pools is None:
            import multiprocessing

            # Forked workers inherit the extraction and what it imports on first use.
            import jobcheck.extract.pipeline
            import jobcheck.syntax.comments  # noqa: F401

            method = "fork" if sys.platform.startswith("linux") else "spawn"
            try:
                context = multiprocessing.get_context(method)
                self._pools = [
                    ProcessPoolExecutor(max_workers=1, mp_context=context) for _ in range(self.jobs)
                ]
            except (OSError, ValueError, NotImplementedError):
                self.broken = True
                return None
            _open.append(self)
        return self._pools


_open: list[PartWorkers] = []
"""Workers started and not closed (a caller that never said gathering is over)."""


@atexit.register
def _end_workers() -> None:
    """At exit, stop the workers still open (run before multiprocessing's own exit
    handler, registered earlier, which joins them)."""
    for workers in list(_open):
        workers.close()


# Grammar newer than Python 3.11's that real projects write and CPython here cannot be
# made to read (``type X = ...``; generic functions and classes have their type
# parameters blanked, ``syntax.source.without_type_parameters``): read with libcst.
_NEWER_GRAMMAR = re.compile(rb"(?m)^type[ \t]+\w+")


def _needs_libcst(data: bytes) -> bool:
    """Whether CPython here may not read ``data`` (a guess, for placing it only)."""
    return sys.version_info < (3, 12) and _NEWER_GRAMMAR.search(data) is not None


_outlines: OrderedDict[tuple[str, int], object] = OrderedDict()
"""In a worker: the outlines of the files it read, by (name, hash of the content); the
facts of a file CPython cannot outline, read whole."""


def _read_parts(task: PartsTask) -> FileFacts:
    import gc

    from jobcheck.extract import extract_functions
    from jobcheck.extract.parts import outline

    key = (task.display, zlib.crc32(task.data))
    if key in _outlines:
        _outlines.move_to_end(key)
        read = _outlines[key]
    else:
        read = _outlines[key] = outline(task.data)
        if len(_outlines) > OUTLINES_KEPT:
            _outlines.popitem(last=False)
    if isinstance(read, FileFacts):
        return read
    enabled = gc.isenabled()
    gc.disable()
    try:
        facts = extract_functions(
            task.display,
            task.data,
            task.module,
            task.is_package,
            task.names,
            task.methods,
            read,  # type: ignore[arg-type]
        )
        if read is None:
            # CPython cannot read the file (newer grammar): it was read whole, with
            # libcst; the next level asking for it gets the same facts.
            _outlines[key] = facts
        return facts
    finally:
        if enabled:
            gc.enable()
