"""SCL-19 Bound the backlog (EVT-18): the ``schedule-without-expiry`` check.

A periodic job sent without ``expires`` waits in the queue for as long as the workers
are down; when they return, every missed run executes at once. (The other SCL-19
checks live with the queue checks; this one reads schedules.)
Docs: docs/rules/SCL-19.md (draft section: docs/rules/drafts/schedule-without-expiry.md).
"""

from __future__ import annotations

from collections.abc import Iterator

from jobcheck.checks.base import RuleChecks, check
from jobcheck.facts import FileFacts, ScheduleEntry
from jobcheck.findings import Finding
from jobcheck.project.model import Job
from jobcheck.project.schedule_words import describe, expiry_hint
from jobcheck.registry import semantics
from jobcheck.timing import gap_seconds

DAILY = 86400.0
"""Schedules that fire at most daily pile up one run per day the workers are down."""


class ScheduleExpiry(RuleChecks):
    rule = "SCL-19"
    one_finding_per_file = "schedule entries"

    @check("schedule-without-expiry")
    def schedule_without_expiry(self) -> Iterator[Finding]:
        """Only schedules that enqueue through a queue can expire there (each
        framework's semantics says how)."""
        for f, entry, job in self.project.scheduled_jobs():
            gap = gap_seconds(entry.timing)
            if gap is not None and gap >= DAILY:
                # An outage piles up one run a day: nothing a reader needs an age bound for.
                continue
            if job is not None and job in self.project.delegated_jobs(entry):
                yield from self._enqueued_by_scheduler(f, entry, job)
                continue
            yield from self.schedule_parts("schedule-without-expiry", f, entry, job)

    def _enqueued_by_scheduler(
        self, f: FileFacts, entry: ScheduleEntry, job: Job
    ) -> Iterator[Finding]:
        """An in-process scheduler whose function only enqueues the job (an APScheduler
        job calling ``report.delay()``): the scheduler goes on enqueueing while the workers
        are down, so the job's message needs an age bound of its own framework's, on the
        job or on the call the scheduled function makes."""
        rules = semantics(job.framework)
        advice = rules.expiry_advice(self.project, entry)
        bound = self.project.routing.rules(job.framework).job_age_bound(job)
        if advice is None or bound is not None:
            return
        sites = [
            site
            for _, site, sent in self.project.enqueues()
            if sent is job and site.function == entry.target
        ]
        if any(site.option(rules.age_bound_key) is not None for site in sites):
            return
        _, within = expiry_hint(entry)
        yield self.finding(
            "schedule-without-expiry",
            f.path,
            entry.loc,
            f"{describe(entry)} enqueues '{job.task.qualname}' with no expiry: while the "
            "workers are down the scheduler goes on enqueueing it, every missed run waits in "
            f"the queue and they all run at once when workers return; {advice}, no longer "
            f"than the time between two runs{within}",
        )
