"""taskiq schedules: ``schedule=[{"cron": ...}]`` labels of the tasks the taskiq
recognizer claimed (read by ``LabelScheduleSource``), and schedules added at run time
with ``schedule_by_cron``/``schedule_by_interval``."""

from __future__ import annotations

from jobcheck import timing
from jobcheck.extract.schedules import ScheduleReader
from jobcheck.facts import FunctionFacts, TaskDef, Timing
from jobcheck.facts.values import CallV, DictV, SeqV, Value, string
from jobcheck.frameworks.taskiq.semantics import SCHEDULE_OPTIONS
from jobcheck.syntax import tree as cst
from jobcheck.triggers import Trigger


class TaskiqSchedules(ScheduleReader):
    PREFILTER = (
        Trigger("taskiq dynamic schedule", b".schedule_by_"),
        Trigger("taskiq registered task", b".register_task("),
    )

    def function(self, node: cst.FunctionDef, facts: FunctionFacts) -> None:
        task = self._labelled_task(facts.qualname)
        if task is not None:
            self._label_entries(task, facts.qualname, facts.name)

    def _label_entries(self, task: TaskDef, target: str, name: str) -> None:
        schedule = task.option("schedule")
        assert isinstance(schedule, SeqV)
        for item in schedule.items:
            if not isinstance(item, DictV):
                continue
            when = label_timing(item)
            if when is None:
                continue  # a "time" entry runs once
            self.add(
                framework="taskiq",
                source="schedule-label",
                name=string(item.get("schedule_id")),
                task_name=None,
                target=target,
                target_text=name,
                timing=when,
                loc=task.option_loc("schedule"),
                task_loc=task.loc,
                timing_loc=task.option_loc("schedule"),
                options=tuple(
                    (key, value) for key in SCHEDULE_OPTIONS if (value := item.get(key)) is not None
                ),
            )

    def _labelled_task(self, qualname: str) -> TaskDef | None:
        for task in reversed(self.walker.facts.tasks):
            if task.function == qualname:
                ok = task.framework == "taskiq" and isinstance(task.option("schedule"), SeqV)
                return task if ok else None
        return None

    def call(self, node: cst.Call, func: str | None) -> None:
        """``await task.schedule_by_cron(source, "*/5 * * * *", ...)`` and
        ``schedule_by_interval(source, 60, ...)`` (taskiq/kicker.py:180-252)."""
        if not isinstance(node.func, cst.Attribute):
            return
        method = node.func.attr.value
        if method == "register_task":
            # ``broker.register_task(func, schedule=[...])``: the task the recognizer just
            # claimed for this call carries the labels.
            tasks = self.walker.facts.tasks
            task = tasks[-1] if tasks else None
            if task is not None and task.loc == self.walker.loc(node) and task.function:
                if task.framework == "taskiq" and isinstance(task.option("schedule"), SeqV):
                    self._label_entries(task, task.function, task.name)
            return
        if method not in ("schedule_by_cron", "schedule_by_interval"):
            return
        walker = self.walker
        positional = [a for a in node.args if a.keyword is None and not a.star]
        if len(positional) < 2:
            return
        value = walker.evaluate(positional[1].value)
        text = walker.text(positional[1].value)
        if method == "schedule_by_cron":
            when = _cron(value, text)
        else:
            when = timing.interval(timing.timedelta_seconds(value), text)
        self.add_for_function(
            framework="taskiq",
            source=method,
            name=None,
            node=node,
            func_node=node.func.value,
            timing=when,
            timing_loc=walker.loc(positional[1].value),
        )


def label_timing(item: DictV) -> Timing | None:
    """One entry of a ``schedule`` label (taskiq/schedule_sources/label_based.py): a cron
    string evaluated by pycron, in UTC unless ``cron_offset`` says otherwise; an interval
    in seconds or a timedelta; None for a ``time`` entry, which runs once."""
    cron = item.get("cron")
    if cron is not None:
        return _cron(cron, string(cron) or "cron")
    interval = item.get("interval")
    if interval is not None:
        return timing.interval(timing.timedelta_seconds(interval), f"interval {_text(interval)}")
    return None


def _cron(value: Value, text: str) -> Timing:
    """pycron/__init__.py ``is_now`` splits on single spaces into exactly five fields: no
    ``@hourly``, no doubled spaces (taskiq logs "Cannot parse cron" and never sends it).
    A ``CronSpec`` (taskiq/scheduler/scheduled_task/cron_spec.py ``to_cron``) gives the
    five fields."""
    if isinstance(value, CallV) and (value.func or "").endswith("CronSpec"):
        names = ("minutes", "hours", "days", "months", "weekdays")
        fields = tuple(_spec_field(value.kwarg(name)) for name in names)
        return Timing(kind="cron", text=text, fields=fields)
    expression = string(value)
    if expression is None or len(expression.split(" ")) != 5:
        return timing.other(text)
    return timing.cron_expression(expression, text)


def _spec_field(value: Value | None) -> str | None:
    if value is None:
        return "*"
    text = string(value)
    if text is not None:
        return text
    number = getattr(value, "value", None)
    return str(number) if isinstance(number, int) and not isinstance(number, bool) else None


def _text(value: Value) -> str:
    number = timing.timedelta_seconds(value)
    return f"{number:g} s" if number is not None else "?"
