"""Verified facts of Dramatiq's framework integrations (not wired to checks yet):
django_dramatiq's and flask_dramatiq's broker settings.

Read in the wheels of django-dramatiq 0.15.0 and flask-dramatiq 0.8.0 (never imported).
Light module: no libcst. dramatiq-crontab has a plugin of its own
(``jobcheck/frameworks/dramatiq_crontab``).
"""

from __future__ import annotations

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
