"""Moving a schedule to free start minutes, in each framework's own syntax, without
changing how often it runs: the minutes keep their count and spacing (``*/15`` becomes
``"2,17,32,47"``), the hours and days stay as written.

Shared by the fixes of SCL-22 ``schedule-on-the-hour``, ``schedule-pile-up`` and
``crontab-missing-minute``.
"""

from __future__ import annotations

import re

import libcst as cst

from jobcheck.facts import ScheduleEntry
from jobcheck.findings import Finding, Fix
from jobcheck.fixes import syntax
from jobcheck.fixes.project import ProjectInfo
from jobcheck.fixes.source import Source
from jobcheck.timing import APSCHEDULER_DEFAULTS, APSCHEDULER_FIELDS, CRON_MACROS, firing


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
        return _cron_string(node, moved)
    if not isinstance(node, cst.Call):
        return None
    if entry.framework == "schedule":
        return _schedule_at(node, moved)
    if entry.framework == "apscheduler":
        return _apscheduler(node, moved)
    return _crontab_call(node, moved)


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


def _cron_string(node: cst.SimpleString, moved: frozenset[int]) -> cst.SimpleString | None:
    value = syntax.string_value(node)
    fields = _cron_fields(value) if value is not None else None
    if fields is None:
        return None
    fields[0] = ",".join(str(m) for m in sorted(moved))
    return syntax.string_like(node, " ".join(fields))


def _string_argument(call: cst.Call) -> cst.SimpleString | None:
    """The cron expression a call takes (``crontab.from_string("0 4 * * *")``,
    periodiq's ``cron("@daily")``, ``CronTrigger.from_crontab(...)``)."""
    for arg in call.args:
        if isinstance(arg.value, cst.SimpleString):
            value = syntax.string_value(arg.value)
            if value is not None and _cron_fields(value) is not None:
                return arg.value
    return None


def _replace_in_call(call: cst.Call, old: cst.CSTNode, new: cst.CSTNode) -> cst.Call:
    return call.deep_replace(old, new)  # type: ignore[return-value]


def _crontab_call(call: cst.Call, moved: frozenset[int]) -> cst.BaseExpression | None:
    """Celery's ``crontab(minute=0, hour=3)`` (minute is also its first positional
    parameter, celery/schedules.py), or a cron string given to a call."""
    string = _string_argument(call)
    if string is not None:
        new_string = _cron_string(string, moved)
        return _replace_in_call(call, string, new_string) if new_string else None
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


def _apscheduler(call: cst.Call, moved: frozenset[int]) -> cst.BaseExpression | None:
    """``add_job(f, "cron", hour=3)``, ``CronTrigger(hour="*/2")`` (as a trigger or the
    call itself), ``CronTrigger.from_crontab("0 * * * *")``."""
    string = _string_argument(call)
    if string is not None:
        new_string = _cron_string(string, moved)
        return _replace_in_call(call, string, new_string) if new_string else None
    for arg in call.args:
        value = arg.value
        if isinstance(value, cst.Call) and (syntax.dotted(value.func) or "").endswith(
            ("CronTrigger", "CronTrigger.from_crontab")
        ):
            inner = _apscheduler(value, moved)
            return _replace_in_call(call, value, inner) if inner is not None else None
    if syntax.has_splat(call) or (
        (syntax.dotted(call.func) or "").endswith("CronTrigger") and syntax.positional(call)
    ):
        return None  # positional cron fields: leave them to a person
    given = {arg.keyword.value for arg in call.args if arg.keyword is not None}
    fields = [name for name in APSCHEDULER_FIELDS if name in given]
    least = fields[-1] if fields else None
    updated = call
    if least is not None and APSCHEDULER_FIELDS.index(least) < APSCHEDULER_FIELDS.index("minute"):
        # apscheduler/triggers/cron/__init__.py: fields after the least significant one
        # given take their defaults, those before it "*". Giving minute= makes the fields
        # between them "*": write their defaults out, so the frequency stays.
        start = APSCHEDULER_FIELDS.index(least) + 1
        for name in APSCHEDULER_FIELDS[start : APSCHEDULER_FIELDS.index("minute")]:
            if APSCHEDULER_DEFAULTS[name] != "*":
                updated = syntax.set_keyword(updated, name, cst.Integer(APSCHEDULER_DEFAULTS[name]))
    existing = syntax.keyword(updated, "minute")
    return syntax.set_keyword(
        updated, "minute", minute_value(moved, existing.value if existing else None)
    )


_AT = re.compile(r"^(\d{0,2}):(\d{2})(:\d{2})?$")


def _schedule_at(call: cst.Call, moved: frozenset[int]) -> cst.BaseExpression | None:
    """``schedule.every().hour.at(":00")`` or ``.day.at("03:00")``: the minute in the
    ``at()`` time (schedule/__init__.py ``Job.at``)."""
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
    return _replace_in_call(call, literal, syntax.string_like(literal, text))
