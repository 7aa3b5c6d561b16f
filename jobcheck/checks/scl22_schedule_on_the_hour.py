"""SCL-22 Spread scheduled work across the hour (EVT-21): schedule-on-the-hour.

Jobs scheduled at minute 0 start with most of the world's scheduled work and compete for
workers, the database and third-party rate limits.
Docs: docs/rules/SCL-22.md.
"""

from __future__ import annotations

from collections.abc import Iterator

from jobcheck.checks.base import RuleChecks, check
from jobcheck.checks.scl22_minutes import coincide, free_minutes, minute_hint, sparse
from jobcheck.findings import Finding
from jobcheck.project.schedule_words import describe
from jobcheck.registry import schedule_terms


class ScheduleOnTheHour(RuleChecks):
    rule = "SCL-22"
    one_finding_per_file = "schedule entries"

    @check("schedule-on-the-hour")
    def schedule_on_the_hour(self) -> Iterator[Finding]:
        free = free_minutes(self.project)
        flagged = [(f, e, fire) for f, e, fire in sparse(self.project) if 0 in (fire.minutes or ())]
        for index, (f, entry, fire) in enumerate(flagged):
            hint = minute_hint(entry, free[index % len(free)])
            together = sum(
                1
                for _, other, other_fire in flagged
                if other is not entry and coincide(entry, fire, other, other_fire)
            )
            company = (
                f", at the same moment as {together} other schedule{'s' if together > 1 else ''}"
                " here"
                if together
                else ""
            )
            note = schedule_terms(entry).minute_zero_note
            yield self.finding(
                "schedule-on-the-hour",
                f.path,
                entry.timing_loc,
                f"{describe(entry)} starts at minute 0 ({entry.timing.text}){company}"
                f"{note}: minute 0 is when most scheduled work starts (other "
                "jobs, backups, other systems' cron), so these runs compete for workers, the "
                f"database and outside APIs; give it a minute of its own, e.g. {hint}",
            )
