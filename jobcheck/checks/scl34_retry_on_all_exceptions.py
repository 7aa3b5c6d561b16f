"""SCL-34 Set aside messages that keep failing (EVT-23): retry-on-all-exceptions.

Retrying on every exception retries deterministic errors (bad input, a missing record, a
bug) like transient ones; only the transient ones should be retried.
Docs: docs/rules/SCL-34.md.
"""

from __future__ import annotations

from collections.abc import Iterator

from jobcheck.checks.base import RuleChecks, check
from jobcheck.findings import Finding


class RetryOnAllExceptions(RuleChecks):
    rule = "SCL-34"

    @check("retry-on-all-exceptions")
    def retry_on_all_exceptions(self) -> Iterator[Finding]:
        yield from self.framework_parts("retry-on-all-exceptions")
