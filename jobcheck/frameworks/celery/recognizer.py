"""Celery: task definitions, Task classes, apps, configuration, enqueue calls and retries."""

from __future__ import annotations

from jobcheck.extract import enqueue
from jobcheck.extract.walker import Recognizer, Walker
from jobcheck.facts import (
    SPLAT,
    CeleryApp,
    ConfigSource,
    FunctionFacts,
    QueueDecl,
    RetryCall,
    Setting,
    TaskClass,
    TaskDef,
)
from jobcheck.facts.values import CallV, Const, DictV, Opaque, Ref, Value, string
from jobcheck.frameworks.celery.foreign import constructor, is_foreign
from jobcheck.frameworks.celery.settings import normalize
from jobcheck.syntax import tree as cst
from jobcheck.syntax.names import dotted
from jobcheck.triggers import Trigger
from jobcheck.vocabulary.libraries import is_library

SHARED_TASK_DECORATORS = frozenset(
    {
        "celery.shared_task",
        "celery.app.shared_task",
        "celery.task",
        "celery.task.task",
        "celery.decorators.task",
        "celery.task.periodic_task",
        "celery.decorators.periodic_task",
        "celery.task.base.periodic_task",
    }
)
CELERY_APP_CLASSES = frozenset({"celery.Celery", "celery.app.Celery", "celery.app.base.Celery"})
CELERY_TASK_BASES = frozenset(
    {"celery.Task", "celery.app.task.Task", "celery.task.Task", "celery.task.base.Task"}
)
# Task attributes that make a class a Celery Task class worth recording.
TASK_ATTRIBUTES = frozenset(
    {
        "name",
        "time_limit",
        "soft_time_limit",
        "max_retries",
        "default_retry_delay",
        "autoretry_for",
        "retry_kwargs",
        "retry_backoff",
        "retry_backoff_max",
        "retry_jitter",
        "acks_late",
        "reject_on_worker_lost",
        "queue",
        "expires",
        "rate_limit",
        "ignore_result",
        "throws",
        "typing",
        "serializer",
        "priority",
        "track_started",
    }
)
ENQUEUE_METHODS = frozenset({"delay", "apply_async", "delay_on_commit", "apply_async_on_commit"})
SIGNATURE_METHODS = frozenset({"s", "si", "signature"})
CANVAS_FUNCS = frozenset(
    {
        "celery.chain",
        "celery.group",
        "celery.chord",
        "celery.signature",
        "celery.canvas.chain",
        "celery.canvas.group",
        "celery.canvas.chord",
        "celery.canvas.signature",
        "celery.chunks",
    }
)
# apply_async's own keywords, which are options and not payload.
APPLY_ASYNC_PAYLOAD = frozenset({"args", "kwargs"})


def is_celery_task_decorator(qualname: str | None) -> bool:
    if qualname is None:
        return False
    if qualname in SHARED_TASK_DECORATORS:
        return True
    head, _, last = qualname.rpartition(".")
    return (
        last in ("task", "periodic_task")
        and bool(head)
        and not is_foreign(head)
        and not head.startswith("celery.")
    )


def innermost_call(expr: cst.BaseExpression) -> cst.Call | None:
    """The call that makes an object configured by a chain of method calls:
    ``ListQueueBroker(url)`` of ``ListQueueBroker(url).with_result_backend(b)``."""
    if not isinstance(expr, cst.Call):
        return None
    while (
        isinstance(expr, cst.Call)
        and isinstance(expr.func, cst.Attribute)
        and isinstance(expr.func.value, cst.Call)
    ):
        expr = expr.func.value
    return expr


