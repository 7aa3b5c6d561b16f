"""SCL-18 ``soft-limit-not-below-hard``: set the soft limit a little below the hard one
(a tenth, at least a second), when both are numbers on the same task. Unsafe:
SoftTimeLimitExceeded is raised earlier than before."""

from __future__ import annotations

import libcst as cst

from jobcheck.findings import Finding, Fix
from jobcheck.fixes import syntax
from jobcheck.fixes.project import ProjectInfo
from jobcheck.fixes.source import Source

RULE, CHECK = "SCL-18", "soft-limit-not-below-hard"


def fix(finding: Finding, source: Source, project: ProjectInfo) -> Fix | None:
    arg = source.at(finding.loc, cst.Arg)
    call = source.parent(arg) if arg is not None else None
    if not isinstance(call, cst.Call):
        return None
    hard = _number(syntax.keyword(call, "time_limit"))
    soft = _number(syntax.keyword(call, "soft_time_limit"))
    if hard is None or soft is None or soft < hard or hard < 2:
        return None
    lower = int(hard - max(1, hard // 10))
    new = syntax.set_keyword(call, "soft_time_limit", cst.Integer(str(lower)), source.module)
    edit = source.replace(call, new) if new is not None else None
    return Fix(f"Set soft_time_limit={lower}", (edit,), "unsafe") if edit else None


def _number(arg: cst.Arg | None) -> float | None:
    if arg is None or not isinstance(arg.value, (cst.Integer, cst.Float)):
        return None
    value = arg.value.evaluated_value
    return float(value) if isinstance(value, (int, float)) else None
