"""Keeping Python's cyclic garbage collector out of the lint runs, and giving freed
memory back.

A run over a large buffer allocates millions of objects (syntax trees, facts), and the
collector's passes over a heap of that size, repeated as it grows, took about a third
of opening a module of 5,000 tasks. So a run goes without the collector:

- Syntax trees and facts hold no reference cycles: reference counting frees them as
  soon as a newer version replaces them. What the extraction allocated is frozen
  (moved where collections do not look, at no cost) before the checks run.
- The project model does hold cycles (its indexes and helpers refer back to it), and
  with them every file's facts. Once the server is idle, one pass over the objects
  allocated since the extraction (the model's: far fewer than a large buffer's tree)
  collects them, and what survives is frozen too. When a run follows another before
  the server was idle (typing), that pass is made before its checks instead, over the
  last model and the new extraction's objects.
- Objects frozen without a pass are counted; a full pass comes once they outnumber the
  objects alive after the last one (at most once per doubling of the heap, as Python's
  own collector does), for cycles nobody expected.

Once idle, the memory freed by closed documents is also handed back to the system
(glibc keeps freed blocks for reuse, so the server's resident size would not go down).
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import gc
from collections.abc import Callable, Iterator

MAX_SWEPT_OBJECTS = 2_000_000
"""Young objects one idle pass looks at (a fifth of a second for the project model of
24,000 tasks); more are frozen unswept."""

MIN_FULL_PASS_OBJECTS = 4_000_000
"""Unswept objects below which a full pass is never due."""

MAX_UNTIDY_OBJECTS = 2_000_000
"""Objects allocated without a pass after which the next pass cannot wait for idleness."""


class Collector:
    def __init__(self) -> None:
        self._alive_after_full_pass = 0
        self._unswept = 0
        """Objects frozen without a pass since the last full one."""
        self._leftovers = False
        """Whether a run ended since the last :meth:`tidy` (its model is not swept)."""

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        """Run the block without the cyclic collector (until :meth:`tidy`)."""
        gc.disable()
        try:
            yield
        finally:
            self._leftovers = True

    def set_aside(self) -> None:
        """Before the checks: freeze what the run allocated so far (trees and facts),
        after a pass when an earlier run's model is among it."""
        young = max(gc.get_count()[0], 0)
        if self._leftovers and young <= MAX_SWEPT_OBJECTS:
            gc.collect(0)
        else:
            self._unswept += young
        self._leftovers = False
        gc.freeze()

    def overdue(self) -> bool:
        return gc.get_count()[0] > MAX_UNTIDY_OBJECTS

    def tidy(self, idle: bool = True) -> None:
        """Between runs: collect the cycles the runs since the last call left, freeze
        what survives and let the collector run again; when ``idle``, also hand freed
        memory back to the system."""
        # The youngest generation's count is the net number of objects allocated since
        # it was last emptied; counting the frozen objects would walk all of them.
        young = max(gc.get_count()[0], 0)
        if idle and young <= MAX_SWEPT_OBJECTS:
            gc.collect(0)
        else:
            self._unswept += young
        self._leftovers = False
        if self._unswept > max(MIN_FULL_PASS_OBJECTS, self._alive_after_full_pass):
            gc.unfreeze()
            gc.collect()
            self._alive_after_full_pass = len(gc.get_objects())
            self._unswept = 0
        gc.freeze()
        gc.enable()
        if idle:
            _trim = _malloc_trim()
            if _trim is not None:
                _trim(0)


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, where there is one (the process's own symbols: finding
    the C library by name would start a subprocess)."""
    try:
        return ctypes.CDLL(None).malloc_trim  # type: ignore[no-any-return]
    except (OSError, AttributeError, TypeError):
        return None
