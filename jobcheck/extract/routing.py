"""Queues, routing, fan-out loops and failure handlers, for every framework.

Where the framework recognizers (``celery``, ``rq``, ``dramatiq``) record jobs, enqueue
sites and queue declarations, this recognizer records what SCL-19, SCL-20 and the dead
letter checks need on top: which names are bound to queue objects, the queue an
enqueue site names through its receiver or a ``.set(queue=...)``, enqueues inside loops
over sources of unknown size, code that runs when a Celery task fails, Dramatiq's
``AgeLimit`` middleware and module constants that may hold queue names.

It runs after the framework recognizers (last in ``RECOGNIZERS``), so an enqueue site
recorded for a call is already in ``facts.enqueues`` when this recognizer sees the call.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import libcst as cst

from jobcheck.extract.walker import Recognizer, Walker
from jobcheck.facts import (
    CeleryApp,
    Constant,
    EnqueueSite,
    FailureHandler,
    FunctionFacts,
    Loc,
    LoopEnqueue,
    MiddlewareDecl,
    QueueBinding,
    QueueDecl,
    SiteQueue,
)
from jobcheck.facts.values import CallV, Const, Opaque, Value, string
from jobcheck.syntax.names import dotted
from jobcheck.syntax.walk import children
from jobcheck.syntax.words import identifier_words
from jobcheck.triggers import Trigger

RQ_QUEUE_CLASSES = frozenset({"rq.Queue", "rq.queue.Queue"})
# django_rq/queues.py: ``get_queue(name='default', ...)``.
RQ_QUEUE_FACTORIES = frozenset({"django_rq.get_queue", "django_rq.queues.get_queue"})
KOMBU_QUEUES = frozenset({"kombu.Queue", "kombu.entity.Queue"})
CELERY_APP_CLASSES = frozenset({"celery.Celery", "celery.app.Celery", "celery.app.base.Celery"})
TASK_FAILURE_CONNECT = frozenset(
    {"celery.signals.task_failure.connect", "celery.signals.signals.task_failure.connect"}
)
AGE_LIMIT = frozenset(
    {
        "dramatiq.middleware.AgeLimit",
        "dramatiq.middleware.age_limit.AgeLimit",
        "dramatiq.AgeLimit",
    }
)
RQ_SEND_METHODS = frozenset({"enqueue", "enqueue_call", "enqueue_in", "enqueue_at"})
SIGNATURE_METHODS = frozenset({"s", "si", "signature"})
CANVAS_HEADS = ("group(", "chord(", "chunks(", "celery.group(", "celery.chord(")

# -- query shapes (for unbounded-fan-out) -------------------------------------------
MANAGER_ATTRIBUTES = frozenset({"objects", "_default_manager", "_base_manager"})
# Methods that keep every row of the query they are called on.
WHOLE_TABLE_METHODS = frozenset(
    {
        "all",
        "order_by",
        "only",
        "defer",
        "values",
        "values_list",
        "select_related",
        "prefetch_related",
        "distinct",
        "annotate",
        "alias",
        "using",
        "reverse",
        "options",
        "execution_options",
        "scalars",
        "unique",
        "with_entities",
        "select_for_update",
    }
)
# Methods that read a query's rows one chunk at a time: their author expects many.
STREAMING_METHODS = frozenset({"iterator", "yield_per", "stream", "partitions", "stream_scalars"})
# Methods that bound how many rows come back, or return one value.
LIMITING_METHODS = frozenset(
    {
        "limit",
        "first",
        "last",
        "get",
        "one",
        "one_or_none",
        "scalar",
        "scalar_one",
        "count",
        "exists",
        "earliest",
        "latest",
        "in_bulk",
        "aggregate",
        "paginate",
        "page",
        "get_page",
        "slice",
        "fetchmany",
        "fetchone",
    }
)
# Builtins that iterate over every item of their first argument.
ITERATION_WRAPPERS = frozenset({"enumerate", "list", "tuple", "sorted", "reversed", "iter", "set"})
PAGINATION_WORDS = frozenset({"next", "cursor", "more", "continuation", "token", "page"})
THROTTLE_WORDS = ("sleep", "throttle", "rate_limit", "ratelimit", "limiter")
# Options that delay a job's start; a value that changes per iteration staggers them.
DELAY_OPTIONS = ("countdown", "eta", "delay")

# -- failure handlers (for no-dead-letter) -----------------------------------------
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


class RoutingRecognizer(Recognizer):
    # Queue configuration: django_rq settings, RabbitMQ queue arguments.
    PREFILTER = (
        Trigger("RQ_QUEUES", b"RQ_QUEUES"),
        Trigger("dead-letter exchange", b"x-dead-letter-exchange"),
        Trigger("queue length bound", b"x-max-length"),
        Trigger("queue age bound", b"x-message-ttl"),
    )

    def __init__(self, walker: Walker) -> None:
        super().__init__(walker)
        self._bindings: dict[str, QueueBinding] = {}
        self._sources: dict[str, QueryShape] = {}
        self._pending_set: dict[int, Value] = {}
        # Plain data only: the language server replays unchanged statements from this
        # state, so it must not hold syntax nodes.
        self._module_functions: set[str] = set()
        self._persisting: set[str] = set()
        """Module-level functions that write somewhere durable (see ``_writes``)."""
        self._signal_targets: list[tuple[str, Loc]] = []
        self._app_factories: set[str] = set()
        self._locals: dict[str, set[str]] = {}
        """Names assigned in each function so far (they shadow module-level names)."""

    # -- definitions ------------------------------------------------------------

    def function(self, node: cst.FunctionDef, facts: FunctionFacts) -> None:
        walker = self.walker
        if not walker.functions and facts.class_qualname is None:
            self._module_functions.add(facts.qualname)
        if facts.class_qualname is not None and node.name.value == "on_failure":
            walker.facts.failure_handlers.append(
                FailureHandler(
                    "on_failure", facts.class_qualname, walker.loc(node.name), _persists(node)
                )
            )
        for decorator in facts.decorators:
            if decorator.qualname in TASK_FAILURE_CONNECT:
                walker.facts.failure_handlers.append(
                    FailureHandler("signal", facts.qualname, decorator.loc, _persists(node))
                )

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
            if not isinstance(target, cst.Name):
                continue
            key = self._variable(target.value)
            if isinstance(value, cst.Call):
                self._maybe_binding(key, value)
                self._maybe_app_factory(target.value, value)
            shape = query_shape(value, self._shape_of)
            if walker.function is not None:
                if shape is not None:
                    self._sources[key] = shape
                else:
                    self._sources.pop(key, None)
            if walker.at_settings_level:
                self._settings_level(target.value, value, node)

    def _variable(self, name: str) -> str:
        scope = self.walker.function
        if scope is not None:
            return f"{scope.facts.qualname}:{name}"
        return self.walker.names.local(name)

    def _maybe_binding(self, key: str, call: cst.Call) -> None:
        queue = self._queue_of_call(call)
        if queue is None:
            self._bindings.pop(key, None)
            return
        framework, name = queue
        binding = QueueBinding(key, framework, name, self.walker.loc(call))
        self._bindings[key] = binding
        if self.walker.function is None:
            self.walker.facts.queue_bindings.append(binding)

    def _queue_of_call(self, call: cst.Call) -> tuple[str, str | None] | None:
        """(framework, name) of a call that makes a queue object, else None."""
        func = self.walker.qualify(call.func)
        if func in RQ_QUEUE_CLASSES or func in RQ_QUEUE_FACTORIES:
            value = self.walker.evaluate(call)
            assert isinstance(value, CallV)
            argument = value.arg(0, "name")
            # rq/queue.py ``Queue.__init__(name='default', ...)``; django_rq's get_queue too.
            return "rq", "default" if argument is None else string(argument)
        if func in KOMBU_QUEUES:
            value = self.walker.evaluate(call)
            assert isinstance(value, CallV)
            return "celery", string(value.arg(0, "name"))
        return None

    def _maybe_app_factory(self, name: str, call: cst.Call) -> None:
        """``app = create_app()`` where ``create_app`` builds a ``Celery(...)``."""
        walker = self.walker
        if not walker.at_module_level:
            return
        if walker.qualify(call.func) in self._app_factories:
            walker.facts.apps.append(
                CeleryApp(qualname=walker.names.local(name), loc=walker.loc(call), main=None)
            )

    def _settings_level(self, name: str, value: cst.BaseExpression, node: cst.CSTNode) -> None:
        walker = self.walker
        if name == "RQ_QUEUES" and isinstance(value, cst.Dict):
            for element in value.elements:
                if isinstance(element, cst.DictElement):
                    key = walker.evaluate(element.key)
                    if string(key):
                        walker.facts.queues.append(
                            QueueDecl("rq", string(key), walker.loc(element.key))
                        )
        elif name.isupper() and _may_name_a_queue(name, value):
            prefix = walker.class_scope.qualname if walker.classes else walker.facts.module
            walker.facts.constants.append(
                Constant(f"{prefix}.{name}", walker.evaluate(value), walker.loc(node))
            )

    # -- calls ------------------------------------------------------------------

    def call(self, node: cst.Call, func: str | None) -> None:
        walker = self.walker
        if walker.functions and _writes(node):
            self._persisting.add(walker.functions[0].facts.qualname)
        if func in CELERY_APP_CLASSES and walker.function is not None:
            self._app_factories.add(walker.function.facts.qualname)
        if func in RQ_QUEUE_FACTORIES:
            value = walker.evaluate(node)
            assert isinstance(value, CallV)
            name = value.arg(0, "name")
            walker.facts.queues.append(
                QueueDecl("rq", "default" if name is None else string(name), walker.loc(node))
            )
        elif func in AGE_LIMIT:
            value = walker.evaluate(node)
            assert isinstance(value, CallV)
            walker.facts.middleware.append(
                MiddlewareDecl("dramatiq", "AgeLimit", value.kwargs, walker.loc(node))
            )
        elif func in TASK_FAILURE_CONNECT and node.args:
            self._signal_targets.append(
                (walker.qualify(node.args[0].value) or "", walker.loc(node))
            )
        if isinstance(node.func, cst.Attribute) and node.func.attr.value == "set":
            self._note_set(node)
        site = self._site_of(node)
        if site is not None:
            self._route_site(node, site)
            self._loop_site(node, site)
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
        if queue is None and site.framework_hint == "rq":
            queue = self._rq_receiver_queue(node, site)
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

    def _rq_receiver_queue(self, node: cst.Call, site: EnqueueSite) -> Value | None:
        if site.receiver == "django_rq":  # django_rq.enqueue(): the "default" queue
            return Const("default")
        if site.method not in RQ_SEND_METHODS or not isinstance(node.func, cst.Attribute):
            return None
        receiver = node.func.value
        if isinstance(receiver, cst.Call):
            queue = self._queue_of_call(receiver)
            if queue is not None:
                return Const(queue[1]) if queue[1] is not None else Opaque("?")
            return None
        if isinstance(receiver, cst.Name):
            scope = self.walker.function
            local = f"{scope.facts.qualname}:{receiver.value}" if scope else None
            binding = self._bindings.get(local or "") or self._bindings.get(
                self.walker.names.local(receiver.value)
            )
            if binding is not None:
                return Const(binding.name) if binding.name is not None else Opaque("?")
        return None

    def _loop_site(self, node: cst.Call, site: EnqueueSite) -> None:
        walker = self.walker
        if site.is_signature or not walker.loop_nodes:
            return
        for loop in walker.loop_nodes:
            source = self._loop_source(loop)
            if source is None:
                continue
            kind, text, where = source
            walker.facts.loop_enqueues.append(
                LoopEnqueue(
                    order=site.order,
                    loop_loc=walker.loc(where),
                    source=kind,
                    source_text=text,
                    throttled=_throttles(loop) or _staggered(site),
                    batched=_batch_guarded(loop, node) or _sends_canvas(site),
                )
            )
            return

    def _loop_source(self, loop: cst.For | cst.While) -> tuple[str, str, cst.CSTNode] | None:
        if isinstance(loop, cst.For):
            shape = query_shape(loop.iter, self._shape_of)
            if shape is not None and shape.unbounded:
                return "query", self.walker.text(loop.iter), loop.iter
            return None
        if is_pagination_loop(loop):
            return "pagination", self.walker.text(loop.test), loop.test
        return None

    def _shape_of(self, name: str) -> QueryShape | None:
        scope = self.walker.function
        if scope is None:
            return None
        return self._sources.get(f"{scope.facts.qualname}:{name}")

    # -- end of file --------------------------------------------------------------

    def finish(self) -> None:
        walker = self.walker
        for qualname, loc in self._signal_targets:
            walker.facts.failure_handlers.append(
                FailureHandler("signal", qualname or None, loc, self._persists(qualname))
            )
        for task in walker.facts.tasks:
            handler = task.option("on_failure")
            if handler is None or task.framework != "celery":
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


class QueryShape:
    """What a query expression's method chain says about how many rows it returns."""

    __slots__ = ("limited", "narrowed", "rooted", "streamed")

    def __init__(self) -> None:
        self.rooted = False
        """The chain starts at a whole table: ``Model.objects``, ``session.query(M)``."""
        self.narrowed = False
        """A filter (or a custom manager method) keeps some of the rows."""
        self.streamed = False
        """``.iterator()`` / ``.yield_per()``: read in chunks, so expected to be large."""
        self.limited = False
        """Sliced, limited or reduced to one value."""

    @property
    def unbounded(self) -> bool:
        """A whole table, or a filtered query its author streams: nothing caps its size."""
        return self.rooted and not self.limited and (self.streamed or not self.narrowed)

    def merged(self, other: QueryShape) -> QueryShape:
        shape = QueryShape()
        shape.rooted = other.rooted
        shape.narrowed = self.narrowed or other.narrowed
        shape.streamed = self.streamed or other.streamed
        shape.limited = self.limited or other.limited
        return shape


