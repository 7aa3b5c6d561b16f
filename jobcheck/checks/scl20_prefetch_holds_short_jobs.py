"""SCL-20 Keep urgent jobs in their own queue (EVT-19): prefetch-holds-short-jobs.

A worker that reserves several messages per process and acknowledges them only after
the run keeps them while its processes are busy: behind a long job, short ones wait
though other workers are idle. Only Celery reserves that way among the frameworks
jobcheck reads (its part: ``frameworks/celery/prefetch.py``).
Docs: docs/rules/SCL-20.md.
"""

from __future__ import annotations

from collections.abc import Iterator

from jobcheck.checks.base import RuleChecks, check
from jobcheck.findings import Finding


class PrefetchHoldsShortJobs(RuleChecks):
    rule = "SCL-20"

    @check("prefetch-holds-short-jobs")
    def prefetch_holds_short_jobs(self) -> Iterator[Finding]:
        yield from self.framework_parts("prefetch-holds-short-jobs")
