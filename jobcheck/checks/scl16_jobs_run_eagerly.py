"""SCL-16 jobs-run-eagerly: production settings that make "background" jobs run inline.

Celery's ``task_always_eager``, RQ's ``Queue(is_async=False)`` (django-rq's ``ASYNC``),
Dramatiq's ``StubBroker`` and Huey's ``immediate=True`` run every job inside the call that
enqueues it: the request waits for all of it, as if there were no queue. Each framework
reads its own settings (``Semantics.jobs_run_eagerly``); test and development settings
never count (``jobcheck/project/production.py``). Docs: docs/rules/SCL-16.md.
"""

from __future__ import annotations

from collections.abc import Iterator

from jobcheck.checks.base import RuleChecks, check
from jobcheck.findings import Finding


class EagerJobs(RuleChecks):
    rule = "SCL-16"

    @check("jobs-run-eagerly")
    def jobs_run_eagerly(self) -> Iterator[Finding]:
        yield from self.framework_parts("jobs-run-eagerly")
