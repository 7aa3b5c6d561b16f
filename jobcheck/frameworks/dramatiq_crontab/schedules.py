"""dramatiq-crontab schedules: ``@cron("0 0 * * *")`` and ``@interval(seconds=30)`` on a
Dramatiq actor (dramatiq_crontab/__init__.py)."""

from __future__ import annotations

from jobcheck import timing
from jobcheck.extract.schedules import ScheduleReader
from jobcheck.facts import FunctionFacts, Timing
from jobcheck.facts.values import CallV, Const, string
from jobcheck.frameworks.dramatiq_crontab.semantics import CRONTAB_DECORATORS, INTERVAL_DECORATORS
from jobcheck.syntax import tree as cst
from jobcheck.triggers import Trigger


class DramatiqCrontabSchedules(ScheduleReader):
    PREFILTER = (Trigger("dramatiq-crontab", b"dramatiq_crontab"),)

    def function(self, node: cst.FunctionDef, facts: FunctionFacts) -> None:
        actor_name = _actor_name(facts)
        for decorator_node, decorator in zip(node.decorators, facts.decorators):
            call = decorator.call
            if not isinstance(call, CallV):
                continue
            options: tuple = ()
            if decorator.qualname in CRONTAB_DECORATORS:
                expression = string(call.arg(0, "schedule"))
                when = crontab_timing(expression, self.walker.text(decorator_node.decorator))
                source = "cron"
                problem = invalid(expression)
                if problem is not None:
                    options = (("invalid", Const(problem)),)
            elif decorator.qualname in INTERVAL_DECORATORS:
                seconds = timing.timedelta_seconds(call.kwarg("seconds"))
                when = timing.interval(seconds, self.walker.text(decorator_node.decorator))
                source = "interval"
            else:
                continue
            loc = self.walker.loc(decorator_node.decorator)
            self.add(
                framework="dramatiq-crontab",
                source=source,
                name=actor_name or facts.name,
                task_name=None,
                target=facts.qualname,
                target_text=facts.name,
                timing=when,
                loc=loc,
                task_loc=loc,
                timing_loc=loc,
                options=options,
            )


def invalid(expression: str | None) -> str | None:
    """Why dramatiq-crontab refuses a schedule when the module is imported, if it does."""
    if expression is None:
        return None
    if len(expression.split()) != 5:
        return "CronTrigger.from_crontab wants five fields"
    if any(c.isdigit() for c in expression.split(" ")[-1]):
        return "a numeric day of week raises ValueError"
    return None


def crontab_timing(expression: str | None, text: str) -> Timing:
    """``CronTrigger.from_crontab`` wants five fields, and dramatiq-crontab refuses a digit
    in the day-of-week field (a ValueError when the module is imported): such a
    schedule never runs, and is "other" (its entry says why: ``invalid``)."""
    if expression is None or invalid(expression) is not None:
        return timing.other(text)
    return timing.cron_expression(expression, text)


def _actor_name(facts: FunctionFacts) -> str | None:
    """The job is named after the actor (``name=actor.actor_name``)."""
    for decorator in facts.decorators:
        if isinstance(decorator.call, CallV) and (decorator.qualname or "").endswith("actor"):
            return string(decorator.call.kwarg("actor_name"))
    return None