class CeleryRecognizer(Recognizer):
    PREFILTER = (
        # What the recognizer acts on, not every file that imports from celery (tests
        # import its exceptions): task decorators, apps, Task classes, canvas and
        # enqueue calls, settings.
        Trigger("shared_task", b"shared_task"),
        Trigger("Celery app", b"Celery", rb"(?<!\w)Celery\s*[(),]"),
        # ``celery = IndicoCelery("indico")``: an instance of a project subclass.
        Trigger("Celery app subclass", b"Celery", rb"(?m)^\w+\s*=\s*[\w.]*Celery\w*\s*\("),
        Trigger("task decorator", b".task", rb"\.\s*task\b"),
        Trigger("bare task decorator", b"@task", rb"@task\b"),
        Trigger("periodic task decorator", b"periodic_task"),
        Trigger("Task base class", b"Task", rb"Task\s*[,)]"),
        # A class-based task whose Task base is defined in another file.
        Trigger("run method", b"def run(", rb"def run\(\s*self\b"),
        Trigger("delay", b".delay", rb"\.delay(?:_on_commit)?\s*\("),
        Trigger("apply_async", b"apply_async", rb"\.apply_async(?:_on_commit)?\s*\("),
        Trigger("signature", b".s", rb"\.(?:si?|signature)\s*\("),
        Trigger("send_task", b"send_task"),
        # ``CELERY_X = ...``, also in an ``if`` block; ``settings.CELERY_X`` reads are not.
        Trigger("Django-style setting", b"CELERY", rb"(?<![\w.])CELERY\w*\s*(?::[^=\n]*)?=(?!=)"),
        Trigger("old-style setting", b"BROKER_", rb"(?<![\w.])BROKER_\w*\s*(?::[^=\n]*)?=(?!=)"),
        Trigger("app.conf", b".conf", rb"\.conf\s*(?:\.\s*\w+\s*=[^=]|\.\s*update\s*\(|\[)"),
        Trigger("config_from_object", b"config_from_object"),
        Trigger("kombu", b"kombu"),
        # Lower-case settings count in modules named like ``celeryconfig`` (and in the
        # modules ``config_from_object`` names: the engine's second pass adds those).
        Trigger("Celery config module", module=r"celery[^.]*$"),
    )

    def __init__(self, walker: Walker) -> None:
        super().__init__(walker)
        self._foreign: set[str] = set()
        """Objects this file makes with another job library's classes."""
        self._bases: dict[str, tuple[str, ...]] = {}
        """Classes this file defines, with their bases."""

    def function(self, node: cst.FunctionDef, facts: FunctionFacts) -> None:
        if self._claimed(facts.qualname):
            return  # another framework's recognizer (Huey, taskiq) made it its job
        for decorator_node, decorator in zip(node.decorators, facts.decorators):
            if not is_celery_task_decorator(decorator.qualname):
                continue
            if (decorator.qualname or "").rpartition(".")[0] in self._foreign:
                continue  # ``@huey.task()`` for ``huey = RedisHuey()`` in this file
            self._task(node, facts, decorator_node.decorator, decorator.qualname or "")
            return

    def _claimed(self, qualname: str) -> bool:
        """Whether a recognizer that runs before this one (Huey, taskiq) made the function
        its job, as it was handed the same definition: its task is the last recorded (a
        scan of every task for each function was quadratic in a module of thousands)."""
        tasks = self.walker.facts.tasks
        return bool(tasks) and tasks[-1].function == qualname

    def _task(
        self,
        node: cst.FunctionDef,
        facts: FunctionFacts,
        expr: cst.BaseExpression,
        qualname: str,
    ) -> None:
        walker = self.walker
        options: list[tuple[str, Value]] = []
        locs = []
        if isinstance(expr, cst.Call):
            for arg in expr.args:
                if arg.keyword is not None:
                    options.append((arg.keyword.value, walker.evaluate(arg.value)))
                    locs.append((arg.keyword.value, walker.loc(arg)))
                elif arg.star == "**":  # @shared_task(**RETRY_OPTIONS): any option may be set
                    options.append((SPLAT, walker.evaluate(arg.value)))
                    locs.append((SPLAT, walker.loc(arg)))
        option_map = dict(options)
        explicit_name = string(option_map.get("name"))
        app_ref = None if qualname in SHARED_TASK_DECORATORS else qualname.rpartition(".")[0]
        base = option_map.get("base")
        walker.facts.tasks.append(
            TaskDef(
                framework="celery",
                qualname=facts.qualname,
                name=node.name.value,
                registered_name=explicit_name or walker.names.local(node.name.value),
                loc=walker.loc(expr),
                decorator=qualname,
                app_ref=app_ref,
                options=tuple(options),
                option_locs=tuple(locs),
                base=getattr(base, "qualname", None),
                bound=bool(getattr(option_map.get("bind"), "value", False)),
                function=facts.qualname,
            )
        )

    def classdef(self, node: cst.ClassDef, qualname: str, bases: tuple[str, ...]) -> None:
        self._bases[qualname] = bases
        attrs: list[tuple[str, Value]] = []
        locs = []
        has_run = False
        for statement in node.body.body:
            if isinstance(statement, cst.FunctionDef) and statement.name.value == "run":
                has_run = True
            if not isinstance(statement, cst.SimpleStatementLine):
                continue
            for small in statement.body:
                if isinstance(small, cst.Assign) and len(small.targets) == 1:
                    target = small.targets[0].target
                    if isinstance(target, cst.Name) and target.value in TASK_ATTRIBUTES:
                        attrs.append((target.value, self.walker.evaluate(small.value)))
                        locs.append((target.value, self.walker.loc(small)))
        looks_like_task = any(
            b in CELERY_TASK_BASES or b.split(".")[-1].endswith("Task") for b in bases
        )
        if looks_like_task or (attrs and bases):
            self.walker.facts.task_classes.append(
                TaskClass(
                    qualname=qualname,
                    bases=bases,
                    attrs=tuple(attrs),
                    attr_locs=tuple(locs),
                    loc=self.walker.loc(node.name),
                    has_run=has_run,
                )
            )

    def call(self, node: cst.Call, func: str | None) -> None:
        if isinstance(node.func, cst.Attribute):
            method = node.func.attr.value
            if method in ENQUEUE_METHODS or method in SIGNATURE_METHODS:
                self._enqueue(node, method)
            elif method == "send_task":
                self._send_task(node)
            elif method == "retry":
                self._retry(node)
            elif method == "update" and _is_conf(node.func.value):
                self._conf_update(node)
            elif method == "config_from_object":
                self._config_from_object(node)
        if func in ("kombu.Queue", "kombu.entity.Queue"):
            self._kombu_queue(node)

    def _enqueue(self, node: cst.Call, method: str) -> None:
        walker = self.walker
        receiver = node.func.value  # type: ignore[attr-defined]
        target = walker.qualify(receiver)
        if target is None:
            if not self._is_canvas(receiver):
                return
        if method in ("s", "si"):
            args = enqueue.arguments(walker, node.args)
            opts: tuple = ()
        elif method.startswith("apply_async") or method == "signature":
            args = self._apply_async_payload(node)
            opts = enqueue.options(walker, node.args, APPLY_ASYNC_PAYLOAD)
        else:
            args = enqueue.arguments(walker, node.args)
            opts = ()
        walker.facts.enqueues.append(
            enqueue.site(
                walker,
                node,
                method,
                target,
                walker.text(receiver),
                args,
                opts,
                framework="celery" if target is None else None,
                is_signature=method in SIGNATURE_METHODS,
            )
        )

    def _is_canvas(self, receiver: cst.BaseExpression) -> bool:
        if not isinstance(receiver, cst.Call):
            return False
        func = self.walker.qualify(receiver.func)
        if func in CANVAS_FUNCS:
            return True
        return isinstance(receiver.func, cst.Attribute) and receiver.func.attr.value in (
            SIGNATURE_METHODS
        )

    def _apply_async_payload(self, node: cst.Call) -> tuple:
        walker = self.walker
        result = []
        positional = [a for a in node.args if a.keyword is None and not a.star]
        # apply_async(args, kwargs, ...): the first two positionals are the payload.
        for arg in positional[:2]:
            result.extend(enqueue.sequence_arguments(walker, arg.value))
        for arg in node.args:
            if arg.keyword is not None and arg.keyword.value in APPLY_ASYNC_PAYLOAD:
                result.extend(enqueue.sequence_arguments(walker, arg.value))
        return tuple(result)

    def _send_task(self, node: cst.Call) -> None:
        walker = self.walker
        receiver = walker.qualify(node.func.value)  # type: ignore[attr-defined]
        if not node.args or node.args[0].keyword is not None:
            return
        name = walker.evaluate(node.args[0].value)
        payload = []
        for arg in node.args[1:]:
            if arg.keyword is None or arg.keyword.value in APPLY_ASYNC_PAYLOAD:
                payload.extend(enqueue.sequence_arguments(walker, arg.value))
        walker.facts.enqueues.append(
            enqueue.site(
                walker,
                node,
                "send_task",
                name.qualname if isinstance(name, Ref) else None,  # a constant's name
                string(name) or walker.text(node.args[0].value),
                tuple(payload),
                enqueue.options(walker, node.args[1:], APPLY_ASYNC_PAYLOAD),
                receiver=receiver,
                framework="celery",
            )
        )

    def _retry(self, node: cst.Call) -> None:
        walker = self.walker
        scope = walker.function
        if scope is None:
            return
        receiver = dotted(node.func.value)  # type: ignore[attr-defined]
        if receiver is None:
            return
        if receiver not in ("self", scope.facts.name, _bound_task_parameter(scope.facts)):
            return
        countdown = max_retries = None
        for arg in node.args:
            if arg.keyword is None:
                continue
            if arg.keyword.value == "countdown":
                countdown = walker.evaluate(arg.value)
            elif arg.keyword.value == "max_retries":
                max_retries = walker.evaluate(arg.value)
        scope.facts.retry_calls.append(
            RetryCall(
                loc=walker.loc(node),
                countdown=countdown,
                max_retries=max_retries,
                in_handler_of=walker.handlers[-1] if walker.handlers else (),
            )
        )

    def _conf_update(self, node: cst.Call) -> None:
        walker = self.walker
        app = _conf_owner(walker, node.func.value)  # type: ignore[attr-defined]
        for arg in node.args:
            if arg.keyword is not None:
                self._setting(arg.keyword.value, arg.value, arg, "conf", app)
            elif isinstance(arg.value, cst.Dict):
                for element in arg.value.elements:
                    if isinstance(element, cst.DictElement) and isinstance(
                        element.key, cst.SimpleString
                    ):
                        key = element.key.evaluated_value
                        if isinstance(key, str):
                            self._setting(key, element.value, element, "conf", app)

    def _config_from_object(self, node: cst.Call) -> None:
        walker = self.walker
        if not node.args:
            return
        namespace = None
        for arg in node.args:
            if arg.keyword is not None and arg.keyword.value == "namespace":
                namespace = string(walker.evaluate(arg.value))
        walker.facts.config_sources.append(
            ConfigSource(
                app=walker.qualify(node.func.value),  # type: ignore[attr-defined]
                target=walker.evaluate(node.args[0].value),
                namespace=namespace,
                loc=walker.loc(node),
            )
        )

    def assign(
        self, targets: list[cst.BaseExpression], value: cst.BaseExpression, node: cst.CSTNode
    ) -> None:
        walker = self.walker
        for target in targets:
            if isinstance(target, cst.Name) and walker.at_module_level:
                call = innermost_call(value)
                func = walker.qualify(call.func) if call is not None else None
                local = walker.names.local(target.value)
                if call is not None and constructor(func):
                    walker.facts.instances[local] = func  # type: ignore[assignment]
                if func in CELERY_APP_CLASSES and call is value:
                    self._app(target.value, value)  # type: ignore[arg-type]
                elif call is value and _maybe_app_subclass(func):
                    self._app(target.value, value, made_by=func)  # type: ignore[arg-type]
                elif self._made_by_other_library(func):
                    self._foreign.add(local)
                    walker.facts.foreign_objects.append(local)
                else:
                    self._setting(target.value, value, node, "module", None)
            elif isinstance(target, cst.Name) and walker.at_settings_level:
                if target.value.isupper():
                    self._setting(target.value, value, node, "module", None)
            elif isinstance(target, cst.Attribute) and _is_conf(target.value):
                app = _conf_owner(walker, target.value)
                self._setting(target.attr.value, value, node, "conf", app)
            elif isinstance(target, cst.Subscript) and _is_conf(target.value):
                key = target.slice[0].slice if target.slice else None
                if isinstance(key, cst.Index) and isinstance(key.value, cst.SimpleString):
                    name = key.value.evaluated_value
                    if isinstance(name, str):
                        app = _conf_owner(walker, target.value)
                        self._setting(name, value, node, "conf", app)

    def _made_by_other_library(self, func: str | None, depth: int = 0) -> bool:
        """A class or factory of another job library, or a class of this file built on
        one (``class MyHuey(RedisHuey)``); classes of other files are the project
        model's to follow."""
        if func is None or depth > 20:
            return False
        if is_foreign(func):
            return True
        bases = self._bases.get(func, ())
        return any(self._made_by_other_library(base, depth + 1) for base in bases)

    def _setting(
        self,
        raw_key: str,
        value: cst.BaseExpression,
        node: cst.CSTNode,
        origin: str,
        app: str | None,
    ) -> None:
        if origin == "module" and not _looks_like_setting_name(raw_key):
            return
        key = normalize(raw_key)
        if key is None:
            return
        walker = self.walker
        walker.facts.settings.append(
            Setting(
                key=key,
                raw_key=raw_key,
                value=walker.evaluate(value),
                loc=walker.loc(node),
                origin=origin,
                app=app,
                development=walker.development_branch(),
            )
        )

    def _app(self, name: str, call: cst.Call, made_by: str | None = None) -> None:
        walker = self.walker
        value = walker.evaluate(call)
        assert isinstance(value, CallV)
        walker.facts.apps.append(
            CeleryApp(
                qualname=walker.names.local(name),
                loc=walker.loc(call),
                main=string(value.arg(0, "main")),
                kwargs=value.kwargs,
                made_by=made_by,
            )
        )

    def _kombu_queue(self, node: cst.Call) -> None:
        walker = self.walker
        value = walker.evaluate(node)
        assert isinstance(value, CallV)
        # ``Queue("q", **options)``: keep a "**" entry, as a bound may hide in it.
        spread = tuple(
            ("**", a) for a in value.args if isinstance(a, Opaque) and a.text.startswith("**")
        )
        raw = value.arg(0, "name")
        name = string(raw)
        walker.facts.queues.append(
            QueueDecl(
                framework="celery",
                name=name,
                loc=walker.loc(node),
                options=value.kwargs + spread,
                named_by=raw if name is None and isinstance(raw, (Ref, CallV)) else None,
            )
        )


