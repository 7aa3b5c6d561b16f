"""SCL-38 Run each scheduled job once at a time (EVT-22): schedule-overlaps-time-limit.

A scheduled job whose time limit is longer than the time between two of its starts, with no
lock: its runs overlap by design, not only when something is slow.
Docs: docs/rules/SCL-38.md.
"""

from __future__ import annotations

from collections.abc import Iterator

from jobcheck.checks.base import RuleChecks, check
from jobcheck.checks.scl38_locks import (
    LockReading,
    duration,
)
from jobcheck.findings import Finding
from jobcheck.project.schedule_words import describe, job_label
from jobcheck.registry import semantics
from jobcheck.timing import describe_seconds


class ScheduleOverlapsTimeLimit(LockReading, RuleChecks):
    rule = "SCL-38"

    @check("schedule-overlaps-time-limit")
    def schedule_overlaps_time_limit(self) -> Iterator[Finding]:
        """A job whose time limit is longer than the time between two of its starts, and
        that takes no lock: its runs overlap by design (one finding per job)."""
        for f, entry, job, limit, gap in self._overlapping():
            framework = semantics(job.framework if job else entry.framework)
            examples = framework.words.own_lock_examples or self._lock_examples
            shown = framework.display_name(job) if job else job_label(entry)
            yield self.finding(
                "schedule-overlaps-time-limit",
                f.path,
                entry.loc,
                f"'{shown}' may run for {duration(limit)} but "
                f"starts every {describe_seconds(gap)} and takes no lock: a run still going "
                f"at the next start overlaps it, by design ({describe(entry)}, its time "
                f"limit {duration(limit)}); take a lock at the top ({examples}) and skip the "
                "run when it is held, or keep the limit below the time between runs",
            )
