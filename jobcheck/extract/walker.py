"""One read-only pass over a module that keeps the context job checks need.

The walker tracks where each node stands (enclosing function and class, transaction
blocks, ``on_commit`` callbacks, loops, exception handlers, local variables and what they
hold) and hands functions, classes, calls and assignments to the framework recognizers
(``jobcheck/frameworks/<name>/recognizer.py``), which turn them into
facts.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import ClassVar

from jobcheck.extract import bodies, payload
from jobcheck.extract.decorator_factories import factory_value, wrapping_callees
from jobcheck.facts import (
    MANAGEMENT_COMMAND,
    NOWHERE,
    Argument,
    CallSite,
    Decorator,
    EnqueueSite,
    FileFacts,
    FunctionFacts,
    Loc,
    Param,
    TaskDef,
)
from jobcheck.facts.values import TYPE_ALIAS, CallV, Const, DictV, Ref, Value, is_join
from jobcheck.syntax import tree as cst
from jobcheck.syntax.evaluate import MAX_EXCERPT, Evaluator, excerpt
from jobcheck.syntax.names import Names, dotted, module_of_import
from jobcheck.syntax.tree import children
from jobcheck.triggers import Trigger
from jobcheck.vocabulary.libraries import is_library

ATOMIC = frozenset(
    {
        "django.db.transaction.atomic",
        "django.db.transaction.Atomic",
    }
)
ON_COMMIT = frozenset({"django.db.transaction.on_commit"})
CONTEXT_MANAGER_DECORATORS = frozenset(
    {"contextlib.contextmanager", "contextlib.asynccontextmanager"}
)


@dataclass
class FunctionScope:
    facts: FunctionFacts
    node: cst.FunctionDef
    variables: dict[str, payload.Kind] = field(default_factory=dict)
    instances: dict[str, str] = field(default_factory=dict)
    """Local names bound to a new instance of a class that may be the project's
    (``service = AlleleRegistry(url)``): their method calls are call sites."""
    created: set[str] = field(default_factory=set)
    """Local names bound to a row made here (a constructor, ``.objects.create(...)``)."""
    values: dict[str, Value] = field(default_factory=dict)
    """Local names bound to a value the evaluator can read (``queue = LOW_QUEUE``,
    ``options = {"queue": "low"}``): an option that names them means that value."""
    dicts: dict[str, cst.BaseExpression] = field(default_factory=dict)
    """Local names bound to a dict display or ``dict(...)`` call (``params = {"rule":
    row}``): ``enqueue(job, **params)`` carries its entries."""
    atomic: str | None = None
    decorator_contexts: tuple[str, ...] = ()
    """The function's decorators that may be the project's own wrappers."""
    self_param: str | None = None
    """In a method: the parameter holding the instance (``self``)."""
    class_param: str | None = None
    """In a classmethod: the parameter holding the class (``cls``), which a subclass
    calling the method is."""
    own_instances: set[str] = field(default_factory=set)
    """Local names bound to a new object of the method's own class (``job = cls()``)."""


@dataclass
class ClassScope:
    qualname: str
    bases: tuple[str, ...]
    node: cst.ClassDef


class Recognizer:
    """Base for a framework's recognizer: override what it needs."""

    PREFILTER: ClassVar[tuple[Trigger, ...]] = ()
    """What in a file's bytes means this recognizer may find something the checks
    iterate (jobs, enqueue sites, settings...): see ``jobcheck/prefilter.py``."""

    def __init__(self, walker: Walker) -> None:
        self.walker = walker

    def function(self, node: cst.FunctionDef, facts: FunctionFacts) -> None:
        """A function definition, before its body is walked."""

    def classdef(self, node: cst.ClassDef, qualname: str, bases: tuple[str, ...]) -> None:
        """A class definition, before its body is walked."""

    def call(self, node: cst.Call, func: str | None) -> None:
        """A call; ``func`` is the callee's dotted path when it is a plain name."""

    def assign(
        self, targets: list[cst.BaseExpression], value: cst.BaseExpression, node: cst.CSTNode
    ) -> None:
        """An assignment (``targets`` are the assigned expressions)."""

    def finish(self) -> None:
        """The walk is over."""

    def function_end(self, node: cst.FunctionDef, facts: FunctionFacts) -> None:
        """A function's body has been walked; its facts are not settled yet."""

    def if_statement(self, node: cst.If) -> None:
        """An ``if`` statement, before its test and branches are walked."""

    def expression_statement(self, node: cst.Expr) -> None:
        """An expression used as a statement (its value is discarded)."""

    def aug_assign(self, node: cst.AugAssign) -> None:
        """An augmented assignment (``x.n += 1``)."""

    def except_handler(
        self, node: cst.Try | cst.TryStar, handler: cst.ExceptHandler | cst.ExceptStarHandler
    ) -> None:
        """An ``except`` clause of ``node``, before its body is walked."""

    def with_item(self, item: cst.WithItem) -> None:
        """One item of a ``with`` statement (``with X() as y``), after ``X()`` is walked."""


# Words of an ``if`` test that holds outside production only, and of one that holds in it.
DEVELOPMENT_WORDS = frozenset(
    {"test", "tests", "testing", "pytest", "debug", "dev", "development", "local", "ci"}
)
PRODUCTION_WORDS = frozenset({"production", "prod"})
_CONDITION_WORD = re.compile(r"[a-z]+")


def _positive(test: cst.BaseExpression, negated: bool) -> tuple[cst.BaseExpression, bool]:
    """``not X`` is ``X`` negated; so are ``X != "dev"`` and ``X not in (...)``."""
    while isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        test, negated = test.expression, not negated
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        operator = test.comparisons[0].operator
        if isinstance(operator, (cst.NotEqual, cst.NotIn, cst.IsNot)):
            return test, not negated
    return test, negated


# The recognizers' hooks the walker calls (``Recognizer``'s methods, which do nothing).
_HOOKS = (
    "function",
    "classdef",
    "call",
    "assign",
    "finish",
    "function_end",
    "if_statement",
    "expression_statement",
    "aug_assign",
    "except_handler",
    "with_item",
)


