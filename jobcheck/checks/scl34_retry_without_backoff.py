"""SCL-34 Set aside messages that keep failing (EVT-23): retry-without-backoff.

Retries at a fixed delay hit a failing dependency at the same rate, all at once after an
outage; the delay should grow (exponential backoff) with jitter.
Docs: docs/rules/SCL-34.md.
"""

from __future__ import annotations

from collections.abc import Iterator

from jobcheck.checks.base import RuleChecks, check
from jobcheck.findings import Finding


class RetryWithoutBackoff(RuleChecks):
    rule = "SCL-34"

    @check("retry-without-backoff")
    def retry_without_backoff(self) -> Iterator[Finding]:
        for job in self.project.jobs:
            yield from self.job_parts("retry-without-backoff", job)
        yield from self.framework_parts("retry-without-backoff")
