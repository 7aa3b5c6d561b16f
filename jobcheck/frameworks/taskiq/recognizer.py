"""taskiq: brokers of every taskiq package, ``@broker.task`` tasks and their labels,
``.kiq(...)`` enqueues, retry middlewares, ``TaskiqScheduler`` and injected parameters.

Library facts are verified in taskiq 0.13.0 and its broker packages
(``jobcheck/frameworks/taskiq/semantics.py``). A task is a function decorated by
``.task`` of a broker this file makes (from a taskiq broker class, or a class of this file
built on one), of taskiq's own shared broker, or one whose ``schedule=`` label has
taskiq's shape. A broker made in another file is found by the project model
(``FileFacts.instances``), which adopts the job the Celery recognizer read from its
``.task`` (``jobcheck/frameworks/taskiq/jobs.py``).
"""

from __future__ import annotations

import dataclasses

from jobcheck.extract import enqueue
from jobcheck.extract.walker import Recognizer, Walker
from jobcheck.facts import FrameworkConfig, FunctionFacts, MiddlewareDecl, TaskDef
from jobcheck.facts.values import CallV, DictV, Ref, SeqV, Value, string
from jobcheck.frameworks.celery.recognizer import innermost_call
from jobcheck.frameworks.taskiq.semantics import (
    DEPENDS,
    KICKER_METHODS,
    SCHEDULE_KINDS,
    is_broker_class,
    is_middleware_class,
    is_taskiq,
    registered_name,
)
from jobcheck.syntax import tree as cst
from jobcheck.syntax.names import dotted
from jobcheck.triggers import Trigger

SCHEDULERS = frozenset(
    {
        "taskiq.TaskiqScheduler",
        "taskiq.scheduler.TaskiqScheduler",
        "taskiq.scheduler.scheduler.TaskiqScheduler",
    }
)


