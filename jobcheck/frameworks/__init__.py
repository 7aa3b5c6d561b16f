"""The framework plugins, registered in one place.

Each framework jobcheck understands is a folder here (``celery/``, ``rq/``,
``dramatiq/``, ``apscheduler/``, ``schedule/``; ``django/`` and ``web/`` for what is not a
job system but shapes one: settings, models, transactions, request handlers). A
plugin's ``__init__`` declares a :class:`~jobcheck.frameworks.base.Plugin`; adding a
framework is one folder, one line below, its fixtures and its docs.

This module is light: recognizers (libcst) and semantics load on first use.
"""

from __future__ import annotations

import functools
from typing import Any

from jobcheck.frameworks.apscheduler import PLUGIN as APSCHEDULER
from jobcheck.frameworks.arq import PLUGIN as ARQ
from jobcheck.frameworks.base import Plugin, load_all
from jobcheck.frameworks.celery import PLUGIN as CELERY
from jobcheck.frameworks.crontab import PLUGIN as CRONTAB
from jobcheck.frameworks.django import PLUGIN as DJANGO
from jobcheck.frameworks.dramatiq import PLUGIN as DRAMATIQ
from jobcheck.frameworks.dramatiq_crontab import PLUGIN as DRAMATIQ_CRONTAB
from jobcheck.frameworks.huey import PLUGIN as HUEY
from jobcheck.frameworks.kubernetes import PLUGIN as KUBERNETES
from jobcheck.frameworks.rq import PLUGIN as RQ
from jobcheck.frameworks.schedule import PLUGIN as SCHEDULE
from jobcheck.frameworks.taskiq import PLUGIN as TASKIQ
from jobcheck.frameworks.web import PLUGIN as WEB

PLUGINS: tuple[Plugin, ...] = (
    WEB,
    HUEY,
    TASKIQ,
    CELERY,
    RQ,
    DRAMATIQ,
    ARQ,
    DJANGO,
    APSCHEDULER,
    SCHEDULE,
    DRAMATIQ_CRONTAB,
    KUBERNETES,
    CRONTAB,
)
"""In the order their recognizers run: the web plugin first (it marks request handlers
before the others look at their bodies); the frameworks whose objects also have
``.task`` decorators (Huey, taskiq) before Celery, which leaves their jobs alone."""

_BY_NAME = {name: plugin for plugin in PLUGINS for name in (plugin.name, *plugin.aliases)}


def plugin(name: str | None) -> Plugin | None:
    """The plugin whose facts carry ``name`` (None for a name no plugin knows)."""
    return _BY_NAME.get(name or "")


def checked(name: str | None) -> bool:
    """Whether the checks read facts of the framework ``name`` (see ``Plugin.checked``);
    True for a name no plugin knows, as before plugins declared it."""
    found = plugin(name)
    return found is None or found.checked


def enqueued_by_call(name: str | None) -> bool:
    """Whether calling a job of the framework ``name`` enqueues it (``Plugin.enqueued_by_call``)."""
    found = plugin(name)
    return found is not None and found.enqueued_by_call


def title(name: str | None) -> str:
    found = plugin(name)
    return found.title if found is not None else (name or "unknown")


@functools.cache
def semantics(name: str | None) -> Any:
    """The semantics of the framework ``name`` (``jobcheck/frameworks/semantics.py``);
    the neutral semantics for a name no plugin knows: nothing is assumed of it."""
    from jobcheck.frameworks.semantics import UNKNOWN

    found = plugin(name)
    loaded = found.load_semantics() if found is not None else None
    return loaded if loaded is not None else UNKNOWN


def adopt(task: Any, library_class: str) -> Any:
    """A job the Celery recognizer read from ``@obj.task``, as the job of the framework
    whose class made ``obj`` (``library_class``, found by the project model across
    files); None when no plugin models that library's jobs."""
    for candidate in PLUGINS:
        if candidate.adopt and candidate.owns_class(library_class):
            return candidate.load_adopt()(task)
    return None


@functools.cache
def recognizers() -> tuple[type, ...]:
    """Every recognizer, in the order the walker runs them."""
    from jobcheck.extract.delegation import DelegationRecognizer
    from jobcheck.extract.effects import EffectsRecognizer
    from jobcheck.extract.locks import LockRecognizer
    from jobcheck.extract.routing import RoutingRecognizer
    from jobcheck.extract.schedules import ScheduleBookkeeping
    from jobcheck.extract.startup import StartupRecognizer

    main = [cls for p in PLUGINS for cls in load_all(p.recognizers)]
    schedules = [cls for p in PLUGINS for cls in load_all(p.schedule_readers)]
    # The delegation and routing recognizers read the enqueue sites the framework
    # recognizers record for the same call; routing comes last.
    return (
        *main,
        DelegationRecognizer,
        EffectsRecognizer,
        *schedules,
        ScheduleBookkeeping,
        LockRecognizer,
        StartupRecognizer,
        RoutingRecognizer,
    )
