"""SCL-17 Make every job safe to run twice: non-idempotent-side-effect.

Queues deliver at least once, retries re-run the body, and a worker can crash after the
work but before the job is marked done: a job that charges, counts or sends with nothing
that makes a second run harmless charges, counts or sends twice. Heuristic: the guards
looked for are listed in ``jobcheck.project.bodies.GUARDS_LOOKED_FOR`` and in every
message. Docs: docs/rules/SCL-17.md.
"""

from __future__ import annotations

from collections.abc import Iterator

from jobcheck.checks.base import RuleChecks, check
from jobcheck.checks.scl17_side_effects import (
    NON_IDEMPOTENT_KINDS,
    SCHEDULED_KINDS,
    framework_of,
    message,
    rerun,
    scheduled_functions,
)
from jobcheck.findings import Finding
from jobcheck.project.bodies import JobBody, job_bodies
from jobcheck.registry import semantics


class NonIdempotentSideEffect(RuleChecks):
    rule = "SCL-17"
    judges_job_bodies = True

    @check("non-idempotent-side-effect")
    def non_idempotent_side_effect(self) -> Iterator[Finding]:
        scheduled = scheduled_functions(self.project)
        for body in job_bodies(self.project):
            for reach in body.summary(self.project).side_effects:
                effect = reach.item
                if effect.kind not in NON_IDEMPOTENT_KINDS:
                    continue
                if body.function.qualname in scheduled and effect.kind in SCHEDULED_KINDS:
                    continue  # reported by scheduled-job-not-idempotent
                if body.job is None and not semantics(body.framework).reruns_failures:
                    continue  # no retry or redelivery runs it again
                if effect.kind != "charge" and not self._runs_again(body):
                    # Acked before it runs and never retried: no second run to guard a
                    # message or a counter against (money is still guarded, below).
                    continue
                yield self.finding(
                    "non-idempotent-side-effect",
                    *reach.place(body.file.path),
                    message(
                        body.name, effect, reach.through(), self._rerun(body), framework_of(body)
                    ),
                    related=reach.related(effect.func),
                )

    def _runs_again(self, body: JobBody) -> bool:
        job = body.job
        return job is None or semantics(job.framework).runs_again(self.project, job)

    def _rerun(self, body: JobBody) -> str:
        """What runs the body twice. A job acked before it runs and never retried (a
        Celery task by default: review's retries "none", delivery "early") is not rerun
        by its queue today; the rule still asks that it be safe to run twice, and the
        message says where a second run would come from."""
        job = body.job
        if job is not None and not semantics(job.framework).runs_again(self.project, job):
            return (
                "a second message for the same work, or a retry once retries or late acks "
                "are turned on (today it is acked before it runs and never retried: a crash "
                "loses the run),"
            )
        return rerun(body)
