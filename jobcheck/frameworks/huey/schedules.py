"""Huey schedules: ``@huey.periodic_task(crontab(...))`` and djhuey's
``@db_periodic_task(crontab(...))``, read from the tasks the Huey recognizer claimed."""

from __future__ import annotations

import re

from jobcheck import timing
from jobcheck.extract.schedules import ScheduleReader
from jobcheck.facts import FunctionFacts, TaskDef, Timing
from jobcheck.facts.values import CallV, Const, Value, string
from jobcheck.frameworks.huey.semantics import (
    CRONTAB_FIELD_DEFAULT,
    CRONTAB_FIELDS,
    CRONTAB_PIECES,
    is_huey_crontab,
)
from jobcheck.syntax import tree as cst

_PIECE = re.compile(rf"(?:{CRONTAB_PIECES})\Z")


class HueySchedules(ScheduleReader):
    def function(self, node: cst.FunctionDef, facts: FunctionFacts) -> None:
        task = self._periodic_task(facts.qualname)
        if task is None:
            return
        schedule = task.option("validate_datetime")
        assert schedule is not None
        walker = self.walker
        decorator = _decorator_node(node, task.decorator)
        text = _schedule_text(walker, decorator)
        if isinstance(schedule, CallV) and is_huey_crontab(schedule.func):
            when = huey_crontab(schedule, text)
        else:
            when = timing.other(text)  # a validate_datetime function of the project's own
        self.add(
            framework="huey",
            source="periodic_task",
            name=string(task.option("name")),
            task_name=None,
            target=facts.qualname,
            target_text=facts.name,
            timing=when,
            loc=task.loc,
            task_loc=task.loc,
            timing_loc=walker.loc(_first_argument(decorator) or decorator),
            options=tuple((k, v) for k, v in task.options if k != "validate_datetime"),
        )

    def _periodic_task(self, qualname: str) -> TaskDef | None:
        for task in reversed(self.walker.facts.tasks):
            if task.function == qualname:
                if task.framework == "huey" and task.has_option("validate_datetime"):
                    return task
                return None
        return None


def huey_crontab(call: CallV, text: str) -> Timing:
    """huey/api.py ``crontab(minute='*', hour='*', day='*', month='*', day_of_week='*')``:
    cron's field order, every field defaulting to '*', and a day must match both day
    fields (``validate_date``). A field with a piece Huey ignores (anything but ``*``,
    ``n``, ``m-n``, ``*/n``; ``*/n`` for day_of_week raises) is unknown."""
    given: dict[str, str | None] = {}
    for index, name in enumerate(CRONTAB_FIELDS):
        value = call.arg(index, name)
        if value is not None:
            given[name] = _field(value, name == "day_of_week")
    fields = tuple(given.get(name, CRONTAB_FIELD_DEFAULT) for name in CRONTAB_FIELDS)
    restricts_coarser = any(given.get(name) not in (None, "*") for name in CRONTAB_FIELDS[1:])
    return Timing(
        kind="cron",
        text=text,
        fields=fields,
        minute_defaulted="minute" not in given and restricts_coarser,
        days_and=True,
    )


def _field(value: Value, day_of_week: bool) -> str | None:
    if (
        isinstance(value, Const)
        and isinstance(value.value, int)
        and not isinstance(value.value, bool)
    ):
        return str(value.value)
    text = string(value)
    if text is None:
        return None
    pieces = text.split(",")
    if not all(_PIECE.match(piece) for piece in pieces):
        return None
    if day_of_week and any(piece.startswith("*/") for piece in pieces):
        return None
    return text


def _decorator_node(node: cst.FunctionDef, qualname: str | None) -> cst.BaseExpression:
    method = (qualname or "").rpartition(".")[2]
    for decorator in node.decorators:
        expr = decorator.decorator
        func = expr.func if isinstance(expr, cst.Call) else expr
        if isinstance(func, cst.Attribute) and func.attr.value == method:
            return expr
        if isinstance(func, cst.Name) and func.value == method:
            return expr
    return node.decorators[0].decorator


def _first_argument(expr: cst.BaseExpression) -> cst.BaseExpression | None:
    if isinstance(expr, cst.Call) and expr.args:
        return expr.args[0].value
    return None


def _schedule_text(walker, decorator: cst.BaseExpression) -> str:  # type: ignore[no-untyped-def]
    first = _first_argument(decorator)
    return walker.text(first) if first is not None else walker.text(decorator)
