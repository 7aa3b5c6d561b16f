"""Celery schedules: beat entries (``beat_schedule``, ``CELERY_BEAT_SCHEDULE``, also
through ``app.conf.update`` and ``.update()`` on the schedule), ``add_periodic_task``, the
old ``@periodic_task`` decorator, and django-celery-beat rows the code creates
(``PeriodicTask.objects.get_or_create(name=..., task="app.tasks.x", interval=...)``)."""

from __future__ import annotations

from dataclasses import replace

from jobcheck import timing
from jobcheck.extract.schedules import (
    ScheduleReader,
    argument,
    dict_parts,
    keyword_node,
    string_items,
)
from jobcheck.extract.walker import Walker
from jobcheck.facts import FunctionFacts, Timing
from jobcheck.facts.values import CallV, DictV, Ref, Value, string, truthy
from jobcheck.frameworks.celery.timing import celery_timing
from jobcheck.syntax import tree as cst
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


# django_celery_beat/models.py ``class PeriodicTask(models.Model)``: a row the database
# scheduler (``DatabaseScheduler``) turns into a beat entry, its ``task`` a task name and
# its timing one of ``interval``/``crontab``/``solar``/``clocked`` (a row of another
# model); ``expires``/``expire_seconds`` and ``queue`` are the options beat sends with.
PERIODIC_TASK_MODEL = "django_celery_beat.models.PeriodicTask"
ROW_MAKERS = frozenset({"create", "get_or_create", "update_or_create"})
ROW_TIMINGS = ("interval", "crontab", "solar", "clocked")
ROW_OPTIONS = {"expires": "expires", "expire_seconds": "expires", "queue": "queue"}


