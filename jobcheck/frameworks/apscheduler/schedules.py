"""APScheduler schedules: ``add_job`` and ``@scheduled_job`` (and Flask-APScheduler's
``@scheduler.task``) with cron, interval and date triggers."""

from __future__ import annotations

from jobcheck.extract.schedules import (
    ScheduleReader,
    argument,
)
from jobcheck.extract.walker import Walker
from jobcheck.facts import FrameworkConfig, FunctionFacts
from jobcheck.facts.values import CallV, Const, DictV, Ref, Value, string
from jobcheck.frameworks.apscheduler.defaults import (
    FLASK_CONFIG_SCHEDULER,
    MINUTE_GIVEN,
    SCHEDULER_OPTIONS,
    UNCONFIRMED,
)
from jobcheck.frameworks.apscheduler.starts import is_scheduler_class
from jobcheck.frameworks.apscheduler.timing import (
    APSCHEDULER_JOB_KEYWORDS,
    apscheduler_timing,
    gives_minute,
    jitter_of,
)
from jobcheck.syntax import tree as cst
from jobcheck.timing import APSCHEDULER_FIELDS
from jobcheck.triggers import Trigger

APSCHEDULER_ROOTS = frozenset({"apscheduler", "flask_apscheduler", "django_apscheduler"})
# Flask-APScheduler reads its jobs and job defaults from the app's config
# (flask_apscheduler/scheduler.py ``_load_jobs``, ``_load_config``).
FLASK_JOBS_SETTINGS = frozenset({"JOBS", "SCHEDULER_JOBS"})
FLASK_JOB_DEFAULTS = "SCHEDULER_JOB_DEFAULTS"


