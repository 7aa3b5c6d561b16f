"""The ``schedule`` library's part of the automatic fixes
(``jobcheck/frameworks/fixes_base.py``).

SCL-22: ``schedule.every().hour.at(":00")`` or ``.day.at("03:00")`` starts at another
minute: the minute in the ``at()`` time (schedule/__init__.py ``Job.at``), for a move
to one start minute (an ``at()`` names one time).
"""

from __future__ import annotations

import re

import libcst as cst

from jobcheck.fixes import syntax
from jobcheck.fixes.minutes import replace_in_call
from jobcheck.frameworks.fixes_base import FrameworkFixes

_AT = re.compile(r"^(\d{0,2}):(\d{2})(:\d{2})?$")


class ScheduleLibraryFixes(FrameworkFixes):
    def rewrite_schedule_minutes(
        self, call: cst.Call, moved: frozenset[int]
    ) -> cst.BaseExpression | None:
        return _at_minute(call, moved)


FIXES = ScheduleLibraryFixes()


def _at_minute(call: cst.Call, moved: frozenset[int]) -> cst.BaseExpression | None:
    if len(moved) != 1:
        return None
    minute = next(iter(moved))
    at = call
    while isinstance(at, cst.Call) and isinstance(at.func, cst.Attribute):
        if at.func.attr.value == "at":
            break
        at = at.func.value  # type: ignore[assignment]
        while isinstance(at, cst.Attribute):
            at = at.value  # type: ignore[assignment]
    if not (isinstance(at, cst.Call) and isinstance(at.func, cst.Attribute)) or not at.args:
        return None
    literal = at.args[0].value
    value = syntax.string_value(literal)
    match = _AT.match(value) if value is not None else None
    if match is None or not isinstance(literal, cst.SimpleString):
        return None
    unit = at.func.value
    hourly = isinstance(unit, cst.Attribute) and unit.attr.value in ("hour", "hours")
    if hourly and match.group(1):  # "MM:SS" for hourly jobs
        text = f"{minute:02d}:{match.group(2)}"
    else:
        text = f"{match.group(1)}:{minute:02d}{match.group(3) or ''}"
    return replace_in_call(call, literal, syntax.string_like(literal, text))