class Walker:
    def __init__(
        self,
        facts: FileFacts,
        module: cst.Module,
        source: str,
        is_package: bool,
    ) -> None:
        self.facts = facts
        self.module = module
        self.names = Names(facts.module, is_package)
        self.names.tree = module
        self.constants: dict[str, Value] = {}
        self.evaluate = Evaluator(module, self.names, self.constants, self._local_values)
        self._source_lines: list[str] | None = None
        self._source = source
        self._recognizers: list[Recognizer] = []
        self._hooks: dict[str, list[Callable[..., None]]] = {name: [] for name in _HOOKS}
        self.functions: list[FunctionScope] = []
        self.classes: list[ClassScope] = []
        self.loops: list[str] = []
        self.loop_nodes: list[cst.For | cst.While] = []
        """The enclosing loops of the current node, innermost last (within the function)."""
        self.handlers: list[tuple[str, ...]] = []
        self.tries: list[cst.Try | cst.TryStar] = []
        """The ``try`` statements whose body holds the current node (within the function)."""
        self.atomic_blocks = 0
        self.deferred = 0
        self._statement_call = 0
        """Id of the call an expression statement makes (its result unused)."""
        self.order = 0
        self._prefixes: list[str] = []
        self.current_site: EnqueueSite | None = None
        """The enqueue site the current call produced, for recognizers that run after
        the one that recorded it (compare its ``order`` with ``self.order``)."""
        self._dispatch: dict[type, Callable[[cst.CSTNode], None]] = {
            cst.FunctionDef: self._function,
            cst.ClassDef: self._class,
            cst.With: self._with,
            cst.For: self._for,
            cst.While: self._while,
            cst.Try: self._try,
            cst.TryStar: self._try,
            cst.Call: self._call,
            cst.Assign: self._assign,
            cst.AnnAssign: self._assign,
            cst.Import: self._import,
            cst.ImportFrom: self._import,
            cst.If: self._if,
            cst.Expr: self._expr,
            cst.AugAssign: self._aug_assign,
            cst.Yield: self._yield,
            cst.Return: self._return,
        }
        self.conditions: list[tuple[cst.BaseExpression, bool]] = []
        """Tests of the enclosing ``if`` statements, with True when inside the ``else``."""
        self.cleanup = 0
        """How many ``finally`` blocks enclose the current node."""
        self.contexts: list[str] = []
        """Project context managers (``with x():``) around the current node, in the
        current function."""

    # -- public helpers for recognizers ---------------------------------------------

    def loc(self, node: cst.CSTNode) -> Loc:
        return Loc(*node.pos)

    def qualify(self, expr: cst.BaseExpression) -> str | None:
        return self.names.qualify(expr)

    def text(self, node: cst.CSTNode) -> str:
        return excerpt(self.module, node)

    def text_at(self, loc: Loc, node: cst.CSTNode) -> str:
        """:meth:`text` of a node already placed at ``loc``, cut from the source rather
        than generated again (several times cheaper; the generated text when the
        placement is unknown)."""
        if self._source_lines is None:
            self._source_lines = self._source.splitlines()
        lines = self._source_lines
        if loc.line < 1 or loc.end_line > len(lines) or loc == Loc(1, 1, 1, 1):
            return self.text(node)
        if loc.line == loc.end_line:
            text = lines[loc.line - 1][loc.column - 1 : loc.end_column - 1]
        else:
            middle = lines[loc.line : loc.end_line - 1]
            text = " ".join(
                [
                    lines[loc.line - 1][loc.column - 1 :],
                    *middle,
                    lines[loc.end_line - 1][: loc.end_column - 1],
                ]
            )
        text = " ".join(text.split())
        return text if len(text) <= MAX_EXCERPT else text[: MAX_EXCERPT - 3] + "..."

    @property
    def function(self) -> FunctionScope | None:
        return self.functions[-1] if self.functions else None

    @property
    def class_scope(self) -> ClassScope | None:
        return self.classes[-1] if self.classes else None

    @property
    def at_module_level(self) -> bool:
        return not self.functions and not self.classes

    @property
    def at_settings_level(self) -> bool:
        """Module level, or directly in a class body: settings classes
        (django-configurations style) declare ``CELERY_...`` as class attributes."""
        return not self.functions

    def atomic_state(self) -> str | None:
        if self.deferred:
            return None
        if self.atomic_blocks:
            return "block"
        scope = self.function
        return scope.atomic if scope else None

    def _return(self, node: cst.CSTNode) -> None:
        assert isinstance(node, cst.Return)
        scope = self.function
        if scope is not None and node.value is not None and scope.facts.returned is None:
            kind = self.classify(node.value)
            # Records and their copies only: a helper returning ``f.read()`` mostly
            # returns a template or a small text, not the upload SCL-21 means.
            if kind.kind in _RETURNED_KINDS or kind.model:
                written = f"{kind.kind}:{kind.model}" if kind.model else kind.kind
                scope.facts.returned = (written, kind.reason)
        self.visit_children(node)

    def classify(self, expr: cst.BaseExpression) -> payload.Kind:
        scope = self.function
        variables = scope.variables if scope else {}
        return payload.classify(expr, self.names, variables, self._request_names())

    # -- the walk -----------------------------------------------------------------

    def run(self) -> FileFacts:
        self._prepass()
        for statement in self.module.body:
            self.visit(statement)
        for hook in self._hooks["finish"]:
            hook()
        self.facts.imports = frozenset(self.names.imported_roots)
        self._release()
        return self.facts

    @property
    def recognizers(self) -> list[Recognizer]:
        return self._recognizers

    @recognizers.setter
    def recognizers(self, recognizers: list[Recognizer]) -> None:
        """The recognizers, and for each hook those that define it (most define a few:
        a call walked is handed to the ones that read calls, not to twenty)."""
        self._recognizers = recognizers
        self._hooks = {
            name: [
                getattr(recognizer, name)
                for recognizer in recognizers
                if getattr(type(recognizer), name) is not getattr(Recognizer, name)
            ]
            for name in _HOOKS
        }

    def _release(self) -> None:
        """Break the walker's reference cycles (its dispatch table holds bound methods,
        its recognizers hold it) so that reference counting frees the syntax tree at
        once, instead of a garbage collection walking all its nodes."""
        self._dispatch = {}
        self.recognizers = []

    def visit(self, node: cst.CSTNode) -> None:
        handler = self._dispatch.get(type(node))
        if handler is not None:
            handler(node)
        else:
            self.visit_children(node)

    def visit_children(self, node: cst.CSTNode) -> None:
        for child in children(node):
            self.visit(child)

    def _prepass(self) -> None:
        """Imports and module-level names first: a function body may use a name
        imported or defined further down the file."""
        for statement in _module_statements(self.module.body):
            if isinstance(statement, (cst.Import, cst.ImportFrom)):
                self.names.add_import(statement)
            elif isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
                self.names.define(statement.name.value)
            elif isinstance(statement, (cst.Assign, cst.AnnAssign)):
                for target in _assign_targets(statement):
                    for name in _target_names(target):
                        self.names.define(name)

    def _import(self, node: cst.CSTNode) -> None:
        self.names.add_import(node)  # type: ignore[arg-type]
        if isinstance(node, cst.ImportFrom) and isinstance(node.names, cst.ImportStar):
            # ``from .base import *``: split settings modules build on each other.
            source = module_of_import(node, self.names.module, self.names.is_package)
            if source is not None and self.at_module_level:
                self.facts.star_imports.append(source)

    def _function(self, node: cst.CSTNode) -> None:
        assert isinstance(node, cst.FunctionDef)
        prefix = self._current_prefix()
        qualname = f"{prefix}.{node.name.value}" if prefix else node.name.value
        class_scope = self.class_scope if self._directly_in_class() else None
        facts = FunctionFacts(
            qualname=qualname,
            name=node.name.value,
            loc=NOWHERE,
            params=self._params(node),
            decorators=tuple(self._decorator(d) for d in node.decorators),
            class_qualname=class_scope.qualname if class_scope else None,
            class_bases=class_scope.bases if class_scope else (),
            is_async=node.asynchronous is not None,
            not_implemented=_raises_not_implemented(node),
            returns=_annotation_name(node.returns.annotation, self.names) if node.returns else None,
        )
        if any(d.qualname in ATOMIC for d in facts.decorators):
            facts.atomic = True
        self.facts.functions[qualname] = facts
        facts.wraps_in = wrapping_callees(node, self.names)
        if self.at_module_level:
            factory = factory_value(node, self.names, self.evaluate)
            if factory is not None:  # ``@actor(...)`` of the project makes jobs
                self.facts.aliases[self.names.local(node.name.value)] = factory
        for hook in self._hooks["function"]:
            hook(node, facts)
        for decorator in node.decorators:
            self.visit(decorator.decorator)
        scope = FunctionScope(facts, node, atomic="decorator" if facts.atomic else None)
        for param in facts.params:
            if param.annotation is not None:
                scope.variables[param.name] = payload.Kind(
                    "annotated", f"a parameter annotated {param.annotation}", param.annotation
                )
        if class_scope is not None and facts.params and facts.params[0].name == "self":
            scope.variables["self"] = payload.Kind(
                "annotated", f"self, an instance of {class_scope.qualname}", class_scope.qualname
            )
        if class_scope is not None and facts.params:
            kinds = {d.qualname for d in facts.decorators}
            if "classmethod" in kinds:
                scope.class_param = facts.params[0].name
            elif "staticmethod" not in kinds:
                scope.self_param = facts.params[0].name
        scope.decorator_contexts = tuple(
            d.qualname for d in facts.decorators if d.qualname and not is_library(d.qualname)
        )
        saved = (self.atomic_blocks, self.loops, self.handlers, self.deferred, self.conditions)
        saved_loop_nodes, self.loop_nodes = self.loop_nodes, []
        saved_tries, self.tries = self.tries, []
        saved_contexts, self.contexts = self.contexts, []
        self.atomic_blocks, self.loops, self.handlers, self.conditions = 0, [], [], []
        self.functions.append(scope)
        self._prefixes.append(qualname)
        self.visit(node.body)
        self._prefixes.pop()
        for hook in self._hooks["function_end"]:
            hook(node, facts)
        self.functions.pop()
        self.atomic_blocks, self.loops, self.handlers, self.deferred, self.conditions = saved
        self.loop_nodes = saved_loop_nodes
        self.tries = saved_tries
        self.contexts = saved_contexts
        self._settle(node, facts)

    def _settle(self, node: cst.FunctionDef, facts: FunctionFacts) -> None:
        """Keep a function's facts only when a check may need them, and only then pay
        for its positions."""
        if not _worth_keeping(facts, self.facts.tasks):
            del self.facts.functions[facts.qualname]
            return
        facts.loc = self.loc(node.name)
        every = [*node.params.posonly_params, *node.params.params, *node.params.kwonly_params]
        facts.params = tuple(
            replace(p, loc=self.loc(param.name)) for p, param in zip(facts.params, every)
        )

    def _class(self, node: cst.CSTNode) -> None:
        assert isinstance(node, cst.ClassDef)
        prefix = self._current_prefix()
        qualname = f"{prefix}.{node.name.value}" if prefix else node.name.value
        bases = tuple(
            self.qualify(arg.value) or self.text(arg.value) for arg in node.bases if not arg.keyword
        )
        self.facts.classes[qualname] = bases
        for hook in self._hooks["classdef"]:
            hook(node, qualname, bases)
        self.classes.append(ClassScope(qualname, bases, node))
        self._prefixes.append(qualname)
        self.visit(node.body)
        self._prefixes.pop()
        self.classes.pop()

    def _current_prefix(self) -> str:
        return self._prefixes[-1] if self._prefixes else self.facts.module

    def _directly_in_class(self) -> bool:
        """True when the innermost enclosing definition is a class (a method)."""
        if not self.classes:
            return False
        if not self.functions:
            return True
        return self._prefixes[-1] == self.classes[-1].qualname

    def _params(self, node: cst.FunctionDef) -> tuple[Param, ...]:
        params = node.params
        every = [*params.posonly_params, *params.params, *params.kwonly_params]
        keyword_only = {id(p) for p in params.kwonly_params}
        return tuple(
            Param(
                p.name.value,
                _annotation_name(p.annotation.annotation, self.names) if p.annotation else None,
                has_default=p.default is not None,
                keyword_only=id(p) in keyword_only,
            )
            for p in every
        )

    def _decorator(self, decorator: cst.Decorator) -> Decorator:
        expr = decorator.decorator
        if isinstance(expr, cst.Call):
            return Decorator(self.qualify(expr.func), self.evaluate(expr), self.loc(expr))
        return Decorator(self.qualify(expr), None, self.loc(expr))

    def _with(self, node: cst.CSTNode) -> None:
        assert isinstance(node, cst.With)
        atomic = False
        pushed = 0
        for item in node.items:
            expr = item.item
            func = expr.func if isinstance(expr, cst.Call) else expr
            name = self.qualify(func)
            if name in ATOMIC and not _on_read_replica(expr, self):
                atomic = True
            elif name and self.functions and not is_library(name):
                self.contexts.append(self.resolve_method(name))
                pushed += 1
            self.visit(item.item)
            self._bind_with_target(item)
            for hook in self._hooks["with_item"]:
                hook(item)
        if atomic:
            self.atomic_blocks += 1
        self.visit(node.body)
        if atomic:
            self.atomic_blocks -= 1
        del self.contexts[len(self.contexts) - pushed :]

    def _bind_with_target(self, item: cst.WithItem) -> None:
        """``with Service() as svc:``: ``svc`` is the instance (its ``__enter__`` returns
        it, as a project class's usually does)."""
        scope = self.function
        if scope is None or item.asname is None or not isinstance(item.asname.name, cst.Name):
            return
        made = self._project_class_made(item.item)
        if made is not None:
            scope.instances[item.asname.name.value] = made

    def _for(self, node: cst.CSTNode) -> None:
        assert isinstance(node, cst.For)
        self.visit(node.iter)
        kind = self.classify(node.iter)
        scope = self.function
        if scope is not None:
            element = payload.element_of(kind)
            for name in _target_names(node.target):
                # ``for pk, name in qs.values_list(...)`` unpacks fields, not rows.
                if element is not None and isinstance(node.target, cst.Name):
                    scope.variables[name] = element
                else:
                    scope.variables.pop(name, None)
        self.loops.append(self.text(node.iter))
        self.loop_nodes.append(node)
        self.visit(node.body)
        self.loop_nodes.pop()
        self.loops.pop()
        if node.orelse is not None:
            self.visit(node.orelse)

    def _while(self, node: cst.CSTNode) -> None:
        assert isinstance(node, cst.While)
        scope = self.function
        if scope is not None and bodies.is_unbounded_retry_loop(node):
            scope.facts.retry_loops.append(self.loc(node.test))
        self.visit(node.test)
        self.loops.append(self.text(node.test))
        self.loop_nodes.append(node)
        self.visit(node.body)
        self.loop_nodes.pop()
        self.loops.pop()
        if node.orelse is not None:
            self.visit(node.orelse)

    def _try(self, node: cst.CSTNode) -> None:
        assert isinstance(node, (cst.Try, cst.TryStar))
        self.tries.append(node)
        self.visit(node.body)
        self.tries.pop()
        for handler in node.handlers:
            caught = caught_names(handler, self.names)
            for hook in self._hooks["except_handler"]:
                hook(node, handler)
            self.handlers.append(caught)
            self.visit(handler.body)
            self.handlers.pop()
        if node.orelse is not None:
            self.visit(node.orelse)
        if node.finalbody is not None:
            self.cleanup += 1
            self.visit(node.finalbody)
            self.cleanup -= 1

    def _call(self, node: cst.CSTNode) -> None:
        assert isinstance(node, cst.Call)
        self.order += 1
        func = self.qualify(node.func)
        if func is None and self.functions:
            func = self._method_of_new_instance(node)
        if func is not None and self.functions:
            calls = self.functions[-1].facts.calls
            if func not in calls:
                calls.append(func)
            self._note_call_site(node, func)
        for hook in self._hooks["call"]:
            hook(node, func)
        self._note_enqueue_wrapper(node)
        self.visit(node.func)
        deferred = func in ON_COMMIT or (func or "").endswith(".on_commit")
        if deferred:
            self.deferred += 1
        for arg in node.args:
            self.visit(arg.value)
        if deferred:
            self.deferred -= 1

    # -- call summaries ------------------------------------------------------------

    def resolve_method(self, name: str) -> str:
        """``self.helper`` -> ``pkg.mod.Class.helper``; ``order.mark_paid`` -> the
        model's method when ``order`` is known to hold a record of that model."""
        head, _, rest = name.partition(".")
        if not rest:
            return name
        scope = self.function
        if head in ("self", "cls") and scope is not None and scope.facts.class_qualname:
            return f"{scope.facts.class_qualname}.{rest}"
        if scope is not None and head in scope.own_instances and "." not in rest:
            return f"{scope.facts.class_qualname}.{rest}"
        if scope is not None and "." not in rest:
            made = scope.instances.get(head)
            if made is not None:
                return f"{made}.{rest}"
            kind = scope.variables.get(head)
            if kind is not None and kind.model and kind.kind != "returned-by":
                return f"{kind.model}.{rest}"
        return name

    def _may_be_project_function(self, name: str) -> bool:
        """A name that may lead to a function the project defines: imported, defined in
        this module, a method of ``self``/``cls``, or of a record whose model is known;
        not a method of an object nothing says anything about (``obj.save()``)."""
        head = name.partition(".")[0]
        names = self.names
        if head in names.aliases or head in names.defined:
            return True
        if head in ("self", "cls"):
            return True
        scope = self.function
        if scope is not None and head in scope.instances and name.count(".") == 1:
            return True
        if scope is not None and head in scope.own_instances and name.count(".") == 1:
            return True
        kind = scope.variables.get(head) if scope is not None else None
        return (
            kind is not None
            and kind.model is not None
            and kind.kind != "returned-by"
            and name.count(".") == 1
        )

    def contexts_here(self) -> tuple[str, ...]:
        scope = self.function
        decorators = scope.decorator_contexts if scope is not None else ()
        return (*decorators, *self.contexts)

    def _method_of_new_instance(self, node: cst.Call) -> str | None:
        """``MailHandler().handle(account)``: the method of a project class, called on
        the instance made right there."""
        func = node.func
        if not isinstance(func, cst.Attribute):
            return None
        made = self._project_class_made(func.value)
        return f"{made}.{func.attr.value}" if made is not None else None

    def own_class(self, expr: cst.BaseExpression) -> str | None:
        """In a method, the class ``expr`` stands for when it is the class the method
        is called on: ``cls`` in a classmethod, ``type(self)``, ``self.__class__``. A
        subclass calling an inherited method is that class at run time."""
        scope = self.function
        if scope is None or scope.facts.class_qualname is None:
            return None
        owner = scope.facts.class_qualname
        if isinstance(expr, cst.Name):
            return owner if expr.value == scope.class_param else None
        if (
            isinstance(expr, cst.Call)
            and len(expr.args) == 1
            and isinstance(expr.func, cst.Name)
            and expr.func.value == "type"
            and self._is_self(expr.args[0].value)
        ):
            return owner
        if isinstance(expr, cst.Attribute) and expr.attr.value == "__class__":
            return owner if self._is_self(expr.value) else None
        return None

    def own_object(self, expr: cst.BaseExpression) -> str | None:
        """In a method, the class whose object ``expr`` is when it is the object or
        class the method is called on, or a new object of that class: ``self``,
        ``cls``, ``cls()``, a local bound to ``cls()``."""
        scope = self.function
        if scope is None or scope.facts.class_qualname is None:
            return None
        if self._is_self(expr) or (
            isinstance(expr, cst.Name) and expr.value in scope.own_instances
        ):
            return scope.facts.class_qualname
        if isinstance(expr, cst.Call):
            return self.own_class(expr.func)
        return self.own_class(expr)

    def _own_object_made(self, value: cst.BaseExpression) -> bool:
        """``cls()``, ``type(self)()``, or in a classmethod of a model ``cls.objects.get(
        ...)``: an object of the class the method is called on."""
        if not isinstance(value, cst.Call):
            return False
        if self.own_class(value.func) is not None:
            return True
        scope = self.function
        if scope is None or scope.class_param is None:
            return False
        head, _, rest = (dotted(value.func) or "").partition(".")
        manager, _, method = rest.rpartition(".")
        return head == scope.class_param and manager == "objects" and method in _ROW_METHODS

    def own_method(self, expr: cst.BaseExpression) -> str | None:
        """``cls.handle``, ``self.run``, ``cls().run`` in a method of ``C``: ``C.handle``,
        a method looked up on the object the method is called on (a subclass's own
        when a subclass calls it)."""
        if not isinstance(expr, cst.Attribute):
            return None
        owner = self.own_object(expr.value)
        return f"{owner}.{expr.attr.value}" if owner is not None else None

    def class_bound(self, expr: cst.BaseExpression) -> bool:
        """``cls.handle``, ``cls().run``, ``type(self).run``: a method taken from the class
        the method is called on, or from a new object of it (a subclass's, when a
        subclass calls it), not from ``self`` (whatever object the caller has)."""
        if not isinstance(expr, cst.Attribute):
            return False
        owner = expr.value
        if isinstance(owner, cst.Call):
            owner = owner.func
        return self.own_class(owner) is not None

    def _is_self(self, expr: cst.BaseExpression) -> bool:
        scope = self.function
        return (
            scope is not None
            and scope.self_param is not None
            and isinstance(expr, cst.Name)
            and expr.value == scope.self_param
        )

    def _note_call_site(self, node: cst.Call, func: str) -> None:
        """A call of what may be a project function, for the summaries that follow a
        job, a view or a transaction into its helpers."""
        self._note_transaction_decorator(node)
        written = dotted(node.func)
        command = _management_command(node, func)
        if command is not None:
            # ``call_command("sync_orders")`` runs that command's ``handle``: the project
            # model finds its module (``<app>/management/commands/sync_orders.py``).
            written = func = command
        elif written is None and self._method_of_new_instance(node) == func:
            written = func.rpartition(".")[2]  # checked already: a project class's method
        elif is_library(func) or written is None or not self._may_be_project_function(written):
            return
        callee = func if command is not None else self.resolve_method(func)
        facts = self.functions[-1].facts
        if callee == facts.qualname:
            return  # plain recursion adds nothing
        facts.call_sites.append(
            CallSite(
                callee=callee,
                loc=self.loc(node),
                order=self.order,
                atomic=self.atomic_state(),
                contexts=self.contexts_here(),
                arguments=_call_arguments(self, node),
                spreads=any(arg.star for arg in node.args),
                deferred=self.deferred > 0,
                discarded=id(node) == self._statement_call,
                in_handler=bool(self.handlers),
                on_new_record=(written or "").partition(".")[0] in self.functions[-1].created,
                on_self=self.own_method(node.func) == callee,
            )
        )

    def _note_transaction_decorator(self, node: cst.Call) -> None:
        """A call of a function received as a parameter, inside a transaction: the
        enclosing functions are a decorator that runs what it wraps in ``atomic``."""
        if not self.atomic_blocks or not isinstance(node.func, cst.Name):
            return
        called = node.func.value
        outer = self.functions[:-1]
        if any(any(p.name == called for p in scope.facts.params) for scope in outer):
            for scope in outer:
                scope.facts.opens_transaction = "decorator"

    def _note_enqueue_wrapper(self, node: cst.Call) -> None:
        """An enqueue whose job is a parameter of the enclosing function: the function
        is an enqueue wrapper, and each call of it is an enqueue (the project model)."""
        site = self.current_site
        scope = self.function
        if site is None or site.order != self.order or scope is None:
            return
        contexts = self.contexts_here()
        target_param = site.target if site.target in {p.name for p in scope.facts.params} else None
        spreads = any(arg.star for arg in node.args)
        forwards = spreads and _spreads_own_parameter(node, scope.node)
        if not (contexts or target_param or spreads):
            return
        updated = replace(
            site, contexts=contexts, target_param=target_param, spreads=spreads, forwards=forwards
        )
        enqueues = self.facts.enqueues
        for index in range(len(enqueues) - 1, -1, -1):
            if enqueues[index] is site:
                enqueues[index] = updated
                break
        self.current_site = updated
        if target_param and target_param not in scope.facts.enqueued_params:
            scope.facts.enqueued_params = (*scope.facts.enqueued_params, target_param)

    def _yield(self, node: cst.CSTNode) -> None:
        """``yield`` inside ``transaction.atomic`` in a ``@contextmanager``: the project's
        own transaction context manager."""
        scope = self.function
        if (
            scope is not None
            and self.atomic_blocks
            and any(d.qualname in CONTEXT_MANAGER_DECORATORS for d in scope.facts.decorators)
        ):
            scope.facts.opens_transaction = "context-manager"
        self.visit_children(node)

    def _assign(self, node: cst.CSTNode) -> None:
        assert isinstance(node, (cst.Assign, cst.AnnAssign))
        value = node.value
        if value is None:
            return
        self.visit(value)
        targets = _assign_targets(node)
        for hook in self._hooks["assign"]:
            hook(targets, value, node)
        scope = self.function
        if scope is not None:
            self._track_variables(scope, targets, value)
        elif self.classes and not self.functions and len(self.classes) == 1:
            self._track_class_constants(targets, value)
        elif self.at_module_level:
            self._track_constants(targets, value)
            if self._is_type_alias(node):
                for target in targets:
                    if isinstance(target, cst.Name):
                        self.facts.aliases[self.names.local(target.value)] = TYPE_ALIAS

    def _track_class_constants(
        self, targets: list[cst.BaseExpression], value: cst.BaseExpression
    ) -> None:
        """``class OnyxCeleryTask: SYNC = "sync"``: upper-case names of a class of
        constants, which task names, queues and routes name (``OnyxCeleryTask.SYNC``);
        and any class attribute set to a literal (``queue_name = "low"``), which a
        method may read from the class it is called on (``get_queue(cls.queue_name)``,
        a subclass's own value)."""
        names = [t.value for t in targets if isinstance(t, cst.Name)]
        if not any(name.isupper() for name in names) and not isinstance(value, _LITERALS):
            return  # a field (``models.CharField(...)``), a method made here: no literal
        evaluated = self.evaluate(value)
        literal = isinstance(evaluated, Const)
        if not (literal or is_join(evaluated)):
            return
        owner = self.classes[-1].qualname
        for name in names:
            if literal or name.isupper():
                self.facts.aliases[f"{owner}.{name}"] = evaluated

    def _is_type_alias(self, node: cst.Assign | cst.AnnAssign) -> bool:
        """``Kind = Literal["a", "b"]``, ``Id = Annotated[int, ...]``, ``X: TypeAlias = ...``."""
        if isinstance(node, cst.AnnAssign):
            return (self.names.qualify(node.annotation.annotation) or "").endswith(".TypeAlias")
        value = node.value
        if not isinstance(value, cst.Subscript):
            return False
        qualname = self.names.qualify(value.value) or ""
        return qualname.partition(".")[0] in ("typing", "typing_extensions")

    def _project_class_made(self, value: cst.BaseExpression) -> str | None:
        """The class ``value`` instantiates, when it may be the project's: a capitalised
        name imported or defined here, not of a library."""
        if not isinstance(value, cst.Call):
            return None
        own = self.own_class(value.func)
        if own is not None:
            return own  # ``cls()``, ``type(self)()``: the class the method is called on
        written = dotted(value.func)
        qualname = self.names.qualify(value.func) if written else None
        if written is None or qualname is None or is_library(qualname):
            return None
        if not written.rpartition(".")[2][:1].isupper():
            return None
        head = written.partition(".")[0]
        return qualname if head in self.names.aliases or head in self.names.defined else None

    def local_dict(self, name: str) -> cst.BaseExpression | None:
        """The dict display (or ``dict(...)`` call) the local ``name`` was last bound to."""
        scope = self.function
        return scope.dicts.get(name) if scope is not None else None

    def _local_values(self) -> dict[str, Value]:
        scope = self.function
        return scope.values if scope is not None else {}

    def _project_model_fetched(self, value: cst.BaseExpression) -> str | None:
        """The project model whose row ``value`` fetches (``Post.objects.get(...)``,
        ``get_object_or_404(Post, ...)``): its methods are the project's."""
        model = payload.model_fetched(value, self.names)
        if model is None or is_library(model) or "." not in model:
            return None
        return model

    def _track_variables(
        self, scope: FunctionScope, targets: list[cst.BaseExpression], value: cst.BaseExpression
    ) -> None:
        kind = self.classify(value)
        constructed = self._project_class_made(value)
        made = constructed or self._project_model_fetched(value)
        created = constructed is not None or _creates_row(value)
        evaluated = self.evaluate(value)
        readable = isinstance(evaluated, (Const, DictV)) or (
            isinstance(evaluated, Ref) and evaluated.qualname.rpartition(".")[2].isupper()
        )
        is_dict = isinstance(value, cst.Dict) or (
            isinstance(value, cst.Call) and self.qualify(value.func) == "dict"
        )
        for target in targets:
            if isinstance(target, cst.Name):
                if readable:
                    scope.values[target.value] = evaluated
                else:
                    scope.values.pop(target.value, None)
                if is_dict:
                    scope.dicts[target.value] = value
                else:
                    scope.dicts.pop(target.value, None)
                scope.variables[target.value] = kind
                if created:
                    scope.created.add(target.value)
                else:
                    scope.created.discard(target.value)
                if made is not None:
                    scope.instances[target.value] = made
                else:
                    scope.instances.pop(target.value, None)
                if self._own_object_made(value):
                    scope.own_instances.add(target.value)
                else:
                    scope.own_instances.discard(target.value)
            elif isinstance(target, cst.Tuple):
                # obj, created = Model.objects.get_or_create(...)
                names = _target_names(target)
                first = payload.first_of_pair(value, self.names)
                for index, name in enumerate(names):
                    if index == 0 and first is not None:
                        scope.variables[name] = first
                    else:
                        scope.variables.pop(name, None)
                    if index == 0 and first is not None and made is not None:
                        scope.instances[name] = made
                    else:
                        scope.instances.pop(name, None)

    def _track_constants(
        self, targets: list[cst.BaseExpression], value: cst.BaseExpression
    ) -> None:
        evaluated = self.evaluate(value)
        # A name for another (``job = other``), a partial, or a decorator factory's
        # result (``bg_task = shared_task(acks_late=True)``): the project model follows
        # them from a decorator to the library callable it stands for.
        is_alias = isinstance(evaluated, Ref) or (
            isinstance(evaluated, CallV) and evaluated.func is not None and self.at_module_level
        )
        # An upper-case module constant (``RETRY_POLICY = {...}``, ``ONE_DAY = 86_400``):
        # options and settings in other modules name it.
        is_constant = isinstance(evaluated, (DictV, Const)) and self.at_module_level
        for target in targets:
            if isinstance(target, cst.Name):
                self.constants[target.value] = evaluated
                if is_alias or (is_constant and target.value.isupper()):
                    self.facts.aliases[self.names.local(target.value)] = evaluated

    def condition_text(self) -> str | None:
        """The enclosing ``if`` tests as written, an ``else`` branch's as ``not (...)``."""
        if not self.conditions:
            return None
        return " and ".join(
            f"not ({self.text(test)})" if negated else self.text(test)
            for test, negated in self.conditions
        )

    def development_branch(self) -> str | None:
        """The condition of an enclosing ``if`` that holds only outside production (``if
        TESTING:``, ``if DEBUG:``, ``if "pytest" in sys.modules:``, the ``else:`` of ``if
        PRODUCTION:``), as written; None when there is none."""
        for written, was_negated in self.conditions:
            test, negated = _positive(written, was_negated)
            words = set(_CONDITION_WORD.findall(self.text(test).lower()))
            if not negated and words & DEVELOPMENT_WORDS:
                return f"if {self.text(test)}"
            if negated and words & PRODUCTION_WORDS:
                return f"else of if {self.text(test)}"
        return None

    @property
    def in_main_guard(self) -> bool:
        """Inside ``if __name__ == "__main__":``: code that runs only when the file is
        run as a program, never when it is imported."""
        return any(not negated and _is_main_test(test) for test, negated in self.conditions)

    def _if(self, node: cst.CSTNode) -> None:
        assert isinstance(node, cst.If)
        # A branch point takes a place in the walk order, so facts can tell what comes
        # after an early ``if ...: return``.
        self.order += 1
        for hook in self._hooks["if_statement"]:
            hook(node)
        self.visit(node.test)
        self.conditions.append((node.test, False))
        self.visit(node.body)
        self.conditions.pop()
        if node.orelse is not None:
            self.conditions.append((node.test, True))
            self.visit(node.orelse)
            self.conditions.pop()

    def _expr(self, node: cst.CSTNode) -> None:
        assert isinstance(node, cst.Expr)
        for hook in self._hooks["expression_statement"]:
            hook(node)
        value = node.value.expression if isinstance(node.value, cst.Await) else node.value
        saved, self._statement_call = self._statement_call, id(value)
        self.visit_children(node)
        self._statement_call = saved

    def _aug_assign(self, node: cst.CSTNode) -> None:
        assert isinstance(node, cst.AugAssign)
        self.order += 1
        for hook in self._hooks["aug_assign"]:
            hook(node)
        self.visit_children(node)

    def _request_names(self) -> frozenset[str]:
        scope = self.function
        if scope is None or scope.facts.view is None:
            return frozenset()
        return frozenset(p.name for p in scope.facts.params if p.name == "request")