class TaskiqRecognizer(Recognizer):
    PREFILTER = (
        Trigger("names taskiq", b"taskiq"),
        Trigger("taskiq enqueue", b".kiq(", rb"\.kiq\s*\("),
    )

    def __init__(self, walker: Walker) -> None:
        super().__init__(walker)
        self._brokers: set[str] = set()
        """Brokers this file makes (dotted paths)."""
        self._classes: set[str] = set()
        """Classes of this file built on a taskiq broker class."""

    # -- brokers, schedulers, middlewares ------------------------------------------------

    def classdef(self, node: cst.ClassDef, qualname: str, bases: tuple[str, ...]) -> None:
        if any(self._is_broker_class(base) for base in bases):
            self._classes.add(qualname)

    def _is_broker_class(self, qualname: str | None) -> bool:
        return is_broker_class(qualname) or qualname in self._classes

    def assign(
        self, targets: list[cst.BaseExpression], value: cst.BaseExpression, node: cst.CSTNode
    ) -> None:
        walker = self.walker
        if not walker.at_module_level:
            return
        call = innermost_call(value)
        if call is None:
            return
        cls = walker.qualify(call.func)
        for target in targets:
            if not isinstance(target, cst.Name):
                continue
            qualname = walker.names.local(target.value)
            if self._is_broker_class(cls):
                self._broker(qualname, cls, call, value)  # type: ignore[arg-type]
            elif cls in SCHEDULERS and call is value:
                self._scheduler(qualname, call)

    def _broker(self, qualname: str, cls: str, call: cst.Call, chain: cst.BaseExpression) -> None:
        """``broker = ListQueueBroker(url).with_result_backend(...).with_middlewares(...)``:
        each ``with_*`` returns the broker (taskiq/abc/broker.py :425-514)."""
        walker = self.walker
        self._brokers.add(qualname)
        value = walker.evaluate(call)
        assert isinstance(value, CallV)
        options = list(value.kwargs)
        if value.args:
            options.insert(0, ("url", value.args[0]))
        parts: list[str] = []
        for method, args in _chain(chain, call):
            if method == "with_middlewares":
                parts.extend(_made_by(walker, arg) for arg in args)
            elif method.startswith("with_") and args:
                options.append((method.removeprefix("with_"), walker.evaluate(args[0])))
        walker.facts.configs.append(
            FrameworkConfig(
                framework="taskiq",
                kind="broker",
                qualname=qualname,
                cls=cls,
                options=tuple(options),
                loc=walker.loc(call),
                parts=tuple(parts),
            )
        )

    def _scheduler(self, qualname: str, call: cst.Call) -> None:
        """taskiq/scheduler/scheduler.py ``TaskiqScheduler(broker, sources)``."""
        walker = self.walker
        value = walker.evaluate(call)
        assert isinstance(value, CallV)
        sources = value.arg(1, "sources")
        parts = (
            tuple(_source_name(item) for item in sources.items) if isinstance(sources, SeqV) else ()
        )
        broker_node = _argument(call, 0, "broker")
        broker = walker.qualify(broker_node) if broker_node is not None else None
        walker.facts.configs.append(
            FrameworkConfig(
                framework="taskiq",
                kind="scheduler",
                qualname=qualname,
                cls=value.func,
                options=(("broker", Ref(broker)),) if broker is not None else (),
                loc=walker.loc(call),
                parts=parts,
            )
        )

    # -- tasks ----------------------------------------------------------------------------

    def function(self, node: cst.FunctionDef, facts: FunctionFacts) -> None:
        self._mark_injected(node, facts)
        for decorator_node, decorator in zip(node.decorators, facts.decorators):
            qualname = decorator.qualname or ""
            head, _, method = qualname.rpartition(".")
            if method != "task" or not head:
                continue
            if self._is_broker(head) or _taskiq_signature(decorator.call):
                self._task(facts, decorator_node.decorator, qualname, decorator.call)
                return

    def _is_broker(self, head: str) -> bool:
        """A broker of this file, or one of taskiq's own (``taskiq.async_shared_broker``)."""
        return head in self._brokers or is_taskiq(head)

    def _task(
        self,
        facts: FunctionFacts,
        expr: cst.BaseExpression,
        qualname: str,
        call: Value | None,
    ) -> None:
        """``AsyncBroker.task(task_name=None, **labels)`` (taskiq/abc/broker.py:277-360)."""
        walker = self.walker
        labels: tuple[tuple[str, Value], ...] = ()
        task_name = None
        locs: list = []
        if isinstance(call, CallV) and isinstance(expr, cst.Call):
            task_name = string(call.arg(0, "task_name"))
            labels = tuple((k, v) for k, v in call.kwargs if k != "task_name")
            locs = [(a.keyword.value, walker.loc(a)) for a in expr.args if a.keyword is not None]
        self._add_task(facts.qualname, facts.name, expr, qualname, task_name, labels, locs)

    def _add_task(
        self,
        qualname: str,
        name: str,
        expr: cst.CSTNode,
        decorator: str,
        task_name: str | None,
        labels: tuple[tuple[str, Value], ...],
        locs: list,
    ) -> None:
        walker = self.walker
        module = qualname.rpartition(".")[0]
        walker.facts.tasks.append(
            TaskDef(
                framework="taskiq",
                qualname=qualname,
                name=name,
                registered_name=task_name or registered_name(module, name),
                loc=walker.loc(expr),
                decorator=decorator,
                app_ref=decorator.rpartition(".")[0],
                options=labels,
                option_locs=tuple(locs),
                function=qualname,
            )
        )

    def _mark_injected(self, node: cst.FunctionDef, facts: FunctionFacts) -> None:
        """Parameters the receiver fills from the dependency graph: a ``TaskiqDepends()``
        default or an ``Annotated[T, TaskiqDepends(...)]`` annotation."""
        params = node.params
        every = [*params.posonly_params, *params.params, *params.kwonly_params]
        marked = [self._injected(param) for param in every]
        if any(marked):
            facts.params = tuple(
                dataclasses.replace(p, injected=True) if injected else p
                for p, injected in zip(facts.params, marked)
            )

    def _injected(self, param: cst.Param) -> bool:
        if isinstance(param.default, cst.Call) and self._depends(param.default):
            return True
        annotation = param.annotation.annotation if param.annotation is not None else None
        if isinstance(annotation, cst.Subscript):
            base = (dotted(annotation.value) or "").rpartition(".")[2]
            if base == "Annotated":
                for element in annotation.slice[1:]:
                    index = element.slice
                    if isinstance(index, cst.Index) and isinstance(index.value, cst.Call):
                        if self._depends(index.value):
                            return True
        return False

    def _depends(self, call: cst.Call) -> bool:
        return self.walker.qualify(call.func) in DEPENDS

    # -- calls -----------------------------------------------------------------------------

    def call(self, node: cst.Call, func: str | None) -> None:
        if is_middleware_class(func):
            self._middleware(node, func)  # type: ignore[arg-type]
            return
        if not isinstance(node.func, cst.Attribute):
            return
        method = node.func.attr.value
        if method == "kiq":
            self._kiq(node)
        elif method == "register_task":
            self._register_task(node)

    def _middleware(self, node: cst.Call, func: str) -> None:
        walker = self.walker
        value = walker.evaluate(node)
        assert isinstance(value, CallV)
        walker.facts.middleware.append(
            MiddlewareDecl("taskiq", func.rpartition(".")[2], value.kwargs, walker.loc(node))
        )

    def _kiq(self, node: cst.Call) -> None:
        """``task.kiq(...)`` and ``task.kicker().with_labels(...).kiq(...)``
        (taskiq/decor.py ``kiq``, taskiq/kicker.py)."""
        walker = self.walker
        receiver = node.func.value  # type: ignore[attr-defined]
        options: list[tuple[str, Value]] = []
        while isinstance(receiver, cst.Call) and isinstance(receiver.func, cst.Attribute):
            method = receiver.func.attr.value
            if method not in KICKER_METHODS:
                return
            for arg in receiver.args:
                if method == "with_labels" and arg.keyword is not None:
                    options.append((arg.keyword.value, walker.evaluate(arg.value)))
                elif method != "with_labels" and arg.keyword is None:
                    options.append((method.removeprefix("with_"), walker.evaluate(arg.value)))
            receiver = receiver.func.value
        target = walker.qualify(receiver)
        if target is None:
            return
        walker.facts.enqueues.append(
            enqueue.site(
                walker,
                node,
                "kiq",
                target,
                walker.text(receiver),
                enqueue.arguments(walker, node.args),
                tuple(options),
                framework="taskiq",
            )
        )

    def _register_task(self, node: cst.Call) -> None:
        """``broker.register_task(func, task_name=None, **labels)`` (abc/broker.py:363-383)."""
        walker = self.walker
        broker = walker.qualify(node.func.value)  # type: ignore[attr-defined]
        if broker is None or not node.args:
            return
        value = walker.evaluate(node)
        assert isinstance(value, CallV)
        if not self._is_broker(broker) and not (
            _taskiq_signature(value) or "broker" in broker.rpartition(".")[2].lower()
        ):
            return  # another library's register_task
        first = node.args[0]
        target = walker.qualify(first.value) if first.keyword is None else None
        if target is None:
            return
        task_name = string(value.arg(1, "task_name"))
        labels = tuple((k, v) for k, v in value.kwargs if k != "task_name")
        self._add_task(
            target,
            target.rpartition(".")[2],
            node,
            f"{broker}.register_task",
            task_name,
            labels,
            [],
        )


