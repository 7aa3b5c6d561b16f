"""periodiq schedules: ``@dramatiq.actor(periodic=cron("..."))``."""

from __future__ import annotations

from jobcheck import timing
from jobcheck.extract.schedules import (
    ScheduleReader,
    keyword_node,
)
from jobcheck.facts import FunctionFacts
from jobcheck.facts.values import CallV, string
from jobcheck.syntax import tree as cst
from jobcheck.triggers import Trigger

PERIODIQ_CRON = frozenset({"periodiq.cron"})
DRAMATIQ_ACTORS = frozenset({"dramatiq.actor", "dramatiq.actor.actor", "periodiq.actor"})


class PeriodiqSchedules(ScheduleReader):
    PREFILTER = (Trigger("periodiq", b"periodiq"),)

    def function(self, node: cst.FunctionDef, facts: FunctionFacts) -> None:
        for decorator_node, decorator in zip(node.decorators, facts.decorators):
            call = decorator.call
            if not isinstance(call, CallV) or call.kwarg("periodic") is None:
                continue
            if _is_dramatiq_actor(decorator.qualname or ""):
                self._periodiq(decorator_node.decorator, facts, call)

    def _periodiq(self, expr: cst.BaseExpression, facts: FunctionFacts, call: CallV) -> None:
        walker = self.walker
        node = keyword_node(expr, "periodic")
        assert node is not None
        value = call.kwarg("periodic")
        if isinstance(value, CallV) and value.func in PERIODIQ_CRON:
            when = timing.cron_expression(string(value.arg(0, "spec")), walker.text(node))
        else:
            when = timing.other(walker.text(node))
        self.add(
            framework="periodiq",
            source="periodic",
            name=None,
            task_name=None,
            target=facts.qualname,
            target_text=facts.name,
            timing=when,
            loc=walker.loc(expr),
            task_loc=walker.loc(expr),
            timing_loc=walker.loc(node),
            options=tuple((k, v) for k, v in call.kwargs if k != "periodic"),
        )


def _is_dramatiq_actor(qualname: str) -> bool:
    return qualname in DRAMATIQ_ACTORS or qualname.rpartition(".")[2] == "actor"
