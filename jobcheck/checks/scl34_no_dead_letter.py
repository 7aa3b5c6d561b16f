"""SCL-34 Set aside messages that keep failing (EVT-23): no-dead-letter.

What still fails after its retries must go somewhere durable (a dead-letter queue, a failed
job registry) where it can be inspected and replayed, not be dropped.
Docs: docs/rules/SCL-34.md.
"""

from __future__ import annotations

from collections.abc import Iterator

from jobcheck.checks.base import RuleChecks, check
from jobcheck.findings import Finding


class NoDeadLetter(RuleChecks):
    rule = "SCL-34"

    @check("no-dead-letter")
    def no_dead_letter(self) -> Iterator[Finding]:
        yield from self.framework_parts("no-dead-letter")
