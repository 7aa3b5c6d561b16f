"""One pass over a Ruby file's syntax tree that keeps the context job checks need.

The walker tracks where each node stands: the enclosing modules and class (constant
paths, as dotted qualnames: ``Admin::ReportJob`` is ``Admin.ReportJob``), the method,
``transaction do ... end`` and ``with_lock`` blocks, ActiveRecord callbacks (``after_save``
runs inside the save's transaction, ``after_commit`` after it), ``after_commit { }``
blocks, loops (``each``, ``find_each``, ``find_in_batches``...), ``if``/``unless`` tests
and local variables bound to records or queries. It records what every method does that
job checks care about (:class:`FunctionFacts`: HTTP calls, side effects, guards,
swallowing ``rescue`` clauses, calls) and hands classes and calls to the framework
recognizers (``jobcheck/frameworks/sidekiq/recognizer.py``), which turn them into jobs,
enqueue sites, settings and schedules: the same facts the Python walker produces.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from jobcheck.facts import (
    Argument,
    CallSite,
    ExceptHandler,
    FileFacts,
    FunctionFacts,
    Guard,
    HttpCall,
    Loc,
    Lookup,
    LoopEnqueue,
    ModelClass,
    Param,
    SideEffect,
    SlowCall,
)
from jobcheck.facts.values import Value
from jobcheck.ruby import libraries as lib
from jobcheck.ruby.parse import Source, arguments, call_parts, constant_path, identifier
from jobcheck.ruby.values import evaluate
from jobcheck.vocabulary.lock_names import takes_lock_by_name

# ActiveRecord callbacks (activerecord/lib/active_record/callbacks.rb, transactions.rb):
# the save/create/update/destroy/validation/touch callbacks run inside the transaction
# that wraps the save; the commit callbacks run after it commits.
_IN_TRANSACTION_CALLBACK = re.compile(
    r"^(?:before|after|around)_(?:save|create|update|destroy|validation|touch)$"
)
COMMIT_CALLBACKS = frozenset(
    {
        "after_commit",
        "after_create_commit",
        "after_update_commit",
        "after_save_commit",
        "after_destroy_commit",
    }
)
# Blocks that run after the current transaction commits, called inside a method:
# ``ActiveRecord.after_all_transactions_commit`` (Rails 7.2+), after_commit_everywhere's
# ``after_commit { }`` / ``AfterCommitEverywhere.after_commit { }``.
DEFERRING_CALLS = frozenset({"after_commit", "after_all_transactions_commit"})
TRANSACTION_CALLS = frozenset({"transaction", "with_lock"})
LOOP_METHODS = frozenset(
    {
        "each",
        "each_with_index",
        "each_with_object",
        "find_each",
        "find_in_batches",
        "in_batches",
        "each_slice",
        "map",
        "flat_map",
        "times",
        "each_key",
        "each_value",
        "each_pair",
        "select",
        "filter_map",
        "collect",
        "upto",
        "downto",
        "step",
        "loop",
    }
)
# Query methods: a chain starting at a constant through these is a relation.
QUERY_METHODS = frozenset(
    {
        "all",
        "where",
        "order",
        "includes",
        "joins",
        "left_joins",
        "preload",
        "eager_load",
        "select",
        "distinct",
        "not",
        "or",
        "unscoped",
        "find_each",
        "find_in_batches",
        "in_batches",
        "reorder",
        "group",
        "having",
        "none",
        "merge",
        "lock",
        "readonly",
        "references",
        "strict_loading",
        "rewhere",
        "left_outer_joins",
    }
)
BATCH_METHODS = frozenset({"find_each", "find_in_batches", "in_batches"})
# Relation methods that keep every row (the Python side's WHOLE_TABLE_METHODS).
WHOLE_TABLE_METHODS = BATCH_METHODS | {
    "all",
    "order",
    "reorder",
    "includes",
    "preload",
    "eager_load",
    "select",
    "distinct",
    "unscoped",
    "left_joins",
    "left_outer_joins",
}
BOUNDING_METHODS = frozenset({"limit", "first", "last", "take", "page", "per", "find", "find_by"})
RECORD_METHODS = frozenset(
    {
        "find",
        "find_by",
        "find_by!",
        "first",
        "first!",
        "last",
        "last!",
        "take",
        "take!",
        "create",
        "create!",
        "new",
        "find_or_create_by",
        "find_or_create_by!",
        "find_or_initialize_by",
        "create_or_find_by",
        "create_or_find_by!",
        "sole",
        "find_sole_by",
    }
)
COPY_METHODS = frozenset({"attributes", "to_json", "as_json", "serializable_hash", "to_xml"})
MODEL_BASES = frozenset({"ApplicationRecord", "ActiveRecord.Base"})
CONTROLLER_BASES = re.compile(r"(?:^|\.)(?:Application|Base|Api|API)?Controller$|Controller$")
_WORDS = re.compile(r"[A-Za-z][a-z0-9]*|[0-9]+")
_STATEMENT_PARENTS = frozenset(
    {"program", "body_statement", "then", "else", "do", "begin", "ensure", "block_body"}
)


@dataclass
class ClassContext:
    qualname: str
    superclass: str | None
    node: Any
    callbacks: dict[str, str] = field(default_factory=dict)
    """Method name -> "transaction" (runs inside the save's transaction) or "commit"."""
    callback_names: dict[str, str] = field(default_factory=dict)
    """Method name -> the declaration that registers it (``after_save``)."""
    includes: list[str] = field(default_factory=list)
    is_model: bool = False
    is_controller: bool = False
    http_client: bool = False
    """The class includes HTTParty: its bare ``get``/``post`` calls send requests."""
    http_timeout: bool = False
    ivar_records: dict[str, tuple[str, str]] = field(default_factory=dict)
    """Instance variables some method of the class sets to a record (``@order =
    Order.find(params[:id])`` in a controller's before_action), by name."""
    method_nodes: dict[str, Any] = field(default_factory=dict)
    """The class's own methods by name (a guard's predicate is read through them)."""
    http_methods: dict[str, tuple[str, bool]] = field(default_factory=dict)
    """Methods that return an HTTP client (``def client = @client ||= Faraday.new(...)``):
    name -> (library, built with a timeout)."""


@dataclass
class MethodContext:
    facts: FunctionFacts
    node: Any
    singleton: bool
    callback: str | None = None
    callback_name: str | None = None
    locals: dict[str, tuple[str, str]] = field(default_factory=dict)
    """Variable (``user``, ``@user``) -> (argument kind, reason) of what it holds."""
    relations: dict[str, str] = field(default_factory=dict)
    """Variable -> the model of the relation it holds (``users = User.where(...)``)."""
    record_models: dict[str, str] = field(default_factory=dict)
    """Variable -> the model of the record it holds (``report = Report.find(id)``): a call
    of a method on it is a call of that model's method."""
    names: set[str] = field(default_factory=set)
    """Parameters and local variables: a bare identifier among them is not a call."""
    http_bindings: dict[str, tuple[str, bool]] = field(default_factory=dict)
    """Variable -> (HTTP library, whether it was built with a timeout)."""
    timeout_set: bool = False
    http_pending: list[tuple[HttpCall, str]] = field(default_factory=list)


@dataclass
class BlockContext:
    transaction: int = 0
    callback: str | None = None
    deferred: int = 0
    construct: str | None = None
    """The call that opened the innermost transaction or callback block (``with_lock``,
    ``transaction``, ``after_save``)."""


class RubyRecognizer:
    """Base for a framework's Ruby recognizer: override what it needs."""

    def __init__(self, walker: RubyWalker) -> None:
        self.walker = walker

    def class_start(self, context: ClassContext) -> None:
        """A class, before its body is walked (its callbacks are known)."""

    def class_end(self, context: ClassContext) -> None:
        """A class's body has been walked."""

    def call(self, node: Any, receiver: Any, method: str, args: Any, block: Any) -> None:
        """A method call (after the walker recorded its effects, before its children)."""

    def assignment(self, node: Any, left: Any, right: Any) -> None:
        """An assignment (``x = ...``, ``config.a.b = ...``), before its value is walked."""

    def finish(self) -> None:
        """The walk is over."""


class RubyWalker:
    def __init__(self, facts: FileFacts, source: Source, tree: Any) -> None:
        self.facts = facts
        self.source = source
        self.tree = tree
        self.recognizers: list[RubyRecognizer] = []
        self.namespace: list[str] = []
        self.classes: list[ClassContext] = []
        self.methods: list[MethodContext] = []
        self.blocks = BlockContext()
        self.loops: list[tuple[str, Any, bool]] = []
        """(iterable text, loop node, whether it reads an unbounded query)."""
        self.conditions: list[str] = []
        self.rescue_depth = 0
        self.order = 0
        self._defined: set[str] = set()

    # -- helpers for recognizers --------------------------------------------------------

    def loc(self, node: Any) -> Loc:
        return self.source.loc(node)

    def text(self, node: Any, limit: int = 80) -> str:
        return self.source.text(node, limit)

    def evaluate(self, node: Any) -> Value:
        return evaluate(node, self.source)

    @property
    def class_context(self) -> ClassContext | None:
        return self.classes[-1] if self.classes else None

    @property
    def method(self) -> MethodContext | None:
        return self.methods[-1] if self.methods else None

    def qualify(self, path: str) -> str:
        """A constant path as written, qualified with the enclosing namespace only when
        the file defines it there (Ruby's lexical lookup cannot be settled per file)."""
        return path

    def atomic_state(self) -> str | None:
        """ "block" inside ``transaction``/``with_lock``; "callback" inside a callback
        that runs in the save's transaction; None otherwise (or when deferred)."""
        if self.blocks.deferred:
            return None
        if self.blocks.transaction:
            return "block"
        if self.blocks.callback == "transaction":
            return "callback"
        method = self.method
        if method is not None and method.callback == "transaction":
            return "callback"
        return None

    def atomic_construct(self) -> str | None:
        """The call that puts the code in a transaction (``transaction``, ``with_lock``,
        ``after_save``), for messages."""
        if self.blocks.transaction or self.blocks.callback == "transaction":
            return self.blocks.construct
        method = self.method
        return method.callback_name if method is not None else None

    def deferred(self) -> bool:
        method = self.method
        return self.blocks.deferred > 0 or (
            method is not None and method.callback == "commit" and not self.blocks.transaction
        )

    def in_loop(self) -> str | None:
        return self.loops[-1][0] if self.loops else None

    def function_qualname(self) -> str | None:
        method = self.method
        return method.facts.qualname if method is not None else None

    def classify(self, node: Any) -> tuple[str, str]:
        """(kind, reason) of a value passed to a job, as :class:`Argument` kinds."""
        return _classify(self, node, 0)

    def arguments(self, nodes: list[Any], keywords: list[tuple[str, Any, Any]] = ()) -> tuple:
        result = []
        for node in nodes:
            if node.type in ("splat_argument", "block_argument", "hash_splat_argument"):
                continue
            kind, reason = self.classify(node)
            result.append(Argument(kind, reason, self.text(node), self.loc(node)))
        for key, value, _ in keywords:
            kind, reason = self.classify(value)
            result.append(Argument(kind, reason, self.text(value), self.loc(value), keyword=key))
        return tuple(result)

    def add_loop_enqueue(self, order: int, batched: bool) -> None:
        if not self.loops:
            return
        text, node, unbounded = self.loops[-1]
        if not unbounded:
            return
        throttled = any(m == "sleep" for m in _called_names(node))
        self.facts.loop_enqueues.append(
            LoopEnqueue(order, self.loc(node), "query", text, throttled, batched)
        )

    # -- the walk -----------------------------------------------------------------------

    def run(self) -> FileFacts:
        self._body(self.tree.root_node)
        for recognizer in self.recognizers:
            recognizer.finish()
        self.facts.defined_functions = frozenset(self._defined)
        return self.facts

    def _body(self, node: Any) -> None:
        for child in node.named_children:
            self._visit(child)

    def _visit(self, node: Any) -> None:
        handler = _DISPATCH.get(node.type)
        if handler is not None:
            handler(self, node)
        elif node.named_child_count:
            self._body(node)

    def _module(self, node: Any) -> None:
        path = constant_path(node.child_by_field_name("name"))
        self.namespace.extend((path or "?").split("."))
        body = node.child_by_field_name("body")
        if body is not None:
            self._body(body)
        del self.namespace[-len((path or "?").split(".")) :]

    def _class(self, node: Any) -> None:
        path = constant_path(node.child_by_field_name("name")) or "?"
        parts = path.split(".")
        self.namespace.extend(parts)
        qualname = ".".join(self.namespace)
        superclass_node = node.child_by_field_name("superclass")
        superclass = None
        if superclass_node is not None and superclass_node.named_child_count:
            superclass = constant_path(superclass_node.named_children[0])
        context = ClassContext(qualname, superclass, node)
        body = node.child_by_field_name("body")
        self._prescan(context, body)
        self.facts.classes[qualname] = (superclass,) if superclass else ()
        if context.is_model:
            self.facts.models.append(
                ModelClass(qualname, (superclass,) if superclass else (), self.loc(node))
            )
        outer_blocks, self.blocks = self.blocks, BlockContext()
        outer_methods, self.methods = self.methods, []
        self.classes.append(context)
        for recognizer in self.recognizers:
            recognizer.class_start(context)
        if body is not None:
            self._body(body)
        for recognizer in self.recognizers:
            recognizer.class_end(context)
        self.classes.pop()
        self.blocks, self.methods = outer_blocks, outer_methods
        del self.namespace[-len(parts) :]

    def _prescan(self, context: ClassContext, body: Any | None) -> None:
        """Callback declarations and mixins of a class body, before its methods are
        walked (callbacks may be declared after the methods they name)."""
        superclass = context.superclass or ""
        path = self.facts.path.replace("\\", "/")
        context.is_model = superclass in MODEL_BASES or (
            "/models/" in f"/{path}" and bool(superclass) and not superclass.endswith("Controller")
        )
        context.is_controller = bool(CONTROLLER_BASES.search(superclass)) and (
            "controllers/" in path or superclass.endswith("Controller")
        )
        if body is None:
            return
        for child in body.named_children:
            if child.type == "identifier" and child.text == b"private":
                continue
            if child.type == "method":
                context.method_nodes[identifier(child.child_by_field_name("name")) or ""] = child
                self._ivar_records(context, child)
                client = _client_method(child)
                if client is not None:
                    context.http_methods[identifier(child.child_by_field_name("name")) or ""] = (
                        client
                    )
                continue
            if child.type != "call":
                continue
            receiver, method, args, block = call_parts(child)
            if receiver is not None or method is None:
                continue
            positional, keywords = arguments(args)
            if method in ("include", "extend", "prepend"):
                context.includes.extend(p for p in map(constant_path, positional) if p)
                if any(constant_path(p) == "HTTParty" for p in positional):
                    context.http_client = True
            elif method == "default_timeout":
                context.http_timeout = True
            kind = _callback_kind(method, keywords)
            if kind is None or block is not None:
                continue
            for argument in positional:
                if argument.type == "simple_symbol":
                    name = (identifier(argument) or ":").lstrip(":")
                    context.callbacks[name] = kind
                    known = context.callback_names.get(name)
                    # after_save :publish and after_destroy :publish: "after_save/after_destroy"
                    context.callback_names[name] = f"{known}/{method}" if known else method

    def _ivar_records(self, context: ClassContext, method: Any) -> None:
        """``@order = Order.find(params[:id])`` anywhere in ``method``: ``@order`` holds an
        Order record in the class's other methods too."""
        stack = [method]
        while stack:
            node = stack.pop()
            if node.type == "assignment":
                left = node.child_by_field_name("left")
                right = node.child_by_field_name("right")
                if left is not None and right is not None and left.type == "instance_variable":
                    kind, reason = _classify(self, right, 0)
                    if kind == "record":
                        context.ivar_records.setdefault(identifier(left) or "", (kind, reason))
            stack.extend(node.named_children)

    def _singleton_class(self, node: Any) -> None:
        body = node.child_by_field_name("body")
        if body is not None:
            self._body(body)

    def _method(self, node: Any) -> None:
        singleton = node.type == "singleton_method"
        name = identifier(node.child_by_field_name("name")) or "?"
        context = self.class_context
        owner = context.qualname if context else (".".join(self.namespace) or None)
        qualname = f"{owner}.{name}" if owner else name
        facts = FunctionFacts(
            qualname=qualname,
            name=name,
            loc=self.loc(node.child_by_field_name("name") or node),
            params=_params(self, node.child_by_field_name("parameters")),
            class_qualname=context.qualname if context else None,
            class_bases=(context.superclass,) if context and context.superclass else (),
        )
        if context is not None and context.is_controller and not singleton:
            if not _after_private(context.node, node):
                facts.view = "rails"
        callback = context.callbacks.get(name) if context and not singleton else None
        callback_name = context.callback_names.get(name) if callback else None
        scope = MethodContext(facts, node, singleton, callback, callback_name)
        scope.names.update(p.name for p in facts.params)
        outer_blocks, self.blocks = self.blocks, BlockContext()
        outer_loops, self.loops = self.loops, []
        outer_conditions, self.conditions = self.conditions, []
        self.methods.append(scope)
        body = node.child_by_field_name("body")
        if body is not None:
            self._body(body)
        self.methods.pop()
        self.blocks, self.loops, self.conditions = outer_blocks, outer_loops, outer_conditions
        for call, _library in scope.http_pending:
            has_timeout = (
                call.has_timeout or scope.timeout_set or bool(context and context.http_timeout)
            )
            facts.http_calls.append(HttpCall(call.loc, call.func, has_timeout, call.result_used))
        self._defined.add(qualname)
        self.facts.functions[qualname] = facts

    # -- calls --------------------------------------------------------------------------

    def _call(self, node: Any) -> None:
        receiver, method, args, block = call_parts(node)
        if method is None:
            self._body(node)
            return
        self.order += 1
        scope = self.method
        if scope is not None:
            self._effects(scope, node, receiver, method, args)
            if block is None and args is not None:
                self._lookup(scope, node, receiver, method)
        elif receiver is None and method in ("has_many", "has_one") and self.classes:
            self._dependent_deletion(args)
        for recognizer in self.recognizers:
            recognizer.call(node, receiver, method, args, block)
        if receiver is not None:
            self._visit(receiver)
        if args is not None:
            self._body(args)
        if block is not None:
            self._block(node, receiver, method, args, block)

    def _dependent_deletion(self, args: Any) -> None:
        """``has_many :entries, dependent: :destroy`` (or ``:delete_all``,
        ``:destroy_async``): an Entry's row goes when its owner's does."""
        positional, keywords = arguments(args)
        values = {key: value for key, value, _ in keywords}
        dependent = values.get("dependent")
        if dependent is None or self.text(dependent).lstrip(":") not in _DEPENDENT_DELETES:
            return
        named = values.get("class_name")
        if named is not None:
            model = self.text(named).strip("'\":")
        elif positional:
            model = _camelize(self.text(positional[0]).lstrip(":"))
        else:
            return
        self.facts.deleted_models.append(model.replace("::", ".").split(".")[-1])

    def _note_deletion(self, scope: MethodContext, root: str | None, receiver: Any) -> None:
        """``Feed.where(...).destroy_all``, ``feed.destroy`` (a record of a known model),
        a model's own ``destroy`` of itself."""
        model = root if root is not None and root[:1].isupper() else None
        if receiver is not None and receiver.type in ("identifier", "instance_variable"):
            name = identifier(receiver) or ""
            model = scope.record_models.get(name) or scope.relations.get(name) or model
            if model is None:
                model = _camelize(name.lstrip("@"))  # ``feed.destroy``: a Feed, most likely
        elif receiver is None or receiver.type == "self":
            context = self.class_context
            model = context.qualname if context is not None else model
        if model:
            self.facts.deleted_models.append(model.replace("::", ".").split(".")[-1])

    def _lookup(self, scope: MethodContext, node: Any, receiver: Any, method: str) -> None:
        """``Report.find(id)``, ``User.find_by!(...)``: ActiveRecord raises RecordNotFound
        when the row is gone. Handled when the method rescues RecordNotFound or rescues
        everything without raising again."""
        if method not in _RAISING_FINDS:
            return
        root, _ = _chain(receiver)
        if root is None or not root[:1].isupper():
            return
        if _HANDLES_NOT_FOUND.search(self.text(scope.node, 20_000)):
            return
        scope.facts.lookups.append(
            Lookup(
                self.loc(node),
                f"{root.replace('.', '::')}.{method}",
                "ActiveRecord::RecordNotFound",
                root.split(".")[-1],
            )
        )

    def _bare_call(self, node: Any) -> None:
        """An identifier that may be a call without arguments (``retry`` is its own node)."""
        scope = self.method
        if scope is None or self.classes == []:
            return
        name = identifier(node) or ""
        if name in scope.names or not name or name[0].isupper():
            return
        context = self.class_context
        if context is not None and name not in ("raise", "private", "protected", "public"):
            self._add_call(scope.facts, f"{context.qualname}.{name}", node)

    def _block(self, node: Any, receiver: Any, method: str, args: Any, block: Any) -> None:
        outer = self.blocks
        inner = BlockContext(outer.transaction, outer.callback, outer.deferred, outer.construct)
        loop = None
        scope = self.method
        if method in TRANSACTION_CALLS:
            inner.transaction += 1
            inner.construct = method
        elif method in DEFERRING_CALLS and scope is not None:
            inner.deferred += 1
            inner.transaction = 0
        elif scope is None and self.class_context is not None and receiver is None:
            kind = _callback_kind(method, arguments(args)[1])
            if kind is not None:
                inner.callback = kind
                inner.construct = method
                if kind == "commit":
                    inner.deferred += 1
        params = block.child_by_field_name("parameters")
        if scope is not None and params is not None:
            scope.names.update(
                identifier(p) or "" for p in params.named_children if p.type == "identifier"
            )
        if method in LOOP_METHODS or method == "loop":
            source = receiver if receiver is not None else node
            loop = (self.text(source, 60), node, _unbounded_query(receiver, method))
            if scope is not None:
                self._bind_block_params(scope, receiver, method, block)
        self.blocks = inner
        if loop is not None:
            self.loops.append(loop)
        self._body(block)
        if loop is not None:
            self.loops.pop()
        self.blocks = outer

    def _bind_block_params(
        self, scope: MethodContext, receiver: Any, method: str, block: Any
    ) -> None:
        """``User.find_each do |user|``: ``user`` is a record."""
        params = block.child_by_field_name("parameters")
        if params is None or receiver is None or method in ("find_in_batches", "in_batches"):
            return
        model = _relation_model(receiver, scope)
        if model is None and method == "find_each":
            model = constant_path(receiver)
        if model is None:
            return
        for param in params.named_children:
            if param.type == "identifier":
                short = model.rpartition(".")[2] or "model"
                reason = f"{_a(short)} record (from iterating {self.text(receiver, 40)})"
                scope.locals[identifier(param) or ""] = ("record", reason)
                break

    def _effects(
        self, scope: MethodContext, node: Any, receiver: Any, method: str, args: Any
    ) -> None:
        facts = scope.facts
        root, chain = _chain(receiver)
        positional, keywords = arguments(args)
        keyword_names = {k for k, _, _ in keywords}
        self._record_call(facts, root, chain, receiver, method, node)
        if method in _DELETES and not (positional and method in _RECORD_DELETES):
            # ``feed.delete(:tags)`` is a Hash's; a record's delete/destroy takes nothing.
            self._note_deletion(scope, root, receiver)
        if self._http(scope, node, root, chain, receiver, method, keyword_names, positional):
            return
        order = self.order
        guard = self.conditions[-1] if self.conditions else None
        if method in lib.MAIL_DELIVERIES or (
            method in lib.SYNC_MAIL_DELIVERIES and (root or "").endswith("Mailer")
        ):
            label = f"{_label(root, chain)}.{method}"
            facts.side_effects.append(
                SideEffect("send", self.loc(node), label, order, False, guard)
            )
            if method in lib.SYNC_MAIL_DELIVERIES:
                facts.slow_calls.append(SlowCall("email", self.loc(node), label))
            return
        if root in lib.STRIPE_MONEY and not chain and method in lib.STRIPE_MONEY_METHODS:
            has_key = "idempotency_key" in keyword_names or any(
                b"idempotency_key" in p.text for p in positional
            )
            label = f"{root.replace('.', '::')}.{method}"
            facts.side_effects.append(
                SideEffect("charge", self.loc(node), label, order, has_key, guard)
            )
            return
        if method in lib.COUNTER_METHODS:
            label = f"{self.text(receiver, 40)}.{method}" if receiver is not None else method
            facts.side_effects.append(
                SideEffect("counter", self.loc(node), label, order, False, guard)
            )
            return
        guard_kind = _guard_kind(method, chain, keyword_names)
        if guard_kind is not None:
            facts.guards.append(Guard(guard_kind, order, self.loc(node)))
        lock_kind = _lock_kind(method, keyword_names, positional)
        if lock_kind is not None:
            facts.guards.append(Guard(lock_kind, order, self.loc(node)))

    def _record_call(
        self,
        facts: FunctionFacts,
        root: str | None,
        chain: list[str],
        receiver: Any,
        method: str,
        node: Any,
    ) -> None:
        context = self.class_context
        if receiver is None or receiver.type == "self":
            if context is not None and not method[:1].isupper():
                self._add_call(facts, f"{context.qualname}.{method}", node)
            return
        if (root is not None and not chain) or (root is not None and chain == ["new"]):
            self._add_call(facts, f"{root}.{method}", node)
        elif receiver.type in ("identifier", "instance_variable") and self.method is not None:
            model = self.method.record_models.get(identifier(receiver) or "")
            if model is not None:
                self._add_call(facts, f"{model}.{method}", node)

    def _add_call(self, facts: FunctionFacts, callee: str, node: Any) -> None:
        """A call of a method the project may define: kept for call summaries, so a job's
        helpers count as the job's body (``CrmClient.new.push(account)``), and a helper
        called in a transaction enqueues in it (JOB-01)."""
        facts.calls.append(callee)
        atomic = self.atomic_state()
        facts.call_sites.append(
            CallSite(
                callee,
                self.loc(node),
                self.order,
                atomic=atomic,
                contexts=(self.atomic_construct() or "",) if atomic else (),
                deferred=self.deferred(),
                discarded=not _result_used(node),
                in_handler=self.rescue_depth > 0,
            )
        )

    def _http(
        self,
        scope: MethodContext,
        node: Any,
        root: str | None,
        chain: list[str],
        receiver: Any,
        method: str,
        keywords: set[str],
        positional: list[Any],
    ) -> bool:
        timeout_here = (
            bool(keywords & lib.TIMEOUT_WORDS)
            or any(w in lib.TIMEOUT_WORDS for w in chain)
            or any(_mentions_timeout(p) for p in positional)
        )
        library = None
        if chain and root in lib.HTTP_CONSTRUCTORS and chain[0] in lib.HTTP_CONSTRUCTORS[root]:
            # ``Faraday.new(request: { timeout: 5 }).post(...)``: built with a timeout.
            built = _http_constructor(receiver)
            timeout_here = timeout_here or (built is not None and built[1])
        if root in lib.HTTP_ROOTS and method in lib.HTTP_ROOTS[root]:
            library = root
        elif root in lib.HTTP_CONSTRUCTORS and chain and chain[0] in lib.HTTP_CONSTRUCTORS[root]:
            library = root if method in lib.HTTP_CLIENT_METHODS else None
        elif (client := self._client_of(receiver)) is not None and (
            method in lib.HTTP_CLIENT_METHODS
        ):
            library, built_with_timeout = client
            timeout_here = timeout_here or built_with_timeout
        elif receiver is not None and receiver.type in ("identifier", "instance_variable"):
            binding = scope.http_bindings.get(identifier(receiver) or "")
            if binding is not None and method in lib.HTTP_CLIENT_METHODS:
                library, built_with_timeout = binding
                timeout_here = timeout_here or built_with_timeout
        elif receiver is None or (receiver.type == "self"):
            context = self.class_context
            if context is not None and context.http_client and method in lib.HTTP_VERBS:
                library = "HTTParty"
        if method.endswith("timeout="):
            scope.timeout_set = True
        if library is None:
            return False
        label = f"{library.replace('.', '::')}.{method}"
        call = HttpCall(self.loc(node), label, timeout_here, _result_used(node))
        scope.http_pending.append((call, library))
        return True

    def _client_of(self, receiver: Any | None) -> tuple[str, bool] | None:
        """The HTTP client a method of the class returns, called by name (``client.get``,
        ``self.connection.post``)."""
        context = self.class_context
        if context is None or receiver is None or not context.http_methods:
            return None
        if receiver.type == "identifier":
            name = identifier(receiver) or ""
            scope = self.method
            if scope is not None and name in scope.names:
                return None  # a local variable of that name
            return context.http_methods.get(name)
        if receiver.type == "call":
            inner, method, args, _ = call_parts(receiver)
            if args is None and method and (inner is None or inner.type == "self"):
                return context.http_methods.get(method)
        return None

    # -- statements ---------------------------------------------------------------------

    def _assignment(self, node: Any) -> None:
        left = node.child_by_field_name("left")
        right = node.child_by_field_name("right")
        scope = self.method
        if left is not None and right is not None:
            for recognizer in self.recognizers:
                recognizer.assignment(node, left, right)
        if scope is not None and left is not None and right is not None:
            name = identifier(left) if left.type in ("identifier", "instance_variable") else None
            if left.type == "call":  # conn.options.timeout = 5, http.read_timeout = 10
                method = identifier(left.child_by_field_name("method")) or ""
                if method in lib.TIMEOUT_WORDS:
                    scope.timeout_set = True
            if name:
                scope.names.add(name)
                kind, reason = _classify(self, right, 0)
                if kind != "unknown":
                    scope.locals[name] = (kind, reason)
                else:
                    scope.locals.pop(name, None)
                root = _chain(right)[0] if right.type == "call" else None
                if kind == "record" and root and root[:1].isupper():
                    scope.record_models[name] = root  # report = Report.lock.find_by(...)
                else:
                    scope.record_models.pop(name, None)
                model = _relation_model(right, scope) if right.type == "call" else None
                if model:
                    scope.relations[name] = model
                else:
                    scope.relations.pop(name, None)
                library = _http_constructor(right)
                if library is not None:
                    scope.http_bindings[name] = library
        self._body(node)

    def _conditional(self, node: Any) -> None:
        condition = node.child_by_field_name("condition")
        scope = self.method
        text = self.text(condition, 60) if condition is not None else ""
        if (
            scope is not None
            and condition is not None
            and _leaves(node)
            and (
                _is_state_test(text)
                or self._tests_record_state(condition)
                or self._tests_state_through_methods(condition)
            )
        ):
            scope.facts.guards.append(Guard("state-check", self.order, self.loc(condition)))
        if condition is not None:
            self._visit(condition)
        self.conditions.append(text)
        for child in node.named_children:
            if child is not condition and child != condition:
                self._visit(child)
        self.conditions.pop()

    def _tests_record_state(self, condition: Any) -> bool:
        """``return unless reminder.reminder_due?``: a predicate of a record the job
        loaded, which its model answers from the record's state (whitehall's review
        reminder checks ``reminder_sent_at``)."""
        scope = self.method
        if scope is None:
            return False
        stack = [condition]
        while stack:
            node = stack.pop()
            if node.type == "call":
                receiver, method, _, _ = call_parts(node)
                if (
                    method
                    and method.endswith("?")
                    and receiver is not None
                    and receiver.type in ("identifier", "instance_variable")
                    and (
                        scope.locals.get(identifier(receiver) or "", ("",))[0] == "record"
                        or (identifier(receiver) or "") in {p.name for p in scope.facts.params}
                    )
                ):
                    return True
            stack.extend(node.named_children)
        return False

    def _tests_state_through_methods(self, condition: Any) -> bool:
        """``return if skip?(user)`` where ``skip?`` (a method of the class, or one it
        calls, two calls deep) tests the state a run leaves (``last_sent_at``)."""
        context = self.class_context
        if context is None or not context.method_nodes:
            return False
        pending = [(name, 0) for name in _called_names(condition)]
        seen: set[str] = set()
        while pending:
            name, depth = pending.pop()
            method = context.method_nodes.get(name)
            if method is None or name in seen or depth > 2:
                continue
            seen.add(name)
            body = method.child_by_field_name("body")
            if body is None:
                continue
            if _is_state_test(self.text(body, 2000)):
                return True
            pending.extend((called, depth + 1) for called in _called_names(body))
        return False

    def _loop_statement(self, node: Any) -> None:
        condition = node.child_by_field_name("condition") or node.child_by_field_name("value")
        self.loops.append(
            (self.text(condition, 60) if condition is not None else "loop", node, False)
        )
        self._body(node)
        self.loops.pop()

    def _rescue(self, node: Any) -> None:
        scope = self.method
        variable = node.child_by_field_name("variable")
        if scope is not None and variable is not None:
            scope.names.update(identifier(c) or "" for c in variable.named_children)
        value = _gives_a_value(scope, node) if scope is not None else None
        if scope is not None and self.rescue_depth == 0 and value != "local":
            handler = _handler(self, node)
            if handler is not None:
                swallows, exits, catches = handler
                if exits and any("RecordNotUnique" in c for c in catches):
                    scope.facts.guards.append(Guard("conflict", self.order, self.loc(node)))
                succeeds = not swallows and _lets_the_job_succeed(self, node, catches)
                expected = any(map(lib.is_expected, catches)) and not any(
                    c in lib.CATCH_ALL for c in catches
                )
                if (swallows or succeeds) and not expected and not self._per_item():
                    start = self.loc(node)
                    scope.facts.handlers.append(
                        ExceptHandler(
                            loc=Loc(start.line, start.column, start.line, start.column + 6),
                            catches=tuple(catches),
                            catches_all=any(c in lib.CATCH_ALL for c in catches),
                            reraises=False,
                            retries=False,
                            records=succeeds and _LOGS.search(self.text(node, 4000)) is not None,
                            exits=exits or value == "returned",
                            inert=swallows,
                        )
                    )
        self.rescue_depth += 1
        self._body(node)
        self.rescue_depth -= 1

    def _per_item(self) -> bool:
        """Inside a block of an iteration (``each``, ``each_with_object``, ``map``): a
        rescue there skips one item and goes on with the others (Python's rule: a
        handler in a loop over items)."""
        return bool(self.loops)

    def _rescue_modifier(self, node: Any) -> None:
        """``value rescue nil``: rescues StandardError; swallows when the fallback is a
        constant."""
        scope = self.method
        fallback = node.child_by_field_name("handler")
        in_entry = scope is not None and scope.facts.name in _JOB_ENTRIES
        used = node.parent is not None and node.parent.type != "body_statement"
        if (
            scope is not None
            and in_entry
            and not used
            and fallback is not None
            and fallback.type in ("nil", "false", "true")
        ):
            start = self.loc(node)
            body = node.child_by_field_name("body")
            if body is not None and body.type == "call":
                scope.facts.handlers.append(
                    ExceptHandler(
                        loc=start,
                        catches=("StandardError",),
                        catches_all=True,
                        reraises=False,
                        retries=False,
                        records=False,
                        exits=False,
                    )
                )
        self._body(node)


_DISPATCH = {
    "module": RubyWalker._module,
    "class": RubyWalker._class,
    "singleton_class": RubyWalker._singleton_class,
    "method": RubyWalker._method,
    "singleton_method": RubyWalker._method,
    "call": RubyWalker._call,
    "assignment": RubyWalker._assignment,
    "operator_assignment": RubyWalker._assignment,
    "if": RubyWalker._conditional,
    "unless": RubyWalker._conditional,
    "if_modifier": RubyWalker._conditional,
    "unless_modifier": RubyWalker._conditional,
    "while": RubyWalker._loop_statement,
    "until": RubyWalker._loop_statement,
    "for": RubyWalker._loop_statement,
    "while_modifier": RubyWalker._loop_statement,
    "until_modifier": RubyWalker._loop_statement,
    "rescue": RubyWalker._rescue,
    "rescue_modifier": RubyWalker._rescue_modifier,
    "identifier": RubyWalker._bare_call,
}


# -- helpers ------------------------------------------------------------------------------


def _callback_kind(method: str, keywords: list[tuple[str, Any, Any]]) -> str | None:
    if method in COMMIT_CALLBACKS:
        return "commit"
    if _IN_TRANSACTION_CALLBACK.match(method):
        return "transaction"
    return None


def _params(walker: RubyWalker, node: Any | None) -> tuple[Param, ...]:
    if node is None:
        return ()
    params = []
    for child in node.named_children:
        name_node = child if child.type == "identifier" else child.child_by_field_name("name")
        if name_node is None:
            continue
        params.append(Param(identifier(name_node) or "?", None, walker.loc(name_node)))
    return tuple(params)


def _after_private(class_node: Any, method_node: Any) -> bool:
    """Whether a bare ``private``/``protected`` precedes the method in the class body."""
    body = class_node.child_by_field_name("body")
    if body is None:
        return False
    for child in body.named_children:
        if child.start_byte >= method_node.start_byte:
            return False
        if child.type == "identifier" and child.text in (b"private", b"protected"):
            return True
    return False


# ActiveRecord calls that delete rows (persistence.rb, relation.rb; discard's soft delete).
_DELETES = frozenset(
    {"destroy", "destroy!", "delete", "destroy_all", "delete_all", "destroy_by", "delete_by"}
    | {"really_destroy!", "discard", "destroy_async"}
)


_RECORD_DELETES = frozenset({"destroy", "destroy!", "delete", "really_destroy!", "discard"})
_DEPENDENT_DELETES = frozenset({"destroy", "delete_all", "destroy_async", "delete"})


def _camelize(name: str) -> str:
    """``feed_entry`` -> ``FeedEntry``; a plural's "s" dropped (``feeds`` -> ``Feed``)."""
    if name.endswith("ies"):
        base = name[:-3] + "y"
    elif name.endswith(("ches", "shes", "sses", "xes")):
        base = name[:-2]
    else:
        base = name[:-1] if name.endswith("s") and not name.endswith("ss") else name
    return "".join(part[:1].upper() + part[1:] for part in base.split("_") if part)


# ActiveRecord finders that raise RecordNotFound when no row matches (finder_methods.rb).
_RAISING_FINDS = frozenset({"find", "find_by!", "find_sole_by", "sole", "take!", "first!"})
# A rescue of RecordNotFound, or a catch-all rescue whose body does not raise again.
_HANDLES_NOT_FOUND = re.compile(
    r"RecordNotFound|rescue(?:\s*(?:=>\s*\w+)?\s*\n|\s+(?:StandardError|Exception)\b)"
    r"(?![\s\S]*\braise\b)"
)


def _chain(receiver: Any | None) -> tuple[str | None, list[str]]:
    """The constant a call chain starts from, and the methods called on it on the way
    (``HTTP.timeout(5).headers(x)`` -> ("HTTP", ["timeout", "headers"]))."""
    methods: list[str] = []
    current = receiver
    while current is not None and current.type == "call":
        name = identifier(current.child_by_field_name("method"))
        if name:
            methods.append(name)
        current = current.child_by_field_name("receiver")
    if current is None:
        return None, []
    methods.reverse()
    return constant_path(current), methods


def _label(root: str | None, chain: list[str]) -> str:
    head = root.replace(".", "::") if root else "mail"
    return ".".join([head, *chain]) if chain else head


def _unbounded_query(receiver: Any | None, method: str) -> bool:
    """A query whose size nothing bounds, as the Python side judges one: a whole table
    (``User.all.each``, ``User.order(:id).each``), or a query its author reads in batches
    (``User.where(...).find_each``: ``find_each``/``find_in_batches``/``in_batches``
    expect many rows). A filtered query iterated with ``each`` is not, nor one with
    ``limit``/``first(n)``/pagination."""
    root, chain = _chain(receiver)
    if method in BATCH_METHODS:
        chain = [*chain, method]
    if root is None or not chain:
        return False
    if any(m in BOUNDING_METHODS for m in chain) or _scoped_to_a_parent(receiver):
        return False
    streamed = any(m in BATCH_METHODS for m in chain)
    narrowed = any(m not in WHOLE_TABLE_METHODS for m in chain)
    return streamed or not narrowed


def _scoped_to_a_parent(node: Any | None) -> bool:
    """``Attachment.where(attachable: edition.attachables)``, ``where(user_id: user.id)``:
    a query keyed on a record or value the code holds returns that parent's rows, not a
    table (a literal filter, ``where(state: "pending")``, may still match every row)."""
    while node is not None and node.type == "call":
        receiver, method, args, _ = call_parts(node)
        if method == "where" and args is not None:
            for _key, value, _pair in arguments(args)[1]:
                if _held_value(value):
                    return True
        node = receiver
    return False


def _held_value(node: Any) -> bool:
    """A value read from a variable (``user``, ``@order``, ``edition.attachables``)."""
    while node is not None and node.type == "call":
        node = node.child_by_field_name("receiver")
    return node is not None and node.type in ("identifier", "instance_variable")


def _relation_model(receiver: Any, scope: MethodContext) -> str | None:
    """The model a relation iterates (``User.where(...)`` -> "User"); "" for a local bound
    to a relation; None when the receiver is not a relation."""
    root, chain = _chain(receiver)
    relation = QUERY_METHODS | {"limit", "page", "per", "offset"}
    if root is not None and chain and chain[-1] in relation and all(m in relation for m in chain):
        return root
    if receiver.type in ("identifier", "instance_variable"):
        return scope.relations.get(identifier(receiver) or "")
    return None


def _a(word: str) -> str:
    """``word`` with its indefinite article: "an Order", "a User"."""
    return f"{'an' if word[:1].lower() in 'aeiou' else 'a'} {word}"


def _lock_kind(method: str, keywords: set[str], positional: list[Any]) -> str | None:
    """A lock that keeps a second run out (SCL-38): with_advisory_lock (the
    with_advisory_lock gem), an SQL advisory lock, a Redis ``SET NX`` or
    ``Rails.cache.write(unless_exist: true)``, a method named for taking a lock
    (``lock_manager.lock``, ``run_with_advisory_lock``). A row lock (``with_lock``)
    waits for the row and is read as a guard by :func:`_guard_kind`."""
    if method in lib.ADVISORY_LOCKS or any(
        b"advisory_lock" in p.text for p in positional if p.type in ("string", "heredoc_body")
    ):
        return "advisory-lock"
    if (method == "set" and "nx" in keywords) or (method == "write" and "unless_exist" in keywords):
        return "lock"
    if method not in lib.ROW_LOCKS and takes_lock_by_name(method.rstrip("!?")):
        return "lock"
    return None


def _guard_kind(method: str, chain: list[str], keywords: set[str]) -> str | None:
    if method in lib.GET_OR_CREATE:
        return "get_or_create"
    if method in lib.ROW_LOCKS or (method in ("find", "find_by") and "lock" in chain):
        return "select_for_update"
    if method in lib.CONFLICT_METHODS:
        return "conflict"
    if method == "set" and "nx" in keywords:
        return "cache-add"
    if method == "write" and "unless_exist" in keywords:
        return "cache-add"
    return None


def _client_method(node: Any) -> tuple[str, bool] | None:
    """(library, built with a timeout) when a method returns a new HTTP client: its last
    statement builds one, or memoizes it (``@client ||= Faraday.new(...) do ... end``)."""
    body = node.child_by_field_name("body")
    statements = [
        c for c in (body.named_children if body is not None else ()) if c.type != "comment"
    ]
    if not statements:
        return None
    last = statements[-1]
    if last.type in ("operator_assignment", "assignment"):
        last = last.child_by_field_name("right") or last
    found = _http_constructor(last)
    if found is None:
        return None
    library, timeout = found
    # A timeout set on the client in the method's body (``conn.options.timeout = 5``).
    data = node.text or b""
    return library, timeout or any(word.encode() in data for word in lib.TIMEOUT_WORDS)


def _mentions_timeout(node: Any) -> bool:
    """A hash argument with a timeout key (``request: { timeout: 5 }``)."""
    if node.type != "hash":
        return False
    data = node.text or b""
    return any(word.encode() in data for word in lib.TIMEOUT_WORDS)


def _http_constructor(node: Any) -> tuple[str, bool] | None:
    """(library, built with a timeout) when ``node`` builds an HTTP client object."""
    if node.type != "call":
        return None
    receiver, method, _args, _block = call_parts(node)
    root, chain = _chain(receiver)
    if root is None or method is None:
        return None
    first = chain[0] if chain else method
    if root not in lib.HTTP_CONSTRUCTORS or first not in lib.HTTP_CONSTRUCTORS[root]:
        return None
    data = node.text or b""
    return root, any(word.encode() in data for word in lib.TIMEOUT_WORDS)


def _result_used(node: Any) -> bool:
    parent = node.parent
    return parent is not None and parent.type not in _STATEMENT_PARENTS


def _leaves(node: Any) -> bool:
    """An ``if``/``unless`` (or modifier) whose branch returns or skips: an early exit."""
    if node.type in ("if_modifier", "unless_modifier"):
        body = node.child_by_field_name("body")
        return body is not None and body.type in ("return", "next", "break")
    consequence = node.child_by_field_name("consequence")
    if consequence is None:
        return False
    statements = [c for c in consequence.named_children if c.type != "comment"]
    return bool(statements) and statements[-1].type in ("return", "next", "break")


def _is_state_test(text: str) -> bool:
    from jobcheck.extract.effects import STATE_TOKENS

    words = {w.lower() for w in _WORDS.findall(text)}
    return not STATE_TOKENS.isdisjoint(words)


def _called_names(node: Any) -> Iterator[str]:
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type == "call":
            name = identifier(current.child_by_field_name("method"))
            if name:
                yield name
        elif current.type == "identifier":
            yield identifier(current) or ""
        stack.extend(current.named_children)


def _handler(walker: RubyWalker, node: Any) -> tuple[bool, bool, list[str]] | None:
    """(swallows, exits, caught exception names) of a ``rescue`` clause."""
    exceptions = node.child_by_field_name("exceptions")
    catches = []
    if exceptions is not None:
        catches = [walker.text(c, 60) for c in exceptions.named_children]
    if not catches:
        catches = ["StandardError"]
    body = node.child_by_field_name("body")
    statements = [c for c in body.named_children if c.type != "comment"] if body else []
    # tree-sitter puts a comment between ``rescue X`` and its body beside the body.
    explained = any(c.type == "comment" for c in node.named_children) or (
        body is not None and any(c.type == "comment" for c in body.named_children)
    )
    if explained and not any(c in lib.CATCH_ALL for c in catches):
        # ``rescue GdsApi::HTTPNotFound  # already deleted: nothing to do``: the author
        # names the errors and says why they end the job (whitehall's discard-draft job).
        return False, False, catches
    exits = False
    for statement in statements:
        if statement.type in ("return", "next", "break"):
            exits = True
            value = statement.named_children
            if value and value[0].type not in ("nil", "true", "false", "integer", "argument_list"):
                return False, exits, catches
            if value and value[0].type == "argument_list":
                inner = value[0].named_children
                if inner and inner[0].type not in ("nil", "true", "false", "integer"):
                    return False, exits, catches
            continue
        if statement.type in ("nil", "true", "false"):
            continue
        if statement.type == "call" and _inert(statement):
            continue
        return False, exits, catches
    return True, exits, catches


# A rescue that hands the error on or keeps a failed state where the product shows it.
_RERAISES = re.compile(r"\b(?:raise|retry|retry_job|fail)\b")
_STORES_STATE = re.compile(r"\b(?:status|state|error|failed|failure)\w*\s*:|[\"':]failed\b")
_FALLBACK = re.compile(r"^\s*@?[a-z_]\w*\s*=(?![=~>])", re.MULTILINE)
_LOGS = re.compile(
    r"\b(?:logger|Rails\.logger|Sentry|Honeybadger|Bugsnag|Rollbar|Appsignal|Airbrake)\b|"
    r"\.report\(|\b\w*Error\w*\.notify\b|\bnotify_error\b"
)


# The methods a job runs as its work: a rescue of theirs ends the job.
_JOB_ENTRIES = frozenset({"perform", "execute"})


def _gives_a_value(scope: MethodContext, node: Any) -> str | None:
    """Where a rescue's value goes: "returned" for a helper method's own ``rescue`` (its
    value is the method's return: ``def host; URI(url).host; rescue; url; end``), "local"
    for a ``begin ... rescue ... end`` assigned to a variable, None for a rescue whose
    value nobody takes (the job's own ``perform``). A caller that uses the value gets a
    fallback and decides (Python's rule: a helper returning a fallback)."""
    parent = node.parent
    grand = parent.parent if parent is not None else None
    if parent is None or grand is None:
        return None
    if parent.type == "body_statement" and grand.type in ("method", "singleton_method"):
        return "returned" if scope.facts.name not in _JOB_ENTRIES else None
    if parent.type == "begin" and grand.type in ("assignment", "operator_assignment"):
        return "local"
    return None


def _lets_the_job_succeed(walker: RubyWalker, node: Any, catches: list[str]) -> bool:
    """A method's own ``rescue => e`` (catching StandardError) that logs or resets a flag
    and ends the method, neither re-raising, retrying, keeping a failed state nor giving
    a fallback value: Sidekiq sees a success and never retries the job (Python's rule:
    jobcheck/extract/handlers.py ``lets_the_job_succeed``)."""
    if not any(c in lib.CATCH_ALL for c in catches):
        return False
    parent = node.parent
    if parent is None or parent.type != "body_statement":
        return False  # a begin/rescue inside the method: work may follow it
    if parent.parent is None or parent.parent.type not in ("method", "singleton_method"):
        return False
    body = node.child_by_field_name("body")
    text = walker.text(body, 4000) if body is not None else ""
    if not text.strip():
        return False
    return not (_RERAISES.search(text) or _STORES_STATE.search(text) or _FALLBACK.search(text))


def _inert(node: Any) -> bool:
    """``puts e``, ``logger.debug(...)``: a call that leaves no trace anyone acts on."""
    _receiver, method, _, _ = call_parts(node)
    return method in lib.INERT_CALLS


def _classify(walker: RubyWalker, node: Any, depth: int) -> tuple[str, str]:
    kind = node.type
    if kind in ("integer", "float", "true", "false", "nil", "simple_symbol", "string"):
        if kind == "string" and any(c.type == "interpolation" for c in node.named_children):
            return "scalar", ""
        return "scalar", ""
    if kind in ("identifier", "instance_variable"):
        name = identifier(node) or ""
        scope = walker.method
        if scope is not None and name in scope.locals:
            return scope.locals[name]
        context = walker.class_context
        if kind == "instance_variable" and context is not None and name in context.ivar_records:
            return context.ivar_records[name]  # @order set by a before_action
        if name in ("params",):
            return "request", "the request parameters (params)"
        if name in COPY_METHODS and walker.class_context is not None:
            return "copy", f"a copy of the record's attributes ({name})"
        if name == "request":
            return "request", "the request object"
        if name == "id" or name.endswith(("_id", "_ids", "_uuid", "_key")):
            return "id", ""
        return "unknown", ""
    if kind == "self":
        context = walker.class_context
        if context is not None and context.is_model:
            short = context.qualname.rpartition(".")[2]
            return "record", f"the {short} record itself (self)"
        return "unknown", ""
    if kind == "call":
        receiver, method, _args, _block = call_parts(node)
        if method in ("id", "to_param", "uuid", "to_global_id", "to_gid", "to_sgid") or (
            method or ""
        ).endswith("_id"):
            return "id", ""
        if method in COPY_METHODS and _copies_a_record(walker, receiver, method):
            text = walker.text(receiver, 40) if receiver is not None else "self"
            return "copy", f"a copy of '{text}' ({method})"
        if method in COPY_METHODS and receiver is not None and receiver.type == "identifier":
            # ``order.to_json`` of a parameter: a copy when the project has an Order model
            # (the project model decides: SCL-21's "copy-of:" kinds).
            name = identifier(receiver) or ""
            model = "".join(part.capitalize() for part in name.split("_") if part)
            if model:
                return f"copy-of:{model}", f"a copy of '{name}' ({method})"
        if method in ("read", "binread") and receiver is not None:
            root, _ = _chain(receiver)
            if root in ("File", "IO") or receiver.type in ("identifier", "instance_variable"):
                return "file", "file contents (read)"
        if method in ("to_unsafe_h", "permit", "require") and receiver is not None:
            if receiver.type == "identifier" and receiver.text == b"params":
                return "request", "the request parameters (params)"
        root, chain = _chain(receiver)
        if root is not None and root not in ("File", "IO", "Time", "Date", "DateTime", "JSON"):
            if method in RECORD_METHODS and all(m in QUERY_METHODS for m in chain):
                short = root.rpartition(".")[2]
                return "record", f"{_a(short)} record ({root.replace('.', '::')}.{method})"
            if method in QUERY_METHODS and all(m in QUERY_METHODS for m in chain):
                return "queryset", f"{_a(root.rpartition('.')[2])} relation ({method})"
        if method in ("to_s", "to_i", "to_f", "iso8601", "to_sym", "count", "size", "length"):
            return "scalar", ""
        return "unknown", ""
    if kind in ("array", "hash") and depth < 3:
        heavy = None
        for child in node.named_children:
            value = child.child_by_field_name("value") if child.type == "pair" else child
            if value is None:
                continue
            inner, reason = _classify(walker, value, depth + 1)
            if inner in ("record", "queryset", "request", "copy", "file"):
                heavy = heavy or (inner, reason)
        if heavy is not None:
            return heavy
        return "unknown", ""
    return "unknown", ""


def _copies_a_record(walker: RubyWalker, receiver: Any | None, method: str) -> bool:
    """``attributes`` and ``serializable_hash`` are ActiveRecord's own; ``to_json`` and
    ``as_json`` copy a record only when the receiver is known to be one (``as_json`` of a
    hash or a time is how code makes an argument JSON-native)."""
    if method in ("attributes", "serializable_hash"):
        return True
    if receiver is None:
        context = walker.class_context
        return context is not None and context.is_model
    return _classify(walker, receiver, 0)[0] == "record"
