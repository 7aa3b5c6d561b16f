"""Running parse-and-walk work on a thread with a large stack.

libcst's native parser and the walks over its trees recurse once per level of
nesting. The screen (``jobcheck/syntax/screen.py``) bounds that nesting; this gives the
recursion the room the bound needs: a thread whose stack is :data:`STACK_BYTES` (the
main thread has 8 MB, which about 10,000 chained ``and`` overflow), and a recursion
limit to match. The stack is virtual memory: only the pages a deep file touches are
ever used.

One thread serves every call, for the life of the process: a thread started per file
would parse a fifth slower (each new thread's first allocations come from a fresh
malloc arena). A forked worker process starts without it and makes its own.
"""

from __future__ import annotations

import os
import queue
import sys
import threading
from collections.abc import Callable
from typing import TypeVar

STACK_BYTES = 512 * 1024 * 1024
RECURSION_LIMIT = 150_000
"""Python frames the deepest screened tree needs: three or four per level of 20,000
chained ``and``, with room for the walk's own frames."""

Result = TypeVar("Result")

_local = threading.local()
_start_lock = threading.Lock()
_work: queue.SimpleQueue[tuple[Callable[[], object], list[object], threading.Event]] | None
_work = None


def run_deep(work: Callable[[], Result]) -> Result:
    """``work()``, on the thread with a large stack (inline when already on it, or
    when the platform refuses such a thread)."""
    if getattr(_local, "deep", False):
        return work()
    jobs = _jobs()
    if jobs is None:
        return work()
    outcome: list[object] = []
    done = threading.Event()
    jobs.put((work, outcome, done))
    done.wait()
    succeeded, value = outcome[0]  # type: ignore[misc]
    if succeeded:
        return value  # type: ignore[return-value]
    raise value  # type: ignore[misc]


def _jobs() -> queue.SimpleQueue | None:  # type: ignore[type-arg]
    global _work
    if _work is not None:
        return _work
    with _start_lock:
        if _work is None:
            jobs: queue.SimpleQueue = queue.SimpleQueue()  # type: ignore[type-arg]
            if sys.getrecursionlimit() < RECURSION_LIMIT:
                sys.setrecursionlimit(RECURSION_LIMIT)
            previous = threading.stack_size()
            try:
                threading.stack_size(STACK_BYTES)
            except (ValueError, RuntimeError):
                return None
            try:
                thread = threading.Thread(
                    target=_serve, args=(jobs,), name="jobcheck-deep", daemon=True
                )
                thread.start()
            finally:
                threading.stack_size(previous)
            _work = jobs
    return _work


def _serve(jobs: queue.SimpleQueue) -> None:  # type: ignore[type-arg]
    _local.deep = True
    while True:
        work, outcome, done = jobs.get()
        try:
            outcome.append((True, work()))
        except BaseException as error:  # handed to the calling thread
            outcome.append((False, error))
        finally:
            done.set()


def _forget_in_child() -> None:
    global _work
    _work = None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_in_child)