class CelerySchedules(ScheduleReader):
    PREFILTER = (
        Trigger("beat schedule", b"beat_schedule"),
        Trigger("Django beat schedule", b"BEAT_SCHEDULE"),
        Trigger("add_periodic_task", b"add_periodic_task"),
        Trigger("crontab", b"crontab", rb"\bcrontab\b"),
        Trigger(
            "django-celery-beat row",
            b"PeriodicTask",
            rb"PeriodicTask\.objects\.(?:create|get_or_create|update_or_create)\(",
        ),
    )

    def __init__(self, walker: Walker) -> None:
        super().__init__(walker)
        self._dicts: dict[str, cst.Dict] = {}
        self._holder: str | None = None
        """The module constant whose entries are being read (a beat dict kept apart)."""

    def function(self, node: cst.FunctionDef, facts: FunctionFacts) -> None:
        for decorator_node, decorator in zip(node.decorators, facts.decorators):
            if isinstance(decorator.call, CallV) and _is_periodic_task(
                decorator.qualname or "", decorator.call
            ):
                self._periodic_task(decorator_node.decorator, facts, decorator.call)

    def _periodic_task(self, expr: cst.BaseExpression, facts: FunctionFacts, call: CallV) -> None:
        walker = self.walker
        run_every = keyword_node(expr, "run_every")
        self.add(
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
                    self._held_entries(target.value, value)
            elif isinstance(target, cst.Attribute) and _is_beat_attribute(target):
                self._beat_dict(value)
            elif isinstance(target, cst.Subscript) and _is_beat_holder(target.value):
                key = target.slice[0].slice if len(target.slice) == 1 else None
                if isinstance(key, cst.Index):
                    self._beat_entry(key.value, value)

    def aug_assign(self, node: cst.AugAssign) -> None:
        """``CELERY_BEAT_SCHEDULE |= {...}`` and ``app.conf.beat_schedule |= OTHER``: more
        entries in the schedule (Python 3.9's dict union in place)."""
        if not isinstance(node.operator, cst.BitOrAssign):
            return
        target = node.target
        if isinstance(target, cst.Name):
            if self.walker.at_settings_level and target.value in BEAT_SETTING_NAMES:
                self._beat_dict(node.value)
            elif self.walker.at_module_level and target.value in self._dicts:
                self._held_entries(target.value, node.value)  # NIGHTLY |= {...}
        elif isinstance(target, cst.Attribute) and _is_beat_attribute(target):
            self._beat_dict(node.value)

    def _activate(self, holder: str) -> bool:
        """The entries held by this module's dict ``holder`` now count (a beat setting
        here names it); whether it held any."""
        schedules = self.walker.facts.schedules
        found = False
        for index, entry in enumerate(schedules):
            if entry.holder == holder:
                schedules[index] = replace(entry, holder=None)
                found = True
        return found

    def _held_entries(self, name: str, value: cst.Dict) -> None:
        """A module-level dict of beat entries under another name (``NIGHTLY = {...}``
        in ``celery_beat.py``, composed into the setting elsewhere): its entries are
        read now and count once a beat setting names the dict (``ScheduleEntry.holder``)."""
        self._holder = self.walker.names.local(name)
        try:
            self._beat_dict(value)
        finally:
            self._holder = None

    def _beat_dict(self, value: cst.BaseExpression) -> None:
        if isinstance(value, cst.Name) and value.value in self._dicts:
            if self._holder is None and self._activate(self.walker.names.local(value.value)):
                return
            value = self._dicts[value.value]
        elif isinstance(value, (cst.Name, cst.Attribute)):
            # A dict of entries defined in another module (``{**NIGHTLY, **HOURLY}``).
            held = self.walker.qualify(value)
            if held is not None and self._holder is None:
                self.walker.facts.beat_refs.append(held)
            return
        if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, cst.BitOr):
            self._beat_dict(value.left)  # NIGHTLY | HOURLY
            self._beat_dict(value.right)
            return
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
        parts = dict_parts(walker, value)
        if parts is None or "task" not in parts or "schedule" not in parts:
            return
        task_node, schedule_node = parts["task"], parts["schedule"]
        task_name, target = self._task_reference(task_node)
        options: tuple[tuple[str, Value], ...] = ()
        if "options" in parts:
            evaluated = walker.evaluate(parts["options"])
            options = string_items(evaluated)
        self.add(
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
            holder=self._holder,
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

    def call(self, node: cst.Call, func: str | None) -> None:
        if not isinstance(node.func, cst.Attribute):
            return
        method = node.func.attr.value
        receiver = node.func.value
        if method == "add_periodic_task":
            self._add_periodic_task(node)
        elif method in ROW_MAKERS and _is_row_manager(self.walker, receiver):
            self._periodic_task_row(node)
        elif method == "update" and _is_beat_holder(receiver):
            for arg in node.args:
                if not arg.star:
                    self._beat_dict(arg.value)
        elif method == "update" and _is_conf(receiver):
            self._conf_update(node)

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
        schedule_node = argument(node, 0, "schedule")
        sig_node = argument(node, 1, "sig")
        if schedule_node is None or sig_node is None:
            return
        task_name, target, sig_options = self._signature(sig_node)
        opts = [
            (arg.keyword.value, walker.evaluate(arg.value))
            for arg in node.args
            if arg.keyword is not None
            and arg.keyword.value not in ("schedule", "sig", "args", "kwargs", "name")
        ]
        name_node = argument(node, -1, "name")
        self.add(
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

    def _periodic_task_row(self, node: cst.Call) -> None:
        """A django-celery-beat row the code makes, when it names its task by a literal
        (in its keywords, or the ``defaults=`` of ``update_or_create``). A one-off row
        (``one_off=True``, a clocked run) is not a schedule that repeats: left out."""
        walker = self.walker
        fields = {arg.keyword.value: arg.value for arg in node.args if arg.keyword is not None}
        defaults = fields.get("defaults")
        if isinstance(defaults, cst.Dict):
            for element in defaults.elements:
                if isinstance(element, cst.DictElement) and isinstance(
                    element.key, cst.SimpleString
                ):
                    fields.setdefault(str(element.key.evaluated_value), element.value)
        task_node = fields.get("task")
        task_name = string(walker.evaluate(task_node)) if task_node is not None else None
        if task_node is None or task_name is None:
            return
        one_off = fields.get("one_off")
        if one_off is not None and truthy(walker.evaluate(one_off)):
            return
        timing_key = next((key for key in ROW_TIMINGS if key in fields), None)
        name_node = fields.get("name")
        self.add(
            framework="celery",
            source="periodic_task_row",
            name=string(walker.evaluate(name_node)) if name_node is not None else None,
            task_name=task_name,
            target=None,
            target_text=walker.text(task_node),
            timing=Timing(
                "other",
                f"{timing_key} set at run time" if timing_key else "a timing set elsewhere",
            ),
            loc=walker.loc(node),
            task_loc=walker.loc(task_node),
            timing_loc=walker.loc(fields[timing_key]) if timing_key else walker.loc(node),
            options=tuple(
                (option, walker.evaluate(fields[key]))
                for key, option in ROW_OPTIONS.items()
                if key in fields
            ),
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
            options.extend(string_items(value.kwarg("options") or DictV(())))
            if named is not None:
                return named, None, tuple(options)
            if receiver is not None:
                return None, walker.qualify(receiver), tuple(options)
        return None, None, ()


def _is_row_manager(walker: Walker, receiver: cst.BaseExpression) -> bool:
    """``PeriodicTask.objects``, django-celery-beat's model's manager."""
    return (
        isinstance(receiver, cst.Attribute)
        and receiver.attr.value == "objects"
        and walker.qualify(receiver.value) == PERIODIC_TASK_MODEL
    )


def _is_periodic_task(qualname: str, call: CallV) -> bool:
    if call.kwarg("run_every") is None:
        return False
    return qualname in PERIODIC_TASK_DECORATORS or (
        qualname.rpartition(".")[2] == "periodic_task" and not qualname.startswith("huey")
    )


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
