"""One-line messages on standard error: warnings (each said once per process), errors
and notes. Each line may carry project text (a path, a task name), so it is made safe
for a terminal and a CI log first: secrets masked, control characters and line breaks
escaped, no line a CI runner takes for a command (``jobcheck/output/encoding.py``)."""

from __future__ import annotations

import contextlib
import sys

_said: set[str] = set()


def warn_once(text: str) -> None:
    """Print ``jobcheck: warning: <text>`` unless it was printed already."""
    if text in _said:
        return
    _said.add(text)
    say(f"jobcheck: warning: {text}")


def say(text: str) -> None:
    """Print one line on standard error, made safe for a terminal and a CI log."""
    from jobcheck.output.encoding import guard_line, terminal

    line = guard_line(terminal(text))
    with contextlib.suppress(OSError, ValueError):  # a closed or broken standard error
        print(line, file=sys.stderr)
