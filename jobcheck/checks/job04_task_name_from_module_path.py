"""JOB-04 Job names survive a refactor (opt-in: ``--select JOB-04``).

A Celery task without ``name=`` is registered under its module path and function name
(celery/app/base.py ``gen_task_name``). Moving or renaming its module renames the task:
during a rolling deploy the messages already queued under the old name reach workers
that no longer know it, and fail with NotRegistered. Docs: docs/rules/JOB-04.md.
"""

from __future__ import annotations

from collections.abc import Iterator

from jobcheck.checks.base import RuleChecks, check
from jobcheck.findings import Finding
from jobcheck.project.test_code import is_test_code
from jobcheck.registry import semantics


class StableNames(RuleChecks):
    rule = "JOB-04"

    @check("task-name-from-module-path")
    def task_name_from_module_path(self) -> Iterator[Finding]:
        for job in self.project.jobs:
            if is_test_code(job.file):
                continue
            implicit = semantics(job.framework).name_from_module_path(job)
            if implicit is None:
                continue
            yield self.finding(
                "task-name-from-module-path",
                job.file.path,
                job.task.loc,
                f"{semantics(job.framework).job_noun} '{job.task.name}' is registered as "
                f"'{implicit}', a name made from its module path: moving or renaming the "
                "module renames the task, and messages already queued under the old name "
                f"fail during the deploy; give it name='{implicit}' to keep the name",
            )
