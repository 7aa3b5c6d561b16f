"""The ``schedule`` library: ``schedule.every(2).hours.at(":15").do(job)``."""

from __future__ import annotations

from jobcheck.extract.schedules import (
    ScheduleReader,
)
from jobcheck.frameworks.schedule.timing import SCHEDULE_UNITS, WEEKDAYS, schedule_library_timing
from jobcheck.syntax import tree as cst
from jobcheck.triggers import Trigger


class ScheduleLibrarySchedules(ScheduleReader):
    PREFILTER = (
        Trigger("schedule library", b"import schedule", rb"(?m:^[ \t]*import schedule\b)"),
        Trigger("schedule library", b"from schedule import"),
    )

    def call(self, node: cst.Call, func: str | None) -> None:
        if isinstance(node.func, cst.Attribute) and node.func.attr.value == "do":
            if "schedule" in self.roots:
                self._schedule_library(node)

    def _schedule_library(self, node: cst.Call) -> None:
        """``schedule.every(2).hours.at(":15").do(job)``, read from the outside in."""
        walker = self.walker
        assert isinstance(node.func, cst.Attribute)
        every_chain = node.func.value
        chain = _schedule_chain(every_chain)
        if chain is None or not node.args or node.args[0].keyword is not None:
            return
        count, unit, at = chain
        when = schedule_library_timing(count, unit, at, walker.text(every_chain))
        func_node = node.args[0].value
        self.add_for_function(
            framework="schedule",
            source="every",
            name=None,
            node=node,
            func_node=func_node,
            timing=when,
            timing_loc=walker.loc(every_chain),
        )


def _schedule_chain(expr: cst.BaseExpression) -> tuple[float | None, str, str | None] | None:
    """``every(n)``'s count, the unit and the ``at()`` time of a ``schedule`` chain."""
    at: str | None = None
    unit: str | None = None
    while True:
        if isinstance(expr, cst.Call):
            func = expr.func
            method = (
                func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", None)
            )
            if method == "every":
                break
            if not isinstance(func, cst.Attribute):
                return None
            if method == "at" and expr.args and isinstance(expr.args[0].value, cst.SimpleString):
                value = expr.args[0].value.evaluated_value
                at = value if isinstance(value, str) else None
            expr = func.value
        elif isinstance(expr, cst.Attribute):
            if expr.attr.value in SCHEDULE_UNITS or expr.attr.value in WEEKDAYS:
                unit = unit or expr.attr.value
            expr = expr.value
        else:
            return None
    if unit is None:
        return None
    count: float | None = 1.0
    if expr.args:
        first = expr.args[0].value
        count = float(first.evaluated_value) if isinstance(first, cst.Integer) else None
    return count, unit, at