def query_shape(
    expr: cst.BaseExpression, shape_of: Callable[[str], QueryShape | None]
) -> QueryShape | None:
    """The shape of a Django or SQLAlchemy query expression, or None when ``expr`` is
    not recognisably a query (then nothing is said about its size)."""
    shape = QueryShape()
    current = expr
    for _ in range(50):
        if isinstance(current, cst.Subscript):
            shape.limited = True
            current = current.value
        elif isinstance(current, cst.Call) and isinstance(current.func, cst.Attribute):
            method = current.func.attr.value
            receiver = current.func.value
            if _is_session(receiver) and method == "query":
                shape.rooted = True
                return shape
            if _is_session(receiver) and method in ("scalars", "execute") and current.args:
                inner = query_shape(current.args[0].value, shape_of)
                return shape.merged(inner) if inner is not None else None
            _note_method(shape, method)
            current = receiver
        elif isinstance(current, cst.Call) and _callee_name(current) == "select":
            shape.rooted = True
            return shape
        elif isinstance(current, cst.Call) and _callee_name(current) in ITERATION_WRAPPERS:
            if not current.args:
                return None
            current = current.args[0].value  # enumerate(qs), list(qs), sorted(qs)...
        elif isinstance(current, cst.Attribute):
            if _is_model_name(current.value) and (
                current.attr.value in MANAGER_ATTRIBUTES or current.attr.value == "query"
            ):
                shape.rooted = True
                return shape
            return None
        elif isinstance(current, cst.Name):
            known = shape_of(current.value)
            return shape.merged(known) if known is not None else None
        else:
            return None
    return None


