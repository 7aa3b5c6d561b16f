"""SCL-18 Give every job a time limit (EVT-17): blocking-call-in-async-job.

A coroutine job (arq, taskiq) that makes a blocking call stalls the event loop every job
of the worker shares, and its time limit cannot interrupt it.
Docs: docs/rules/SCL-18.md.
"""

from __future__ import annotations

from collections.abc import Iterator

from jobcheck.checks.base import RuleChecks, check
from jobcheck.findings import Finding
from jobcheck.frameworks.semantics_base import blocking_call_message
from jobcheck.project.bodies import job_bodies
from jobcheck.registry import semantics


class BlockingCallInAsyncJob(RuleChecks):
    rule = "SCL-18"
    judges_job_bodies = True

    @check("blocking-call-in-async-job")
    def blocking_call_in_async_job(self) -> Iterator[Finding]:
        """A job that is a coroutine (arq, taskiq) making a call that blocks the thread,
        itself or through the helpers it calls; each framework words why its limit does
        not hold (``Words.event_loop_limit``)."""
        for body in job_bodies(self.project):
            if body.job is None or not body.function.is_async:
                continue
            framework = semantics(body.job.framework)
            limit = framework.words.event_loop_limit
            if limit is None:
                continue
            shown = f"{framework.job_noun} '{body.job.task.name}'"
            for reach in body.summary(self.project).blocking_calls:
                label = f"{reach.item.func}(...){reach.through()}"
                message = blocking_call_message(
                    shown, label, limit, framework.words.event_loop_also
                )
                yield self.finding(
                    "blocking-call-in-async-job",
                    *reach.place(body.file.path),
                    message,
                    related=reach.related(f"{reach.item.func}(...) blocks the event loop"),
                )
