"""When schedules fire: one shape for Celery ``crontab``/``timedelta``, cron strings
(rq-scheduler, RQ cron, periodiq, APScheduler ``from_crontab``), APScheduler's
``CronTrigger`` fields and intervals of every framework.

Extraction turns what the source wrote into a :class:`~jobcheck.facts.Timing` (cron
fields as strings, or an interval length); checks expand the fields into sets of
minutes, hours and days with croniter (a real cron parser, never string matching), so
``0 */2 * * *``, ``0,30 * * * *`` and ``@hourly`` all fire at minute 0.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass

from jobcheck.facts import Timing
from jobcheck.facts.values import CallV, Const, SeqV, Value, number

# The macros croniter and periodiq (periodiq/__init__.py ``CronSpec._named_spec``) accept.
CRON_MACROS = {
    "@yearly": "0 0 1 1 *",
    "@annually": "0 0 1 1 *",
    "@monthly": "0 0 1 * *",
    "@weekly": "0 0 * * 0",
    "@daily": "0 0 * * *",
    "@midnight": "0 0 * * *",
    "@hourly": "0 * * * *",
}

# Celery: ``crontab(minute='*', hour='*', day_of_week='*', day_of_month='*',
# month_of_year='*')`` (celery/schedules.py): every field defaults to "*", so
# ``crontab(hour=3)`` fires every minute of hour 3. Positional order differs from cron's.
CELERY_CRONTAB_FIELDS = ("minute", "hour", "day_of_week", "day_of_month", "month_of_year")
# crontab(5) order: minute, hour, day of month, month, day of week.
_CELERY_TO_CRON = ("minute", "hour", "day_of_month", "month_of_year", "day_of_week")

# APScheduler 3 (apscheduler/triggers/cron/__init__.py, ``CronTrigger.__init__``): fields
# after the least significant one given take their DEFAULT_VALUES
# (apscheduler/triggers/cron/fields.py: month 1, day 1, hour 0, minute 0, second 0, the
# others "*"); fields before it default to "*". So ``hour=3`` fires at 03:00:00.
APSCHEDULER_FIELDS = ("year", "month", "day", "week", "day_of_week", "hour", "minute", "second")
APSCHEDULER_DEFAULTS = {
    "year": "*",
    "month": "1",
    "day": "1",
    "week": "*",
    "day_of_week": "*",
    "hour": "0",
    "minute": "0",
    "second": "0",
}
# APScheduler numbers weekdays from Monday = 0; cron from Sunday = 0.
_APS_WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")

TIMEDELTA_UNITS = (
    ("days", 86400.0),
    ("seconds", 1.0),
    ("microseconds", 1e-6),
    ("milliseconds", 1e-3),
    ("minutes", 60.0),
    ("hours", 3600.0),
    ("weeks", 604800.0),
)
"""``datetime.timedelta``'s parameters in positional order, with their length in seconds."""

_FIELD_RANGES = ((0, 59), (0, 23), (1, 31), (1, 12), (0, 6))
_MAX_RANGE = 366

MAX_NUMBER = 2**63
"""The largest number read from the analysed tree that is taken as a number: beyond it,
or not finite (``time_limit=0xfff...``, ``1e999``, ``.inf``), a value is unknown.
Python refuses to print an int of more than 4300 digits or to make a float of a larger
one, and ``inf`` turns arithmetic into ``nan``; no configuration needs more."""
_MAX_DIGITS = len(str(MAX_NUMBER))


def bounded(number: object) -> int | float | None:
    """``number`` when it is an int or a finite float within :data:`MAX_NUMBER` (a
    bool as it is), else None."""
    if isinstance(number, bool):
        return number
    if isinstance(number, int):
        return number if -MAX_NUMBER <= number <= MAX_NUMBER else None
    if isinstance(number, float):
        return number if math.isfinite(number) and abs(number) <= MAX_NUMBER else None
    return None


def read_number(text: str) -> int | float | None:
    """A decimal number written in the analysed tree (``600``, ``1.5``): ASCII digits,
    an optional fraction, within :data:`MAX_NUMBER`; None for anything else. Long
    strings of digits are refused before any conversion."""
    whole, _, fraction = text.partition(".")
    if not whole.isascii() or not whole.isdigit() or len(whole) > _MAX_DIGITS:
        return None
    if not fraction:
        return bounded(int(whole)) if "." not in text else None
    if not fraction.isascii() or not fraction.isdigit():
        return None
    return bounded(float(f"{whole}.{fraction[:_MAX_DIGITS]}"))


