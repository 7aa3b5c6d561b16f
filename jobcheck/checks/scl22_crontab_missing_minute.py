"""SCL-22 Spread scheduled work across the hour (EVT-21): crontab-missing-minute.

A cron schedule that sets an hour but no minute (Celery's ``crontab(hour=3)``) fires every
minute of that hour: sixty runs instead of one.
Docs: docs/rules/SCL-22.md.
"""

from __future__ import annotations

from collections.abc import Iterator

from jobcheck.checks.base import RuleChecks, check
from jobcheck.checks.scl22_minutes import free_minutes
from jobcheck.findings import Finding
from jobcheck.project.schedule_words import describe
from jobcheck.registry import schedule_terms, semantics


class CrontabMissingMinute(RuleChecks):
    rule = "SCL-22"

    @check("crontab-missing-minute")
    def crontab_missing_minute(self) -> Iterator[Finding]:
        free = free_minutes(self.project)
        for f, entry in self.project.schedules():
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
