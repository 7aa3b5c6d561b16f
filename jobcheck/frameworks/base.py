"""What a framework plugin declares (``jobcheck/frameworks/<name>/__init__.py``).

A plugin is one folder: its recognizers (extraction, which imports libcst), its
semantics (defaults and rules the checks ask about, which must not), its tables of
verified library facts. The registry (``jobcheck/frameworks/__init__.py``) lists the
plugins; nothing outside ``jobcheck/frameworks`` compares a framework's name.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Plugin:
    name: str
    """The name facts carry (``TaskDef.framework``, ``ScheduleEntry.framework``...)."""
    title: str
    """As users write it: "Celery", "RQ"."""
    recognizers: tuple[str, ...] = ()
    """``module:Class`` of the recognizers that read its jobs, options and enqueues
    (run in this order, before the effects recognizer)."""
    schedule_readers: tuple[str, ...] = ()
    """``module:Class`` of the recognizers that read its schedules."""
    semantics: str | None = None
    """``module:object`` of its semantics (``jobcheck/frameworks/semantics.py``)."""
    aliases: tuple[str, ...] = field(default=())
    """Other names its facts may carry (``rq-scheduler`` schedules are RQ's)."""
    ruby_recognizers: tuple[str, ...] = ()
    """``module:Class`` of the recognizers the Ruby walker runs (``jobcheck/ruby``)."""
    triggers: str | None = None
    """``module:object``: prefilter triggers of its own, beside its recognizers' (for
    files no Python recognizer reads: Ruby sources, YAML configuration)."""

    def load_semantics(self) -> Any:
        return _load(self.semantics) if self.semantics else None


def _load(reference: str) -> Any:
    module, _, name = reference.partition(":")
    return getattr(importlib.import_module(module), name)


def load_all(references: tuple[str, ...]) -> tuple[Any, ...]:
    return tuple(_load(reference) for reference in references)
