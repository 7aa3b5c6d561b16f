"""Dramatiq's part of the automatic fixes (``jobcheck/frameworks/fixes_base.py``).

SCL-18 ``missing-time-limit``: ``time_limit=None`` fails in the TimeLimit middleware;
its default is 600000 ms (dramatiq/middleware/time_limit.py): written out, it is safe.
Infinity becomes the default too (unsafe: it was asked for).
"""

from __future__ import annotations

import libcst as cst

from jobcheck.facts import TaskDef
from jobcheck.findings import Finding, Fix
from jobcheck.fixes import syntax
from jobcheck.fixes.project import ProjectInfo
from jobcheck.fixes.source import Source
from jobcheck.frameworks.fixes_base import FrameworkFixes

DEFAULT_TIME_LIMIT_MS = 600_000


class DramatiqFixes(FrameworkFixes):
    def time_limit_fix(
        self, finding: Finding, source: Source, project: ProjectInfo, task: TaskDef | None
    ) -> Fix | None:
        return _default_time_limit(finding, source) if task is not None else None


FIXES = DramatiqFixes()


def _default_time_limit(finding: Finding, source: Source) -> Fix | None:
    arg = source.at(finding.loc, cst.Arg)
    if arg is None or arg.keyword is None or arg.keyword.value != "time_limit":
        return None
    call = source.parent(arg)
    if not isinstance(call, cst.Call):
        return None
    was_none = isinstance(arg.value, cst.Name) and arg.value.value == "None"
    new = syntax.set_keyword(call, "time_limit", cst.Integer(str(DEFAULT_TIME_LIMIT_MS)))
    edit = source.replace(call, new) if new is not None else None
    if edit is None:
        return None
    title = f"Set time_limit={DEFAULT_TIME_LIMIT_MS} (Dramatiq's default, 10 minutes)"
    return Fix(title, (edit,), "safe" if was_none else "unsafe")
