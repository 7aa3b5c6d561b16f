"""SCL-34 Set aside messages that keep failing (EVT-23): unbounded-retries.

A message that always fails, retried with no cap (``max_retries=None``, a ``while True``
retry loop), is retried forever: it never reaches a dead letter and keeps a worker busy.
Docs: docs/rules/SCL-34.md.
"""

from __future__ import annotations

from collections.abc import Iterator

from jobcheck.checks.base import RuleChecks, check
from jobcheck.facts.values import is_none
from jobcheck.findings import Finding
from jobcheck.registry import semantics


class UnboundedRetries(RuleChecks):
    rule = "SCL-34"

    @check("unbounded-retries")
    def unbounded_retries(self) -> Iterator[Finding]:
        for job in self.project.jobs:
            yield from semantics(job.framework).unbounded_retry_options(self, job)
            found = self.project.functions.get(job.task.function or "")
            if found is None:
                continue
            defined_in, function = found  # the function's own file (see SCL-21)
            for call in function.retry_calls:
                if call.max_retries is not None and is_none(call.max_retries):
                    yield self.finding(
                        "unbounded-retries",
                        defined_in.path,
                        call.loc,
                        f"'{job.task.name}' retries with max_retries=None: a message that "
                        "always fails is retried forever; cap the retries and dead-letter "
                        "what is left",
                    )
            for loc in function.retry_loops:
                yield self.finding(
                    "unbounded-retries",
                    defined_in.path,
                    loc,
                    f"'{job.task.name}' retries in a 'while True' loop whose exception "
                    "handler never gives up: a permanent failure spins forever; count the "
                    "attempts and re-raise after a limit",
                )
