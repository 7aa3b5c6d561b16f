"""RQ's part of the automatic fixes (``jobcheck/frameworks/fixes_base.py``).

SCL-18 ``missing-time-limit``: a timeout of ``-1`` (no timeout), on a job, an enqueue
call or a queue, becomes RQ's default, 180 s (rq/queue.py ``Queue.DEFAULT_TIMEOUT``).
Unsafe: the job may have needed longer.
"""

from __future__ import annotations

import libcst as cst

from jobcheck.facts import TaskDef
from jobcheck.findings import Finding, Fix
from jobcheck.fixes import syntax
from jobcheck.fixes.project import ProjectInfo
from jobcheck.fixes.source import Source
from jobcheck.frameworks.fixes_base import FrameworkFixes

DEFAULT_TIMEOUT_SECONDS = 180
TIMEOUT_KEYS = ("job_timeout", "timeout", "default_timeout")


class RQFixes(FrameworkFixes):
    def time_limit_fix(
        self, finding: Finding, source: Source, project: ProjectInfo, task: TaskDef | None
    ) -> Fix | None:
        # The same for a job (``@job(timeout=-1)``) as for a call or a queue.
        return _default_timeout(finding, source)


FIXES = RQFixes()


def _default_timeout(finding: Finding, source: Source) -> Fix | None:
    call = source.at(finding.loc, cst.Call)
    if call is None:
        return None
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value in TIMEOUT_KEYS:
            if _is_minus_one(arg.value):
                key = arg.keyword.value
                new = syntax.set_keyword(call, key, cst.Integer(str(DEFAULT_TIMEOUT_SECONDS)))
                edit = source.replace(call, new) if new is not None else None
                if edit is None:
                    return None
                title = f"Set {key}={DEFAULT_TIMEOUT_SECONDS} (RQ's default)"
                return Fix(title, (edit,), "unsafe")
    return None


def _is_minus_one(node: cst.BaseExpression) -> bool:
    return (
        isinstance(node, cst.UnaryOperation)
        and isinstance(node.operator, cst.Minus)
        and isinstance(node.expression, cst.Integer)
        and node.expression.evaluated_value == 1
    )
