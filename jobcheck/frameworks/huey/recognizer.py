"""Huey (2.x) and djhuey: tasks, periodic tasks, locks, enqueues and Huey instances.

Library facts are verified in huey 2.6.0 (``huey/api.py``, ``huey/contrib/djhuey``) and
2.5.0; see ``jobcheck/frameworks/huey/semantics.py`` and docs/frameworks/huey.md.

A Huey task is a function decorated by a method of a Huey instance (``@huey.task()``,
``@huey.periodic_task(crontab(...))``) or by djhuey's module functions (``@db_task()``).
The instance is recognised when this file makes it (from a Huey class, or from a class
of this file built on one), when it is djhuey's (``huey.contrib.djhuey``,
``settings.HUEY``), or when the schedule is Huey's own ``crontab``. An instance made in
another file is found by the project model (``FileFacts.instances``), which adopts the
job the Celery recognizer read from its ``.task`` (``jobcheck/frameworks/huey/jobs.py``).
"""

from __future__ import annotations

import re

from jobcheck.extract import enqueue
from jobcheck.extract.walker import Recognizer, Walker
from jobcheck.facts import FailureHandler, FrameworkConfig, FunctionFacts, Guard, TaskDef
from jobcheck.facts.values import CallV, DictV, Ref, Value, string
from jobcheck.frameworks.celery.failures import writes_durably
from jobcheck.frameworks.celery.recognizer import innermost_call
from jobcheck.frameworks.huey.semantics import (
    DJHUEY_MODULE,
    DJHUEY_MODULES,
    ENQUEUE_CALL_OPTIONS,
    SCHEDULE_PAYLOAD,
    is_huey_class,
    is_huey_crontab,
    registered_name,
)
from jobcheck.syntax import tree as cst
from jobcheck.syntax.names import dotted
from jobcheck.triggers import Trigger

# Methods of a Huey instance that make a task (huey/api.py ``Huey.task``,
# ``periodic_task``, ``context_task``) and djhuey's module functions
# (huey/contrib/djhuey/__init__.py ``task = HUEY.task``, ``db_task``,
# ``db_periodic_task``, ``on_commit_task``).
TASK_DECORATORS = frozenset(
    {"task", "periodic_task", "context_task", "db_task", "db_periodic_task", "on_commit_task"}
)
PERIODIC_DECORATORS = frozenset({"periodic_task", "db_periodic_task"})
# A module or package named like a tasks module: ``tasks``, ``huey_tasks``, ``tasks_v2``.
# Also the other names projects give the module of their jobs (``jobs.py``, ``q.py``,
# ``queue.py``, ``workers.py``...): the project model keeps only the calls of Huey tasks.
_TASKS_MODULE = re.compile(
    r"tasks?|jobs?|\w+_(?:tasks?|jobs?)|(?:tasks|jobs)_\w+|q|queues?|workers?|background"
    r"|periodic|cron"
)
# Methods of job objects (Celery, RQ, Dramatiq, taskiq, Huey's own): calling one is not
# calling a Huey task.
_JOB_METHODS = frozenset(
    {
        "delay",
        "apply_async",
        "apply",
        "s",
        "si",
        "signature",
        "send",
        "send_with_options",
        "kiq",
        "kicker",
        "map",
        "call_local",
        "revoke",
        "restore",
        "is_revoked",
        "retry",
        "enqueue",
    }
)
# djhuey's module-level instance, and Django's setting djhuey reads it from.
DJHUEY_INSTANCES = frozenset({f"{DJHUEY_MODULE}.HUEY", "django.conf.settings.HUEY"})


