"""SCL-22 Spread scheduled work across the hour (EVT-21): what its checks share (the
schedules that start few times an hour, the free minutes to suggest, when two entries
start together). Docs: docs/rules/SCL-22.md."""

from __future__ import annotations

from dataclasses import replace

from jobcheck.facts import FileFacts, ScheduleEntry
from jobcheck.frameworks.semantics_base import with_minute
from jobcheck.project.model import Project
from jobcheck.registry import schedule_terms, semantics
from jobcheck.timing import (
    MAX_STARTS_PER_HOUR,
    PREFERRED_MINUTES,
    Firing,
    firing,
    may_coincide,
)

# A random delay of at least this many seconds on each start spreads it over minutes.
JITTER_SPREADS = 60.0
# Interval schedules at least this long are reported by interval-schedule-resets-on-deploy.
LONG_INTERVAL = 3600.0


def sparse(project: Project) -> list[tuple[FileFacts, ScheduleEntry, Firing]]:
    """Cron-timed entries that start at most MAX_STARTS_PER_HOUR times an hour."""
    found = []
    for f, entry in project.schedules():
        fire = firing(entry.timing)
        if fire is None or fire.minutes is None:
            continue
        if (schedule_terms(entry).start_spread or 0) >= JITTER_SPREADS:
            continue  # each start lands at random over minutes: no shared minute
        if len(fire.minutes) <= MAX_STARTS_PER_HOUR:
            found.append((f, entry, fire))
    return found


def free_minutes(project: Project) -> list[int]:
    used = {m for _, _, fire in sparse(project) for m in fire.minutes or ()}
    return [m for m in PREFERRED_MINUTES if m not in used] or list(PREFERRED_MINUTES)


def coincide(a: ScheduleEntry, a_fire: Firing, b: ScheduleEntry, b_fire: Firing) -> bool:
    """Whether two entries can start in the same minute. Entries read in different time
    zones (a CronJob's ``timeZone``, a crontab's ``CRON_TZ``) meet at the same hour only
    by the zones' offset: they count together only when both run every hour."""
    if zone_of(a) == zone_of(b):
        return may_coincide(a_fire, b_fire)
    hourly = all(f.hours is not None and len(f.hours) == 24 for f in (a_fire, b_fire))
    return hourly and may_coincide(a_fire, b_fire)


UTC_NAMES = frozenset({"utc", "etc/utc", "gmt", "etc/gmt", "z", "universal", "zulu"})


def zone_of(entry: ScheduleEntry) -> str:
    zone = schedule_terms(entry).time_zone
    return "utc" if zone is None or zone.lower() in UTC_NAMES else zone


def without_minute_zero(fire: Firing) -> Firing:
    return replace(fire, minutes=(fire.minutes or frozenset()) - {0})


def same_job(a: ScheduleEntry, b: ScheduleEntry) -> bool:
    """The same entry declared twice (two settings modules, a base and an override)."""
    return (a.name, a.task_name, a.target, a.timing.text) == (
        b.name,
        b.task_name,
        b.target,
        b.timing.text,
    )


def minute_hint(entry: ScheduleEntry, minute: int) -> str:
    """How to write ``minute`` in the entry's own syntax."""
    own = semantics(entry.framework).minute_hint(entry, minute)
    if own is not None:
        return own
    fields = with_minute(entry, minute)
    return f"'{fields}'" if fields is not None else f"minute {minute}"
