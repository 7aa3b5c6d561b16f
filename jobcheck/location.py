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
