"""Queues and routing, for every framework: what the queue checks need on top of what
each framework's recognizers record.

Which names are bound to queue objects (each plugin declares the calls that make one,
``Plugin.queue_constructors``), the queue an enqueue site names through its receiver
(``Plugin.receiver_queue``) or a ``.set(queue=...)``, and module constants that may hold
queue names. It runs after the framework recognizers (``jobcheck/frameworks``), so an
enqueue site recorded for a call is already in ``facts.enqueues`` when it sees the call.
"""

from __future__ import annotations

from jobcheck.extract.walker import Recognizer, Walker
from jobcheck.facts import Constant, EnqueueSite, QueueBinding, SiteQueue
from jobcheck.facts.values import CallV, Opaque, Value, string
from jobcheck.registry import queue_constructors, receiver_queue_reader
from jobcheck.syntax import tree as cst
from jobcheck.triggers import Trigger

SIGNATURE_METHODS = frozenset({"s", "si", "signature"})


class RoutingRecognizer(Recognizer):
    # Queue configuration: RabbitMQ queue arguments.
    PREFILTER = (
        Trigger("dead-letter exchange", b"x-dead-letter-exchange"),
        Trigger("queue length bound", b"x-max-length"),
        Trigger("queue age bound", b"x-message-ttl"),
    )

    def __init__(self, walker: Walker) -> None:
        super().__init__(walker)
        self._bindings: dict[str, QueueBinding] = {}
        self._pending_set: dict[int, Value] = {}
        # Plain data only: the language server replays unchanged statements from this
        # state, so it must not hold syntax nodes.
        self._locals: dict[str, set[str]] = {}
        """Names assigned in each function so far (they shadow module-level names)."""

    # -- definitions ------------------------------------------------------------

    # -- assignments ------------------------------------------------------------

    def assign(
        self, targets: list[cst.BaseExpression], value: cst.BaseExpression, node: cst.CSTNode
    ) -> None:
        walker = self.walker
        if walker.function is not None:
            local = self._locals.setdefault(walker.function.facts.qualname, set())
            for target in targets:
                local.update(_target_names(target))
        for target in targets:
            attribute = self._instance_attribute(target)
            if attribute is not None and isinstance(value, cst.Call):
                # ``self.reports = Queue("reports", ...)`` in a method: the queue every
                # instance of the class holds (``queues.reports.enqueue(...)``).
                self._maybe_binding(attribute, value)
                continue
            if not isinstance(target, cst.Name):
                continue
            key = self._variable(target.value)
            if isinstance(value, cst.Call):
                self._maybe_binding(key, value)
            if walker.at_settings_level:
                self._settings_level(target.value, value, node)

    def _instance_attribute(self, target: cst.BaseExpression) -> str | None:
        """``Class.attr`` for ``self.attr = ...`` written in a method of ``Class``."""
        function = self.walker.function
        if (
            function is None
            or not function.facts.class_qualname
            or not isinstance(target, cst.Attribute)
            or not isinstance(target.value, cst.Name)
            or target.value.value != "self"
        ):
            return None
        return f"{function.facts.class_qualname}.{target.attr.value}"

    def _variable(self, name: str) -> str:
        scope = self.walker.function
        if scope is not None:
            return f"{scope.facts.qualname}:{name}"
        return self.walker.names.local(name)

    def _maybe_binding(self, key: str, call: cst.Call) -> None:
        queue = self.queue_of_call(call)
        if queue is None:
            self._bindings.pop(key, None)
            return
        framework, name = queue
        binding = QueueBinding(
            key, framework, name, self.walker.loc(call), self.queue_named_by(call)
        )
        self._bindings[key] = binding
        if self.walker.function is None or ":" not in key:  # a local's key is "f:name"
            self.walker.facts.queue_bindings.append(binding)

    def queue_of_call(self, call: cst.Call) -> tuple[str, str | None] | None:
        """(framework, name) of a call that makes a queue object, else None."""
        func = self.walker.qualify(call.func)
        for framework, default in queue_constructors().get(func or "", ()):
            value = self.walker.evaluate(call)
            assert isinstance(value, CallV)
            argument = value.arg(0, "name")
            return framework, default if argument is None else string(argument)
        return None

    def queue_named_by(self, call: cst.Call) -> str | None:
        """``Class.attr`` when the queue ``call`` makes is named by an attribute of the
        object or class the enclosing method is called on (``get_queue(cls.queue_name)``)."""
        for index, arg in enumerate(call.args):
            if (arg.keyword is None and index == 0 and not arg.star) or (
                arg.keyword is not None and arg.keyword.value == "name"
            ):
                return self.walker.own_method(arg.value)
        return None

    def binding_of(self, name: str) -> QueueBinding | None:
        """The queue object a local or module-level name is bound to, if any."""
        scope = self.walker.function
        local = f"{scope.facts.qualname}:{name}" if scope else None
        return self._bindings.get(local or "") or self._bindings.get(self.walker.names.local(name))

    def _settings_level(self, name: str, value: cst.BaseExpression, node: cst.CSTNode) -> None:
        walker = self.walker
        if name.isupper() and _may_name_a_queue(name, value):
            prefix = walker.class_scope.qualname if walker.classes else walker.facts.module
            walker.facts.constants.append(
                Constant(f"{prefix}.{name}", walker.evaluate(value), walker.loc(node))
            )

    # -- calls ------------------------------------------------------------------

    def call(self, node: cst.Call, func: str | None) -> None:
        if isinstance(node.func, cst.Attribute) and node.func.attr.value == "set":
            self._note_set(node)
        site = self._site_of(node)
        if site is not None:
            self._route_site(node, site)
        else:
            # A .set(queue=...) on something that turned out not to be a job: no node
            # identity may outlive its statement (the language server compares states).
            self._pending_set.pop(id(node), None)

    def _note_set(self, node: cst.Call) -> None:
        """``task.s(...).set(queue="q")``: the signature built by the inner call goes to q."""
        inner = node.func.value  # type: ignore[attr-defined]
        if not (
            isinstance(inner, cst.Call)
            and isinstance(inner.func, cst.Attribute)
            and inner.func.attr.value in SIGNATURE_METHODS
        ):
            return
        for arg in node.args:
            if arg.keyword is not None and arg.keyword.value == "queue":
                self._pending_set[id(inner)] = self.walker.evaluate(arg.value)

    def _site_of(self, node: cst.Call) -> EnqueueSite | None:
        site = self.walker.current_site
        return site if site is not None and site.order == self.walker.order else None

    def _route_site(self, node: cst.Call, site: EnqueueSite) -> None:
        walker = self.walker
        queue: Value | None = self._pending_set.pop(id(node), None)
        reader = receiver_queue_reader(site.framework_hint)
        if queue is None and reader is not None:
            queue = reader(self, node, site)
        if queue is None and self._on_local_name(node):
            # ``sig = task.signature(..., options=opts); sig.apply_async()``: the local
            # shadows the task's name, and its queue was chosen where it was built.
            queue = Opaque(self.walker.text(node.func.value))  # type: ignore[attr-defined]
        if queue is not None:
            walker.facts.site_queues.append(SiteQueue(site.order, queue))

    def _on_local_name(self, node: cst.Call) -> bool:
        scope = self.walker.function
        if scope is None or not isinstance(node.func, cst.Attribute):
            return False
        receiver = node.func.value
        return isinstance(receiver, cst.Name) and receiver.value in self._locals.get(
            scope.facts.qualname, ()
        )

    # -- end of file --------------------------------------------------------------


def _may_name_a_queue(name: str, value: cst.BaseExpression) -> bool:
    """An upper-case constant that may hold a queue name: ``EMAIL = "email"``, or any
    value of a name that says QUEUE (``EMAIL_QUEUE = os.environ.get(...)``)."""
    if "QUEUE" in name:
        return True
    return isinstance(value, cst.SimpleString) and len(value.value) <= 66


def _target_names(target: cst.BaseExpression) -> list[str]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [name for element in target.elements for name in _target_names(element.value)]
    return []


# -- query shapes --------------------------------------------------------------------


# -- loops ---------------------------------------------------------------------------


# -- failure handlers ----------------------------------------------------------------
