"""Keeping Python's cyclic garbage collector out of the lint runs.

A run over a large buffer allocates millions of objects (syntax trees, facts), and the
collector's full passes over a heap of that size took about a third of opening a module
of 5,000 tasks. Syntax trees and facts hold no reference cycles: reference counting
frees them as soon as a newer version replaces them. So a run goes without the
collector, and what it leaves alive is then frozen (moved where collections do not look,
at no cost). The few cycles runs do leave behind are collected between runs, once the
runs have frozen as many objects as the last collection left alive.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

MIN_FROZEN_OBJECTS = 1_000_000
"""Below this many frozen objects a full collection is never due (it costs well under a
tenth of a second there)."""


class Collector:
    def __init__(self) -> None:
        self._alive_after_collection = 0
        self._frozen_since_collection = 0
        """Objects the paused runs left alive (net of those freed): the live ones and
        the cycles no collection looked at."""

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        """Run the block without the cyclic collector; freeze what it left alive."""
        enabled = gc.isenabled()
        gc.disable()
        try:
            yield
        finally:
            # The youngest generation's count is the net number of objects allocated
            # since it was last emptied (freezing empties it); counting the frozen
            # objects instead would walk all of them.
            self._frozen_since_collection += max(gc.get_count()[0], 0)
            gc.freeze()
            if enabled:
                gc.enable()

    def due(self) -> bool:
        growth = self._frozen_since_collection
        return growth > max(MIN_FROZEN_OBJECTS, self._alive_after_collection)

    def collect(self) -> None:
        """Collect the cycles frozen since the last collection (a full pass)."""
        gc.unfreeze()
        gc.collect()
        gc.freeze()
        self._alive_after_collection = gc.get_freeze_count()
        self._frozen_since_collection = 0
