"""arq: ``WorkerSettings`` classes, their ``functions`` and ``cron_jobs``, ``enqueue_job``
calls, and handlers that swallow the cancellation arq sends on timeout and shutdown.

Library facts are verified in arq 0.28.0 (``jobcheck/frameworks/arq/semantics.py``).
arq has no decorator: a coroutine function is a job when a worker settings class lists
it. arq reads a settings class through its own ``__dict__`` (``get_kwargs``), so only
the class body is read here, never its bases.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from jobcheck.extract import enqueue, handlers
from jobcheck.extract.walker import Recognizer, Walker
from jobcheck.facts import FrameworkConfig, Loc, RetryCall, TaskDef
from jobcheck.facts.values import CallV, Const, string
from jobcheck.frameworks.arq.checks import UNREAD_JOBS
from jobcheck.frameworks.arq.semantics import (
    CRON,
    CRON_NAME_PREFIX,
    CRON_TIME_FIELDS,
    ENQUEUE_OPTIONS,
    FUNC,
    WORKER_PARAMETERS,
)
from jobcheck.frameworks.semantics_base import CANCELLATION
from jobcheck.syntax import tree as cst
from jobcheck.triggers import Trigger


@dataclass(frozen=True)
class Entry:
    """One item of ``functions`` or ``cron_jobs``."""

    node: cst.BaseExpression
    """The item as written (``f``, ``func(f, ...)``, ``cron(f, ...)``)."""
    target_node: cst.BaseExpression | None
    """The job function's reference or import string."""
    call: CallV | None
    """``func(...)``/``cron(...)``, evaluated."""
    target: str | None
    """The job function's dotted path (for a string, the path it names)."""
    by_string: bool


def class_attributes(node: cst.ClassDef) -> dict[str, cst.BaseExpression]:
    """The names a class body assigns (``name = value``, ``name: T = value``)."""
    attributes: dict[str, cst.BaseExpression] = {}
    for statement in node.body.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if isinstance(small, cst.Assign) and len(small.targets) == 1:
                target, value = small.targets[0].target, small.value
            elif isinstance(small, cst.AnnAssign) and small.value is not None:
                target, value = small.target, small.value
            else:
                continue
            if isinstance(target, cst.Name):
                attributes[target.value] = value
    return attributes


def worker_settings(
    walker: Walker, node: cst.ClassDef, lists: dict[str, cst.BaseExpression] | None = None
) -> dict[str, cst.BaseExpression] | None:
    """The own attributes of an arq settings class, or None when ``node`` is not one: a
    class whose body sets ``functions`` or ``cron_jobs``, in a file that uses arq or
    under a name that says it configures a worker. ``functions = JOBS`` with ``JOBS`` a
    list of the module (``lists``) reads that list."""
    attributes = class_attributes(node)
    if "functions" not in attributes and "cron_jobs" not in attributes:
        return None
    if "arq" not in walker.names.imported_roots and "worker" not in node.name.value.lower():
        return None
    for key in ("functions", "cron_jobs"):
        value = attributes.get(key)
        if isinstance(value, cst.Name) and lists and value.value in lists:
            attributes[key] = lists[value.value]
    return attributes


def module_lists(
    walker: Walker, targets: list[cst.BaseExpression], value: cst.BaseExpression
) -> Iterator[tuple[str, cst.BaseExpression]]:
    """``JOBS = [f, func(g, ...)]`` at module level: a list a settings class may name."""
    if not walker.at_module_level or not isinstance(value, (cst.List, cst.Tuple, cst.Set)):
        return
    for target in targets:
        if isinstance(target, cst.Name):
            yield target.value, value


def readable(value: cst.BaseExpression | None) -> bool:
    """Whether every item of a ``functions``/``cron_jobs`` value can be read: a display
    with no ``*spread`` (absent is readable: nothing)."""
    if value is None:
        return True
    if not isinstance(value, (cst.List, cst.Tuple, cst.Set)):
        return False
    return all(isinstance(element, cst.Element) for element in value.elements)