def other(text: str) -> Timing:
    return Timing(kind="other", text=text)


def interval(seconds: float | None, text: str, anchored: bool = False) -> Timing:
    return Timing(kind="interval", text=text, seconds=seconds, anchored=anchored)


def cron_expression(expression: str | None, text: str) -> Timing:
    """A cron string: five fields or a macro such as ``@hourly``."""
    if expression is None:
        return other(text)
    expression = CRON_MACROS.get(expression.strip().lower(), expression)
    fields = expression.split()
    if len(fields) != 5:
        return other(text)
    return Timing(kind="cron", text=text, fields=tuple(fields))


def celery_crontab(call: CallV, text: str) -> Timing:
    """A Celery ``crontab(...)`` call."""
    given: dict[str, str | None] = {}
    for index, name in enumerate(CELERY_CRONTAB_FIELDS):
        value = call.arg(index, name)
        if value is not None:
            given[name] = _celery_field(value)
    fields = tuple(given.get(name, "*") for name in _CELERY_TO_CRON)
    restricts_coarser = any(
        name in given and given[name] != "*" for name in CELERY_CRONTAB_FIELDS[1:]
    )
    return Timing(
        kind="cron",
        text=text,
        fields=fields,
        minute_defaulted="minute" not in given and restricts_coarser,
    )


def apscheduler_cron(arguments: Mapping[str, Value], text: str) -> Timing:
    """APScheduler's ``CronTrigger(...)`` / ``add_job(f, "cron", ...)`` fields."""
    given = [name for name in APSCHEDULER_FIELDS if name in arguments]
    if not given:
        # No field at all: every field is "*", so it fires every second.
        return Timing(kind="cron", text=text, fields=("*", "*", "*", "*", "*"))
    last = APSCHEDULER_FIELDS.index(given[-1])
    values: dict[str, str | None] = {}
    for index, name in enumerate(APSCHEDULER_FIELDS):
        if name in arguments:
            values[name] = _plain_field(arguments[name])
        elif index > last:
            values[name] = APSCHEDULER_DEFAULTS[name]
        else:
            values[name] = "*"
    day_of_week = values["day_of_week"]
    fields = (
        values["minute"],
        values["hour"],
        values["day"],
        values["month"],
        apscheduler_weekdays(day_of_week) if day_of_week is not None else None,
    )
    return Timing(kind="cron", text=text, fields=fields)


def timedelta_seconds(value: Value | None) -> float | None:
    """The length of ``timedelta(...)`` or of a number of seconds, when constant."""
    if value is None:
        return None
    if isinstance(value, CallV) and value.func in ("datetime.timedelta", "timedelta"):
        return _keyword_seconds(value, TIMEDELTA_UNITS)
    return number(value)


def weighted_seconds(
    arguments: Mapping[str, Value], units: tuple[tuple[str, float], ...]
) -> float | None:
    """``hours=6, minutes=30`` style keywords in seconds; None when one is not constant."""
    total = 0.0
    for name, seconds in units:
        if name in arguments:
            amount = number(arguments[name])
            if amount is None:
                return None
            total += amount * seconds
    return total


def _keyword_seconds(call: CallV, units: tuple[tuple[str, float], ...]) -> float | None:
    arguments: dict[str, Value] = dict(call.kwargs)
    for (name, _), value in zip(units, call.args):
        arguments[name] = value
    if any(key not in dict(units) for key in arguments):
        return None
    return weighted_seconds(arguments, units)


def _celery_field(value: Value) -> str | None:
    """A crontab field as cron syntax; Celery also takes ints, lists, sets and ranges,
    and full weekday names (celery/utils/time.py ``weekday`` reads the first three
    letters)."""
    text = _plain_field(value)
    if text is None:
        return None
    return re.sub(r"[A-Za-z]{3,}", lambda m: m.group(0)[:3].lower(), text)