def _bound_task_parameter(function: FunctionFacts) -> str | None:
    """The first parameter of a ``bind=True`` task, whatever its name (``def send(task,
    email)``): the task instance, whose ``.retry`` is Celery's."""
    bound = any(
        isinstance(d.call, CallV) and d.call.kwarg("bind") == Const(True)
        for d in function.decorators
    )
    return function.params[0].name if bound and function.params else None


def _maybe_app_subclass(func: str | None) -> bool:
    """A project class named for a Celery app (``IndicoCelery``, ``CeleryApp``): the
    project model keeps the instance as an app if the class subclasses Celery."""
    return bool(func) and not is_library(func) and "celery" in func.rpartition(".")[2].lower()


def _is_conf(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, cst.Attribute) and expr.attr.value == "conf"


def _conf_owner(walker, expr: cst.BaseExpression) -> str | None:  # type: ignore[no-untyped-def]
    if isinstance(expr, cst.Attribute):
        return walker.qualify(expr.value)
    return None


def _looks_like_setting_name(name: str) -> bool:
    """Module-level names that are Celery settings: upper-case Celery names anywhere
    (Django settings), lower-case ones only with a Celery prefix (config modules)."""
    if name.isupper():
        return name.startswith(("CELERY", "BROKER_"))
    return name.startswith(("task_", "broker_", "beat_", "worker_", "result_")) or name in (
        "accept_content",
        "event_serializer",
    )


def dict_keys(value: Value) -> list[str]:
    return value.str_keys() if isinstance(value, DictV) else []
