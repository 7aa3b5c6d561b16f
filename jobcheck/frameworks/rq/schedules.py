"""RQ schedules: rq-scheduler ``cron``/``schedule`` (and job definitions passed as
``schedule(**job)``), RQ's own ``rq.cron.register``."""

from __future__ import annotations

import dataclasses

from jobcheck import timing
from jobcheck.extract.schedules import (
    ScheduleReader,
    argument,
    bind,
    dict_parts,
    has_keyword,
    keyword_values,
)
from jobcheck.extract.walker import Walker
from jobcheck.facts import ScheduleEntry
from jobcheck.facts.values import Value, string
from jobcheck.syntax import tree as cst
from jobcheck.triggers import Trigger

# rq_scheduler/scheduler.py: ``cron(cron_string, func, args=None, kwargs=None, repeat=None,
# queue_name=None, result_ttl=-1, ttl=None, id=None, timeout=None, ...)`` and
# ``schedule(scheduled_time, func, args=None, kwargs=None, interval=None, repeat=None, ...)``
# (interval in seconds; without it the job runs once).
RQ_SCHEDULER_ROOTS = frozenset({"rq_scheduler", "django_rq"})
RQ_SCHEDULER_POSITIONS = {
    "cron": ("cron_string", "func", "args", "kwargs", "repeat", "queue_name"),
    "schedule": ("scheduled_time", "func", "args", "kwargs", "interval", "repeat"),
}
# rq/cron.py: ``register(func, queue_name, args=None, kwargs=None, interval=None,
# cron=None, job_timeout=None, result_ttl=..., ttl=None, failure_ttl=None, ...)``, the
# module function used in cron config files and the ``CronScheduler.register`` method.
RQ_CRON_REGISTER = frozenset({"rq.cron.register"})
RQ_CRON_POSITIONS = ("func", "queue_name", "args", "kwargs", "interval", "cron")


