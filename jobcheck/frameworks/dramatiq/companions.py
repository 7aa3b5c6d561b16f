"""Verified facts of Dramatiq's framework integrations (not wired to checks yet):
django_dramatiq's and flask_dramatiq's broker settings.

Read in the wheels of django-dramatiq 0.15.0 and flask-dramatiq 0.8.0 (never imported).
Light module: no libcst. dramatiq-crontab has a plugin of its own
(``jobcheck/frameworks/dramatiq_crontab``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from jobcheck.facts import FrameworkConfig, Loc
from jobcheck.facts.values import CallV, SeqV, Value, is_none, string
from jobcheck.project.test_code import is_test_code

if TYPE_CHECKING:
    from jobcheck.project.model import Project

# django_dramatiq/apps.py: ``broker_settings()`` is ``getattr(settings, "DRAMATIQ_BROKER",
# DEFAULT_BROKER_SETTINGS)``; the broker is made as ``broker_class(middleware=middleware,
# **options)`` with ``middleware = [load_middleware(path) for path in
# broker_settings.get("MIDDLEWARE", [])]`` (:62-78): exactly the MIDDLEWARE list, Dramatiq's
# defaults not merged in, and a dict without a MIDDLEWARE key gives NO middleware at all
# (no Retries, no TimeLimit, no AgeLimit). With DRAMATIQ_RESULT_BACKEND set, a Results
# middleware is appended.
DJANGO_BROKER_SETTING = "DRAMATIQ_BROKER"
DJANGO_BROKER_KEYS = ("BROKER", "OPTIONS", "MIDDLEWARE")
DJANGO_MIDDLEWARE_WHEN_MISSING: tuple[str, ...] = ()
DJANGO_DEFAULT_BROKER_SETTINGS = {
    "BROKER": "dramatiq.brokers.rabbitmq.RabbitmqBroker",
    "OPTIONS": {"host": "127.0.0.1", "port": 5672, "heartbeat": 0, "connection_attempts": 5},
    "MIDDLEWARE": (
        "dramatiq.middleware.Prometheus",
        "dramatiq.middleware.AgeLimit",
        "dramatiq.middleware.TimeLimit",
        "dramatiq.middleware.Callbacks",
        "dramatiq.middleware.Retries",
        "django_dramatiq.middleware.AdminMiddleware",
        "django_dramatiq.middleware.DbConnectionsMiddleware",
    ),
}
"""apps.py:11-28, used only when there is no DRAMATIQ_BROKER setting."""

# flask_dramatiq.py ``Dramatiq(app=None, broker_cls="dramatiq.brokers.rabbitmq:RabbitmqBroker",
# name="dramatiq", config_prefix=None, middleware=None)`` (:112-161): ``middleware=None``
# means ``[m() for m in dramatiq.middleware.default_middleware]``; a given list replaces
# them; ``AppContextMiddleware(app)`` is always put first (``init_app``). Its actors are
# ``@<instance>.actor(...)``; the broker class comes from ``app.config[<NAME>_BROKER]``.
FLASK_DRAMATIQ = frozenset({"flask_dramatiq.Dramatiq"})
FLASK_DEFAULT_MIDDLEWARE = "dramatiq.middleware.default_middleware"


@dataclass(frozen=True)
class BrokerMiddleware:
    """The middleware list a project gives its broker, when it replaces Dramatiq's
    defaults with one jobcheck can read whole."""

    names: frozenset[str]
    """Class names (``TimeLimit``, ``Retries``...), without their modules."""
    options: dict[str, tuple[tuple[str, Value], ...]]
    """The keywords each is made with (``TimeLimit(time_limit=60_000)``), by name."""
    where: str
    """How messages name the setting: ``DRAMATIQ_BROKER["MIDDLEWARE"]``..."""
    path: str
    loc: Loc


STUB_BROKER = "StubBroker"
"""dramatiq/brokers/stub.py: "A broker that can be used within unit tests"; it keeps
messages in the memory of the process that sends them."""


def broker_class(config: FrameworkConfig) -> str | None:
    """The broker class a configuration makes, by its last name (``RedisBroker``): a
    broker made in code, or django_dramatiq's ``DRAMATIQ_BROKER["BROKER"]`` path."""
    text = config.cls if config.kind == "broker" else None
    if config.kind == "settings":
        text = string(config.option("BROKER"))
    return text.replace(":", ".").rsplit(".", 1)[-1] if text else None


def broker_middleware(project: Project) -> BrokerMiddleware | None:
    """The middleware of the project's one configured broker, when it is an explicit
    list: django_dramatiq's ``DRAMATIQ_BROKER`` (its ``MIDDLEWARE`` exactly, none without
    the key: apps.py:62-78), flask_dramatiq's ``Dramatiq(middleware=[...])`` (the list
    replaces ``default_middleware``: flask_dramatiq.py:112-161) or a broker made with
    ``middleware=[...]`` (broker.py ``Broker.__init__``), with what
    ``broker.add_middleware(...)`` adds. None when there is no such setting, several, or a
    list with items jobcheck cannot name (``*defaults``)."""
    found = [
        (f, config)
        for f, config in project.configs("dramatiq")
        if config.kind in ("settings", "instance", "broker")
        and not is_test_code(f)
        and not (config.cls or "").endswith(STUB_BROKER)
    ]
    if len(found) != 1:
        return None
    f, config = found[0]
    # broker.add_middleware(...) anywhere: counted for the project's one broker.
    extras = [extra for _, extra in project.configs("dramatiq", "added-middleware")]
    added = [part.rsplit(".", 1)[-1] for extra in extras for part in extra.parts]
    options = {part.rsplit(".", 1)[-1]: extra.options for extra in extras for part in extra.parts}
    if config.kind == "settings":
        listed = config.option("MIDDLEWARE")
        where = f'{DJANGO_BROKER_SETTING}["MIDDLEWARE"]'
        if listed is None:
            where = f"{DJANGO_BROKER_SETTING} (no MIDDLEWARE key)"
            return BrokerMiddleware(frozenset(added), options, where, f.path, config.loc)
    else:
        listed = config.option("middleware")
        made = (config.cls or "").rpartition(".")[2] if config.kind == "broker" else "Dramatiq"
        where = f"{made}(middleware=[...])"
        if listed is None or is_none(listed):
            return None  # Dramatiq's default_middleware
    if not isinstance(listed, SeqV) or len(config.parts) != len(listed.items):
        return None
    names = [part.rsplit(".", 1)[-1] for part in config.parts]
    if not all(_MIDDLEWARE_NAME.fullmatch(name) for name in names):
        return None
    for item in listed.items:
        if isinstance(item, CallV) and item.func:
            options.setdefault(item.func.rsplit(".", 1)[-1], item.kwargs)
    return BrokerMiddleware(frozenset(names + added), options, where, f.path, config.loc)


_MIDDLEWARE_NAME = re.compile(r"[A-Z][A-Za-z0-9_]*")
