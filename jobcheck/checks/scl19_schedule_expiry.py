"""SCL-19 Bound the backlog (EVT-18): the ``schedule-without-expiry`` check.

A periodic job sent without ``expires`` waits in the queue for as long as the workers
are down; when they return, every missed run executes at once. (The other SCL-19
checks live with the queue checks; this one reads schedules.)
Docs: docs/rules/SCL-19.md (draft section: docs/rules/drafts/schedule-without-expiry.md).
"""

from __future__ import annotations

from collections.abc import Iterator

from jobcheck.checks.base import RuleChecks, check
from jobcheck.checks.schedule_support import describe, job_label
from jobcheck.findings import Finding
from jobcheck.timing import describe_seconds, shortest_gap


class ScheduleExpiry(RuleChecks):
    rule = "SCL-19"

    @check("schedule-without-expiry")
    def schedule_without_expiry(self) -> Iterator[Finding]:
        """Celery schedules only: beat sends the entry's ``options`` to ``apply_async``
        (celery/beat.py ``Scheduler.apply_async``), and the task's own ``expires``
        attribute is merged in (celery/app/task.py ``extract_exec_options``)."""
        for f, entry, job in self.project.scheduled_jobs():
            if entry.framework != "celery" or entry.option("expires") is not None:
                continue
            if job is None:
                continue  # a library's task, or one not found: its own expiry is unknown
            if self.project.option(job, "expires").is_set:
                continue
            gap = shortest_gap(entry.timing)
            hint = f"{gap:g}" if gap is not None else "N"
            within = f" (it runs every {describe_seconds(gap)})" if gap is not None else ""
            where = "options={'expires': " + hint + "}"
            if entry.source == "add_periodic_task":
                where = f"expires={hint}"
            elif entry.source == "periodic_task":
                where = f"expires={hint} on the decorator"
            yield self.finding(
                "schedule-without-expiry",
                f.path,
                entry.loc,
                f"{describe(entry)} sends '{job_label(entry)}' without expires: while "
                "workers are down every missed run waits in the queue, and they all run at "
                f"once when workers return; set {where}, no longer than the time between "
                f"two runs{within}, or expires= on the task",
            )
