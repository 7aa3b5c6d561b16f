"""SCL-18 Give every job a time limit (EVT-17): missing-time-limit.

A job with no time limit can pin a worker forever: a hung call, a lock never released,
an endless loop. The judgement is the job's contract (``project/contract.py``
``TimeLimit``, what ``jobcheck jobs`` prints): a job whose limit is not ``present``
(none set, a value that means none, or workers that apply none) is reported, in its
framework's words, where the framework has a limit to set. Docs: docs/rules/SCL-18.md.
"""

from __future__ import annotations

from collections.abc import Iterator

from jobcheck.checks.base import RuleChecks, check
from jobcheck.findings import Finding


class MissingTimeLimit(RuleChecks):
    rule = "SCL-18"
    # A project without limits has dozens of jobs without one: one finding per file.
    one_finding_per_file = "jobs"

    @check("missing-time-limit")
    def missing_time_limit(self) -> Iterator[Finding]:
        for job in self.project.jobs:
            function = self.project.function(job.task.function)
            if function is not None and function.not_implemented:
                continue  # declared here, run elsewhere: its limit is the other side's
            limit = self.project.contract(job).time_limit
            if limit is not None and limit.settable and not limit.present:
                yield from self.time_limit_parts("missing-time-limit", job, limit)
        yield from self.framework_parts("missing-time-limit")