class HueyRecognizer(Recognizer):
    PREFILTER = (
        Trigger("names huey", b"huey"),
        # djhuey's settings (``HUEY = {...}``) in a settings module that imports nothing.
        Trigger("HUEY setting", b"HUEY", rb"(?<![\w.])HUEY\s*(?::[^=\n]*)?=(?!=)"),
    )

    def __init__(self, walker: Walker) -> None:
        super().__init__(walker)
        self._objects: set[str] = set()
        """Huey instances this file makes (dotted paths)."""
        self._classes: set[str] = set()
        """Classes of this file built on a Huey class."""
        self._tasks: set[str] = set()
        """Huey tasks this file has defined so far (dotted paths)."""

    # -- instances -------------------------------------------------------------------

    def classdef(self, node: cst.ClassDef, qualname: str, bases: tuple[str, ...]) -> None:
        if any(self._is_huey_class(base) for base in bases):
            self._classes.add(qualname)

    def _is_huey_class(self, qualname: str | None) -> bool:
        return qualname is not None and (is_huey_class(qualname) or qualname in self._classes)

    def assign(
        self, targets: list[cst.BaseExpression], value: cst.BaseExpression, node: cst.CSTNode
    ) -> None:
        walker = self.walker
        if not walker.at_settings_level:
            return
        for target in targets:
            if not isinstance(target, cst.Name):
                continue
            if walker.at_module_level:
                call = innermost_call(value)
                if call is not None and self._is_huey_class(walker.qualify(call.func)):
                    self._instance(walker.names.local(target.value), call)
                    continue
            if target.value == "HUEY" and isinstance(value, cst.Dict):
                self._settings(walker.names.local(target.value), value)

    def _instance(self, qualname: str, call: cst.Call) -> None:
        """``huey = RedisHuey("app", immediate=True)``: huey/api.py ``Huey.__init__(name=
        'huey', results=True, store_none=False, utc=True, immediate=False, ...)``."""
        walker = self.walker
        self._objects.add(qualname)
        value = walker.evaluate(call)
        assert isinstance(value, CallV)
        options = list(value.kwargs)
        if value.args:
            options.insert(0, ("name", value.args[0]))
        walker.facts.configs.append(
            FrameworkConfig(
                framework="huey",
                kind="instance",
                qualname=qualname,
                cls=value.func,
                options=tuple(options),
                loc=walker.loc(call),
            )
        )

    def _settings(self, qualname: str, node: cst.Dict) -> None:
        """djhuey's ``HUEY = {...}`` (huey/contrib/djhuey/__init__.py): ``huey_class`` (or
        the older ``backend_class``) names the class, the other keys go to it."""
        walker = self.walker
        value = walker.evaluate(node)
        if not isinstance(value, DictV):
            return
        items = tuple((k, v) for k in value.str_keys() if (v := value.get(k)) is not None)
        cls = string(value.get("huey_class")) or string(value.get("backend_class"))
        walker.facts.configs.append(
            FrameworkConfig(
                framework="huey",
                kind="settings",
                qualname=qualname,
                cls=cls,
                options=items,
                loc=walker.loc(node),
            )
        )

    # -- tasks -------------------------------------------------------------------------

    def function(self, node: cst.FunctionDef, facts: FunctionFacts) -> None:
        claimed = False
        for decorator_node, decorator in zip(node.decorators, facts.decorators):
            qualname = decorator.qualname or ""
            head, _, method = qualname.rpartition(".")
            if method == "lock_task" and self._is_huey(head):
                # huey/api.py ``TaskLock.__call__``: the body runs ``with self:``, and
                # ``__enter__`` raises TaskLockedException when the lock is held. Above
                # the task decorator it wraps the TaskWrapper, i.e. the enqueue, while
                # the consumer runs the function ``create_task`` kept (api.py:976, 1079).
                if not claimed and _task_decorator_below(facts, decorator):
                    continue
                loc = self.walker.loc(decorator_node.decorator)
                facts.guards.append(Guard("lock", self.walker.order, loc))
                continue
            if method == "signal" and (
                (self._is_huey(head) and _hears_errors(decorator.call))
                or _names_huey_error_signal(decorator.call)
            ):
                self.walker.facts.failure_handlers.append(
                    FailureHandler(
                        "signal",
                        facts.qualname,
                        self.walker.loc(decorator_node.decorator),
                        writes_durably(node),
                        framework="huey",
                    )
                )
                continue
            if claimed or method not in TASK_DECORATORS:
                continue
            if self._is_huey(head) or self._huey_schedule(method, decorator.call):
                self._task(node, facts, decorator_node.decorator, qualname, decorator.call)
                claimed = True

    def _is_huey(self, head: str) -> bool:
        """Whether ``head`` (what a decorator is an attribute of) is a Huey instance or
        djhuey's module."""
        if head in self._objects or head in DJHUEY_INSTANCES or head in DJHUEY_MODULES:
            return True
        return head.split(".")[0] == "huey" and not head.startswith("huey.contrib.mini")

    def _huey_schedule(self, method: str, call: Value | None) -> bool:
        """``@obj.periodic_task(crontab(...))`` with Huey's ``crontab``: a Huey instance
        made in another file."""
        if method not in PERIODIC_DECORATORS or not isinstance(call, CallV):
            return False
        schedule = call.arg(0, "validate_datetime")
        return isinstance(schedule, CallV) and is_huey_crontab(schedule.func)

    def _task(
        self,
        node: cst.FunctionDef,
        facts: FunctionFacts,
        expr: cst.BaseExpression,
        qualname: str,
        call: Value | None,
    ) -> None:
        walker = self.walker
        head, _, method = qualname.rpartition(".")
        options: list[tuple[str, Value]] = []
        locs = []
        if isinstance(call, CallV) and isinstance(expr, cst.Call):
            if method in PERIODIC_DECORATORS and call.args:
                # ``periodic_task(validate_datetime, retries=0, ...)``: the schedule first.
                options.append(("validate_datetime", call.args[0]))
            if method == "context_task" and call.args:
                options.append(("context_object", call.args[0]))
            options.extend(call.kwargs)
            locs = [(a.keyword.value, walker.loc(a)) for a in expr.args if a.keyword is not None]
        name = string(dict(options).get("name"))
        self._tasks.add(facts.qualname)
        walker.facts.tasks.append(
            TaskDef(
                framework="huey",
                qualname=facts.qualname,
                name=node.name.value,
                registered_name=registered_name(walker.facts.module, name or node.name.value),
                loc=walker.loc(expr),
                decorator=qualname,
                app_ref=head,
                options=tuple(options),
                option_locs=tuple(locs),
                function=facts.qualname,
            )
        )

    # -- enqueues ------------------------------------------------------------------------

    def call(self, node: cst.Call, func: str | None) -> None:
        walker = self.walker
        if self._signal_registration(node):
            return
        if isinstance(node.func, cst.Attribute) and node.func.attr.value == "schedule":
            target = walker.qualify(node.func.value)
            if target is not None and self._may_be_task(node.func.value, target):
                self._schedule(node, target)
            return
        if func is not None and self._may_be_task(node.func, func):
            self._call(node, func)

    def _signal_registration(self, node: cst.Call) -> bool:
        """``signal(SIGNAL_ERROR, queue=qn)(handler)``: huey/api.py ``Huey.signal(*signals)``
        returns the decorator, applied here by a call (tubesync registers its failure
        history so). Whether the handler stores the failure is unknown from the call."""
        inner = node.func
        if not isinstance(inner, cst.Call):
            return False
        head, _, method = (self.walker.qualify(inner.func) or "").rpartition(".")
        if method != "signal" or not self._is_huey(head):
            return False
        positional = [a for a in node.args if a.keyword is None and not a.star]
        if len(positional) != 1 or not _hears_errors(self.walker.evaluate(inner)):
            return True
        handler = self.walker.qualify(positional[0].value)
        self.walker.facts.failure_handlers.append(
            FailureHandler("signal", handler, self.walker.loc(node), None, framework="huey")
        )
        return True

    def _may_be_task(self, expr: cst.BaseExpression, target: str) -> bool:
        """A Huey task of this file, or a function imported from a tasks module or package
        (djhuey imports every app's ``tasks`` module: huey/contrib/djhuey/management/
        commands/run_huey.py ``autodiscover_modules("tasks")``); the project model keeps
        the sites whose target is a Huey job."""
        if target in self._tasks:
            return True
        written = (dotted(expr) or "").split(".")
        # ``send(...)`` imported from a tasks module, or ``tasks.send(...)``; not a method
        # of something imported (``send.delay(...)``).
        if len(written) > 2 or written[0] not in self.walker.names.aliases:
            return False
        module, _, name = target.rpartition(".")
        if not name[:1].islower() or (len(written) == 2 and name in _JOB_METHODS):
            return False
        return any(_TASKS_MODULE.fullmatch(part) for part in module.split("."))

    def _call(self, node: cst.Call, target: str) -> None:
        """``send(user.pk, delay=60)``: huey/api.py ``TaskWrapper.__call__`` enqueues
        ``self.s(*args, **kwargs)``, and ``TaskWrapper.s`` pops ``eta``, ``delay``,
        ``retries``, ``retry_delay``, ``priority`` and ``expires`` out of the keywords."""
        walker = self.walker
        payload = [
            a for a in node.args if a.keyword is None or a.keyword.value not in ENQUEUE_CALL_OPTIONS
        ]
        options = tuple(
            (a.keyword.value, walker.evaluate(a.value))
            for a in node.args
            if a.keyword is not None and a.keyword.value in ENQUEUE_CALL_OPTIONS
        )
        walker.facts.enqueues.append(
            enqueue.site(
                walker,
                node,
                "call",
                target,
                walker.text(node.func),
                enqueue.arguments(walker, payload),
                options,
                framework="huey" if target in self._tasks else None,
            )
        )

    def _schedule(self, node: cst.Call, target: str) -> None:
        """huey/api.py ``TaskWrapper.schedule(args=None, kwargs=None, eta=None,
        delay=None, priority=None, retries=None, retry_delay=None, expires=None, id=None)``."""
        walker = self.walker
        payload = []
        positional = [a for a in node.args if a.keyword is None and not a.star]
        for arg in positional[:2]:
            payload.extend(enqueue.sequence_arguments(walker, arg.value))
        for arg in node.args:
            if arg.keyword is not None and arg.keyword.value in SCHEDULE_PAYLOAD:
                payload.extend(enqueue.sequence_arguments(walker, arg.value))
        walker.facts.enqueues.append(
            enqueue.site(
                walker,
                node,
                "schedule",
                target,
                walker.text(node.func.value),  # type: ignore[attr-defined]
                tuple(payload),
                enqueue.options(walker, node.args, SCHEDULE_PAYLOAD),
                framework="huey" if target in self._tasks else None,
            )
        )


