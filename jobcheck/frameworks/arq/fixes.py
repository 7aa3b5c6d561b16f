"""arq's part of the automatic fixes (``jobcheck/frameworks/fixes_base.py``).

SCL-22: ``cron(f, hour=3, minute=0)`` starts at other minutes through its ``minute=``
keyword: arq/cron.py ``cron(coroutine, *, ..., minute=None, ...)`` takes the job first
and every field as a keyword, each an int or a set of ints (``Options``), never a
cron string.
"""

from __future__ import annotations

import libcst as cst

from jobcheck.fixes import syntax
from jobcheck.frameworks.fixes_base import FrameworkFixes


class ArqFixes(FrameworkFixes):
    positional_fields = False  # ``cron(coroutine, *, ...)``: the job is the only one

    def rewrite_schedule_minutes(
        self, call: cst.Call, moved: frozenset[int]
    ) -> cst.BaseExpression | None:
        if syntax.has_splat(call):
            return None
        return syntax.set_keyword(call, "minute", minute_value(moved))


def minute_value(moved: frozenset[int]) -> cst.BaseExpression:
    """One minute as an int, several as a set display (``{5, 35}``)."""
    minutes = sorted(moved)
    if len(minutes) == 1:
        return cst.Integer(str(minutes[0]))
    return cst.Set([cst.Element(cst.Integer(str(m))) for m in minutes])


FIXES = ArqFixes()
