"""SCL-22 ``crontab-missing-minute``: give Celery's or Huey's ``crontab(hour=3)`` (or arq's
``cron(f, hour=3)``) a free minute,
so it runs once in that hour instead of sixty times. Safe: a crontab that restricts the
hour or the day but not the minute is written for one run, not sixty."""

from __future__ import annotations

import libcst as cst

from jobcheck import registry
from jobcheck.findings import Finding, Fix
from jobcheck.fixes import syntax
from jobcheck.fixes.project import ProjectInfo
from jobcheck.fixes.source import Source

RULE, CHECK = "SCL-22", "crontab-missing-minute"


def fix(finding: Finding, source: Source, project: ProjectInfo) -> Fix | None:
    entry = project.schedule_at(finding.path, finding.loc)
    if entry is None or not entry.timing.minute_defaulted:
        return None
    call = source.at(entry.timing_loc, cst.Call)
    if call is None or syntax.has_splat(call):
        return None
    if syntax.positional(call) and registry.framework_fixes(entry.framework).positional_fields:
        return None
    if syntax.keyword(call, "minute") is not None:
        return None
    moved = project.minutes.allocate(frozenset({0}))
    if moved is None:
        return None
    minute = next(iter(moved))
    new = syntax.set_keyword(call, "minute", cst.Integer(str(minute)), source.module)
    edit = source.replace(call, new) if new is not None else None
    if edit is None:
        return None
    return Fix(f"Add minute={minute} (one run instead of sixty)", (edit,), "safe")
