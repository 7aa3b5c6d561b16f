"""Where a run's time goes: ``JOBCHECK_TIMINGS=1 jobcheck check ...`` prints the wall
time of each phase on stderr (for profiling and docs/benchmarks.md)."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

ENABLED = bool(os.environ.get("JOBCHECK_TIMINGS"))
_START = time.perf_counter()
_phases: list[tuple[str, float]] = []


@contextmanager
def phase(name: str) -> Iterator[None]:
    if not ENABLED:
        yield
        return
    start = time.perf_counter()
    try:
        yield
    finally:
        _phases.append((name, time.perf_counter() - start))


def report() -> None:
    if not ENABLED:
        return
    import resource

    total = time.perf_counter() - _START
    for name, seconds in _phases:
        print(f"jobcheck timing: {name:<24} {seconds * 1000:8.1f} ms", file=sys.stderr)
    print(f"jobcheck timing: {'total (since import)':<24} {total * 1000:8.1f} ms", file=sys.stderr)
    own = resource.getrusage(resource.RUSAGE_SELF)
    workers = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(
        f"jobcheck timing: CPU {own.ru_utime + own.ru_stime:.2f} s in this process, "
        f"{workers.ru_utime + workers.ru_stime:.2f} s in workers",
        file=sys.stderr,
    )
