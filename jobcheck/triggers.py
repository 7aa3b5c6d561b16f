"""What makes a file worth parsing: the prefilter's triggers (``Trigger``).

Recognizers (``jobcheck/extract/*.py``) and rule classes (``jobcheck/checks/*.py``) declare
``PREFILTER = (Trigger(...), ...)``; ``jobcheck/prefilter.py`` compiles them all.
This module imports nothing heavy (the matching itself lives here too), so checks can
declare triggers without pulling libcst into a run that reads every fact from the cache.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Trigger:
    """Keep a file when ``literal`` occurs in its bytes and ``confirm`` (a regular
    expression over bytes, when given) matches them; or, for a module trigger, when the
    file's dotted module name matches the regular expression ``module``.

    Keep literals specific: the prefilter looks for each with ``bytes.find`` (fast), and
    runs ``confirm`` only on files that contain the literal."""

    reason: str
    literal: bytes = b""
    confirm: bytes | None = None
    module: str | None = None
    predicate: Callable[[bytes], bool] | None = None
    """A confirmation too costly as one regular expression (a conjunction): called
    instead of ``confirm`` on files that contain the literal."""


@dataclass(frozen=True)
class Decision:
    """The prefilter's verdict on one file."""

    kept: bool
    reason: str | None
    sends: bool
    """The file calls ``.send(`` / ``.send_with_options(`` (a Dramatiq actor, maybe)."""


class Prefilter:
    """Triggers compiled for fast matching; build one with :func:`compiled`."""

    def __init__(self, triggers: Iterable[Trigger]) -> None:
        self.triggers = tuple(triggers)
        # literal -> [(reason, confirmation or None)], literals in declaration order
        self._by_literal: dict[bytes, list[tuple[str, Callable[[bytes], object] | None]]] = {}
        self._modules: list[tuple[str, re.Pattern[str]]] = []
        for trigger in self.triggers:
            if trigger.module is not None:
                self._modules.append((trigger.reason, re.compile(trigger.module)))
            if trigger.literal:
                confirm = trigger.predicate or (
                    re.compile(trigger.confirm).search if trigger.confirm else None
                )
                self._by_literal.setdefault(trigger.literal, []).append((trigger.reason, confirm))

    def reason(self, data: bytes, module: str = "") -> str | None:
        """Why the file matters (the first trigger that fires), or None."""
        for reason, pattern in self._modules:
            if pattern.search(module):
                return reason
        for literal, checks in self._by_literal.items():
            if literal not in data:
                continue
            for reason, confirm in checks:
                if confirm is None or confirm(data):
                    return reason
        return None

    def decide(self, data: bytes, module: str = "") -> Decision:
        reason = self.reason(data, module)
        return Decision(reason is not None, reason, _SENDS.search(data) is not None)


_SENDS = re.compile(rb"\.send(?:_with_options)?\s*\(")


def names_pattern(names: Iterable[str]) -> re.Pattern[bytes] | None:
    """A pattern for any of ``names`` as a whole word, for the second pass that finds
    Dramatiq ``actor.send(...)`` sites in files the first pass skipped (the file must
    name the actor somewhere, if only in an aliased import)."""
    words = sorted({n for n in names if n})
    if not words:
        return None
    alternatives = b"|".join(re.escape(n.encode()) for n in words)
    return re.compile(rb"(?<!\w)(?:" + alternatives + rb")(?!\w)")
