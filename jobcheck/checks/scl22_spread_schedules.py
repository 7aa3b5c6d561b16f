"""SCL-22 Spread scheduled work across the hour (EVT-21).

Jobs scheduled on the hour, or several at the same minute, start together and compete
for workers, the database and third-party rate limits; a Celery ``crontab(hour=3)``
without ``minute=`` fires sixty times; a long interval schedule restarts its clock with
the scheduler. Docs: docs/rules/SCL-22.md.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from jobcheck.checks.base import RuleChecks, check
from jobcheck.facts import FileFacts, ScheduleEntry
from jobcheck.findings import Finding
from jobcheck.frameworks.semantics_base import with_minute
from jobcheck.project.schedule_words import describe
from jobcheck.registry import semantics
from jobcheck.timing import Firing, describe_seconds, firing, first_shared_moment, may_coincide

# Schedules that start more often than this per hour (every 15 minutes) are left out of
# the minute checks: they overlap with everything, and no choice of minute avoids them.
MAX_STARTS_PER_HOUR = 4
# A random delay of at least this many seconds on each start spreads it over minutes.
JITTER_SPREADS = 60.0
# Interval schedules at least this long are reported by interval-schedule-resets-on-deploy.
LONG_INTERVAL = 3600.0
# Minutes to suggest: away from 0, 15, 30, 45 and other round numbers people pick.
PREFERRED_MINUTES = (17, 23, 37, 43, 7, 13, 47, 53, 11, 19, 29, 31, 41, 59, 3, 9, 21, 27, 33, 39)


class SpreadScheduledJobs(RuleChecks):
    rule = "SCL-22"

    def _sparse(self) -> list[tuple[FileFacts, ScheduleEntry, Firing]]:
        """Cron-timed entries that start at most MAX_STARTS_PER_HOUR times an hour."""
        found = []
        for f, entry in self.project.schedules():
            fire = firing(entry.timing)
            if fire is None or fire.minutes is None:
                continue
            if (semantics(entry.framework).start_spread(entry) or 0) >= JITTER_SPREADS:
                continue  # each start lands at random over minutes: no shared minute
            if len(fire.minutes) <= MAX_STARTS_PER_HOUR:
                found.append((f, entry, fire))
        return found

    def _free_minutes(self) -> list[int]:
        used = {m for _, _, fire in self._sparse() for m in fire.minutes or ()}
        return [m for m in PREFERRED_MINUTES if m not in used] or list(PREFERRED_MINUTES)

    @check("schedule-on-the-hour")
    def schedule_on_the_hour(self) -> Iterator[Finding]:
        free = self._free_minutes()
        flagged = [(f, e, fire) for f, e, fire in self._sparse() if 0 in (fire.minutes or ())]
        for index, (f, entry, fire) in enumerate(flagged):
            hint = minute_hint(entry, free[index % len(free)])
            together = sum(
                1
                for _, other, other_fire in flagged
                if other is not entry and _coincide(entry, fire, other, other_fire)
            )
            company = (
                f", at the same moment as {together} other schedule{'s' if together > 1 else ''}"
                " here"
                if together
                else ""
            )
            note = semantics(entry.framework).minute_zero_note(entry)
            yield self.finding(
                "schedule-on-the-hour",
                f.path,
                entry.timing_loc,
                f"{describe(entry)} starts at minute 0 ({entry.timing.text}){company}"
                f"{note}: minute 0 is when most scheduled work starts (other "
                "jobs, backups, other systems' cron), so these runs compete for workers, the "
                f"database and outside APIs; give it a minute of its own, e.g. {hint}",
            )

    @check("schedule-pile-up")
    def schedule_pile_up(self) -> Iterator[Finding]:
        """Reported once per entry that starts together with an earlier one (in path and
        line order): the first of a group is left alone, each later one is flagged.
        Minute 0 belongs to schedule-on-the-hour, which reports every entry there."""
        entries = [
            (f, entry, _without_minute_zero(fire))
            for f, entry, fire in sorted(
                self._sparse(), key=lambda item: (item[0].path, item[1].loc.line)
            )
        ]
        free = self._free_minutes()
        reported = 0
        for index, (f, entry, fire) in enumerate(entries):
            earlier = [
                (other_f, other, other_fire)
                for other_f, other, other_fire in entries[:index]
                if not _same_job(entry, other) and _coincide(entry, fire, other, other_fire)
            ]
            if not earlier:
                continue
            other_f, other, other_fire = earlier[0]
            more = f" and {len(earlier) - 1} more" if len(earlier) > 1 else ""
            hint = minute_hint(entry, free[reported % len(free)])
            reported += 1
            yield self.finding(
                "schedule-pile-up",
                f.path,
                entry.timing_loc,
                f"{describe(entry)} ({entry.timing.text}) runs at "
                f"{first_shared_moment(fire, other_fire)}, the same minute as "
                f"{describe(other)} ({other_f.path}:{other.loc.line}){more}: jobs "
                "that start together compete for workers and the database; move this one "
                f"to a free minute, e.g. {hint}",
            )

    @check("crontab-missing-minute")
    def crontab_missing_minute(self) -> Iterator[Finding]:
        free = self._free_minutes()
        for f, entry in self.project.schedules():
            if not entry.timing.minute_defaulted:
                continue
            framework = semantics(entry.framework)
            yield self.finding(
                "crontab-missing-minute",
                f.path,
                entry.timing_loc,
                f"{describe(entry)}: {entry.timing.text} sets no minute, and "
                f"{framework.minute_default_note(entry)}, so it fires every minute of each "
                "hour it matches (60 runs instead of one); add minute=, e.g. "
                f"{framework.minute_hint(entry, free[0]) or f'minute={free[0]}'}",
            )

    @check("interval-schedule-resets-on-deploy")
    def interval_schedule_resets_on_deploy(self) -> Iterator[Finding]:
        for f, entry in self.project.schedules():
            when = entry.timing
            if when.kind != "interval" or when.seconds is None or when.anchored:
                continue
            if when.seconds < LONG_INTERVAL:
                continue
            framework = semantics(entry.framework)
            why = framework.interval_reset_reason(self.project, entry)
            if why is None:
                continue
            period = describe_seconds(when.seconds)
            yield self.finding(
                "interval-schedule-resets-on-deploy",
                f.path,
                entry.timing_loc,
                f"{describe(entry)} runs every {period} ({when.text}), {why}; a project "
                f"that deploys more often than every {period} "
                f"{framework.interval_reset_consequence(entry)}: pin it to fixed times "
                f"instead, e.g. {framework.cron_hint(entry, when.seconds)}",
            )


def _coincide(a: ScheduleEntry, a_fire: Firing, b: ScheduleEntry, b_fire: Firing) -> bool:
    """Whether two entries can start in the same minute. Entries read in different time
    zones (a CronJob's ``timeZone``, a crontab's ``CRON_TZ``) meet at the same hour only
    by the zones' offset: they count together only when both run every hour."""
    if _zone(a) == _zone(b):
        return may_coincide(a_fire, b_fire)
    hourly = all(f.hours is not None and len(f.hours) == 24 for f in (a_fire, b_fire))
    return hourly and may_coincide(a_fire, b_fire)


UTC_NAMES = frozenset({"utc", "etc/utc", "gmt", "etc/gmt", "z", "universal", "zulu"})


def _zone(entry: ScheduleEntry) -> str:
    zone = semantics(entry.framework).time_zone(entry)
    return "utc" if zone is None or zone.lower() in UTC_NAMES else zone


def _without_minute_zero(fire: Firing) -> Firing:
    return replace(fire, minutes=(fire.minutes or frozenset()) - {0})


def _same_job(a: ScheduleEntry, b: ScheduleEntry) -> bool:
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
