"""Celery beat schedule values as :class:`~jobcheck.facts.Timing`."""

from __future__ import annotations

from jobcheck import timing
from jobcheck.facts import Timing
from jobcheck.facts.values import CallV, Const, Value, string

CELERY_SCHEDULE_CLASSES = frozenset(
    {"celery.schedules.schedule", "celery.schedule", "celery.task.schedules.schedule"}
)


def celery_timing(value: Value, text: str) -> Timing:
    """A beat ``schedule``: ``crontab(...)``, ``timedelta(...)``, seconds,
    ``schedule(run_every=...)`` or ``solar(...)`` (celery/schedules.py ``maybe_schedule``
    turns numbers and timedeltas into ``schedule`` intervals)."""
    if isinstance(value, CallV):
        func = value.func or ""
        last = func.rpartition(".")[2]
        if func.endswith("crontab.from_string"):
            return timing.cron_expression(string(value.arg(0, "crontab")), text)
        if last == "crontab" and not func.startswith("huey"):
            return timing.celery_crontab(value, text)
        if func in CELERY_SCHEDULE_CLASSES:
            return timing.interval(timing.timedelta_seconds(value.arg(0, "run_every")), text)
        if func in ("datetime.timedelta", "timedelta"):
            return timing.interval(timing.timedelta_seconds(value), text)
        return timing.other(text)
    if isinstance(value, Const) and not isinstance(value.value, bool):
        seconds = timing.timedelta_seconds(value)
        if seconds is not None:
            return timing.interval(seconds, text)
    return timing.other(text)
