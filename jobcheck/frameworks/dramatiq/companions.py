"""Verified facts of Dramatiq's companion packages (not wired to checks yet): the
dramatiq-crontab scheduler, django_dramatiq's and flask_dramatiq's broker settings.

Read in the wheels of dramatiq-crontab 1.2.1, django-dramatiq 0.15.0 and flask-dramatiq
0.8.0 (never imported). Light module: no libcst.
"""

from __future__ import annotations

# dramatiq-crontab (PyPI ``dramatiq-crontab``, voiio/dramatiq-crontab; module
# ``dramatiq_crontab``; Django only). dramatiq_crontab/__init__.py ``cron(schedule)``:
# stacked above a Dramatiq actor (``@cron("0 0 * * *")`` then ``@dramatiq.actor``), it adds
# ``actor.send`` to a module-level APScheduler 3 ``BlockingScheduler`` with
# ``CronTrigger.from_crontab(schedule, timezone=django.utils.timezone
# .get_default_timezone())``, named after the actor. ``*_, day_schedule =
# schedule.split(" ")``: a digit in the day-of-week field raises ValueError (APScheduler 3
# counts weekdays from Monday = 0). ``from_crontab`` wants exactly five fields
# (apscheduler/triggers/cron/__init__.py:142-144): no ``@hourly``.
# ``interval(*, seconds)`` uses an ``IntervalTrigger``, counted from the scheduler's start.
CRONTAB_DECORATORS = frozenset({"dramatiq_crontab.cron"})
INTERVAL_DECORATORS = frozenset({"dramatiq_crontab.interval"})
CRONTAB_TIMEZONE = "django.utils.timezone.get_default_timezone()"
CRONTAB_JOB_DEFAULTS = {"max_instances": 1, "coalesce": True, "misfire_grace_time": 1}
"""APScheduler 3's job defaults (apscheduler/schedulers/base.py ``_configure``). They bound
the ``actor.send`` call, not the actor's run in a worker: runs can still overlap."""
# management/commands/crontab.py runs the scheduler ``with utils.lock``: a Redis lock
# ``"dramatiq-scheduler"`` only when ``settings.DRAMATIQ_CRONTAB["REDIS_URL"]`` is set,
# else ``FakeLock`` (no lock): dramatiq_crontab/utils.py. conf.py defaults:
CRONTAB_SETTINGS_DEFAULTS = {
    "REDIS_URL": None,
    "LOCK_REFRESH_INTERVAL": 5,
    "LOCK_TIMEOUT": 10,
    "LOCK_BLOCKING_TIMEOUT": 15,
}
SCHEDULER_LOCK_NEEDS = "DRAMATIQ_CRONTAB['REDIS_URL']"

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
