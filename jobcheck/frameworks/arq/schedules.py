"""arq schedules: ``cron(f, hour=..., minute=...)`` entries of a settings class's
``cron_jobs`` (arq/cron.py ``cron``)."""

from __future__ import annotations

from jobcheck import timing
from jobcheck.extract.schedules import ScheduleReader
from jobcheck.extract.walker import Walker
from jobcheck.facts import Timing
from jobcheck.facts.values import CallV, Const, SeqV, Value, string
from jobcheck.frameworks.arq.recognizer import entries, module_lists, worker_settings
from jobcheck.frameworks.arq.semantics import (
    CRON,
    CRON_NAME_PREFIX,
    CRON_TIME_FIELDS,
    CRON_WEEKDAY_NAMES,
)
from jobcheck.syntax import tree as cst

# cron's field order, with the arq keyword for each.
_CRON_ORDER = ("minute", "hour", "day", "month", "weekday")


class ArqSchedules(ScheduleReader):
    def __init__(self, walker: Walker) -> None:
        super().__init__(walker)
        self._lists: dict[str, cst.BaseExpression] = {}

    def assign(
        self, targets: list[cst.BaseExpression], value: cst.BaseExpression, node: cst.CSTNode
    ) -> None:
        self._lists.update(module_lists(self.walker, targets, value))

    def classdef(self, node: cst.ClassDef, qualname: str, bases: tuple[str, ...]) -> None:
        walker = self.walker
        attributes = worker_settings(walker, node, self._lists)
        if attributes is None or "cron_jobs" not in attributes:
            return
        # The worker's job_timeout, the timeout of a cron job that sets none of its own.
        timeout = attributes.get("job_timeout")
        worker_timeout = (("job_timeout", walker.evaluate(timeout)),) if timeout is not None else ()
        for entry in entries(walker, attributes["cron_jobs"], CRON):
            call = entry.call
            if call is None or entry.target_node is None:
                continue
            short = entry.target if entry.by_string else (entry.target or "").rpartition(".")[2]
            self.add(
                framework="arq",
                source="cron",
                name=string(call.kwarg("name")) or CRON_NAME_PREFIX + short,
                task_name=None,
                target=entry.target,
                target_text=walker.text(entry.target_node),
                timing=arq_cron(call, walker.text(entry.node)),
                loc=walker.loc(entry.node),
                task_loc=walker.loc(entry.target_node),
                timing_loc=walker.loc(entry.node),
                options=(
                    *(
                        (k, v)
                        for k, v in call.kwargs
                        if k not in CRON_TIME_FIELDS[:5] and k != "name"
                    ),
                    *worker_timeout,
                ),
            )


def arq_cron(call: CallV, text: str) -> Timing:
    """arq/cron.py ``cron(...)``: a field left None matches any value (so ``hour=3``
    alone runs every minute of hour 3); ``weekday`` counts from Monday = 0 or is a name;
    ``second`` defaults to 0. A timing that fires several times a minute (``second``
    None or several values) is not a minute-resolution cron timing: "other"."""
    second = call.kwarg("second")
    if second is not None:
        every_second = _field(second)
        if every_second is None or "," in every_second:
            return timing.other(text)
    fields: list[str | None] = []
    for name in _CRON_ORDER:
        value = call.kwarg(name)
        if value is None or (isinstance(value, Const) and value.value is None):
            fields.append("*")
            continue
        field = _weekday(value) if name == "weekday" else _field(value)
        fields.append(field)
    given = {name for name in _CRON_ORDER if call.kwarg(name) is not None}
    return Timing(
        kind="cron",
        text=text,
        fields=tuple(fields),
        minute_defaulted="minute" not in given and bool(given),
    )


def _weekday(value: Value) -> str | None:
    """arq weekdays: 0-6 from Monday, or one of arq/typing.py ``WEEKDAYS`` (a single
    name: cron.py ``WEEKDAYS.index(weekday.lower())``), as names croniter reads."""
    name = string(value)
    if name is not None:
        if name.lower() not in CRON_WEEKDAY_NAMES:
            return None  # arq raises ValueError for it
        return timing.apscheduler_weekdays(str(CRON_WEEKDAY_NAMES.index(name.lower())))
    field = _field(value)
    return timing.apscheduler_weekdays(field) if field is not None else None


def _field(value: Value) -> str | None:
    """An arq field (an int, a set/list/tuple of ints, a weekday name) in cron syntax."""
    if isinstance(value, Const):
        if isinstance(value.value, bool):
            return None
        if isinstance(value.value, int):
            return str(value.value)
        return None
    if isinstance(value, SeqV) and value.items:
        parts = [_field(item) for item in value.items]
        if all(part is not None for part in parts):
            return ",".join(parts)  # type: ignore[arg-type]
    return None
