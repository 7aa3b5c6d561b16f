"""SCL-34 Set aside messages that keep failing (EVT-23): unbounded-retries.

A message that always fails, retried with no cap (``max_retries=None``, a ``while True``
retry loop), is retried forever: it never reaches a dead letter and keeps a worker busy.
Docs: docs/rules/SCL-34.md.
"""

from __future__ import annotations

from collections.abc import Iterator

from jobcheck.checks.base import RuleChecks, check
from jobcheck.findings import Finding
from jobcheck.project.contract import Retries
from jobcheck.project.model import Job
from jobcheck.registry import semantics


class UnboundedRetries(RuleChecks):
    rule = "SCL-34"

    @check("unbounded-retries")
    def unbounded_retries(self) -> Iterator[Finding]:
        for job in self.project.jobs:
            yield from self._uncapped(job, self.project.contract(job).retries)
            yield from self.job_parts("unbounded-retries", job)
            found = self.project.functions.get(job.task.function or "")
            if found is None:
                continue
            defined_in, function = found  # the function's own file (see SCL-21)
            for loc in function.retry_loops:
                yield self.finding(
                    "unbounded-retries",
                    defined_in.path,
                    loc,
                    f"'{job.task.name}' retries in a 'while True' loop whose exception "
                    "handler never gives up: a permanent failure spins forever; count the "
                    "attempts and re-raise after a limit",
                )

    def _uncapped(self, job: Job, retries: Retries | None) -> Iterator[Finding]:
        """The contract's cap removed (``max_retries=None``): the same ``Retries``
        review prints as "unbounded"."""
        if retries is None or retries.unbounded_at is None:
            return
        where = retries.unbounded_at
        noun = semantics(job.framework).job_noun
        yield self.finding(
            "unbounded-retries",
            where.path or job.file.path,
            where.loc or job.task.loc,
            f"{noun} '{job.task.name}' sets {retries.written}: a message that always fails "
            f"is {retries.forever}; set a cap ({retries.capped_by_default})",
        )
