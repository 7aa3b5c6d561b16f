"""Worker processes that read parts of files (``jobcheck/extract/parts.py``), each file
always in the same worker.

The parts the summaries follow are asked a call level at a time: a helper module may be
asked for one function now and another two levels later. A worker keeps the outlines
(CPython's tree of a whole file) of the files it read, and every file goes to the worker
chosen by its name, so a file is parsed once per run however many levels ask for it,
and the levels still use every core.
"""

from __future__ import annotations

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
            for task in tasks:
                pool = pools[zlib.crc32(task.display.encode("utf-8", "surrogatepass")) % len(pools)]
                futures[pool.submit(_read_parts, task)] = task
        except (BrokenProcessPool, RuntimeError):
            self.broken = True
        for future in as_completed(futures):
            try:
                yield futures[future], future.result()
            except BrokenProcessPool:
                self.broken = True

    def close(self) -> None:
        for pool in self._pools or ():
            pool.shutdown(wait=False, cancel_futures=True)
        self._pools = None

    def _start(self) -> list[ProcessPoolExecutor] | None:
        if self.broken:
            return None
        if self._pools is None:
            import multiprocessing

            import jobcheck.extract  # noqa: F401  (forked workers inherit the extraction)

            method = "fork" if sys.platform.startswith("linux") else "spawn"
            try:
                context = multiprocessing.get_context(method)
                self._pools = [
                    ProcessPoolExecutor(max_workers=1, mp_context=context) for _ in range(self.jobs)
                ]
            except (OSError, ValueError, NotImplementedError):
                self.broken = True
                return None
        return self._pools


_outlines: OrderedDict[tuple[str, int], object] = OrderedDict()
"""In a worker: the outlines of the files it read, by (name, hash of the content)."""


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
    enabled = gc.isenabled()
    gc.disable()
    try:
        return extract_functions(
            task.display,
            task.data,
            task.module,
            task.is_package,
            task.names,
            task.methods,
            read,  # type: ignore[arg-type]
        )
    finally:
        if enabled:
            gc.enable()
