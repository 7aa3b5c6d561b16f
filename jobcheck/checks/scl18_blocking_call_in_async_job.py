"""SCL-18 Give every job a time limit (EVT-17): blocking-call-in-async-job.

A coroutine job (arq, taskiq) that makes a blocking call stalls the event loop every job
of the worker shares, and its time limit cannot interrupt it.
Docs: docs/rules/SCL-18.md.
"""

from __future__ import annotations

from collections.abc import Iterator

from jobcheck.checks.base import RuleChecks, check
from jobcheck.findings import Finding
from jobcheck.project.bodies import job_bodies
from jobcheck.registry import semantics


class BlockingCallInAsyncJob(RuleChecks):
    rule = "SCL-18"
    judges_job_bodies = True

    @check("blocking-call-in-async-job")
    def blocking_call_in_async_job(self) -> Iterator[Finding]:
        """A job that is a coroutine (arq, taskiq) making a call that blocks the thread,
        itself or through the helpers it calls; each framework words why its limit does
        not hold (``Semantics.blocking_call``)."""
        for body in job_bodies(self.project):
            if body.job is None or not body.function.is_async:
                continue
            framework = semantics(body.job.framework)
            for reach in body.summary(self.project).blocking_calls:
                label = f"{reach.item.func}(...){reach.through()}"
                message = framework.blocking_call(body.job, label)
                if message is None:
                    break
                yield self.finding(
                    "blocking-call-in-async-job",
                    *reach.place(body.file.path),
                    message,
                    related=reach.related(f"{reach.item.func}(...) blocks the event loop"),
                )
