"""Reading schedules written for each framework into a :class:`~jobcheck.facts.Timing`:
Celery beat values, APScheduler triggers and the ``schedule`` library's units.

The library facts are verified in each library's source and cited where encoded; the
cron arithmetic itself lives in :mod:`jobcheck.timing`.
"""

from __future__ import annotations

from jobcheck import timing
from jobcheck.facts import Timing
from jobcheck.facts.values import CallV, Const, Value, string

CELERY_SCHEDULE_CLASSES = frozenset(
    {"celery.schedules.schedule", "celery.schedule", "celery.task.schedules.schedule"}
)
# apscheduler/schedulers/base.py ``add_job(func, trigger=None, args=None, kwargs=None,
# id=None, name=None, misfire_grace_time, coalesce, max_instances, next_run_time,
# jobstore, executor, replace_existing, **trigger_args)``; ``scheduled_job(trigger, ...)``.
APSCHEDULER_JOB_KEYWORDS = frozenset(
    {
        "func",
        "trigger",
        "args",
        "kwargs",
        "id",
        "name",
        "misfire_grace_time",
        "coalesce",
        "max_instances",
        "next_run_time",
        "jobstore",
        "executor",
        "replace_existing",
    }
)
APSCHEDULER_INTERVAL_UNITS = (
    ("weeks", 604800.0),
    ("days", 86400.0),
    ("hours", 3600.0),
    ("minutes", 60.0),
    ("seconds", 1.0),
)
# CronTrigger(year, month, day, week, day_of_week, hour, minute, second, ...)
APSCHEDULER_CRON_POSITIONS = timing.APSCHEDULER_FIELDS
APSCHEDULER_INTERVAL_POSITIONS = tuple(name for name, _ in APSCHEDULER_INTERVAL_UNITS)

# schedule/__init__.py: ``every(interval=1)`` then a unit; weekday units mean weeks.
SCHEDULE_UNITS = {
    "second": 1.0,
    "seconds": 1.0,
    "minute": 60.0,
    "minutes": 60.0,
    "hour": 3600.0,
    "hours": 3600.0,
    "day": 86400.0,
    "days": 86400.0,
    "week": 604800.0,
    "weeks": 604800.0,
}
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_CRON_WEEKDAY = {day: str((index + 1) % 7) for index, day in enumerate(WEEKDAYS)}


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


def apscheduler_timing(trigger: Value | None, call: CallV, text: str) -> Timing | None:
    """The timing of an APScheduler job; None for one-off ("date") jobs."""
    trigger_args = {k: v for k, v in call.kwargs if k not in APSCHEDULER_JOB_KEYWORDS}
    kind = string(trigger)
    if kind == "cron":
        return timing.apscheduler_cron(trigger_args, text)
    if kind == "interval":
        seconds = timing.weighted_seconds(trigger_args, APSCHEDULER_INTERVAL_UNITS)
        return timing.interval(seconds, text, anchored="start_date" in trigger_args)
    if trigger is None or kind == "date":
        return None
    if isinstance(trigger, CallV):
        func = trigger.func or ""
        if func.endswith("CronTrigger.from_crontab"):
            return apscheduler_from_crontab(string(trigger.arg(0, "expr")), text)
        if func.endswith("CronTrigger"):
            arguments = dict(zip(APSCHEDULER_CRON_POSITIONS, trigger.args))
            arguments.update(trigger.kwargs)
            return timing.apscheduler_cron(arguments, text)
        if func.endswith("IntervalTrigger"):
            arguments = dict(zip(APSCHEDULER_INTERVAL_POSITIONS, trigger.args))
            arguments.update(trigger.kwargs)
            seconds = timing.weighted_seconds(arguments, APSCHEDULER_INTERVAL_UNITS)
            return timing.interval(seconds, text, anchored="start_date" in arguments)
        if func.endswith("DateTrigger"):
            return None
    return timing.other(text)


def apscheduler_from_crontab(expression: str | None, text: str) -> Timing:
    """``CronTrigger.from_crontab`` passes the day-of-week field on as APScheduler's
    (Monday = 0), not cron's (apscheduler/triggers/cron/__init__.py docstring)."""
    parsed = timing.cron_expression(expression, text)
    if parsed.fields is None or parsed.fields[4] is None or parsed.fields[4] == "*":
        return parsed
    weekdays = timing.apscheduler_weekdays(parsed.fields[4])
    return Timing(kind="cron", text=text, fields=(*parsed.fields[:4], weekdays))


def schedule_library_timing(count: float | None, unit: str, at: str | None, text: str) -> Timing:
    """schedule/__init__.py ``Job.at``: ``HH:MM`` for days and weekdays, ``MM:SS`` or
    ``:MM`` for hours, ``:SS`` for minutes; without ``at`` the first run comes one
    interval after the job is created (``_schedule_next_run``)."""
    if at is None:
        seconds = None if count is None else count * SCHEDULE_UNITS.get(unit, 604800.0)
        return timing.interval(seconds, text)
    parts = at.split(":")
    if unit in WEEKDAYS or unit in ("day", "days"):
        if len(parts) < 2 or not parts[0].isdigit() or not parts[1].isdigit():
            return timing.other(text)
        weekday = _CRON_WEEKDAY.get(unit, "*")
        day = "*" if count == 1 or unit in WEEKDAYS else None
        fields = (str(int(parts[1])), str(int(parts[0])), day, "*", weekday)
        return Timing(kind="cron", text=text, fields=fields)
    if unit in ("hour", "hours"):
        minute = parts[0] if len(parts) == 2 and parts[0] else (parts[1] if len(parts) == 2 else "")
        if not minute.isdigit():
            return timing.other(text)
        hour = "*" if count == 1 else None
        return Timing(kind="cron", text=text, fields=(str(int(minute)), hour, "*", "*", "*"))
    return timing.other(text)
