"""JOB-02 Every schedule names a job that exists: enqueue-names-unknown-task.

A call that enqueues a job by its registered name (arq's ``enqueue_job("x")``) runs only
if a worker registers that name; each framework knows which names its workers register.
Docs: docs/rules/JOB-02.md.
"""

from __future__ import annotations

from collections.abc import Iterator

from jobcheck.checks.base import RuleChecks, check
from jobcheck.findings import Finding


class EnqueueNamesUnknownTask(RuleChecks):
    rule = "JOB-02"

    @check("enqueue-names-unknown-task")
    def enqueue_names_unknown_task(self) -> Iterator[Finding]:
        """Calls that enqueue a job by its registered name (arq's ``enqueue_job("x")``):
        each framework knows which names its workers register."""
        yield from self.framework_parts("enqueue-names-unknown-task")