def entries(walker: Walker, value: cst.BaseExpression, wrappers: frozenset[str]) -> Iterator[Entry]:
    """The items of a ``functions``/``cron_jobs`` list, tuple or set display (arq maps
    ``func`` over any sequence); items that are neither a reference nor a
    ``func(...)``/``cron(...)`` call are skipped."""
    if not isinstance(value, (cst.List, cst.Tuple, cst.Set)):
        return
    for element in value.elements:
        if not isinstance(element, cst.Element):
            continue  # ``*OTHER_JOBS``: unknown here
        item = element.value
        call = None
        target_node: cst.BaseExpression | None = item
        if isinstance(item, cst.Call):
            if walker.qualify(item.func) not in wrappers or not item.args:
                continue
            first = item.args[0]
            target_node = first.value if first.keyword is None else None
            evaluated = walker.evaluate(item)
            call = evaluated if isinstance(evaluated, CallV) else None
        if target_node is None:
            continue
        path = string(walker.evaluate(target_node))
        target = path if path is not None else walker.qualify(target_node)
        yield Entry(item, target_node, call, target, path is not None)


RETRY_CLASSES = frozenset({"arq.Retry", "arq.worker.Retry"})
# connections.py: ``create_pool(..., default_queue_name=...)`` and ``ArqRedis(...)``.
POOL_MAKERS = frozenset(
    {"arq.create_pool", "arq.connections.create_pool", "arq.ArqRedis", "arq.connections.ArqRedis"}
)


