"""SCL-19 ``schedule-without-expiry``: let each run of a periodic Celery job expire
after the time between two runs, so runs missed while workers were down are dropped
instead of all running at once. Unsafe: missed runs no longer run.

Beat sends an entry's ``options`` to ``apply_async`` (celery/beat.py
``Scheduler.apply_async``), ``add_periodic_task(..., **opts)`` and the old
``@periodic_task(...)`` take ``expires=`` themselves.
"""

from __future__ import annotations

import libcst as cst

from jobcheck.facts import Timing
from jobcheck.findings import Finding, Fix, TextEdit
from jobcheck.fixes import syntax
from jobcheck.fixes.project import ProjectInfo
from jobcheck.fixes.source import Source
from jobcheck.location import Loc
from jobcheck.timing import cron_expression, describe_seconds, shortest_gap

RULE, CHECK = "SCL-19", "schedule-without-expiry"


def fix(finding: Finding, source: Source, project: ProjectInfo) -> Fix | None:
    entry = project.schedule_at(finding.path, finding.loc)
    gap = _meant_gap(entry.timing) if entry is not None else None
    if entry is None or gap is None or gap <= 0:
        return None
    seconds = cst.Integer(str(int(gap))) if float(gap).is_integer() else cst.Float(repr(gap))
    span = describe_seconds(gap)
    span = span if span[:1].isdigit() else f"1 {span}"  # "day" reads as "1 day" here
    title = f"Set expires={seconds.value} (the time between two runs: {span})"
    if entry.source in ("add_periodic_task", "periodic_task"):
        call = source.at(entry.loc, cst.Call)
        if call is None or syntax.keyword(call, "expires") is not None:
            return None
        new = syntax.set_keyword(call, "expires", seconds, source.module)
        edit = source.replace(call, new) if new is not None else None
    elif entry.source == "beat_schedule":
        edit = _beat_entry_edit(source, entry.loc, seconds)
    else:
        return None
    return Fix(title, (edit,), "unsafe") if edit is not None else None


def _meant_gap(timing: Timing) -> float | None:
    """The time between two runs of the schedule as meant: a crontab whose minute was
    left out (``crontab(hour=3)``, every minute of that hour) gets one minute from
    SCL-22's fix in the same ``--fix`` round, so its runs are a day apart, not a minute
    (the two fixes combined gave ``minute=23`` with ``expires=60``)."""
    fields = timing.fields
    if timing.minute_defaulted and fields is not None and all(f is not None for f in fields):
        once = cron_expression(" ".join(["0", *(f or "" for f in fields[1:])]), timing.text)
        return shortest_gap(once)
    return shortest_gap(timing)


def _beat_entry_edit(source: Source, key_loc: Loc, seconds: cst.BaseExpression) -> TextEdit | None:
    key = source.at(key_loc, cst.BaseExpression)
    holder = source.parent(key) if key is not None else None
    value = holder.value if isinstance(holder, (cst.DictElement, cst.Arg)) else None
    if isinstance(value, cst.Dict):
        return _in_dict(source, value, seconds)
    if isinstance(value, cst.Call) and syntax.dotted(value.func) == "dict":
        options = syntax.keyword(value, "options")
        if options is None:
            quote = '"'
            expires = cst.Dict(
                [cst.DictElement(cst.SimpleString(f"{quote}expires{quote}"), seconds)]
            )
            new = syntax.set_keyword(value, "options", expires, source.module)
            return source.replace(value, new) if new is not None else None
        return _in_options(source, options.value, seconds, '"')
    return None


def _in_dict(source: Source, entry: cst.Dict, seconds: cst.BaseExpression) -> TextEdit | None:
    keys = [e.key for e in entry.elements if isinstance(e, cst.DictElement)]
    quote = syntax.quote_of(keys)
    for element in entry.elements:
        if isinstance(element, cst.DictElement) and syntax.string_value(element.key) == "options":
            return _in_options(source, element.value, seconds, quote)
    if any(isinstance(e, cst.StarredDictElement) for e in entry.elements):
        return None  # the options may come with the spread entries
    expires = cst.Dict([cst.DictElement(cst.SimpleString(f"{quote}expires{quote}"), seconds)])
    new = syntax.add_dict_element(entry, cst.SimpleString(f"{quote}options{quote}"), expires)
    return source.replace(entry, new)


def _in_options(
    source: Source, options: cst.BaseExpression, seconds: cst.BaseExpression, quote: str
) -> TextEdit | None:
    if not isinstance(options, cst.Dict):
        return None
    keys = [e.key for e in options.elements if isinstance(e, cst.DictElement)]
    if any(syntax.string_value(k) == "expires" for k in keys):
        return None
    if any(isinstance(e, cst.StarredDictElement) for e in options.elements):
        return None
    quote = syntax.quote_of(keys) if keys else quote
    new = syntax.add_dict_element(options, cst.SimpleString(f"{quote}expires{quote}"), seconds)
    return source.replace(options, new)
