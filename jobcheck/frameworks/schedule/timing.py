"""The ``schedule`` library's units as :class:`~jobcheck.facts.Timing`."""

from __future__ import annotations

from jobcheck import timing
from jobcheck.facts import Timing

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
