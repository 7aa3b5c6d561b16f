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
from typing import Any


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
        self._literals = list(self._by_literal)
        self._set = _literal_set(self._literals)

    def reason(self, data: bytes, module: str = "") -> str | None:
        """Why the file matters (the first trigger that fires), or None."""
        for reason, pattern in self._modules:
            if pattern.search(module):
                return reason
        present = self._present(data)
        for literal, checks in self._by_literal.items():
            if literal not in present:
                continue
            for reason, confirm in checks:
                if confirm is None or confirm(data):
                    return reason
        return None

    def _present(self, data: bytes) -> set[bytes]:
        """The literals that occur in ``data``: found in one pass by an RE2 set (the
        literals looked for one by one with ``bytes.find`` scan the file 78 times:
        a second for saleor's 28 MB, the set a twentieth of it)."""
        if self._set is None:
            return {literal for literal in self._literals if literal in data}
        return {self._literals[index] for index in self._set.Match(data) or ()}

    def decide(self, data: bytes, module: str = "") -> Decision:
        reason = self.reason(data, module)
        return Decision(reason is not None, reason, _SENDS.search(data) is not None)


_SENDS = re.compile(rb"\.send(?:_with_options)?\s*\(")


class LinearSearch:
    """Whether ``pattern`` occurs in some bytes, matched by RE2 in one pass (a pattern
    with no literal prefix, ``(?m)^[ \\t]*import ...`` or ``\\b(?:redis|amqp...)://``,
    makes Python's ``re`` try every position of the file). ``pattern`` must mean the
    same to both engines, as Python's ``re`` reads it where RE2 cannot: no look-around,
    and whitespace spelled out (RE2's ``\\s`` leaves out ``\\v``)."""

    def __init__(self, pattern: bytes) -> None:
        import re2

        self.pattern = pattern
        try:
            self._search = re2.compile(pattern, _latin1_options()).search
        except re2.error:
            self._search = re.compile(pattern).search

    def __call__(self, data: bytes) -> bool:
        return self._search(data) is not None


def _latin1_options() -> Any:
    """RE2 reading bytes as bytes (Latin-1: one character per byte, whatever the file's
    encoding), without capturing."""
    import re2

    options = re2.Options()
    options.encoding = re2.Options.Encoding.LATIN1
    options.log_errors = False
    options.never_capture = True
    return options


def _literal_set(literals: list[bytes]) -> Any:
    """An RE2 set of ``literals`` matched as bytes (Latin-1: one character per byte,
    whatever the file's encoding), or None when RE2 cannot compile it."""
    if not literals:
        return None
    import re2

    found = re2.Set.SearchSet(_latin1_options())
    try:
        for literal in literals:
            found.Add(re.escape(literal.decode("latin-1")))
        found.Compile()
    except re2.error:
        return None
    return found


def names_pattern(names: Iterable[str]) -> re.Pattern[bytes] | None:
    """A pattern for any of ``names`` as a whole word, for the second pass that finds
    Dramatiq ``actor.send(...)`` sites in files the first pass skipped (the file must
    name the actor somewhere, if only in an aliased import)."""
    words = sorted({n for n in names if n})
    if not words:
        return None
    alternatives = b"|".join(re.escape(n.encode()) for n in words)
    return re.compile(rb"(?<!\w)(?:" + alternatives + rb")(?!\w)")