class ArqRecognizer(Recognizer):
    PREFILTER = (
        Trigger("names arq", b"arq", rb"\b(?:from|import)\s+arq\b"),
        Trigger("arq enqueue", b"enqueue_job("),
        Trigger("worker settings", b"cron_jobs"),
    )

    def __init__(self, walker: Walker) -> None:
        super().__init__(walker)
        self._workers: set[str] = set()
        self._lists: dict[str, cst.BaseExpression] = {}

    def assign(
        self, targets: list[cst.BaseExpression], value: cst.BaseExpression, node: cst.CSTNode
    ) -> None:
        self._lists.update(module_lists(self.walker, targets, value))

    def classdef(self, node: cst.ClassDef, qualname: str, bases: tuple[str, ...]) -> None:
        walker = self.walker
        attributes = worker_settings(walker, node, self._lists)
        if attributes is None:
            if not any(base in self._workers for base in bases):
                return
            # A subclass of a settings class: arq reads only its own attributes.
            attributes = class_attributes(node)
        self._workers.add(qualname)
        options = tuple(
            (name, walker.evaluate(value))
            for name, value in attributes.items()
            if name in WORKER_PARAMETERS and name not in ("functions", "cron_jobs")
        )
        if not all(readable(attributes.get(key)) for key in ("functions", "cron_jobs")):
            # Not every job it registers is known: names cannot be judged missing.
            options = (*options, (UNREAD_JOBS, Const(True)))
        functions = list(entries(walker, attributes.get("functions", cst.List([])), FUNC))
        crons = list(entries(walker, attributes.get("cron_jobs", cst.List([])), CRON))
        walker.facts.configs.append(
            FrameworkConfig(
                framework="arq",
                kind="worker",
                qualname=qualname,
                cls=None,
                options=options,
                loc=walker.loc(node.name),
                parts=tuple(e.target or walker.text(e.node) for e in (*functions, *crons)),
            )
        )
        listed = {e.target for e in functions}
        for entry in functions:
            self._job(entry, qualname, cron=False)
        for entry in crons:
            if entry.target not in listed:
                self._job(entry, qualname, cron=True)

    def _job(self, entry: Entry, settings: str, cron: bool) -> None:
        """arq/worker.py ``func``: the name is ``name or coroutine.__qualname__`` (the
        path itself for a string); arq/cron.py: ``'cron:' + qualname`` by default."""
        if entry.target is None:
            return
        walker = self.walker
        call = entry.call
        options = tuple(
            (k, v) for k, v in (call.kwargs if call else ()) if k not in CRON_TIME_FIELDS
        )
        qualname = entry.target
        short = qualname if entry.by_string else qualname.rpartition(".")[2]
        name = string(call.kwarg("name")) if call else None
        walker.facts.tasks.append(
            TaskDef(
                framework="arq",
                qualname=qualname,
                name=qualname.rpartition(".")[2],
                registered_name=name or (CRON_NAME_PREFIX + short if cron else short),
                loc=walker.loc(entry.node),
                decorator=None,
                app_ref=settings,
                options=options,
                kind="cron" if cron else "function",
                function=qualname,
            )
        )

    # -- enqueue_job --------------------------------------------------------------------

    def call(self, node: cst.Call, func: str | None) -> None:
        if func in POOL_MAKERS:
            self._pool(node)
            return
        if func in RETRY_CLASSES:
            self._retry(node)
            return
        if not isinstance(node.func, cst.Attribute) or node.func.attr.value != "enqueue_job":
            return
        if not node.args or node.args[0].keyword is not None:
            return
        walker = self.walker
        name_node = node.args[0].value
        name = string(walker.evaluate(name_node))
        if name is None and "arq" not in walker.names.imported_roots:
            return
        payload = [
            a for a in node.args[1:] if a.keyword is None or a.keyword.value not in ENQUEUE_OPTIONS
        ]
        options = tuple(
            (a.keyword.value, walker.evaluate(a.value))
            for a in node.args[1:]
            if a.keyword is not None and a.keyword.value in ENQUEUE_OPTIONS
        )
        if name is not None:
            # ``enqueue_job(function: str, ...)``: the name, when it is readable.
            options = (("function", Const(name)), *options)
        walker.facts.enqueues.append(
            enqueue.site(
                walker,
                node,
                "enqueue_job",
                None,
                name if name is not None else walker.text(name_node),
                enqueue.arguments(walker, payload),
                options,
                receiver=walker.qualify(node.func.value),
                framework="arq",
            )
        )

    def _retry(self, node: cst.Call) -> None:
        """``raise Retry(defer=5)`` (worker.py ``Retry(defer=None)``: run again after
        ``defer`` seconds, a number or a timedelta)."""
        scope = self.walker.function
        if scope is None:
            return
        value = self.walker.evaluate(node)
        assert isinstance(value, CallV)
        scope.facts.retry_calls.append(
            RetryCall(self.walker.loc(node), value.arg(0, "defer"), None)
        )

    def _pool(self, node: cst.Call) -> None:
        """``create_pool(settings, default_queue_name=...)`` / ``ArqRedis(...)``: the queue
        its ``enqueue_job`` calls use when they name none (connections.py ``enqueue_job``:
        ``_queue_name = self.default_queue_name``)."""
        walker = self.walker
        value = walker.evaluate(node)
        if not isinstance(value, CallV) or value.kwarg("default_queue_name") is None:
            return
        walker.facts.configs.append(
            FrameworkConfig(
                framework="arq",
                kind="pool",
                qualname=walker.text(node),
                cls=value.func,
                options=(("default_queue_name", value.kwarg("default_queue_name")),),
                loc=walker.loc(node),
            )
        )

    # -- cancellation ----------------------------------------------------------------------

    def except_handler(
        self, node: cst.Try | cst.TryStar, handler: cst.ExceptHandler | cst.ExceptStarHandler
    ) -> None:
        """In a coroutine: an ``except`` that catches the CancelledError a runner sends
        (arq's ``wait_for`` timeout and shutdown, taskiq's ``anyio.fail_after``) and does
        not raise it again. ``except Exception`` does not catch it (Python 3.8+)."""
        scope = self.walker.function
        if scope is None or not scope.facts.is_async:
            return
        walker = self.walker
        caught = handlers.caught_names(handler, walker.names)
        if not any(name in CANCELLATION for name in caught):
            return
        if handlers.shape(node, handler, walker.names, in_loop=bool(walker.loops)).reraises:
            return
        start = walker.loc(handler)
        scope.facts.cancel_handlers.append(
            Loc(start.line, start.column, start.line, start.column + len("except"))
        )
