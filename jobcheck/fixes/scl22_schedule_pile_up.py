"""SCL-22 ``schedule-pile-up``: move the later of two schedules that start together to
a free minute, at the same frequency (unsafe: the job starts at another time)."""

from __future__ import annotations

from jobcheck.findings import Finding, Fix
from jobcheck.fixes.minutes import move_fix
from jobcheck.fixes.project import ProjectInfo
from jobcheck.fixes.source import Source

RULE, CHECK = "SCL-22", "schedule-pile-up"


def fix(finding: Finding, source: Source, project: ProjectInfo) -> Fix | None:
    return move_fix(finding, source, project)
