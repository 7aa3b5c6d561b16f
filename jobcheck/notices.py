"""One-line warnings on standard error, each said once per process."""

from __future__ import annotations

import contextlib
import sys

_said: set[str] = set()


def warn_once(text: str) -> None:
    """Print ``jobcheck: warning: <text>`` unless it was printed already."""
    if text in _said:
        return
    _said.add(text)
    with contextlib.suppress(OSError, ValueError):  # a closed or broken standard error
        print(f"jobcheck: warning: {text}", file=sys.stderr)
