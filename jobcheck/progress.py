"""A progress bar on stderr for long runs in a terminal.

It appears only when both stdout and stderr are terminals (never in piped or
machine-readable output, never in CI), and only once a run has taken more than
:data:`DELAY` seconds, so quick runs (everything cached) never flash one. rich is
imported only then.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

DELAY = 1.0
"""Seconds a run goes before the bar appears."""


class _DelayedBar:
    """A ``progress(done, total)`` callback that starts a rich bar after :data:`DELAY`."""

    def __init__(self) -> None:
        self._started = time.monotonic()
        self._progress: Any = None
        self._task: Any = None

    def __call__(self, done: int, total: int) -> None:
        if self._progress is None:
            if time.monotonic() - self._started < DELAY or done >= total:
                return
            self._start(total)
        self._progress.update(self._task, completed=done, total=total)

    def _start(self, total: int) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
        )

        self._progress = Progress(
            TextColumn("jobcheck: reading files"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=Console(stderr=True),
            transient=True,
        )
        self._progress.start()
        self._task = self._progress.add_task("files", total=total)

    def close(self) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None


def wanted() -> bool:
    """Whether this process talks to a person at a terminal."""
    if os.environ.get("CI") or os.environ.get("TERM") == "dumb":
        return False
    try:
        return sys.stdout.isatty() and sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


@contextmanager
def progress_bar(enabled: bool = True) -> Iterator[_DelayedBar | None]:
    """A progress callback for :class:`jobcheck.engine.RunSettings`, or None when no
    bar should be shown."""
    if not enabled or not wanted():
        yield None
        return
    bar = _DelayedBar()
    try:
        yield bar
    finally:
        bar.close()
