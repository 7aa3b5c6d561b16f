"""SCL-18 Give every job a time limit (EVT-17): time-limit-exceeds-visibility.

A limit longer than the broker's visibility timeout lets a second worker start the job
while the first still runs (Celery with acks_late on Redis or SQS).
Docs: docs/rules/SCL-18.md.
"""

from __future__ import annotations

from collections.abc import Iterator

from jobcheck.checks.base import RuleChecks, check
from jobcheck.findings import Finding


class TimeLimitExceedsVisibility(RuleChecks):
    rule = "SCL-18"

    @check("time-limit-exceeds-visibility")
    def time_limit_exceeds_visibility(self) -> Iterator[Finding]:
        yield from self.framework_parts("time-limit-exceeds-visibility")
