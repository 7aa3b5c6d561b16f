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
    object_roots: tuple[str, ...] = ()
    """Top-level packages whose objects' ``.task`` decorators make this framework's jobs
    (``huey``); a root ending in ``_`` is a prefix (``taskiq_``: every broker package)."""
    checked: bool = True
    """Whether the checks read its jobs, schedules and enqueue sites. False for a plugin
    whose facts are extracted but whose semantics the checks do not speak yet: the
    project model keeps its facts (``Project.all_jobs``, ``all_schedules``) out of what
    the checks iterate, so no check judges them as another framework's."""
    enqueued_by_call: bool = False
    """Calling one of its jobs enqueues it (Huey): the second pass analyses the files that
    name a job of this framework, as it does for Dramatiq's ``actor.send``."""
    adopt: str | None = None
    """``module:function`` (light: no libcst) that turns a job read from ``@obj.task`` by
    the Celery recognizer into this framework's job, for an ``obj`` that the project
    model finds was made, in another file, by a class of one of ``object_roots``."""

    def load_semantics(self) -> Any:
        return _load(self.semantics) if self.semantics else None

    def owns_class(self, qualname: str) -> bool:
        root = qualname.split(".")[0]
        return any(root == r or (r.endswith("_") and root.startswith(r)) for r in self.object_roots)

    def load_adopt(self) -> Any:
        return _load(self.adopt) if self.adopt else None


def _load(reference: str) -> Any:
    module, _, name = reference.partition(":")
    return getattr(importlib.import_module(module), name)


def load_all(references: tuple[str, ...]) -> tuple[Any, ...]:
    return tuple(_load(reference) for reference in references)
