"""Source ranges, shared by facts and findings (a module of its own: a run that
replays cached findings imports this, not the facts)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Loc:
    """A source range: 1-based lines and columns, end exclusive."""

    line: int
    column: int
    end_line: int
    end_column: int


def line_loc(number: int, text: str) -> Loc:
    """The whole of line ``number`` (1-based), whose text is ``text``: where a line-based
    reader (Procfile, supervisord, systemd, a Dockerfile, a script) reports what it read."""
    return Loc(number, 1, number, len(text.rstrip()) + 1)