class APSchedulerSchedules(ScheduleReader):
    PREFILTER = (
        Trigger("APScheduler", b"apscheduler"),
        Trigger("APScheduler job", b".scheduled_job("),
        Trigger("APScheduler job", b".add_job("),
        Trigger("Flask-APScheduler jobs", b"JOBS", rb"\bJOBS\s*=\s*[\[(]"),
        Trigger("Flask-APScheduler job defaults", b"SCHEDULER_JOB_DEFAULTS"),
    )

    def __init__(self, walker: Walker) -> None:
        super().__init__(walker)
        self._schedulers: set[str] = set()

    def function(self, node: cst.FunctionDef, facts: FunctionFacts) -> None:
        for decorator_node, decorator in zip(node.decorators, facts.decorators):
            call = decorator.call
            qualname = decorator.qualname or ""
            if not isinstance(call, CallV):
                continue
            if qualname.rpartition(".")[2] in ("scheduled_job", "task") and self._is_aps(
                qualname, call
            ):
                self._scheduled_job(
                    decorator_node.decorator, facts, call, qualname.rpartition(".")[0]
                )

    def call(self, node: cst.Call, func: str | None) -> None:
        if isinstance(node.func, cst.Attribute) and node.func.attr.value == "add_job":
            if self.roots & APSCHEDULER_ROOTS:
                self._add_job(node)
            elif _named_like_a_scheduler(node.func.value):
                # ``from app import scheduler``: kept when the project model finds that
                # object is an APScheduler scheduler (``with_scheduler_defaults``).
                self._add_job(node, confirm=True)
        elif isinstance(node.func, cst.Attribute) and node.func.attr.value == "configure":
            receiver = self.walker.qualify(node.func.value)
            if receiver is not None and receiver in self._schedulers:
                self._scheduler(receiver, None, node)

    def assign(
        self, targets: list[cst.BaseExpression], value: cst.BaseExpression, node: cst.CSTNode
    ) -> None:
        walker = self.walker
        names = {t.value for t in targets if isinstance(t, cst.Name)}
        if walker.at_settings_level and names & FLASK_JOBS_SETTINGS:
            self._flask_jobs(value)
            return
        if walker.at_settings_level and FLASK_JOB_DEFAULTS in names:
            self._flask_job_defaults(value)
            return
        if not walker.at_module_level or not isinstance(value, cst.Call):
            return
        cls = walker.qualify(value.func)
        if not is_scheduler_class(cls) or (cls or "").split(".")[0] not in APSCHEDULER_ROOTS:
            return
        for target in targets:
            if isinstance(target, cst.Name):
                self._scheduler(walker.names.local(target.value), cls, value)

    def _flask_jobs(self, node: cst.BaseExpression) -> None:
        """Flask-APScheduler's ``JOBS``/``SCHEDULER_JOBS`` setting: a list of ``add_job``
        keyword dicts (flask_apscheduler/scheduler.py ``_load_jobs``), ``func`` as
        ``"module:function"`` and ``trigger`` a name or a dict with its ``type``
        (utils.py ``fix_job_def``)."""
        if not isinstance(node, (cst.List, cst.Tuple)):
            return
        for element in node.elements:
            if isinstance(element.value, cst.Dict):
                self._flask_job(element.value)

    def _flask_job(self, node: cst.Dict) -> None:
        walker = self.walker
        job = walker.evaluate(node)
        func_node = next(
            (
                e.value
                for e in node.elements
                if isinstance(e, cst.DictElement) and string(walker.evaluate(e.key)) == "func"
            ),
            None,
        )
        if not isinstance(job, DictV) or func_node is None:
            return
        kwargs = [(k, v) for k in job.str_keys() if (v := job.get(k)) is not None]
        trigger = job.get("trigger")
        if isinstance(trigger, DictV):
            kwargs = [(k, v) for k, v in kwargs if k != "trigger"]
            kwargs += [(k, v) for k in trigger.str_keys() if k != "type" and (v := trigger.get(k))]
            trigger = trigger.get("type") or Const("date")
        call = CallV(func="flask_apscheduler.APScheduler.add_job", kwargs=tuple(kwargs))
        shown = ", ".join(
            [repr(string(trigger) or "?")]
            + [
                f"{k}={v.value!r}"
                for k, v in kwargs
                if k in APSCHEDULER_FIELDS and isinstance(v, Const)
            ]
        )
        self._add_entry(
            node,
            func_node,
            call,
            trigger,
            f"JOBS entry ({shown})",
            FLASK_CONFIG_SCHEDULER,
            name=string(job.get("id")) or string(job.get("name")),
        )

    def _flask_job_defaults(self, node: cst.BaseExpression) -> None:
        """``SCHEDULER_JOB_DEFAULTS`` (scheduler.py ``_load_config``: the scheduler's
        ``job_defaults``)."""
        walker = self.walker
        walker.facts.configs.append(
            FrameworkConfig(
                framework="apscheduler",
                kind="scheduler",
                qualname=FLASK_CONFIG_SCHEDULER,
                cls="flask_apscheduler.APScheduler",
                options=(("job_defaults", walker.evaluate(node)),),
                loc=walker.loc(node),
            )
        )

    def _scheduler(self, qualname: str, cls: str | None, node: cst.Call) -> None:
        """A scheduler's ``job_defaults`` and the like, from its constructor or
        ``configure(...)`` (apscheduler/schedulers/base.py ``_configure``)."""
        walker = self.walker
        self._schedulers.add(qualname)
        value = walker.evaluate(node)
        assert isinstance(value, CallV)
        walker.facts.configs.append(
            FrameworkConfig(
                framework="apscheduler",
                kind="scheduler",
                qualname=qualname,
                cls=cls,
                options=tuple((k, v) for k, v in value.kwargs if k in SCHEDULER_OPTIONS),
                loc=walker.loc(node),
            )
        )

    def _is_aps(self, qualname: str, call: CallV) -> bool:
        """``@scheduler.scheduled_job("cron", ...)`` or Flask-APScheduler's
        ``@scheduler.task("interval", ...)``: an APScheduler decorator, not Celery's."""
        trigger = string(call.arg(0, "trigger"))
        if qualname.endswith(".scheduled_job"):
            return bool(self.roots & APSCHEDULER_ROOTS) or trigger in ("cron", "interval")
        owner = qualname.rpartition(".")[0]
        if owner in self._schedulers:
            return True  # ``aps = APScheduler()`` of this file
        head = owner.rpartition(".")[2].lower()
        return trigger in ("cron", "interval") and "sched" in head

    def _scheduled_job(
        self, expr: cst.BaseExpression, facts: FunctionFacts, call: CallV, scheduler: str
    ) -> None:
        walker = self.walker
        when = apscheduler_timing(call.arg(0, "trigger"), call, walker.text(expr))
        if when is None:
            return
        given = gives_minute(call.arg(0, "trigger"), call)
        self.add(
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
            options=tuple((k, v) for k, v in call.kwargs if k in APSCHEDULER_JOB_KEYWORDS)
            + ((MINUTE_GIVEN, Const(True)),) * given
            + _jitter(call.arg(0, "trigger"), call),
            scheduler=scheduler or None,
        )

    def _add_job(self, node: cst.Call, confirm: bool = False) -> None:
        walker = self.walker
        value = walker.evaluate(node)
        assert isinstance(value, CallV)
        first, second = value.arg(0), value.arg(1)
        func_index, trigger_index = 0, 1
        if string(first) is not None and isinstance(second, Ref):
            # Flask-APScheduler: ``add_job(id, func, **kwargs)``.
            func_index, trigger_index = 1, 2
        func_node = argument(node, func_index, "func")
        if func_node is None:
            return
        self._add_entry(
            node,
            func_node,
            value,
            value.arg(trigger_index, "trigger"),
            walker.text(node),
            _receiver(walker, node),
            name=string(value.kwarg("id")) or string(value.kwarg("name")),
            unconfirmed=confirm,
        )

    def _add_entry(
        self,
        node: cst.CSTNode,
        func_node: cst.BaseExpression,
        call: CallV,
        trigger: Value | None,
        text: str,
        scheduler: str | None,
        name: str | None,
        unconfirmed: bool = False,
    ) -> None:
        """An ``add_job(...)``-shaped job (a call, or a ``JOBS`` entry of its keywords)."""
        when = apscheduler_timing(trigger, call, text)
        if when is None:
            return  # a one-off ("date") job
        self.add_for_function(
            framework="apscheduler",
            source="add_job",
            name=name,
            node=node,
            func_node=func_node,
            timing=when,
            timing_loc=self.walker.loc(node),
            options=tuple((k, v) for k, v in call.kwargs if k in APSCHEDULER_JOB_KEYWORDS)
            + ((UNCONFIRMED, Const(True)),) * unconfirmed
            + ((MINUTE_GIVEN, Const(True)),) * gives_minute(trigger, call)
            + _jitter(trigger, call),
            scheduler=scheduler,
        )


def _receiver(walker: Walker, node: cst.Call) -> str | None:
    """The scheduler ``scheduler.add_job(...)`` is called on, as a dotted path."""
    return walker.qualify(node.func.value) if isinstance(node.func, cst.Attribute) else None


def _named_like_a_scheduler(receiver: cst.BaseExpression) -> bool:
    name = receiver.attr.value if isinstance(receiver, cst.Attribute) else None
    if isinstance(receiver, cst.Name):
        name = receiver.value
    return name is not None and "sched" in name.lower()


def _jitter(trigger: Value | None, call: CallV) -> tuple[tuple[str, Value], ...]:
    found = jitter_of(trigger, call)
    return (("jitter", found),) if found is not None else ()
