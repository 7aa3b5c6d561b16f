"""Enqueues inside loops over sources of unknown size, for SCL-19 ``unbounded-fan-out``.

A job enqueued once per row of a whole-table query (``Model.objects.all()``, a session
query with no limit) or once per item of a paginated API loop puts as many jobs on the
queue as the source has items. This recognizer records each such enqueue
(:class:`LoopEnqueue`), with whether the loop is throttled or sends batches.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from jobcheck.extract.walker import Recognizer, Walker
from jobcheck.facts import EnqueueSite, LoopEnqueue
from jobcheck.facts.values import Const
from jobcheck.syntax import tree as cst
from jobcheck.syntax.names import dotted
from jobcheck.syntax.tree import children
from jobcheck.vocabulary.words import identifier_words

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
# Options that delay a job's start; a value that changes per iteration staggers them:
# Celery's countdown/eta, Dramatiq's, Huey's and taskiq's delay, arq's _defer_by and
# _defer_until (arq/connections.py ``enqueue_job``).
DELAY_OPTIONS = ("countdown", "eta", "delay", "_defer_by", "_defer_until")


class FanOutRecognizer(Recognizer):
    def __init__(self, walker: Walker) -> None:
        super().__init__(walker)
        self._sources: dict[str, QueryShape] = {}

    def assign(
        self, targets: list[cst.BaseExpression], value: cst.BaseExpression, node: cst.CSTNode
    ) -> None:
        walker = self.walker
        if walker.function is None:
            return
        for target in targets:
            if not isinstance(target, cst.Name):
                continue
            key = f"{walker.function.facts.qualname}:{target.value}"
            shape = query_shape(value, self._shape_of)
            if shape is not None:
                self._sources[key] = shape
            else:
                self._sources.pop(key, None)

    def call(self, node: cst.Call, func: str | None) -> None:
        site = self.walker.current_site
        if site is not None and site.order == self.walker.order:
            self._loop_site(node, site)

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
    tested = {node.value for node in nodes(test) if isinstance(node, cst.Name)}
    for node in nodes(loop.body):
        if isinstance(node, cst.Assign) and any(
            isinstance(t.target, cst.Name) and t.target.value in tested for t in node.targets
        ):
            if _words(node.value) & PAGINATION_WORDS:
                return True
    return False


def _words(expr: cst.CSTNode) -> set[str]:
    """The words of the names, attributes and string keys in ``expr``."""
    words: set[str] = set()
    for node in nodes(expr):
        if isinstance(node, cst.Name):
            words.update(identifier_words(node.value))
        elif isinstance(node, cst.SimpleString):
            text = node.evaluated_value
            if isinstance(text, str):
                words.update(identifier_words(text))
    return words


def _throttles(loop: cst.For | cst.While) -> bool:
    for node in nodes(loop.body):
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
    for node in nodes(test):
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


def nodes(root: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """``root`` and its descendants, not entering nested definitions."""
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)) and node is not root:
            continue
        stack.extend(children(node))