def _plain_field(value: Value) -> str | None:
    if isinstance(value, Const):
        if isinstance(value.value, bool):
            return None
        if isinstance(value.value, int):
            return str(value.value)
        if isinstance(value.value, str) and value.value.strip():
            return value.value.strip().replace(" ", "")
        return None
    if isinstance(value, SeqV):
        items = [number(item) for item in value.items]
        if items and all(item is not None and item == int(item) for item in items):
            return ",".join(str(int(item)) for item in items)  # type: ignore[arg-type]
        return None
    if isinstance(value, CallV) and value.func == "range" and value.args:
        bounds = [number(arg) for arg in value.args]
        if all(b is not None for b in bounds) and len(bounds) <= 3:
            try:
                numbers = range(*(int(b) for b in bounds))  # type: ignore[arg-type]
            except ValueError:  # a step of 0
                return None
            if len(numbers) > _MAX_RANGE:
                return None  # no cron field has more values: range(10**18) is no field
            return ",".join(str(n) for n in numbers) or None
    return None


def apscheduler_weekdays(expression: str) -> str | None:
    """APScheduler weekday numbers (Monday = 0, also arq's: arq/cron.py) as names
    croniter reads."""

    def name(match: re.Match[str]) -> str:
        digits = match.group(0)
        return _APS_WEEKDAYS[int(digits)] if len(digits) == 1 and digits < "7" else digits

    if "/" in expression:
        return None
    return re.sub(r"\d+", name, expression.lower())


# -- expansion (checks) -------------------------------------------------------------


@dataclass(frozen=True)
class Firing:
    """The moments a cron timing fires, field by field; None where a field is unknown.
    Days use cron numbering (Sunday = 0)."""

    minutes: frozenset[int] | None
    hours: frozenset[int] | None
    days_of_month: frozenset[int] | None
    months: frozenset[int] | None
    days_of_week: frozenset[int] | None

    @property
    def minutes_per_hour(self) -> int | None:
        return len(self.minutes) if self.minutes is not None else None


def expanded(timing: Timing) -> Timing:
    """``timing`` with its cron fields expanded and its shortest gap computed (done at
    extraction, in worker processes, and cached with the file's facts)."""
    if timing.kind != "cron" or timing.fields is None or timing.expanded is not None:
        return timing
    sets = tuple(_expand_field(index, field) for index, field in enumerate(timing.fields))
    gap = _daily_gap(Firing(*sets))
    return dataclasses.replace(
        timing, expanded=sets, gap=gap if gap is not None else _cron_gap(timing)
    )


@functools.lru_cache(maxsize=1024)
def firing(timing: Timing) -> Firing | None:
    """Expand a cron timing's fields with croniter; None for other timings."""
    if timing.kind != "cron" or timing.fields is None:
        return None
    if timing.expanded is not None:
        return Firing(*timing.expanded)
    sets = [_expand_field(index, field) for index, field in enumerate(timing.fields)]
    return Firing(*sets)


@functools.lru_cache(maxsize=1024)
def _expand_field(index: int, field: str | None) -> frozenset[int] | None:
    if field is None:
        return None
    low, high = _FIELD_RANGES[index]
    if field == "*":
        return frozenset(range(low, high + 1))
    probe = ["0", "0", "*", "*", "*"]
    probe[index] = field
    from croniter import croniter  # lazily: a run with no schedules never needs it

    try:
        expanded = croniter.expand(" ".join(probe))[0][index]
    except Exception:  # croniter raises several error types for what it cannot read
        return None
    if expanded == ["*"]:
        return frozenset(range(low, high + 1))
    if not all(isinstance(value, int) for value in expanded):
        return None  # "L" (last day of month) and the like
    if index == 4:
        return frozenset(0 if value == 7 else value for value in expanded)
    return frozenset(expanded)


def is_full(values: frozenset[int] | None, index: int) -> bool:
    low, high = _FIELD_RANGES[index]
    return values is not None and len(values) == high - low + 1


def may_coincide(a: Firing, b: Firing) -> bool:
    """Whether two cron timings can fire in the same minute. Unknown minutes or hours
    count as "cannot tell" (False); unknown days count as "may" (True)."""
    if a.minutes is None or b.minutes is None or a.hours is None or b.hours is None:
        return False
    if not a.minutes & b.minutes or not a.hours & b.hours:
        return False
    return _days_may_coincide(a, b)


