"""Schedules: Celery beat entries, ``add_periodic_task`` and ``@periodic_task``;
rq-scheduler ``cron``/``schedule`` and RQ's own ``rq.cron``; periodiq ``periodic=cron()``;
APScheduler ``add_job``/``scheduled_job``; the ``schedule`` library's ``every()...do()``.

Each becomes a :class:`ScheduleEntry` with its own location, the job it names (by
string or by reference), when it fires (:mod:`jobcheck.timing`) and its options.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import libcst as cst

from jobcheck import timing
from jobcheck.extract.schedule_timing import (
    APSCHEDULER_JOB_KEYWORDS,
    SCHEDULE_UNITS,
    WEEKDAYS,
    apscheduler_timing,
    celery_timing,
    schedule_library_timing,
)
from jobcheck.extract.walker import Recognizer, Walker
from jobcheck.facts import FunctionFacts, ScheduleEntry, Timing
from jobcheck.facts.values import CallV, Const, DictV, Ref, Value, string
from jobcheck.triggers import Trigger

# Celery's names for the beat schedule setting (celery/app/defaults.py: ``beat_schedule``,
# old name ``CELERYBEAT_SCHEDULE``; Django settings with the CELERY namespace).
BEAT_SETTING_NAMES = frozenset({"beat_schedule", "CELERY_BEAT_SCHEDULE", "CELERYBEAT_SCHEDULE"})
PERIODIC_TASK_DECORATORS = frozenset(
    {
        "celery.task.periodic_task",
        "celery.decorators.periodic_task",
        "celery.task.base.periodic_task",
    }
)
SIGNATURE_FUNCS = frozenset({"celery.signature", "celery.canvas.signature"})
# celery/canvas.py ``Signature.__init__(task=None, args=None, kwargs=None, options=None,
# type=None, subtask_type=None, immutable=False, app=None, **ex)``: ``ex`` are options.
SIGNATURE_PARAMETERS = frozenset(
    {
        "varies",
        "task",
        "name",
        "args",
        "kwargs",
        "options",
        "type",
        "subtask_type",
        "immutable",
        "app",
    }
)
PERIODIQ_CRON = frozenset({"periodiq.cron"})
DRAMATIQ_ACTORS = frozenset({"dramatiq.actor", "dramatiq.actor.actor", "periodiq.actor"})

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

APSCHEDULER_ROOTS = frozenset({"apscheduler", "flask_apscheduler", "django_apscheduler"})


class ScheduleRecognizer(Recognizer):
    PREFILTER = (
        Trigger("beat schedule", b"beat_schedule"),
        Trigger("Django beat schedule", b"BEAT_SCHEDULE"),
        Trigger("add_periodic_task", b"add_periodic_task"),
        Trigger("crontab", b"crontab", rb"\bcrontab\b"),
        Trigger("APScheduler", b"apscheduler"),
        Trigger("APScheduler job", b".scheduled_job("),
        Trigger("APScheduler job", b".add_job("),
        Trigger("schedule library", b"import schedule", rb"(?m:^[ \t]*import schedule\b)"),
        Trigger("schedule library", b"from schedule import"),
    )

    def __init__(self, walker: Walker) -> None:
        super().__init__(walker)
        self._defined: set[str] = set()
        self._dicts: dict[str, cst.Dict] = {}
        self._job_definitions: list[ScheduleEntry] = []
        self._schedules_from_kwargs = False

    @property
    def _roots(self) -> set[str]:
        return self.walker.names.imported_roots

    # -- decorators -----------------------------------------------------------------

    def function(self, node: cst.FunctionDef, facts: FunctionFacts) -> None:
        self._defined.add(facts.qualname)
        for decorator_node, decorator in zip(node.decorators, facts.decorators):
            if not isinstance(decorator.call, CallV):
                continue
            expr = decorator_node.decorator
            qualname = decorator.qualname or ""
            if _is_periodic_task(qualname, decorator.call):
                self._periodic_task(expr, facts, decorator.call)
            elif decorator.call.kwarg("periodic") is not None and _is_dramatiq_actor(qualname):
                self._periodiq(expr, facts, decorator.call)
            elif qualname.rpartition(".")[2] in ("scheduled_job", "task") and self._is_aps(
                qualname, decorator.call
            ):
                self._scheduled_job(expr, facts, decorator.call)

    def _periodic_task(self, expr: cst.BaseExpression, facts: FunctionFacts, call: CallV) -> None:
        walker = self.walker
        run_every = _keyword_node(expr, "run_every")
        self._add(
            framework="celery",
            source="periodic_task",
            name=string(call.kwarg("name")),
            task_name=None,
            target=facts.qualname,
            target_text=facts.name,
            timing=self._celery_timing(run_every) if run_every else timing.other("?"),
            loc=walker.loc(expr),
            task_loc=walker.loc(expr),
            timing_loc=walker.loc(run_every) if run_every else walker.loc(expr),
            options=tuple((k, v) for k, v in call.kwargs if k not in ("run_every", "name")),
        )

    def _periodiq(self, expr: cst.BaseExpression, facts: FunctionFacts, call: CallV) -> None:
        walker = self.walker
        node = _keyword_node(expr, "periodic")
        assert node is not None
        value = call.kwarg("periodic")
        if isinstance(value, CallV) and value.func in PERIODIQ_CRON:
            when = timing.cron_expression(string(value.arg(0, "spec")), walker.text(node))
        else:
            when = timing.other(walker.text(node))
        self._add(
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

    def _is_aps(self, qualname: str, call: CallV) -> bool:
        """``@scheduler.scheduled_job("cron", ...)`` or Flask-APScheduler's
        ``@scheduler.task("interval", ...)``: an APScheduler decorator, not Celery's."""
        trigger = string(call.arg(0, "trigger"))
        if qualname.endswith(".scheduled_job"):
            return bool(self._roots & APSCHEDULER_ROOTS) or trigger in ("cron", "interval")
        head = qualname.rpartition(".")[0].rpartition(".")[2].lower()
        return trigger in ("cron", "interval") and "sched" in head

    def _scheduled_job(self, expr: cst.BaseExpression, facts: FunctionFacts, call: CallV) -> None:
        walker = self.walker
        when = apscheduler_timing(call.arg(0, "trigger"), call, walker.text(expr))
        if when is None:
            return
        self._add(
            framework="apscheduler",
            source="scheduled_job",
            name=string(call.kwarg("id")) or string(call.kwarg("name")),
            task_name=None,
            target=facts.qualname,
            target_text=facts.name,
            timing=when,
            loc=walker.loc(expr),
            task_loc=walker.loc(expr),
            timing_loc=walker.loc(expr),
            options=tuple((k, v) for k, v in call.kwargs if k in APSCHEDULER_JOB_KEYWORDS),
        )

    # -- assignments: Celery beat dicts ----------------------------------------------

    def assign(
        self, targets: list[cst.BaseExpression], value: cst.BaseExpression, node: cst.CSTNode
    ) -> None:
        walker = self.walker
        for target in targets:
            if isinstance(target, cst.Name):
                if walker.at_settings_level and target.value in BEAT_SETTING_NAMES:
                    self._beat_dict(value)
                elif walker.at_module_level and isinstance(value, cst.Dict):
                    self._dicts[target.value] = value
            elif isinstance(target, cst.Attribute) and _is_beat_attribute(target):
                self._beat_dict(value)
            elif isinstance(target, cst.Subscript) and _is_beat_holder(target.value):
                key = target.slice[0].slice if len(target.slice) == 1 else None
                if isinstance(key, cst.Index):
                    self._beat_entry(key.value, value)
        if self._roots & RQ_SCHEDULER_ROOTS:
            self._collect_job_definitions(value)

    def _beat_dict(self, value: cst.BaseExpression) -> None:
        if isinstance(value, cst.Name) and value.value in self._dicts:
            value = self._dicts[value.value]
        if isinstance(value, cst.Dict):
            for element in value.elements:
                if isinstance(element, cst.DictElement):
                    self._beat_entry(element.key, element.value)
                elif isinstance(element, cst.StarredDictElement):
                    self._beat_dict(element.value)
        elif isinstance(value, cst.Call) and self.walker.qualify(value.func) == "dict":
            for arg in value.args:
                if arg.keyword is not None:
                    self._beat_entry(arg.keyword, arg.value, arg.keyword.value)
                elif arg.star == "**" or not arg.star:
                    self._beat_dict(arg.value)

    def _beat_entry(
        self, key: cst.BaseExpression, value: cst.BaseExpression, name: str | None = None
    ) -> None:
        walker = self.walker
        if isinstance(value, cst.Name) and value.value in self._dicts:
            value = self._dicts[value.value]
        parts = _dict_parts(walker, value)
        if parts is None or "task" not in parts or "schedule" not in parts:
            return
        task_node, schedule_node = parts["task"], parts["schedule"]
        task_name, target = self._task_reference(task_node)
        options: tuple[tuple[str, Value], ...] = ()
        if "options" in parts:
            evaluated = walker.evaluate(parts["options"])
            options = _string_items(evaluated)
        self._add(
            framework="celery",
            source="beat_schedule",
            name=name or string(walker.evaluate(key)),
            task_name=task_name,
            target=target,
            target_text=walker.text(task_node),
            timing=self._celery_timing(schedule_node),
            loc=walker.loc(key),
            task_loc=walker.loc(task_node),
            timing_loc=walker.loc(schedule_node),
            options=options,
        )

    def _task_reference(self, node: cst.BaseExpression) -> tuple[str | None, str | None]:
        """A beat entry's ``"task"``: a registered name, or ``some_task.name``."""
        value = self.walker.evaluate(node)
        name = string(value)
        if name is not None:
            return name, None
        if isinstance(value, Ref) and value.qualname.endswith(".name"):
            return None, value.qualname[: -len(".name")]
        return None, None

    def _celery_timing(self, node: cst.BaseExpression) -> Timing:
        text = self.walker.text(node)
        return celery_timing(self.walker.evaluate(node), text)

    # -- calls ------------------------------------------------------------------------

    def call(self, node: cst.Call, func: str | None) -> None:
        if func in RQ_CRON_REGISTER:
            self._rq_cron(node)
            return
        if not isinstance(node.func, cst.Attribute):
            return
        method = node.func.attr.value
        receiver = node.func.value
        if method == "add_periodic_task":
            self._add_periodic_task(node)
        elif method == "update" and _is_beat_holder(receiver):
            for arg in node.args:
                if not arg.star:
                    self._beat_dict(arg.value)
        elif method == "update" and _is_conf(receiver):
            self._conf_update(node)
        elif method in RQ_SCHEDULER_POSITIONS and self._roots & RQ_SCHEDULER_ROOTS:
            self._rq_scheduler(node, method)
        elif method == "register" and "rq" in self._roots and _has_keyword(node, "queue_name"):
            self._rq_cron(node)
        elif method == "add_job" and self._roots & APSCHEDULER_ROOTS:
            self._add_job(node)
        elif method == "do" and "schedule" in self._roots:
            self._schedule_library(node)
        if self._roots & RQ_SCHEDULER_ROOTS:
            self._collect_job_definitions(node)

    def _conf_update(self, node: cst.Call) -> None:
        for arg in node.args:
            if arg.keyword is not None and arg.keyword.value in BEAT_SETTING_NAMES:
                self._beat_dict(arg.value)
            elif arg.keyword is None and not arg.star and isinstance(arg.value, cst.Dict):
                for element in arg.value.elements:
                    if isinstance(element, cst.DictElement) and isinstance(
                        element.key, cst.SimpleString
                    ):
                        if element.key.evaluated_value in BEAT_SETTING_NAMES:
                            self._beat_dict(element.value)

    def _add_periodic_task(self, node: cst.Call) -> None:
        """``app.add_periodic_task(schedule, sig, args=(), kwargs=(), name=None, **opts)``
        (celery/app/base.py): the entry's options are ``dict(sig.options, **opts)``."""
        walker = self.walker
        schedule_node = _argument(node, 0, "schedule")
        sig_node = _argument(node, 1, "sig")
        if schedule_node is None or sig_node is None:
            return
        task_name, target, sig_options = self._signature(sig_node)
        opts = [
            (arg.keyword.value, walker.evaluate(arg.value))
            for arg in node.args
            if arg.keyword is not None
            and arg.keyword.value not in ("schedule", "sig", "args", "kwargs", "name")
        ]
        name_node = _argument(node, -1, "name")
        self._add(
            framework="celery",
            source="add_periodic_task",
            name=string(walker.evaluate(name_node)) if name_node is not None else None,
            task_name=task_name,
            target=target,
            target_text=walker.text(sig_node),
            timing=self._celery_timing(schedule_node),
            loc=walker.loc(node),
            task_loc=walker.loc(sig_node),
            timing_loc=walker.loc(schedule_node),
            options=(*sig_options, *opts),
        )

    def _signature(
        self, node: cst.BaseExpression
    ) -> tuple[str | None, str | None, tuple[tuple[str, Value], ...]]:
        """The task a signature names, and the options set on it.

        ``task.s(...)``/``task.si(...)`` name ``task``; ``task.signature(args, kwargs,
        **options)`` too; ``signature("name", ..., options={...})`` and
        ``app.signature("name", **options)`` name a task by string (celery/canvas.py
        ``Signature.__init__`` merges ``options`` with the extra keywords);
        ``.set(expires=...)`` adds options."""
        walker = self.walker
        if not isinstance(node, cst.Call):
            return None, walker.qualify(node), ()
        value = walker.evaluate(node)
        assert isinstance(value, CallV)
        func = node.func
        receiver = func.value if isinstance(func, cst.Attribute) else None
        method = func.attr.value if isinstance(func, cst.Attribute) else None
        if method == "set" and receiver is not None:
            name, target, options = self._signature(receiver)
            return name, target, (*options, *value.kwargs)
        if method in ("s", "si") and receiver is not None:
            return None, walker.qualify(receiver), ()
        if method == "signature" or walker.qualify(func) in SIGNATURE_FUNCS:
            named = string(value.arg(0, "varies")) or string(value.kwarg("name"))
            options = [(k, v) for k, v in value.kwargs if k not in SIGNATURE_PARAMETERS]
            options.extend(_string_items(value.kwarg("options") or DictV(())))
            if named is not None:
                return named, None, tuple(options)
            if receiver is not None:
                return None, walker.qualify(receiver), tuple(options)
        return None, None, ()

    def _rq_scheduler(self, node: cst.Call, method: str) -> None:
        walker = self.walker
        positions = RQ_SCHEDULER_POSITIONS[method]
        arguments = _bind(node, positions)
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
        self._add_for_function(
            framework="rq-scheduler",
            source=method,
            name=string(walker.evaluate(identifier)) if identifier is not None else None,
            node=node,
            func_node=func_node,
            timing=when,
            timing_loc=walker.loc(timing_node),
            options=_keyword_values(walker, node, frozenset(positions) | {"id"}),
        )

    def _rq_cron(self, node: cst.Call) -> None:
        walker = self.walker
        arguments = _bind(node, RQ_CRON_POSITIONS)
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
        name_node = _argument(node, -1, "name")
        self._add_for_function(
            framework="rq-cron",
            source="register",
            name=string(walker.evaluate(name_node)) if name_node is not None else None,
            node=node,
            func_node=func_node,
            timing=when,
            timing_loc=walker.loc(timing_node),
            options=_keyword_values(walker, node, frozenset(RQ_CRON_POSITIONS) | {"name"}),
        )

    def _function_reference(self, node: cst.BaseExpression) -> tuple[str | None, str | None]:
        """A job function given by reference, or as a ``"module.function"`` /
        ``"module:function"`` string."""
        value = self.walker.evaluate(node)
        text = string(value)
        if text is not None:
            return text.replace(":", "."), None
        return None, self.walker.qualify(node)

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
        parts = _dict_parts(walker, node)
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
            self._function_entry(
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

    def _add_job(self, node: cst.Call) -> None:
        walker = self.walker
        value = walker.evaluate(node)
        assert isinstance(value, CallV)
        first, second = value.arg(0), value.arg(1)
        func_index, trigger_index = 0, 1
        if string(first) is not None and isinstance(second, Ref):
            # Flask-APScheduler: ``add_job(id, func, **kwargs)``.
            func_index, trigger_index = 1, 2
        func_node = _argument(node, func_index, "func")
        if func_node is None:
            return
        when = apscheduler_timing(value.arg(trigger_index, "trigger"), value, walker.text(node))
        if when is None:
            return
        self._add_for_function(
            framework="apscheduler",
            source="add_job",
            name=string(value.kwarg("id")) or string(value.kwarg("name")),
            node=node,
            func_node=func_node,
            timing=when,
            timing_loc=walker.loc(node),
            options=tuple((k, v) for k, v in value.kwargs if k in APSCHEDULER_JOB_KEYWORDS),
        )

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
        self._add_for_function(
            framework="schedule",
            source="every",
            name=None,
            node=node,
            func_node=func_node,
            timing=when,
            timing_loc=walker.loc(every_chain),
        )

    # -- bookkeeping ------------------------------------------------------------------

    def _add(self, **fields: Any) -> None:
        self.walker.facts.schedules.append(ScheduleEntry(**fields))

    def _add_for_function(self, **fields: Any) -> None:
        self.walker.facts.schedules.append(self._function_entry(**fields))

    def _function_entry(
        self, node: cst.Call, func_node: cst.BaseExpression, **fields: Any
    ) -> ScheduleEntry:
        """The entry of a schedule made by the call ``node`` for the job function
        ``func_node`` names (by reference, or as a ``"module.function"`` string)."""
        task_name, target = self._function_reference(func_node)
        return ScheduleEntry(
            task_name=task_name,
            target=target,
            target_text=self.walker.text(func_node),
            loc=self.walker.loc(node),
            task_loc=self.walker.loc(func_node),
            **fields,
        )

    def finish(self) -> None:
        facts = self.walker.facts
        facts.defined_functions = frozenset(self._defined)
        if self._schedules_from_kwargs:
            facts.schedules.extend(self._job_definitions)
        facts.schedules[:] = [
            dataclasses.replace(entry, timing=timing.expanded(entry.timing))
            for entry in facts.schedules
        ]


# -- helpers ------------------------------------------------------------------------


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


def _is_periodic_task(qualname: str, call: CallV) -> bool:
    if call.kwarg("run_every") is None:
        return False
    return qualname in PERIODIC_TASK_DECORATORS or (
        qualname.rpartition(".")[2] == "periodic_task" and not qualname.startswith("huey")
    )


def _is_dramatiq_actor(qualname: str) -> bool:
    return qualname in DRAMATIQ_ACTORS or qualname.rpartition(".")[2] == "actor"


def _is_conf(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, cst.Attribute) and expr.attr.value == "conf"


def _is_beat_attribute(expr: cst.Attribute) -> bool:
    """``app.conf.beat_schedule`` (also ``conf.CELERYBEAT_SCHEDULE``)."""
    return expr.attr.value in BEAT_SETTING_NAMES and (
        _is_conf(expr.value) or expr.attr.value != "beat_schedule"
    )


def _is_beat_holder(expr: cst.BaseExpression) -> bool:
    """An expression that holds the beat schedule dict itself."""
    if isinstance(expr, cst.Name):
        return expr.value in BEAT_SETTING_NAMES
    return isinstance(expr, cst.Attribute) and _is_beat_attribute(expr)


def _dict_parts(walker: Walker, node: cst.BaseExpression) -> dict[str, cst.BaseExpression] | None:
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


def _string_items(value: Value) -> tuple[tuple[str, Value], ...]:
    if isinstance(value, DictV):
        return tuple(
            (k.value, v)
            for k, v in value.items
            if isinstance(k, Const) and isinstance(k.value, str)
        )
    if isinstance(value, CallV) and value.func == "dict":
        return value.kwargs
    return ()


def _keyword_node(expr: cst.BaseExpression, name: str) -> cst.BaseExpression | None:
    if not isinstance(expr, cst.Call):
        return None
    for arg in expr.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg.value
    return None


def _argument(node: cst.Call, index: int, name: str) -> cst.BaseExpression | None:
    """A call's argument by position (``-1``: keyword only) or keyword."""
    positional = [a for a in node.args if a.keyword is None and not a.star]
    if 0 <= index < len(positional):
        return positional[index].value
    for arg in node.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg.value
    return None


def _bind(node: cst.Call, positions: tuple[str, ...]) -> dict[str, cst.BaseExpression]:
    bound: dict[str, cst.BaseExpression] = {}
    positional = [a for a in node.args if a.keyword is None and not a.star]
    for name, arg in zip(positions, positional):
        bound[name] = arg.value
    for arg in node.args:
        if arg.keyword is not None:
            bound[arg.keyword.value] = arg.value
    return bound


def _keyword_values(
    walker: Walker, node: cst.Call, skip: frozenset[str]
) -> tuple[tuple[str, Value], ...]:
    return tuple(
        (arg.keyword.value, walker.evaluate(arg.value))
        for arg in node.args
        if arg.keyword is not None and arg.keyword.value not in skip
    )


def _has_keyword(node: cst.Call, name: str) -> bool:
    return any(arg.keyword is not None and arg.keyword.value == name for arg in node.args)
