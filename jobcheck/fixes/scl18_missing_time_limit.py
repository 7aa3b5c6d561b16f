"""SCL-18 ``missing-time-limit``: give the job a finite limit, in its framework's terms:
each framework's part of the fix is in its plugin (``time_limit_fix`` of
``jobcheck/frameworks/<name>/fixes.py``): a Celery task gets ``time_limit=`` and
``soft_time_limit=`` (display-only when the project gives nothing to go by), a
Dramatiq actor's ``time_limit=None`` becomes Dramatiq's default, RQ's ``-1`` becomes
RQ's default.
"""

from __future__ import annotations

from jobcheck import registry
from jobcheck.findings import Finding, Fix
from jobcheck.fixes.project import ProjectInfo
from jobcheck.fixes.source import Source

RULE, CHECK = "SCL-18", "missing-time-limit"


def fix(finding: Finding, source: Source, project: ProjectInfo) -> Fix | None:
    task = project.task_at(finding.path, finding.loc)
    if task is not None:
        return registry.framework_fixes(task.framework).time_limit_fix(
            finding, source, project, task
        )
    # A call or a queue: the framework whose option it sets knows it.
    for own in registry.every_framework_fixes():
        found = own.time_limit_fix(finding, source, project, None)
        if found is not None:
            return found
    return None