def _call_arguments(walker: Walker, node: cst.Call) -> tuple[Argument, ...]:
    """The arguments of a call (for the enqueue wrappers it may call), classified as
    enqueue payloads are; at most a few, as only a wrapper's are read."""
    args = [arg for arg in node.args if not arg.star][:_MAX_CALL_ARGUMENTS]
    result = []
    for arg in args:
        kind = walker.classify(arg.value)
        loc = walker.loc(arg.value)
        result.append(
            Argument(
                kind=f"{kind.kind}:{kind.model}" if kind.model else kind.kind,
                reason=kind.reason,
                text=walker.text_at(loc, arg.value),
                loc=loc,
                keyword=arg.keyword.value if arg.keyword else None,
                ref=walker.qualify(arg.value)
                if isinstance(arg.value, (cst.Name, cst.Attribute))
                else None,
            )
        )
    return tuple(result)


_MAX_CALL_ARGUMENTS = 8


def _on_read_replica(expr: cst.BaseExpression, walker: Walker) -> bool:
    """``transaction.atomic(using=REPLICA)``: a read-only transaction on a replica (for
    consistent reads) cannot leave a phantom job behind."""
    if not isinstance(expr, cst.Call):
        return False
    for arg in expr.args:
        if arg.keyword is not None and arg.keyword.value == "using":
            text = walker.text(arg.value).lower()
            return "replica" in text or "read" in text
    return False


