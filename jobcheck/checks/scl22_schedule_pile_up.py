"""SCL-22 Spread scheduled work across the hour (EVT-21): schedule-pile-up.

Several schedules that start in the same minute compete for workers and the database.
Docs: docs/rules/SCL-22.md.
"""

from __future__ import annotations

from collections.abc import Iterator

from jobcheck.checks.base import RuleChecks, check
from jobcheck.checks.scl22_minutes import (
    coincide,
    free_minutes,
    minute_hint,
    same_job,
    sparse,
    without_minute_zero,
)
from jobcheck.findings import Finding
from jobcheck.project.schedule_words import describe
from jobcheck.timing import first_shared_moment


class SchedulePileUp(RuleChecks):
    rule = "SCL-22"
    one_finding_per_file = "schedule entries"

    @check("schedule-pile-up")
    def schedule_pile_up(self) -> Iterator[Finding]:
        """Reported once per entry that starts together with an earlier one (in path and
        line order): the first of a group is left alone, each later one is flagged.
        Minute 0 belongs to schedule-on-the-hour, which reports every entry there."""
        entries = [
            (f, entry, without_minute_zero(fire))
            for f, entry, fire in sorted(
                sparse(self.project), key=lambda item: (item[0].path, item[1].loc.line)
            )
        ]
        free = free_minutes(self.project)
        reported = 0
        for index, (f, entry, fire) in enumerate(entries):
            earlier = [
                (other_f, other, other_fire)
                for other_f, other, other_fire in entries[:index]
                if not same_job(entry, other) and coincide(entry, fire, other, other_fire)
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
