"""SCL-18 Give every job a time limit (EVT-17): soft-limit-not-below-hard.

A soft limit at or above the hard one never fires: the job is killed without the chance
to clean up that the soft limit exists for.
Docs: docs/rules/SCL-18.md.
"""

from __future__ import annotations

from collections.abc import Iterator

from jobcheck.checks.base import RuleChecks, check
from jobcheck.findings import Finding


class SoftLimitNotBelowHard(RuleChecks):
    rule = "SCL-18"

    @check("soft-limit-not-below-hard")
    def soft_limit_not_below_hard(self) -> Iterator[Finding]:
        yield from self.framework_parts("soft-limit-not-below-hard")