_BUILTIN_ANNOTATIONS = frozenset(
    {"str", "int", "float", "bool", "bytes", "dict", "list", "tuple", "set", "object", "None"}
)


def _creates_row(value: cst.BaseExpression) -> bool:
    """``Model.objects.create(...)``: a new row (not ``get_or_create``, which may
    return one a first run made)."""
    return (
        isinstance(value, cst.Call)
        and isinstance(value.func, cst.Attribute)
        and value.func.attr.value == "create"
        and isinstance(value.func.value, cst.Attribute)
        and value.func.value.attr.value == "objects"
    )


_RETURNED_KINDS = frozenset({"record", "queryset", "copy"})


def _worth_keeping(facts: FunctionFacts, tasks: list[TaskDef]) -> bool:
    # A coroutine may be an arq job that another file's worker settings list.
    if facts.decorators or facts.view or facts.is_async or facts.call_sites:
        return True
    if facts.opens_transaction or facts.signal or facts.enqueued_params or facts.returned:
        return True
    if facts.not_implemented and facts.class_qualname:
        return True  # a method left to subclasses: which of them are jobs (bound sites)
    if (
        facts.retry_calls
        or facts.lookups
        or facts.handlers
        or facts.retry_loops
        or facts.http_calls
        or facts.side_effects
        or facts.guards
        or facts.slow_calls
        or facts.blocking_calls
        or facts.commit_orders
        or facts.session_writes
        or facts.cancel_handlers
        or facts.enqueues_only
        or facts.wraps_in
    ):
        return True
    if any(p.annotation and p.annotation not in _BUILTIN_ANNOTATIONS for p in facts.params):
        return True
    return any(task.function == facts.qualname for task in tasks)


