"""Moving a schedule to free start minutes, in each framework's own syntax, without
changing how often it runs: the minutes keep their count and spacing (``*/15`` becomes
``"2,17,32,47"``), the hours and days stay as written.

A cron expression and a ``crontab(...)``-like call are rewritten here; a framework
whose schedules are written otherwise rewrites them in its plugin
(``rewrite_schedule_minutes`` of ``jobcheck/frameworks/<name>/fixes.py``: APScheduler's
``add_job(..., "cron", ...)``, the ``schedule`` library's ``.at(...)``), with the
helpers here.

Shared by the fixes of SCL-22 ``schedule-on-the-hour``, ``schedule-pile-up`` and
``crontab-missing-minute``.
"""

from __future__ import annotations

import libcst as cst

from jobcheck import registry
from jobcheck.facts import ScheduleEntry
from jobcheck.findings import Finding, Fix
from jobcheck.fixes import syntax
from jobcheck.fixes.project import ProjectInfo
from jobcheck.fixes.source import Source
from jobcheck.timing import CRON_MACROS, firing


def move_fix(finding: Finding, source: Source, project: ProjectInfo) -> Fix | None:
    """The fix that moves the flagged schedule's start minutes to free ones."""
    entry = project.schedule_at(finding.path, finding.loc)
    fire = firing(entry.timing) if entry is not None else None
    if entry is None or fire is None or not fire.minutes:
        return None
    node = source.at(entry.timing_loc, cst.BaseExpression)
    if node is None:
        return None
    moved = project.minutes.allocate(fire.minutes)
    if moved is None:
        return None
    new = rewrite(entry, node, moved)
    edit = source.replace(node, new) if new is not None else None
    if edit is None:
        return None
    return Fix(f"Start at {_describe(moved)} instead", (edit,), "unsafe")


def rewrite(
    entry: ScheduleEntry, node: cst.BaseExpression, moved: frozenset[int]
) -> cst.BaseExpression | None:
    """``node`` (the schedule as written) starting at ``moved`` minutes instead."""
    if isinstance(node, cst.SimpleString):
        return rewrite_cron_string(node, moved)
    if not isinstance(node, cst.Call):
        return None
    return registry.framework_fixes(entry.framework).rewrite_schedule_minutes(node, moved)


def minute_value(moved: frozenset[int], like: cst.BaseExpression | None) -> cst.BaseExpression:
    """One minute as an integer (or a string, where the code wrote a string), several
    as a comma-separated string."""
    if len(moved) == 1 and not isinstance(like, cst.SimpleString):
        return cst.Integer(str(next(iter(moved))))
    text = ",".join(str(m) for m in sorted(moved))
    if isinstance(like, cst.SimpleString):
        return syntax.string_like(like, text)
    return cst.SimpleString(f'"{text}"')


def _describe(moved: frozenset[int]) -> str:
    minutes = sorted(moved)
    if len(minutes) == 1:
        return f"minute {minutes[0]}"
    return "minutes " + ", ".join(str(m) for m in minutes)


def _cron_fields(text: str) -> list[str] | None:
    expression = CRON_MACROS.get(text.strip().lower(), text)
    fields = expression.split()
    return fields if len(fields) == 5 else None


def rewrite_cron_string(node: cst.SimpleString, moved: frozenset[int]) -> cst.SimpleString | None:
    """A cron expression (or macro) starting at ``moved`` minutes instead."""
    value = syntax.string_value(node)
    fields = _cron_fields(value) if value is not None else None
    if fields is None:
        return None
    fields[0] = ",".join(str(m) for m in sorted(moved))
    return syntax.string_like(node, " ".join(fields))


def cron_string_argument(call: cst.Call) -> cst.SimpleString | None:
    """The cron expression a call takes (``crontab.from_string("0 4 * * *")``,
    periodiq's ``cron("@daily")``, ``CronTrigger.from_crontab(...)``)."""
    for arg in call.args:
        if isinstance(arg.value, cst.SimpleString):
            value = syntax.string_value(arg.value)
            if value is not None and _cron_fields(value) is not None:
                return arg.value
    return None


def replace_in_call(call: cst.Call, old: cst.CSTNode, new: cst.CSTNode) -> cst.Call:
    return call.deep_replace(old, new)  # type: ignore[return-value]


def rewrite_crontab_call(call: cst.Call, moved: frozenset[int]) -> cst.BaseExpression | None:
    """Celery's ``crontab(minute=0, hour=3)`` (minute is also its first positional
    parameter, celery/schedules.py), or a cron string given to a call."""
    string = cron_string_argument(call)
    if string is not None:
        new_string = rewrite_cron_string(string, moved)
        return replace_in_call(call, string, new_string) if new_string else None
    if syntax.has_splat(call):
        return None
    positional = syntax.positional(call)
    if positional:
        first = positional[0]
        args = [
            arg.with_changes(value=minute_value(moved, first.value)) if arg is first else arg
            for arg in call.args
        ]
        return call.with_changes(args=args)
    existing = syntax.keyword(call, "minute")
    return syntax.set_keyword(
        call, "minute", minute_value(moved, existing.value if existing else None)
    )