class RQSchedules(ScheduleReader):
    PREFILTER = (
        Trigger("rq-scheduler", b"rq_scheduler"),
        Trigger("RQ cron", b"rq.cron"),
        Trigger("RQ cron", b"from rq import cron"),
    )

    def __init__(self, walker: Walker) -> None:
        super().__init__(walker)
        self._job_definitions: list[ScheduleEntry] = []
        self._schedules_from_kwargs = False
        self._scheduler_queue: Value | None = None
        """``Scheduler(queue_name=...)`` made in this file (a project subclass too:
        Redash's ``StatsdRecordingScheduler``): the queue its jobs go to unless one
        names its own (rq_scheduler/scheduler.py ``_create_job``: ``queue_name or
        self.queue_name``)."""

    def assign(
        self, targets: list[cst.BaseExpression], value: cst.BaseExpression, node: cst.CSTNode
    ) -> None:
        if self.roots & RQ_SCHEDULER_ROOTS:
            self._collect_job_definitions(value)

    def call(self, node: cst.Call, func: str | None) -> None:
        if func in RQ_CRON_REGISTER:
            self._rq_cron(node)
            return
        if isinstance(node.func, cst.Attribute):
            method = node.func.attr.value
            if method in RQ_SCHEDULER_POSITIONS and self.roots & RQ_SCHEDULER_ROOTS:
                self._rq_scheduler(node, method)
            elif method == "register" and "rq" in self.roots and has_keyword(node, "queue_name"):
                self._rq_cron(node)
        if self.roots & RQ_SCHEDULER_ROOTS:
            self._collect_job_definitions(node)
            if (func or "").endswith("Scheduler") and has_keyword(node, "queue_name"):
                queue = argument(node, 0, "queue_name")
                self._scheduler_queue = self.walker.evaluate(queue) if queue else None

    def finish(self) -> None:
        if self._schedules_from_kwargs:
            self.walker.facts.schedules.extend(self._job_definitions)
        if self._scheduler_queue is not None:
            schedules = self.walker.facts.schedules
            for index, entry in enumerate(schedules):
                if entry.framework == "rq-scheduler" and entry.option("queue_name") is None:
                    options = (*entry.options, ("queue_name", self._scheduler_queue))
                    schedules[index] = dataclasses.replace(entry, options=options)

    def _rq_scheduler(self, node: cst.Call, method: str) -> None:
        walker = self.walker
        positions = RQ_SCHEDULER_POSITIONS[method]
        arguments = bind(node, positions)
        func_node = arguments.get("func")
        if func_node is None:
            return
        if method == "cron":
            cron_node = arguments.get("cron_string")
            if cron_node is None:
                return
            when = timing.cron_expression(
                string(walker.evaluate(cron_node)), walker.text(cron_node)
            )
            timing_node = cron_node
        else:
            interval_node = arguments.get("interval")
            if interval_node is None:
                return  # a one-off job, not a schedule
            seconds = timing.timedelta_seconds(walker.evaluate(interval_node))
            when = timing.interval(seconds, walker.text(interval_node))
            timing_node = interval_node
        identifier = arguments.get("id")
        self.add_for_function(
            framework="rq-scheduler",
            source=method,
            name=string(walker.evaluate(identifier)) if identifier is not None else None,
            node=node,
            func_node=func_node,
            timing=when,
            timing_loc=walker.loc(timing_node),
            options=keyword_values(walker, node, frozenset(positions) | {"id"}),
        )

    def _rq_cron(self, node: cst.Call) -> None:
        walker = self.walker
        arguments = bind(node, RQ_CRON_POSITIONS)
        func_node = arguments.get("func")
        if func_node is None:
            return
        if "cron" in arguments:
            timing_node = arguments["cron"]
            when = timing.cron_expression(
                string(walker.evaluate(timing_node)), walker.text(timing_node)
            )
        elif "interval" in arguments:
            timing_node = arguments["interval"]
            seconds = timing.timedelta_seconds(walker.evaluate(timing_node))
            when = timing.interval(seconds, walker.text(timing_node))
        else:
            return
        name_node = argument(node, -1, "name")
        self.add_for_function(
            framework="rq-cron",
            source="register",
            name=string(walker.evaluate(name_node)) if name_node is not None else None,
            node=node,
            func_node=func_node,
            timing=when,
            timing_loc=walker.loc(timing_node),
            options=keyword_values(walker, node, frozenset(RQ_CRON_POSITIONS) | {"name"}),
        )

    def _collect_job_definitions(self, node: cst.BaseExpression | cst.Call) -> None:
        """rq-scheduler jobs described as dicts and passed as ``schedule(**job)``
        (Redash's ``periodic_job_definitions``): a dict display with a ``"func"`` and an
        ``"interval"`` or ``"cron_string"`` key, in a module that calls
        ``schedule``/``cron`` with ``**`` keyword arguments."""
        if isinstance(node, cst.Call):
            if isinstance(node.func, cst.Attribute) and node.func.attr.value in (
                RQ_SCHEDULER_POSITIONS
            ):
                if any(arg.star == "**" for arg in node.args):
                    self._schedules_from_kwargs = True
            candidates = [arg.value for arg in node.args]
        elif isinstance(node, (cst.List, cst.Tuple)):
            candidates = [el.value for el in node.elements if isinstance(el, cst.Element)]
        else:
            candidates = [node]
        for candidate in candidates:
            if isinstance(candidate, cst.Dict):
                self._job_definition(candidate)

    def _job_definition(self, node: cst.Dict) -> None:
        walker = self.walker
        parts = dict_parts(walker, node)
        if parts is None or "func" not in parts:
            return
        if "interval" in parts:
            timing_node = parts["interval"]
            seconds = timing.timedelta_seconds(walker.evaluate(timing_node))
            when = timing.interval(seconds, walker.text(timing_node))
        elif "cron_string" in parts:
            timing_node = parts["cron_string"]
            when = timing.cron_expression(
                string(walker.evaluate(timing_node)), walker.text(timing_node)
            )
        else:
            return
        self._job_definitions.append(
            self.function_entry(
                framework="rq-scheduler",
                source="job-definition",
                name=None,
                node=node,
                func_node=parts["func"],
                timing=when,
                timing_loc=walker.loc(timing_node),
                options=tuple(
                    (key, walker.evaluate(value))
                    for key, value in parts.items()
                    if key not in ("func", "interval", "cron_string")
                ),
            )
        )