def _days_may_coincide(a: Firing, b: Firing) -> bool:
    if a.months is not None and b.months is not None and not a.months & b.months:
        return False
    a_dow, b_dow = a.days_of_week, b.days_of_week
    a_dom, b_dom = a.days_of_month, b.days_of_month
    if None in (a_dow, b_dow, a_dom, b_dom):
        return True
    if is_full(a_dom, 2) and is_full(b_dom, 2):
        return bool(a_dow & b_dow)  # type: ignore[operator]
    if is_full(a_dow, 4) and is_full(b_dow, 4):
        return bool(a_dom & b_dom)  # type: ignore[operator]
    return True


def first_shared_moment(a: Firing, b: Firing) -> str:
    """``"03:00"`` or ``"minute 30 of every hour"``: the earliest minute both share."""
    assert a.minutes is not None and b.minutes is not None
    assert a.hours is not None and b.hours is not None
    minute = min(a.minutes & b.minutes)
    hours = a.hours & b.hours
    if len(hours) == 24:
        return f"minute {minute} of every hour"
    return f"{min(hours):02d}:{minute:02d}"


@functools.lru_cache(maxsize=1024)
def shortest_gap(timing: Timing) -> float | None:
    """Seconds between the two closest runs: the interval, or for a cron timing the
    smallest gap croniter finds over its next runs; None when unknown."""
    if timing.kind == "interval":
        return timing.seconds
    if timing.expanded is not None:
        return timing.gap
    return _cron_gap(timing)


def _daily_gap(firing: Firing) -> float | None:
    """The shortest gap of a timing that fires every day (every day of the month, of
    the week and every month), from its minutes and hours alone: the runs of a day
    repeat the next day, so the gaps are those between its minutes of the day and the
    one from the last to the next day's first. None for a timing whose days are
    restricted or unknown (croniter walks its runs)."""
    days = (firing.days_of_month, firing.months, firing.days_of_week)
    if not all(is_full(values, index) for values, index in zip(days, (2, 3, 4))):
        return None
    if not firing.minutes or not firing.hours:
        return None
    times = sorted(hour * 60 + minute for hour in firing.hours for minute in firing.minutes)
    gaps = [later - earlier for earlier, later in zip(times, times[1:])]
    gaps.append(times[0] + 24 * 60 - times[-1])
    return float(min(gaps) * 60)


def _cron_gap(timing: Timing) -> float | None:
    if timing.kind != "cron" or timing.fields is None or None in timing.fields:
        return None
    try:
        from croniter import croniter

        runs = croniter(
            " ".join(timing.fields),  # type: ignore[arg-type]
            _GAP_BASE,
            day_or=not timing.days_and,
        )
        times = [runs.get_next(float) for _ in range(_GAP_SAMPLES)]
    except Exception:  # croniter raises several error types for what it cannot read
        return None
    return min(later - earlier for earlier, later in zip(times, times[1:]))


_GAP_BASE = 1704067200.0  # 2024-01-01T00:00:00Z, a Monday: any fixed start works
_GAP_SAMPLES = 64


def describe_seconds(seconds: float) -> str:
    """``21600`` -> ``"6 h"``; ``86400`` -> ``"day"``; ``90`` -> ``"90 s"``, to follow
    "every"."""
    for unit, length, single in (
        (" days", 86400, "day"),
        (" h", 3600, "hour"),
        (" min", 60, "minute"),
    ):
        if seconds >= length and seconds % length == 0:
            count = int(seconds // length)
            return single if count == 1 else f"{count}{unit}"
    return f"{seconds:g} s"


def gap_seconds(when: Timing) -> float | None:
    """The shortest time between two starts of a schedule."""
    if when.kind == "interval":
        return when.seconds
    return when.gap if when.kind == "cron" else None


# Schedules that start more often than this per hour (every 15 minutes) are left out of
# SCL-22's minute checks and fixes: they overlap with everything, and no choice of minute
# avoids them, so their minutes do not count as taken either.
MAX_STARTS_PER_HOUR = 4
# Minutes to suggest and to move schedules to: away from 0, 15, 30, 45 and other round
# numbers people pick.
PREFERRED_MINUTES = (17, 23, 37, 43, 7, 13, 47, 53, 11, 19, 29, 31, 41, 59, 3, 9, 21, 27, 33, 39)