def _module_statements(body: object) -> Iterator[cst.CSTNode]:
    """Module-level small statements and compound statements, looking into ``if``/``try``
    blocks (``if TYPE_CHECKING:``, ``try: import x``)."""
    for statement in body:  # type: ignore[attr-defined]
        if isinstance(statement, cst.SimpleStatementLine):
            yield from statement.body
        elif isinstance(statement, (cst.If, cst.Try)):
            yield from _module_statements(statement.body.body)
            orelse = getattr(statement, "orelse", None)
            if isinstance(orelse, (cst.Else, cst.If)):
                yield from _module_statements(orelse.body.body)
            for handler in getattr(statement, "handlers", ()):
                yield from _module_statements(handler.body.body)
        else:
            yield statement


def _assign_targets(node: cst.Assign | cst.AnnAssign) -> list[cst.BaseExpression]:
    if isinstance(node, cst.AnnAssign):
        return [node.target]
    return [t.target for t in node.targets]


def _spreads_own_parameter(call: cst.Call, function: cst.FunctionDef) -> bool:
    """Whether ``call`` spreads ``function``'s own ``*args`` or ``**kwargs``."""
    params = function.params
    own = {
        star.name.value
        for star in (params.star_arg, params.star_kwarg)
        if isinstance(star, cst.Param)
    }
    return any(
        arg.star and isinstance(arg.value, cst.Name) and arg.value.value in own for arg in call.args
    )


