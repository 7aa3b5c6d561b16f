"""Celery: code that runs when a task fails (for SCL-34 ``no-dead-letter``), and app
factories (``app = create_app()`` where ``create_app`` builds a ``Celery(...)``).

Failure handlers: ``on_failure`` methods of task classes, ``task_failure`` signal
receivers (``@task_failure.connect`` and ``task_failure.connect(f)``) and a task's
``on_failure=`` option; each with whether it writes somewhere durable.
"""

from __future__ import annotations

from jobcheck.extract.fan_out import nodes
from jobcheck.extract.walker import Recognizer, Walker
from jobcheck.facts import CeleryApp, FailureHandler, FunctionFacts, Loc
from jobcheck.syntax import tree as cst
from jobcheck.syntax.names import dotted

NAME = "celery"
CELERY_APP_CLASSES = frozenset({"celery.Celery", "celery.app.Celery", "celery.app.base.Celery"})
TASK_FAILURE_CONNECT = frozenset(
    {"celery.signals.task_failure.connect", "celery.signals.signals.task_failure.connect"}
)
# Calls that write somewhere durable: a database, Redis, a queue, a file, an API.
WRITE_NAMES = frozenset(
    {
        "add",
        "add_all",
        "merge",
        "commit",
        "execute",
        "post",
        "put",
        "patch",
        "lpush",
        "rpush",
        "xadd",
        "zadd",
        "hset",
        "hmset",
        "sadd",
        "publish",
        "basic_publish",
        "apply_async",
        "delay",
        "send_task",
        "enqueue",
        "send_message",
        "put_item",
        "put_record",
        "put_object",
        "upload_file",
    }
)
WRITE_PREFIXES = (
    "save",
    "create",
    "bulk_create",
    "get_or_create",
    "update",
    "bulk_update",
    "insert",
    "store",
    "persist",
    "record",
    "write",
    "mark_",
)
LOGGING_RECEIVERS = frozenset(
    {"log", "logger", "logging", "_log", "_logger", "sentry_sdk", "statsd", "metrics"}
)


class CeleryFailureHandlers(Recognizer):
    def __init__(self, walker: Walker) -> None:
        super().__init__(walker)
        # Plain data only: the language server replays unchanged statements from this
        # state, so it must not hold syntax nodes.
        self._module_functions: set[str] = set()
        self._persisting: set[str] = set()
        """Module-level functions that write somewhere durable (see ``_writes``)."""
        self._signal_targets: list[tuple[str, Loc]] = []
        self._app_factories: set[str] = set()

    def function(self, node: cst.FunctionDef, facts: FunctionFacts) -> None:
        walker = self.walker
        if not walker.functions and facts.class_qualname is None:
            self._module_functions.add(facts.qualname)
        if facts.class_qualname is not None and node.name.value == "on_failure":
            walker.facts.failure_handlers.append(
                FailureHandler(
                    "on_failure", facts.class_qualname, walker.loc(node.name), writes_durably(node)
                )
            )
        for decorator in facts.decorators:
            if decorator.qualname in TASK_FAILURE_CONNECT:
                walker.facts.failure_handlers.append(
                    FailureHandler("signal", facts.qualname, decorator.loc, writes_durably(node))
                )

    def assign(
        self, targets: list[cst.BaseExpression], value: cst.BaseExpression, node: cst.CSTNode
    ) -> None:
        if not isinstance(value, cst.Call):
            return
        for target in targets:
            if isinstance(target, cst.Name):
                self._maybe_app_factory(target.value, value)

    def _maybe_app_factory(self, name: str, call: cst.Call) -> None:
        """``app = create_app()`` where ``create_app`` builds a ``Celery(...)``."""
        walker = self.walker
        if not walker.at_module_level:
            return
        if walker.qualify(call.func) in self._app_factories:
            walker.facts.apps.append(
                CeleryApp(qualname=walker.names.local(name), loc=walker.loc(call), main=None)
            )

    def call(self, node: cst.Call, func: str | None) -> None:
        walker = self.walker
        if walker.functions and _writes(node):
            self._persisting.add(walker.functions[0].facts.qualname)
        if func in CELERY_APP_CLASSES and walker.function is not None:
            self._app_factories.add(walker.function.facts.qualname)
        if func in TASK_FAILURE_CONNECT and node.args:
            self._signal_targets.append(
                (walker.qualify(node.args[0].value) or "", walker.loc(node))
            )

    def finish(self) -> None:
        walker = self.walker
        for qualname, loc in self._signal_targets:
            walker.facts.failure_handlers.append(
                FailureHandler("signal", qualname or None, loc, self._persists(qualname))
            )
        for task in walker.facts.tasks:
            handler = task.option("on_failure")
            if handler is None or task.framework != NAME:
                continue
            qualname = getattr(handler, "qualname", None)
            walker.facts.failure_handlers.append(
                FailureHandler(
                    "option", qualname, task.option_loc("on_failure"), self._persists(qualname)
                )
            )

    def _persists(self, qualname: str | None) -> bool | None:
        """Whether a module-level function of this file writes somewhere durable; None
        when it is not defined here."""
        if not qualname or qualname not in self._module_functions:
            return None
        return qualname in self._persisting


def writes_durably(function: cst.FunctionDef) -> bool:
    """Whether a failure handler writes somewhere durable (a database row, a Redis list,
    another queue, a file, an API), as opposed to only logging the failure."""
    every = list(nodes(function.body))
    local = _local_containers(every)
    return any(isinstance(node, cst.Call) and _writes(node, local) for node in every)


def _local_containers(every: list[cst.CSTNode]) -> frozenset[str]:
    """Names the handler binds to a new dict, list or set (``log_data = {...}``): their
    ``update``/``add`` calls fill memory, not a store."""
    found = set()
    for node in every:
        if not isinstance(node, cst.Assign) or len(node.targets) != 1:
            continue
        target, value = node.targets[0].target, node.value
        if not isinstance(target, cst.Name):
            continue
        made = isinstance(value, (cst.Dict, cst.List, cst.Set, cst.DictComp, cst.ListComp))
        if isinstance(value, cst.Call) and dotted(value.func) in ("dict", "list", "set"):
            made = True
        if made:
            found.add(target.value)
    return frozenset(found)


def _writes(node: cst.Call, local: frozenset[str] = frozenset()) -> bool:
    """A call that writes somewhere durable (not a logger's, not a local container's)."""
    if (
        isinstance(node.func, cst.Attribute)
        and isinstance(node.func.value, cst.Name)
        and node.func.value.value in local
    ):
        return False
    name = dotted(node.func)
    if name is None and isinstance(node.func, cst.Attribute):
        name = node.func.attr.value
    if name is None:
        return False
    parts = name.split(".")
    method = parts[-1]
    if len(parts) > 1 and parts[-2].lower() in LOGGING_RECEIVERS:
        return False
    return method == "open" or method in WRITE_NAMES or method.startswith(WRITE_PREFIXES)
