"""SCL-19 Bound the backlog (EVT-18): the ``schedule-without-expiry`` check.

A periodic job sent without ``expires`` waits in the queue for as long as the workers
are down; when they return, every missed run executes at once. (The other SCL-19
checks live with the queue checks; this one reads schedules.)
Docs: docs/rules/SCL-19.md (draft section: docs/rules/drafts/schedule-without-expiry.md).
"""

from __future__ import annotations

from collections.abc import Iterator

from jobcheck.checks.base import RuleChecks, check
from jobcheck.findings import Finding
from jobcheck.registry import semantics


class ScheduleExpiry(RuleChecks):
    rule = "SCL-19"

    @check("schedule-without-expiry")
    def schedule_without_expiry(self) -> Iterator[Finding]:
        """Only schedules that enqueue through a queue can expire there (each
        framework's semantics says how)."""
        for f, entry, job in self.project.scheduled_jobs():
            yield from semantics(entry.framework).schedule_without_expiry(self, f, entry, job)