def _task_decorator_below(facts: FunctionFacts, lock: object) -> bool:
    """Whether a task decorator comes after (below) ``lock`` in the decorator list."""
    after = facts.decorators[facts.decorators.index(lock) + 1 :]  # type: ignore[arg-type]
    return any((d.qualname or "").rpartition(".")[2] in TASK_DECORATORS for d in after)


def _names_huey_error_signal(call: Value | None) -> bool:
    """``@huey.signal(SIGNAL_ERROR)`` with Huey's own constant: a Huey instance whatever
    module it is imported from (``from app.queue import huey``)."""
    return isinstance(call, CallV) and any(
        isinstance(arg, Ref) and arg.qualname in HUEY_ERROR_SIGNALS for arg in call.args
    )


HUEY_ERROR_SIGNALS = frozenset({"huey.signals.SIGNAL_ERROR", "huey.SIGNAL_ERROR"})


def _hears_errors(call: Value | None) -> bool:
    """``@huey.signal()`` (every signal) or ``@huey.signal(SIGNAL_ERROR, ...)``: huey/api.py
    ``Huey.signal(*signals)``; huey/signals.py ``SIGNAL_ERROR = 'error'``."""
    if not isinstance(call, CallV):
        return False
    if not call.args:
        return True
    return any(
        string(arg) == "error" or (isinstance(arg, Ref) and arg.qualname.endswith("SIGNAL_ERROR"))
        for arg in call.args
    )
