"""The framework plugins, registered in one place.

Each framework jobcheck understands is a folder here (``celery/``, ``rq/``,
``dramatiq/``, ``apscheduler/``, ``schedule/``, ``sidekiq/`` for Ruby; ``django/`` and
``web/`` for what is not a job system but shapes one: settings, models, transactions,
request handlers). A plugin's ``__init__`` declares a
:class:`~jobcheck.frameworks.base.Plugin`; adding a framework is one folder, one line
below, its fixtures and its docs.

This module is light: recognizers (libcst) and semantics load on first use.
"""

from __future__ import annotations

import functools
from typing import Any

from jobcheck.frameworks.apscheduler import PLUGIN as APSCHEDULER
from jobcheck.frameworks.base import Plugin, load_all
from jobcheck.frameworks.celery import PLUGIN as CELERY
from jobcheck.frameworks.django import PLUGIN as DJANGO
from jobcheck.frameworks.dramatiq import PLUGIN as DRAMATIQ
from jobcheck.frameworks.rq import PLUGIN as RQ
from jobcheck.frameworks.schedule import PLUGIN as SCHEDULE
from jobcheck.frameworks.sidekiq import PLUGIN as SIDEKIQ
from jobcheck.frameworks.web import PLUGIN as WEB

PLUGINS: tuple[Plugin, ...] = (
    WEB,
    CELERY,
    RQ,
    DRAMATIQ,
    DJANGO,
    APSCHEDULER,
    SCHEDULE,
    SIDEKIQ,
)
"""In the order their recognizers run: the web plugin first (it marks request handlers
before the others look at their bodies)."""

_BY_NAME = {name: plugin for plugin in PLUGINS for name in (plugin.name, *plugin.aliases)}


def plugin(name: str | None) -> Plugin | None:
    """The plugin whose facts carry ``name`` (None for a name no plugin knows)."""
    return _BY_NAME.get(name or "")


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


@functools.cache
def recognizers() -> tuple[type, ...]:
    """Every recognizer, in the order the walker runs them."""
    from jobcheck.extract.effects import EffectsRecognizer
    from jobcheck.extract.locks import LockRecognizer
    from jobcheck.extract.routing import RoutingRecognizer
    from jobcheck.extract.schedules import ScheduleBookkeeping
    from jobcheck.extract.startup import StartupRecognizer

    main = [cls for p in PLUGINS for cls in load_all(p.recognizers)]
    schedules = [cls for p in PLUGINS for cls in load_all(p.schedule_readers)]
    # The routing recognizer comes last: it reads the enqueue sites the framework
    # recognizers record for the same call.
    return (
        *main,
        EffectsRecognizer,
        *schedules,
        ScheduleBookkeeping,
        LockRecognizer,
        StartupRecognizer,
        RoutingRecognizer,
    )


@functools.cache
def ruby_recognizers() -> tuple[type, ...]:
    """Every Ruby recognizer (``jobcheck/ruby/walker.py``), in plugin order."""
    return tuple(cls for p in PLUGINS for cls in load_all(p.ruby_recognizers))


def plugin_triggers() -> list[Any]:
    """The prefilter triggers plugins declare beside their recognizers'."""
    return [t for p in PLUGINS if p.triggers for t in load_all((p.triggers,))[0]]
