"""Schedules: what every framework's schedule recognizer shares.

Each framework's plugin (``jobcheck/frameworks/<name>/schedules.py``) reads its own
schedules (Celery beat entries, rq-scheduler jobs, APScheduler triggers...) into
:class:`ScheduleEntry` facts with their own locations, the job they name (by string or
by reference), when they fire (:mod:`jobcheck.timing`) and their options. This module
holds the helpers they share, and :class:`ScheduleBookkeeping`, which runs after them
all: it records the functions a file defines and expands every entry's timing.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from jobcheck import timing
from jobcheck.extract.walker import Recognizer, Walker
from jobcheck.facts import FunctionFacts, ScheduleEntry
from jobcheck.facts.values import CallV, Const, DictV, Value, string
from jobcheck.syntax import tree as cst


class ScheduleReader(Recognizer):
    """Base of a framework's schedule recognizer."""

    @property
    def roots(self) -> set[str]:
        return self.walker.names.imported_roots

    def add(self, **fields: Any) -> None:
        self.walker.facts.schedules.append(ScheduleEntry(**fields))

    def add_for_function(self, **fields: Any) -> None:
        self.walker.facts.schedules.append(self.function_entry(**fields))

    def function_entry(
        self, node: cst.Call, func_node: cst.BaseExpression, **fields: Any
    ) -> ScheduleEntry:
        """The entry of a schedule made by the call ``node`` for the job function
        ``func_node`` names (by reference, or as a ``"module.function"`` string)."""
        task_name, target = self.function_reference(func_node)
        return ScheduleEntry(
            task_name=task_name,
            target=target,
            target_text=self.walker.text(func_node),
            loc=self.walker.loc(node),
            task_loc=self.walker.loc(func_node),
            **fields,
        )

    def function_reference(self, node: cst.BaseExpression) -> tuple[str | None, str | None]:
        """A job function given by reference, or as a ``"module.function"`` /
        ``"module:function"`` string."""
        value = self.walker.evaluate(node)
        text = string(value)
        if text is not None:
            return text.replace(":", "."), None
        return None, self.walker.qualify(node)


class ScheduleBookkeeping(Recognizer):
    """Runs after every schedule recognizer: the functions the file defines, each entry's
    timing expanded (``jobcheck.timing.expanded``), and for an entry that runs a function
    of this file which only enqueues jobs, those jobs (``ScheduleEntry.enqueues``)."""

    def __init__(self, walker: Walker) -> None:
        super().__init__(walker)
        self._defined: set[str] = set()

    def function(self, node: cst.FunctionDef, facts: FunctionFacts) -> None:
        self._defined.add(facts.qualname)

    def finish(self) -> None:
        facts = self.walker.facts
        facts.defined_functions = frozenset(self._defined)
        facts.schedules[:] = [
            dataclasses.replace(
                entry,
                timing=timing.expanded(entry.timing),
                enqueues=_enqueued(facts.functions.get(entry.target or "")),
            )
            for entry in facts.schedules
        ]


def _enqueued(function: FunctionFacts | None) -> tuple[str, ...]:
    return function.enqueues_only if function is not None else ()


# -- helpers ------------------------------------------------------------------------


def dict_parts(walker: Walker, node: cst.BaseExpression) -> dict[str, cst.BaseExpression] | None:
    """A dict display's (or ``dict(...)`` call's) string-keyed items."""
    if isinstance(node, cst.Dict):
        parts: dict[str, cst.BaseExpression] = {}
        for element in node.elements:
            if isinstance(element, cst.DictElement):
                key = string(walker.evaluate(element.key))
                if key is not None:
                    parts[key] = element.value
        return parts
    if isinstance(node, cst.Call) and walker.qualify(node.func) == "dict":
        return {arg.keyword.value: arg.value for arg in node.args if arg.keyword is not None}
    return None


def string_items(value: Value) -> tuple[tuple[str, Value], ...]:
    if isinstance(value, DictV):
        return tuple(
            (k.value, v)
            for k, v in value.items
            if isinstance(k, Const) and isinstance(k.value, str)
        )
    if isinstance(value, CallV) and value.func == "dict":
        return value.kwargs
    return ()


def keyword_node(expr: cst.BaseExpression, name: str) -> cst.BaseExpression | None:
    if not isinstance(expr, cst.Call):
        return None
    for arg in expr.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg.value
    return None


def argument(node: cst.Call, index: int, name: str) -> cst.BaseExpression | None:
    """A call's argument by position (``-1``: keyword only) or keyword."""
    positional = [a for a in node.args if a.keyword is None and not a.star]
    if 0 <= index < len(positional):
        return positional[index].value
    for arg in node.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg.value
    return None


def bind(node: cst.Call, positions: tuple[str, ...]) -> dict[str, cst.BaseExpression]:
    bound: dict[str, cst.BaseExpression] = {}
    positional = [a for a in node.args if a.keyword is None and not a.star]
    for name, arg in zip(positions, positional):
        bound[name] = arg.value
    for arg in node.args:
        if arg.keyword is not None:
            bound[arg.keyword.value] = arg.value
    return bound


def keyword_values(
    walker: Walker, node: cst.Call, skip: frozenset[str]
) -> tuple[tuple[str, Value], ...]:
    return tuple(
        (arg.keyword.value, walker.evaluate(arg.value))
        for arg in node.args
        if arg.keyword is not None and arg.keyword.value not in skip
    )


def has_keyword(node: cst.Call, name: str) -> bool:
    return any(arg.keyword is not None and arg.keyword.value == name for arg in node.args)