def _target_names(target: cst.BaseExpression) -> list[str]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        names: list[str] = []
        for element in target.elements:
            names.extend(_target_names(element.value))
        return names
    return []


def caught_names(handler: cst.ExceptHandler | cst.ExceptStarHandler, names: Names) -> tuple:
    """The qualified names an ``except`` clause catches ("?" for what does not resolve;
    ``BaseException`` for a bare ``except:``)."""
    if handler.type is None:
        return ("BaseException",)
    types = handler.type.elements if isinstance(handler.type, cst.Tuple) else None
    exprs = [el.value for el in types] if types is not None else [handler.type]
    return tuple(names.qualify(e) or "?" for e in exprs)


def _annotation_name(annotation: cst.BaseExpression, names: Names) -> str | None:
    """The class an annotation names: ``Order``, ``"Order"``, ``Optional[Order]``."""
    if isinstance(annotation, cst.SimpleString):
        text = annotation.evaluated_value
        if isinstance(text, str) and text.replace(".", "").replace("_", "").isalnum():
            return names.resolve(text)
        return None
    if isinstance(annotation, cst.Subscript):
        base = dotted(annotation.value) or ""
        if base.split(".")[-1] in ("Optional", "Annotated") and annotation.slice:
            first = annotation.slice[0].slice
            if isinstance(first, cst.Index):
                return _annotation_name(first.value, names)
        return None
    if isinstance(annotation, cst.BinaryOperation) and isinstance(annotation.operator, cst.BitOr):
        for side in (annotation.left, annotation.right):
            if not (isinstance(side, cst.Name) and side.value == "None"):
                return _annotation_name(side, names)
    return names.qualify(annotation) if isinstance(annotation, (cst.Name, cst.Attribute)) else None


