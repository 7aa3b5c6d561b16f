"""APScheduler triggers as :class:`~jobcheck.facts.Timing` (library facts verified in
apscheduler/schedulers/base.py and apscheduler/triggers/)."""

from __future__ import annotations

from jobcheck import timing
from jobcheck.facts import Timing
from jobcheck.facts.values import CallV, Value, string

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


def gives_minute(trigger: Value | None, call: CallV) -> bool:
    """Whether the job's cron trigger names its minute (``minute=`` on ``add_job`` or
    ``scheduled_job``, or on a ``CronTrigger``, or a ``from_crontab`` string)."""
    if any(k == "minute" for k, _ in call.kwargs):
        return True
    if isinstance(trigger, CallV):
        func = trigger.func or ""
        if func.endswith("from_crontab"):
            return True
        positions = APSCHEDULER_CRON_POSITIONS.index("minute")
        return any(k == "minute" for k, _ in trigger.kwargs) or len(trigger.args) > positions
    return False


def jitter_of(trigger: Value | None, call: CallV) -> Value | None:
    """``jitter=`` seconds on the job or its ``CronTrigger``/``IntervalTrigger``
    (triggers/base.py ``_apply_jitter``: each run starts up to that much later)."""
    found = call.kwarg("jitter")
    if found is None and isinstance(trigger, CallV):
        found = trigger.kwarg("jitter")
    return found
