"""SCL-22 Spread scheduled work across the hour (EVT-21): crontab-missing-minute.

A cron schedule that sets an hour but no minute (Celery's ``crontab(hour=3)``) fires every
minute of that hour: sixty runs instead of one. So does a five-field expression written
out with ``*`` as its minute and fixed hours (``* 2 * * *`` in a crontab file, a CronJob,
sidekiq-cron, ``CronTrigger.from_crontab``): every field of such an expression must be
written, and ``*`` is what a hurried author fills in. A range of hours (``* 9-17 * * 1-5``)
reads as meant, and so does ``crontab(minute="*", hour=5)``, where ``*`` is Celery's
default written out on purpose.
Docs: docs/rules/SCL-22.md.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from jobcheck.checks.base import RuleChecks, check
from jobcheck.checks.scl22_minutes import free_minutes
from jobcheck.facts import ScheduleEntry, Timing
from jobcheck.findings import Finding
from jobcheck.project.schedule_words import describe
from jobcheck.registry import schedule_terms, semantics


class CrontabMissingMinute(RuleChecks):
    rule = "SCL-22"

    @check("crontab-missing-minute")
    def crontab_missing_minute(self) -> Iterator[Finding]:
        free = free_minutes(self.project)
        for f, entry in self.project.schedules():
            hours = every_minute_of_fixed_hours(entry.timing)
            if hours is not None:
                yield self._written_every_minute(f.path, entry, hours, free[0])
                continue
            if not entry.timing.minute_defaulted:
                continue
            framework = semantics(entry.framework)
            yield self.finding(
                "crontab-missing-minute",
                f.path,
                entry.timing_loc,
                f"{describe(entry)}: {entry.timing.text} sets no minute, and "
                f"{schedule_terms(entry).minute_default_note}, so it fires every minute of each "
                "hour it matches (60 runs instead of one); add minute=, e.g. "
                f"{framework.minute_hint(entry, free[0]) or f'minute={free[0]}'}",
            )

    def _written_every_minute(
        self, path: str, entry: ScheduleEntry, hours: tuple[str, ...], minute: int
    ) -> Finding:
        fields = [f or "*" for f in entry.timing.fields or ()]
        fixed = " ".join([str(minute), *fields[1:]])
        hint = semantics(entry.framework).minute_hint(entry, minute) or f"'{fixed}'"
        several = len(hours) > 1
        listed = " and ".join(hours) if len(hours) <= 2 else ", ".join(hours)
        return self.finding(
            "crontab-missing-minute",
            path,
            entry.timing_loc,
            f"{describe(entry)}: '{' '.join(fields)}' has '*' for its minute, so it fires "
            f"every minute of hour{'s' if several else ''} {listed} (60 runs "
            f"{'in each ' if several else ''}where one was likely meant); put the minute "
            f"in, e.g. {hint}",
        )


def every_minute_of_fixed_hours(timing: Timing) -> tuple[str, ...] | None:
    """The hours of a cron expression written out in five fields whose minute is ``*``
    and whose hour field lists fixed hours (``* 2 * * *``, ``* 2,14 * * *``); None for
    anything else, a Celery ``crontab()`` call among it (its fields are keywords)."""
    fields = timing.fields
    if timing.kind != "cron" or not fields or len(fields) != 5 or timing.minute_defaulted:
        return None
    if fields[0] != "*" or fields[1] is None or any(f is None for f in fields):
        return None
    hours = tuple(fields[1].split(","))
    if not all(hour.isdigit() for hour in hours):
        return None
    if _KEYWORD_FORM.search(timing.text):
        return None  # ``crontab(minute="*", hour=5)``: Celery's default written on purpose
    return hours


# Schedules given field by field in Python, where a ``*`` minute is written on purpose:
# Celery's and Huey's ``crontab(...)``, arq's ``cron(...)``, APScheduler's ``"cron"``
# keywords and ``CronTrigger(...)`` (``CronTrigger.from_crontab`` takes an expression).
_KEYWORD_FORM = re.compile(
    r"(?<![.\w])crontab\(|(?<![.\w])cron\(|CronTrigger\(|[\"']cron[\"']|minute"
)