def _taskiq_signature(call: Value | None) -> bool:
    """``.task(task_name=...)`` or a ``schedule=[{"cron": ...}]`` label (taskiq's
    LabelScheduleSource shape): what no other library's ``.task`` takes, for a broker
    made in another file or by a factory function."""
    if not isinstance(call, CallV):
        return False
    if call.kwarg("task_name") is not None:
        return True
    schedule = call.kwarg("schedule")
    return (
        isinstance(schedule, SeqV)
        and bool(schedule.items)
        and all(
            isinstance(item, DictV) and any(k in SCHEDULE_KINDS for k in item.str_keys())
            for item in schedule.items
        )
    )


def _chain(expr: cst.BaseExpression, stop: cst.Call) -> list[tuple[str, list[cst.BaseExpression]]]:
    """The method calls of a chain after its first call, in call order."""
    found = []
    while isinstance(expr, cst.Call) and expr is not stop and isinstance(expr.func, cst.Attribute):
        found.append((expr.func.attr.value, [a.value for a in expr.args if a.keyword is None]))
        expr = expr.func.value
    return list(reversed(found))


def _argument(call: cst.Call, index: int, name: str) -> cst.BaseExpression | None:
    positional = [a for a in call.args if a.keyword is None and not a.star]
    if index < len(positional):
        return positional[index].value
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg.value
    return None


def _made_by(walker: Walker, expr: cst.BaseExpression) -> str:
    if isinstance(expr, cst.Call):
        return walker.qualify(expr.func) or walker.text(expr.func)
    return walker.qualify(expr) or walker.text(expr)


def _source_name(value: Value) -> str:
    if isinstance(value, CallV):
        return value.func or "?"
    return getattr(value, "qualname", None) or getattr(value, "text", "?")
