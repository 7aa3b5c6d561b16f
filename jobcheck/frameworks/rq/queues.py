"""RQ's queues: ``Queue(...)``/``get_queue(...)`` declarations, django-rq's ``RQ_QUEUES``
setting, and the queue an enqueue call is made on (its receiver).

rq/queue.py ``Queue.__init__(name='default', ...)``; django_rq/queues.py
``get_queue(name='default', ...)``; ``django_rq.enqueue(f)`` uses the "default" queue.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from jobcheck.extract.walker import Recognizer
from jobcheck.facts import EnqueueSite, Loc, QueueDecl
from jobcheck.facts.values import CallV, Const, DictV, Opaque, Ref, Value, string
from jobcheck.syntax import tree as cst
from jobcheck.triggers import Trigger

if TYPE_CHECKING:
    from jobcheck.extract.routing import RoutingRecognizer

NAME = "rq"
RQ_QUEUE_CLASSES = frozenset({"rq.Queue", "rq.queue.Queue"})
RQ_QUEUE_FACTORIES = frozenset({"django_rq.get_queue", "django_rq.queues.get_queue"})
RQ_SEND_METHODS = frozenset({"enqueue", "enqueue_call", "enqueue_in", "enqueue_at"})
QUEUE_CONSTRUCTORS = {name: "default" for name in RQ_QUEUE_CLASSES | RQ_QUEUE_FACTORIES}
"""Calls that make an RQ queue object, with the name they default to."""


class RQQueues(Recognizer):
    PREFILTER = (Trigger("RQ_QUEUES", b"RQ_QUEUES"),)

    def assign(
        self, targets: list[cst.BaseExpression], value: cst.BaseExpression, node: cst.CSTNode
    ) -> None:
        walker = self.walker
        if not walker.at_settings_level:
            return
        if not any(isinstance(t, cst.Name) and t.value == "RQ_QUEUES" for t in targets):
            return
        if isinstance(value, cst.Dict):
            for element in value.elements:
                if isinstance(element, cst.DictElement):
                    key = string(walker.evaluate(element.key))
                    if key:
                        self._queue(key, walker.evaluate(element.value), walker.loc(element.key))
            return
        # ``{name: {...} for name in ("a", "b")}``: the evaluator unrolls a comprehension
        # over a short literal sequence; every queue is placed at the assignment.
        evaluated = walker.evaluate(value)
        if isinstance(evaluated, DictV):
            for key, config in evaluated.items:
                if string(key):
                    self._queue(str(string(key)), config, walker.loc(node))

    def _queue(self, name: str, config: Value, loc: Loc) -> None:
        """One queue of ``RQ_QUEUES``: django_rq/queues.py ``get_queue`` makes it with
        ``is_async=ASYNC`` and ``default_timeout=DEFAULT_TIMEOUT``."""
        options: list[tuple[str, Value]] = []
        if isinstance(config, DictV):
            for setting, option in (("ASYNC", "is_async"), ("DEFAULT_TIMEOUT", "default_timeout")):
                given = config.get(setting)
                if given is not None:
                    options.append((option, given))
        self.walker.facts.queues.append(QueueDecl(NAME, name, loc, tuple(options)))

    def call(self, node: cst.Call, func: str | None) -> None:
        if func in RQ_QUEUE_FACTORIES:
            walker = self.walker
            value = walker.evaluate(node)
            assert isinstance(value, CallV)
            name = value.arg(0, "name")
            walker.facts.queues.append(
                QueueDecl(
                    NAME,
                    "default" if name is None else string(name),
                    walker.loc(node),
                    value.kwargs,
                )
            )


def receiver_queue(routing: RoutingRecognizer, node: cst.Call, site: EnqueueSite) -> Value | None:
    """The queue an RQ enqueue call is made on: ``Queue("low").enqueue(f)``,
    ``q.enqueue(f)`` with ``q`` bound to a queue, ``django_rq.enqueue(f)``."""
    if site.receiver == "django_rq":
        return Const("default")
    if site.method not in RQ_SEND_METHODS or not isinstance(node.func, cst.Attribute):
        return None
    receiver = node.func.value
    if isinstance(receiver, cst.Call):
        queue = routing.queue_of_call(receiver)
        if queue is not None:
            return _named(queue[1], routing.queue_named_by(receiver))
        return None
    if isinstance(receiver, cst.Name):
        binding = routing.binding_of(receiver.value)
        if binding is not None:
            return _named(binding.name, binding.named_by)
    return None


def _named(name: str | None, named_by: str | None) -> Value:
    """The queue's name; the class attribute naming it (``BaseJob.queue_name``, which
    each subclass may set: the project model reads it per subclass); else unknown."""
    if name is not None:
        return Const(name)
    return Ref(named_by) if named_by is not None else Opaque("?")