def _note_method(shape: QueryShape, method: str) -> None:
    if method in LIMITING_METHODS:
        shape.limited = True
    elif method in STREAMING_METHODS:
        shape.streamed = True
    elif method not in WHOLE_TABLE_METHODS:
        shape.narrowed = True  # filter, exclude, where, a custom manager method


def _is_session(expr: cst.BaseExpression) -> bool:
    name = dotted(expr)
    return name is not None and "session" in name.rsplit(".", 1)[-1].lower()


def _is_model_name(expr: cst.BaseExpression) -> bool:
    """``Order`` or ``models.Order``: a class name, as model managers hang off classes."""
    name = dotted(expr)
    if name is None:
        return False
    last = name.rsplit(".", 1)[-1]
    return last[:1].isupper() and not last.isupper()


def _callee_name(call: cst.Call) -> str | None:
    name = dotted(call.func)
    return name.rsplit(".", 1)[-1] if name else None


# -- loops ---------------------------------------------------------------------------


def is_pagination_loop(loop: cst.While) -> bool:
    """``while next_url:``, ``while cursor is not None:``, ``while data.get("next"):``,
    or ``while url:`` whose body sets ``url = page["next"]``; not a count against a
    literal (``while page <= 10:``)."""
    test = loop.test
    if isinstance(test, cst.Comparison) and any(
        isinstance(target.comparator, (cst.Integer, cst.Float)) for target in test.comparisons
    ):
        return False
    if _words(test) & PAGINATION_WORDS:
        return True
    tested = {node.value for node in _nodes(test) if isinstance(node, cst.Name)}
    for node in _nodes(loop.body):
        if isinstance(node, cst.Assign) and any(
            isinstance(t.target, cst.Name) and t.target.value in tested for t in node.targets
        ):
            if _words(node.value) & PAGINATION_WORDS:
                return True
    return False


