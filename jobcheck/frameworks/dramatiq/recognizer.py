"""Dramatiq: actors (decorated functions and ``GenericActor`` classes) and their options."""

from __future__ import annotations

from jobcheck.extract import enqueue
from jobcheck.extract.walker import Recognizer
from jobcheck.facts import FunctionFacts, MiddlewareDecl, TaskDef
from jobcheck.facts.values import CallV, Value, string
from jobcheck.syntax import tree as cst
from jobcheck.triggers import Trigger

ACTOR_DECORATORS = frozenset(
    {"dramatiq.actor", "dramatiq.actor.actor", "django_dramatiq.actor", "periodiq.actor"}
)
GENERIC_ACTOR = frozenset({"dramatiq.GenericActor", "dramatiq.generic.GenericActor"})
SEND_METHODS = frozenset({"send", "send_with_options"})
# ``send_with_options`` keywords that are options, not the payload.
SEND_OPTION_PAYLOAD = frozenset({"args", "kwargs"})


# dramatiq/middleware/age_limit.py: ``AgeLimit(max_age=None)`` drops older messages.
AGE_LIMIT = frozenset(
    {
        "dramatiq.middleware.AgeLimit",
        "dramatiq.middleware.age_limit.AgeLimit",
        "dramatiq.AgeLimit",
    }
)


class DramatiqRecognizer(Recognizer):
    # ``actor.send(...)`` in a file that names no Dramatiq module is found by the
    # engine's second pass, which knows the actors' names.
    PREFILTER = (
        Trigger("names dramatiq", b"dramatiq"),
        Trigger("names periodiq", b"periodiq"),
        Trigger("send_with_options", b"send_with_options"),
    )

    def function(self, node: cst.FunctionDef, facts: FunctionFacts) -> None:
        for decorator_node, decorator in zip(node.decorators, facts.decorators):
            if decorator.qualname in ACTOR_DECORATORS:
                self._actor(node, facts, decorator_node.decorator, decorator.call)
                return

    def _actor(
        self,
        node: cst.FunctionDef,
        facts: FunctionFacts,
        expr: cst.BaseExpression,
        call: Value | None,
    ) -> None:
        walker = self.walker
        options: tuple[tuple[str, Value], ...] = ()
        locs: list = []
        if isinstance(call, CallV):
            options = call.kwargs
            assert isinstance(expr, cst.Call)
            locs = [(a.keyword.value, walker.loc(a)) for a in expr.args if a.keyword is not None]
        actor_name = string(dict(options).get("actor_name"))
        walker.facts.tasks.append(
            TaskDef(
                framework="dramatiq",
                qualname=facts.qualname,
                name=node.name.value,
                registered_name=actor_name or node.name.value,
                loc=walker.loc(expr),
                decorator="dramatiq.actor",
                options=options,
                option_locs=tuple(locs),
                function=facts.qualname,
            )
        )

    def classdef(self, node: cst.ClassDef, qualname: str, bases: tuple[str, ...]) -> None:
        if not any(b in GENERIC_ACTOR for b in bases):
            return
        walker = self.walker
        options: list[tuple[str, Value]] = []
        locs = []
        for statement in node.body.body:
            if isinstance(statement, cst.ClassDef) and statement.name.value == "Meta":
                for line in statement.body.body:
                    if not isinstance(line, cst.SimpleStatementLine):
                        continue
                    for small in line.body:
                        if isinstance(small, cst.Assign) and isinstance(
                            small.targets[0].target, cst.Name
                        ):
                            key = small.targets[0].target.value
                            options.append((key, walker.evaluate(small.value)))
                            locs.append((key, walker.loc(small)))
        if any(k == "abstract" and getattr(v, "value", False) for k, v in options):
            return
        walker.facts.tasks.append(
            TaskDef(
                framework="dramatiq",
                qualname=qualname,
                name=node.name.value,
                registered_name=string(dict(options).get("actor_name")) or node.name.value,
                loc=walker.loc(node.name),
                decorator="dramatiq.GenericActor",
                options=tuple(options),
                option_locs=tuple(locs),
                kind="class",
                function=f"{qualname}.perform",
            )
        )

    def call(self, node: cst.Call, func: str | None) -> None:
        if func in AGE_LIMIT:
            value = self.walker.evaluate(node)
            assert isinstance(value, CallV)
            self.walker.facts.middleware.append(
                MiddlewareDecl("dramatiq", "AgeLimit", value.kwargs, self.walker.loc(node))
            )
            return
        if not isinstance(node.func, cst.Attribute):
            return
        method = node.func.attr.value
        if method not in SEND_METHODS:
            return
        walker = self.walker
        receiver = node.func.value
        target = walker.qualify(receiver)
        if target is None:
            return
        if method == "send":
            args = enqueue.arguments(walker, node.args)
            opts: tuple = ()
        else:
            payload = []
            for arg in node.args:
                if arg.keyword is not None and arg.keyword.value in SEND_OPTION_PAYLOAD:
                    payload.extend(enqueue.sequence_arguments(walker, arg.value))
            args = tuple(payload)
            opts = enqueue.options(walker, node.args, SEND_OPTION_PAYLOAD)
        walker.facts.enqueues.append(
            enqueue.site(walker, node, method, target, walker.text(receiver), args, opts)
        )
