"""SCL-18 Give every job a time limit (EVT-17): countdown-exceeds-visibility.

A message delayed longer than the broker's visibility timeout is redelivered while it
waits, so the job runs more than once.
Docs: docs/rules/SCL-18.md.
"""

from __future__ import annotations

from collections.abc import Iterator

from jobcheck.checks.base import RuleChecks, check
from jobcheck.findings import Finding


class CountdownExceedsVisibility(RuleChecks):
    rule = "SCL-18"

    @check("countdown-exceeds-visibility")
    def countdown_exceeds_visibility(self) -> Iterator[Finding]:
        yield from self.framework_parts("countdown-exceeds-visibility")