def _words(expr: cst.CSTNode) -> set[str]:
    """The words of the names, attributes and string keys in ``expr``."""
    words: set[str] = set()
    for node in _nodes(expr):
        if isinstance(node, cst.Name):
            words.update(identifier_words(node.value))
        elif isinstance(node, cst.SimpleString):
            text = node.evaluated_value
            if isinstance(text, str):
                words.update(identifier_words(text))
    return words


def _throttles(loop: cst.For | cst.While) -> bool:
    for node in _nodes(loop.body):
        if isinstance(node, cst.Call):
            name = (dotted(node.func) or "").lower()
            if any(word in name.rsplit(".", 1)[-1] for word in THROTTLE_WORDS):
                return True
    return False


def _staggered(site: EnqueueSite) -> bool:
    """A start delay that is not one constant: each job starts a little later."""
    for key in DELAY_OPTIONS:
        value = site.option(key)
        if value is not None and not isinstance(value, Const):
            return True
    return False


def _sends_canvas(site: EnqueueSite) -> bool:
    text = site.target_text.replace(" ", "")
    return site.target is None and (text.startswith(CANVAS_HEADS) or ".chunks(" in text)


def _batch_guarded(loop: cst.For | cst.While, call: cst.Call) -> bool:
    """The enqueue runs under ``if len(batch) >= N`` or ``if i % N == 0``."""
    path = _path_to(loop.body, call)
    return any(isinstance(node, cst.If) and _is_batch_test(node.test) for node in path)


def _is_batch_test(test: cst.BaseExpression) -> bool:
    for node in _nodes(test):
        if isinstance(node, cst.Call) and dotted(node.func) == "len":
            return True
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Modulo):
            return True
    return False


def _path_to(root: cst.CSTNode, target: cst.CSTNode) -> list[cst.CSTNode]:
    """The nodes from ``root`` down to ``target`` (empty when it is not inside)."""
    stack: list[tuple[cst.CSTNode, list[cst.CSTNode]]] = [(root, [])]
    while stack:
        node, path = stack.pop()
        if node is target:
            return path
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        for child in children(node):
            stack.append((child, [*path, node]))
    return []


def _nodes(root: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """``root`` and its descendants, not entering nested definitions."""
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)) and node is not root:
            continue
        stack.extend(children(node))


# -- failure handlers ----------------------------------------------------------------


def _persists(function: cst.FunctionDef) -> bool:
    """Whether a failure handler writes somewhere durable (a database row, a Redis list,
    another queue, a file, an API), as opposed to only logging the failure."""
    return any(isinstance(node, cst.Call) and _writes(node) for node in _nodes(function.body))


def _writes(node: cst.Call) -> bool:
    """A call that writes somewhere durable (not a logger's)."""
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
