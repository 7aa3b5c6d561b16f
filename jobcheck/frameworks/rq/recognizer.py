"""RQ: ``@job`` functions, queues, ``queue.enqueue*`` calls and ``Retry`` policies."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from jobcheck.extract import enqueue
from jobcheck.extract.walker import Recognizer, Walker
from jobcheck.facts import MANAGEMENT_COMMAND, FunctionFacts, QueueDecl, TaskDef
from jobcheck.facts.values import CallV, Const, Value, string
from jobcheck.frameworks.rq.semantics import DEDUPLICATED
from jobcheck.syntax import tree as cst
from jobcheck.syntax.names import dotted
from jobcheck.triggers import Trigger
from jobcheck.vocabulary.libraries import is_library

JOB_DECORATORS = frozenset(
    {"rq.job", "rq.decorators.job", "django_rq.job", "django_rq.decorators.job"}
)
QUEUE_CLASSES = frozenset({"rq.Queue", "rq.queue.Queue"})
QUEUE_FACTORIES = frozenset({"django_rq.get_queue", "django_rq.queues.get_queue"})
SCHEDULER_CLASSES = frozenset({"rq_scheduler.Scheduler", "rq_scheduler.scheduler.Scheduler"})
MODULE_ENQUEUE = frozenset({"django_rq.enqueue"})
# Looking a job up by id before enqueueing it with that id (rq/job.py ``Job.fetch(id,
# connection)``, ``Job.exists(job_id, connection)``; ``Queue.fetch_job`` calls the former).
JOB_LOOKUPS = frozenset({"rq.job.Job.fetch", "rq.Job.fetch", "rq.job.Job.exists", "rq.Job.exists"})
# The ``enqueue`` keywords RQ keeps for itself (rq/queue.py ``Queue.parse_args``); every
# other keyword argument is passed to the job function.
RQ_OPTIONS = frozenset(
    {
        "job_timeout",
        "timeout",
        "description",
        "result_ttl",
        "ttl",
        "failure_ttl",
        "depends_on",
        "job_id",
        "at_front",
        "meta",
        "retry",
        "repeat",
        "on_success",
        "on_failure",
        "on_stopped",
        "pipeline",
        "group_id",
    }
)
ENQUEUE_METHODS = {
    # method: number of leading positional arguments before the job function
    "enqueue": 0,
    "enqueue_call": 0,
    "enqueue_in": 1,
    "enqueue_at": 1,
}


class RQRecognizer(Recognizer):
    PREFILTER = (
        Trigger("names rq", b"rq", rb"(?<!\w)(?:rq|django_rq|rq_scheduler)(?!\w)"),
        # ``.enqueue(`` calls, and ``partial(queue.enqueue, ...)``.
        Trigger("enqueue", b".enqueue", rb"\.enqueue(?:_call|_in|_at)?\s*[(,]"),
    )

    def __init__(self, walker) -> None:  # type: ignore[no-untyped-def]
        super().__init__(walker)
        self._queue_variables: set[str] = set()
        self._fetching: set[str | None] = set()
        """Functions that look a job up by id (``queue.fetch_job(job_id)``,
        ``Job.fetch(job_id, connection=...)``) before they
        enqueue: with ``job_id=`` they enqueue only when none is waiting."""

    def function(self, node: cst.FunctionDef, facts: FunctionFacts) -> None:
        # A project's own wrappers of @job (``job = partial(MyJob, ...)``) are resolved
        # project-wide: Project._custom_decorator_jobs.
        for decorator in facts.decorators:
            if decorator.qualname in JOB_DECORATORS:
                self._job(node, facts, decorator.call)
                return

    def _job(self, node: cst.FunctionDef, facts: FunctionFacts, call: Value | None) -> None:
        walker = self.walker
        options: list[tuple[str, Value]] = []
        if isinstance(call, CallV):
            if call.args:
                options.append(("queue", call.args[0]))
            options.extend(call.kwargs)
        decorator_node = next(
            d.decorator
            for d in node.decorators
            if walker.qualify(
                d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator
            )
            in JOB_DECORATORS
        )
        walker.facts.tasks.append(
            TaskDef(
                framework="rq",
                qualname=facts.qualname,
                name=node.name.value,
                registered_name=facts.qualname,
                loc=walker.loc(decorator_node),
                decorator="rq.job",
                options=tuple(options),
                function=facts.qualname,
            )
        )

    def assign(
        self, targets: list[cst.BaseExpression], value: cst.BaseExpression, node: cst.CSTNode
    ) -> None:
        if not isinstance(value, cst.Call):
            return
        func = self.walker.qualify(value.func)
        if func in QUEUE_CLASSES or func in QUEUE_FACTORIES or func in SCHEDULER_CLASSES:
            for target in targets:
                name = (
                    self.walker.qualify(target)
                    if isinstance(target, (cst.Name, cst.Attribute))
                    else None
                )
                if name:
                    self._queue_variables.add(name)

    def call(self, node: cst.Call, func: str | None) -> None:
        if func in QUEUE_CLASSES:
            self._queue(node)
        if func in MODULE_ENQUEUE:
            self._enqueue(node, "enqueue", receiver="django_rq")
            return
        if func == "functools.partial":
            self._partial(node)
            return
        if not isinstance(node.func, cst.Attribute):
            return
        method = node.func.attr.value
        if method == "fetch_job" or func in JOB_LOOKUPS:
            scope = self.walker.function
            self._fetching.add(scope.facts.qualname if scope is not None else None)
            return
        if method not in ENQUEUE_METHODS:
            return
        if self._is_queue(node.func.value):
            self._enqueue(node, method, receiver=self.walker.qualify(node.func.value))
        elif self._of_another_module(node.func.value):
            enqueues = self.walker.facts.enqueues
            before = len(enqueues)
            self._enqueue(node, method, receiver=self.walker.qualify(node.func.value))
            if len(enqueues) > before:
                enqueues[-1] = replace(enqueues[-1], receiver_elsewhere=True)
                self.walker.current_site = enqueues[-1]

    def _of_another_module(self, receiver: cst.BaseExpression) -> bool:
        """``queue_store.job_queue`` / ``job_queue`` imported from a project module: maybe
        an RQ queue made there (the project model decides)."""
        written = dotted(receiver)
        if written is None:
            return False
        head = written.partition(".")[0]
        imported = self.walker.names.aliases.get(head)
        return imported is not None and not is_library(imported)

    def _partial(self, node: cst.Call) -> None:
        """``partial(queue.enqueue, func, *args)``, often handed to
        ``transaction.on_commit``: an enqueue made when the partial is called, so it
        counts as deferred, with the partial's arguments as its own."""
        if not node.args or not isinstance(node.args[0].value, cst.Attribute):
            return
        bound = node.args[0].value
        method = bound.attr.value
        if method not in ENQUEUE_METHODS or not self._is_queue(bound.value):
            return
        self.walker.deferred += 1
        try:
            self._enqueue(node, method, self.walker.qualify(bound.value), arguments=node.args[1:])
        finally:
            self.walker.deferred -= 1

    def _is_queue(self, receiver: cst.BaseExpression) -> bool:
        walker = self.walker
        if isinstance(receiver, cst.Call):
            func = walker.qualify(receiver.func)
            if func in QUEUE_CLASSES or func in QUEUE_FACTORIES or func in SCHEDULER_CLASSES:
                return True
            return self._makes_queue(func)
        name = walker.qualify(receiver)
        if name in self._queue_variables:
            return True
        # A queue object made elsewhere: trust it when this file works with RQ, or when an
        # object named for queues holds it (``queues.exports.enqueue(f)``, an app
        # extension's queue attributes) and no other job library is in sight.
        if walker.names.imported_roots & {"rq", "django_rq", "rq_scheduler"}:
            return True
        return _held_by_queues(walker.text(receiver)) and not (
            walker.names.imported_roots & OTHER_ENQUEUE_LIBRARIES
        )

    def _makes_queue(self, func: str | None) -> bool:
        """A project function that returns an RQ queue: annotated so (``def
        get_queue(name) -> rq.Queue``), or named for one in a file that works with RQ
        (``get_queue_for(kind).enqueue(...)``)."""
        if func is None:
            return False
        defined = self.walker.facts.functions.get(func)
        if defined is not None and defined.returns in QUEUE_CLASSES:
            return True
        works_with_rq = bool(self.walker.names.imported_roots & {"rq", "django_rq"})
        return works_with_rq and "queue" in func.rpartition(".")[2].lower()

    def _queue(self, node: cst.Call) -> None:
        walker = self.walker
        value = walker.evaluate(node)
        assert isinstance(value, CallV)
        name = value.arg(0, "name")
        walker.facts.queues.append(
            QueueDecl(
                framework="rq",
                name=string(name) if name is not None else "default",
                loc=walker.loc(node),
                options=value.kwargs,
            )
        )

    def _enqueue(
        self,
        node: cst.Call,
        method: str,
        receiver: str | None,
        arguments: Sequence[cst.Arg] | None = None,
    ) -> None:
        """An enqueue site at ``node``; ``arguments``: those of the enqueue call when
        they are not ``node``'s own (a ``partial``)."""
        walker = self.walker
        call_args = node.args if arguments is None else arguments
        skip = ENQUEUE_METHODS.get(method, 0)
        positional = [a for a in call_args if a.keyword is None and not a.star]
        keyword_func = next(
            (a.value for a in call_args if a.keyword is not None and a.keyword.value == "func"),
            None,
        )
        if len(positional) <= skip and keyword_func is None:
            return
        func_arg = keyword_func if keyword_func is not None else positional[skip].value
        target_value = walker.evaluate(func_arg)
        # ``queue.enqueue(cls.handle)`` in a classmethod: each subclass's own method;
        # ``queue.enqueue(self.sync)``: the method of this class (RQ pickles the object).
        own_method = walker.own_method(func_arg)
        bound_to = None
        if own_method is not None:
            bound_to = "class" if walker.class_bound(func_arg) else "object"
        if isinstance(target_value, Const) and isinstance(target_value.value, str):
            target = target_value.value
        else:
            target = own_method or walker.qualify(func_arg)
        command = _management_command(target, positional, skip, walker)
        if command is not None:
            # ``queue.enqueue(call_command, "parse_statistics")``: the job is the command.
            target = command
        if method == "enqueue_call":
            # enqueue_call(func, args=None, kwargs=None, ...): the payload is in args/kwargs.
            first = 0 if keyword_func is not None else 1
            payload_exprs = [a.value for a in positional[first : first + 2]]
            payload_exprs += [
                a.value
                for a in call_args
                if a.keyword is not None and a.keyword.value in ("args", "kwargs")
            ]
            args = tuple(
                argument
                for expr in payload_exprs
                for argument in enqueue.sequence_arguments(walker, expr)
            )
        else:
            payload_args = [
                a
                for a in call_args
                if (a.keyword is None and a not in positional[: skip + 1])
                or (a.keyword is not None and a.keyword.value not in RQ_OPTIONS | {"func"})
            ]
            args = enqueue.arguments(walker, payload_args)
        # ``**kwargs`` goes to the job's function and may hold RQ's options as well
        # (Queue.enqueue pops job_timeout, ttl... from it): both payload and options.
        options = enqueue.options(
            walker,
            (
                a
                for a in call_args
                if (a.keyword and a.keyword.value in RQ_OPTIONS) or a.star == "**"
            ),
            frozenset(),
        )
        if skip:
            options = (("delay", walker.evaluate(positional[0].value)), *options)
        scope = walker.function
        if dict(options).get("job_id") is not None and (
            (scope.facts.qualname if scope is not None else None) in self._fetching
        ):
            options = (*options, (DEDUPLICATED, Const(True)))
        walker.facts.enqueues.append(
            enqueue.site(
                walker,
                node,
                method,
                target,
                walker.text(func_arg),
                args,
                options,
                receiver=receiver,
                framework="rq",
                bound_to=bound_to,
            )
        )


def _management_command(
    target: str | None, positional: list[cst.Arg], skip: int, walker: Walker
) -> str | None:
    if target != "django.core.management.call_command" or len(positional) <= skip + 1:
        return None
    name = walker.evaluate(positional[skip + 1].value)
    if isinstance(name, Const) and isinstance(name.value, str):
        return MANAGEMENT_COMMAND + name.value
    return None


# Job libraries with an ``enqueue`` of their own (huey/api.py ``Huey.enqueue``).
OTHER_ENQUEUE_LIBRARIES = frozenset({"huey", "taskiq", "arq", "dramatiq", "celery"})


def _held_by_queues(receiver: str) -> bool:
    """``queues.exports``, ``app.queues.high``: an attribute of an object named for queues."""
    parts = receiver.split(".")
    return len(parts) >= 2 and any(part.lower() in ("queues", "rq_queues") for part in parts[:-1])
