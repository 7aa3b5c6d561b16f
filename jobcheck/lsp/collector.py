"""Keeping Python's cyclic garbage collector out of the lint runs.

A run over a large buffer allocates millions of objects (syntax trees, facts), and the
collector's passes over a heap of that size, repeated as it grows, took about a third
of opening a module of 5,000 tasks. So a run goes without the collector, and after its
results are delivered one pass over the objects allocated since the last one collects
the cycles they hold (the project model's, chiefly), and what survives is frozen: moved
where collections do not look, at no cost. That pass waits until the server is idle (an
edit right after opening a large module must not wait for it), unless the runs keep
coming until :data:`MAX_UNTIDY_OBJECTS` objects are waiting. Trees and facts are freed by reference
counting as soon as a newer version replaces them. Cycles that reach frozen objects are
collected by a full pass, once the runs have allocated as many objects as that pass
last found alive.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

MIN_FULL_PASS_OBJECTS = 1_000_000
"""Objects to allocate before a full pass is worth its cost (a tenth of a second)."""

MAX_UNTIDY_OBJECTS = 2_000_000
"""Objects allocated without a pass after which the next pass cannot wait for idleness."""


class Collector:
    def __init__(self) -> None:
        self._alive_after_full_pass = 0
        self._allocated = 0
        """Objects allocated (net) since the last full pass."""

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        """Run the block without the cyclic collector (until :meth:`tidy`)."""
        gc.disable()
        yield

    def overdue(self) -> bool:
        return gc.get_count()[0] > MAX_UNTIDY_OBJECTS

    def tidy(self) -> None:
        """Between runs: collect what the runs since the last call left, freeze the
        rest, and let the collector run again."""
        # The youngest generation's count is the net number of objects allocated since
        # it was last emptied; counting the frozen objects would walk all of them.
        self._allocated += max(gc.get_count()[0], 0)
        if self._allocated > max(MIN_FULL_PASS_OBJECTS, self._alive_after_full_pass):
            gc.unfreeze()
            gc.collect()
            self._alive_after_full_pass = len(gc.get_objects())
            self._allocated = 0
        else:
            gc.collect(0)
        gc.freeze()
        gc.enable()
