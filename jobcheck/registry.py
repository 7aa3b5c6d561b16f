"""The framework plugins, registered in one place.

Each framework jobcheck understands is a folder under ``jobcheck/frameworks/``
(``celery/``, ``rq/``, ``dramatiq/``, ``apscheduler/``, ``schedule/``; ``django/`` and
``web/`` for what is not a job system but shapes one: settings, models, transactions,
request handlers). A plugin's ``__init__`` declares a :class:`Plugin`; adding a framework
is one folder, one line in :data:`PLUGIN_MODULES`, its fixtures and its docs.

Plugins are loaded by name, on first use: the layers below them (extraction, the project
model) reach a framework only through this registry, never by importing its folder, so
a plugin may build on them without a cycle (``tests/test_architecture.py``).
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from jobcheck.facts import ScheduleEntry
    from jobcheck.frameworks.semantics_base import (
        CheckParts,
        JobPart,
        LimitPart,
        ProjectPart,
        SchedulePart,
        ScheduleTerms,
        Semantics,
    )


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
    """``module:object`` of its semantics (``jobcheck/frameworks/semantics_base.py``)."""
    aliases: tuple[str, ...] = field(default=())
    """Other names its facts may carry (``rq-scheduler`` schedules are RQ's)."""
    queue_constructors: tuple[tuple[str, str | None], ...] = ()
    """Calls that make one of its queue objects, with the queue name they default to
    (None: the name must be given)."""
    receiver_queue: str | None = None
    """``module:function`` reading the queue an enqueue call is made on (RQ)."""
    ruby_recognizers: tuple[str, ...] = ()
    """``module:Class`` of the recognizers the Ruby walker runs (``jobcheck/ruby``)."""
    triggers: str | None = None
    """``module:object``: prefilter triggers of its own, beside its recognizers' (for
    files no Python recognizer reads: Ruby sources, YAML configuration)."""
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
    config_reader: str | None = None
    """``module:function(facts, text) -> facts`` reading its configuration files
    (Sidekiq's ``sidekiq.yml``, ``schedule.yml``)."""
    check_parts: str | None = None
    """``module:object`` of its own part of checks, by check slug
    (``semantics_base.CheckParts``, in its ``checks.py``)."""
    fixes: str | None = None
    """``module:object``: its part of the automatic fixes, in its own syntax
    (``jobcheck/frameworks/fixes_base.py``). Apart from :attr:`semantics`, which the
    checks read and which must not reach libcst."""

    def load_recognizers(self) -> tuple[type, ...]:
        return tuple(_load(reference) for reference in self.recognizers)

    def load_schedule_readers(self) -> tuple[type, ...]:
        return tuple(_load(reference) for reference in self.schedule_readers)

    def owns_class(self, qualname: str) -> bool:
        root = qualname.split(".")[0]
        return any(root == r or (r.endswith("_") and root.startswith(r)) for r in self.object_roots)

    def load_adopt(self) -> Any:
        return _load(self.adopt) if self.adopt else None

    def load_receiver_queue(self) -> Any:
        return _load(self.receiver_queue) if self.receiver_queue else None

    def load_semantics(self) -> Any:
        return _load(self.semantics) if self.semantics else None

    def load_fixes(self) -> Any:
        return _load(self.fixes) if self.fixes else None


def _load(reference: str) -> Any:
    module, _, name = reference.partition(":")
    return getattr(importlib.import_module(module), name)


PLUGIN_MODULES = (
    "jobcheck.frameworks.web",
    "jobcheck.frameworks.huey",
    "jobcheck.frameworks.taskiq",
    "jobcheck.frameworks.celery",
    "jobcheck.frameworks.rq",
    "jobcheck.frameworks.dramatiq",
    "jobcheck.frameworks.arq",
    "jobcheck.frameworks.django",
    "jobcheck.frameworks.sqlalchemy",
    "jobcheck.frameworks.apscheduler",
    "jobcheck.frameworks.schedule",
    "jobcheck.frameworks.dramatiq_crontab",
    "jobcheck.frameworks.kubernetes",
    "jobcheck.frameworks.crontab",
    "jobcheck.frameworks.sidekiq",
)
"""In the order their recognizers run: the web plugin first (it marks request handlers
before the others look at their bodies); the frameworks whose objects also have
``.task`` decorators (Huey, taskiq) before Celery, which leaves their jobs alone."""


@functools.cache
def plugins() -> tuple[Plugin, ...]:
    return tuple(importlib.import_module(name).PLUGIN for name in PLUGIN_MODULES)


@functools.cache
def _by_name() -> dict[str, Plugin]:
    return {name: p for p in plugins() for name in (p.name, *p.aliases)}


def plugin(name: str | None) -> Plugin | None:
    """The plugin whose facts carry ``name`` (None for a name no plugin knows)."""
    return _by_name().get(name or "")


def owner(name: str | None) -> str | None:
    """The name of the plugin whose facts carry ``name`` (an alias: an ActiveJob's is
    "sidekiq"); ``name`` itself when no plugin knows it."""
    found = plugin(name)
    return found.name if found is not None else name


def names() -> tuple[str, ...]:
    """Every plugin's name, in registry order."""
    return tuple(p.name for p in plugins())


def checked(name: str | None) -> bool:
    """Whether the checks read facts of the framework ``name`` (``Plugin.checked``);
    True for a name no plugin knows."""
    found = plugin(name)
    return found is None or found.checked


def enqueued_by_call(name: str | None) -> bool:
    """Whether calling a job of the framework ``name`` enqueues it (Huey)."""
    found = plugin(name)
    return found is not None and found.enqueued_by_call


def adopt(task: Any, library_class: str) -> Any:
    """A job read from ``@obj.task`` as the job of the framework whose class made ``obj``
    (``library_class``); None when no plugin models that library's jobs."""
    for candidate in plugins():
        if candidate.adopt and candidate.owns_class(library_class):
            return candidate.load_adopt()(task)
    return None


def title(name: str | None) -> str:
    found = plugin(name)
    return found.title if found is not None else (name or "unknown")


@functools.cache
def semantics(name: str | None) -> Semantics:
    """The semantics of the framework ``name`` (``jobcheck/frameworks/semantics_base.py``);
    the neutral semantics for a name no plugin knows: nothing is assumed of it."""
    found = plugin(name)
    loaded = found.load_semantics() if found is not None else None
    if loaded is None:
        loaded = importlib.import_module("jobcheck.frameworks.semantics_base").UNKNOWN
    return loaded  # type: ignore[no-any-return]


def schedule_terms(entry: ScheduleEntry) -> ScheduleTerms:
    """What the entry's framework says of it (``Semantics.schedule_terms``)."""
    return semantics(entry.framework).schedule_terms(entry)


@functools.cache
def check_parts(name: str | None) -> CheckParts:
    """The framework ``name``'s own part of checks; none for a name no plugin knows."""
    found = plugin(name)
    parts = _load(found.check_parts) if found is not None and found.check_parts else None
    if parts is None:
        parts = importlib.import_module("jobcheck.frameworks.semantics_base").CheckParts()
    return parts  # type: ignore[no-any-return]


def project_parts(slug: str) -> Iterator[ProjectPart]:
    """Every plugin's part of check ``slug`` that judges the project, in registry order."""
    for found in plugins():
        part = check_parts(found.name).per_project.get(slug)
        if part is not None:
            yield part


def job_part(framework: str | None, slug: str) -> JobPart | None:
    """The part of check ``slug`` that judges one job of ``framework``, if it has one."""
    return check_parts(framework).per_job.get(slug)


def schedule_part(framework: str | None, slug: str) -> SchedulePart | None:
    """The part of check ``slug`` that judges one schedule entry of ``framework``."""
    return check_parts(framework).per_schedule.get(slug)


def time_limit_part(framework: str | None, slug: str) -> LimitPart | None:
    """The part of check ``slug`` that reports one job of ``framework`` with its limit."""
    return check_parts(framework).per_time_limit.get(slug)


def every_semantics() -> tuple[Semantics, ...]:
    """The semantics of every plugin, in registry order."""
    return tuple(semantics(name) for name in names())


@functools.cache
def framework_fixes(name: str | None) -> Any:
    """The framework ``name``'s part of the automatic fixes
    (``jobcheck/frameworks/fixes_base.py``); the neutral one, which fixes nothing of its
    own, for a plugin without one or a name no plugin knows."""
    found = plugin(name)
    loaded = found.load_fixes() if found is not None else None
    if loaded is None:
        loaded = importlib.import_module("jobcheck.frameworks.fixes_base").NEUTRAL
    return loaded


def every_framework_fixes() -> tuple[Any, ...]:
    """Every plugin's part of the automatic fixes, in registry order."""
    return tuple(framework_fixes(name) for name in names())


@functools.cache
def queue_constructors() -> dict[str, tuple[tuple[str, str | None], ...]]:
    """Callee -> (framework, default queue name) of every call that makes a queue."""
    found: dict[str, list[tuple[str, str | None]]] = {}
    for p in plugins():
        for func, default in p.queue_constructors:
            found.setdefault(func, []).append((p.name, default))
    return {func: tuple(entries) for func, entries in found.items()}


@functools.cache
def ruby_recognizers() -> tuple[type, ...]:
    """Every Ruby recognizer (``jobcheck/ruby/walker.py``), in plugin order."""
    return tuple(_load(ref) for p in plugins() for ref in p.ruby_recognizers)


@functools.cache
def config_readers() -> tuple[Any, ...]:
    """The configuration-file readers plugins declare, in registry order."""
    return tuple(_load(p.config_reader) for p in plugins() if p.config_reader)


def plugin_triggers() -> list[Any]:
    """The prefilter triggers plugins declare beside their recognizers'."""
    return [t for p in plugins() if p.triggers for t in _load(p.triggers)]


@functools.cache
def receiver_queue_reader(name: str | None) -> Any:
    """The function reading the queue a call of framework ``name`` is made on, if any."""
    found = plugin(name)
    return found.load_receiver_queue() if found is not None else None