def _is_main_test(test: cst.BaseExpression) -> bool:
    """``__name__ == "__main__"`` (either way round)."""
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return False
    target = test.comparisons[0]
    if not isinstance(target.operator, cst.Equal):
        return False
    sides = (test.left, target.comparator)
    names = [s for s in sides if isinstance(s, cst.Name) and s.value == "__name__"]
    strings = [
        s for s in sides if isinstance(s, cst.SimpleString) and s.evaluated_value == "__main__"
    ]
    return len(names) == 1 and len(strings) == 1


def _raises_not_implemented(node: cst.FunctionDef) -> bool:
    """A body of a docstring at most and ``raise NotImplementedError(...)``."""
    body = node.body.body if isinstance(node.body, cst.IndentedBlock) else [node.body]
    statements = [
        small for line in body if isinstance(line, cst.SimpleStatementLine) for small in line.body
    ]
    if len(statements) != len(body):
        return False  # a compound statement
    if (
        statements
        and isinstance(statements[0], cst.Expr)
        and isinstance(statements[0].value, (cst.SimpleString, cst.ConcatenatedString))
    ):
        statements = statements[1:]
    if len(statements) != 1 or not isinstance(statements[0], cst.Raise):
        return False
    raised = statements[0].exc
    if isinstance(raised, cst.Call):
        raised = raised.func
    # ``raise NotImplemented`` (a TypeError when it runs) is written for the same.
    return isinstance(raised, cst.Name) and raised.value in (
        "NotImplementedError",
        "NotImplemented",
    )


CALL_COMMAND = frozenset({"django.core.management.call_command"})
_LITERALS = (cst.SimpleString, cst.ConcatenatedString, cst.Integer, cst.Float, cst.Name)
# Manager methods that give one row (``cls.objects.get(pk=...)`` in a model's classmethod).
_ROW_METHODS = frozenset({"get", "create", "first", "last", "latest", "earliest"})


def _management_command(node: cst.Call, func: str) -> str | None:
    if func not in CALL_COMMAND or not node.args or node.args[0].keyword is not None:
        return None
    first = node.args[0].value
    if isinstance(first, cst.SimpleString) and isinstance(first.evaluated_value, str):
        return MANAGEMENT_COMMAND + first.evaluated_value
    return None
