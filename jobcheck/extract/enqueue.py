"""Building :class:`EnqueueSite` facts: shared by the Celery, RQ and Dramatiq recognizers."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from jobcheck.facts import SPLAT, Argument, EnqueueSite
from jobcheck.facts.values import Value
from jobcheck.syntax import tree as cst

if TYPE_CHECKING:
    from jobcheck.extract.walker import Walker


def arguments(walker: Walker, args: Iterable[cst.Arg]) -> tuple[Argument, ...]:
    """Classify call arguments that become the job's payload."""
    result: list[Argument] = []
    for arg in args:
        if arg.star == "**" and isinstance(arg.value, cst.Name):
            # ``params = {"rule": row}; enqueue(job, **params)``: its entries are sent.
            spread = walker.local_dict(arg.value.value)
            if spread is not None:
                result.extend(sequence_arguments(walker, spread))
            continue
        if arg.star:
            continue
        kind = walker.classify(arg.value)
        result.append(
            Argument(
                kind=f"{kind.kind}:{kind.model}" if kind.model else kind.kind,
                reason=kind.reason,
                text=walker.text(arg.value),
                loc=walker.loc(arg.value),
                keyword=arg.keyword.value if arg.keyword else None,
            )
        )
    return tuple(result)


def sequence_arguments(walker: Walker, expr: cst.BaseExpression) -> tuple[Argument, ...]:
    """The payload of ``args=(a, b)`` / ``kwargs={"x": a}`` style options."""
    if isinstance(expr, (cst.Tuple, cst.List)):
        return arguments(
            walker, (cst.Arg(value=el.value) for el in expr.elements if isinstance(el, cst.Element))
        )
    if isinstance(expr, cst.Dict):
        result = []
        for element in expr.elements:
            if isinstance(element, cst.DictElement):
                key = element.key
                keyword = key.evaluated_value if isinstance(key, cst.SimpleString) else None
                arg = cst.Arg(
                    value=element.value,
                    keyword=cst.Name(keyword)
                    if isinstance(keyword, str) and keyword.isidentifier()
                    else None,
                )
                result.extend(arguments(walker, [arg]))
        return tuple(result)
    if isinstance(expr, cst.Call) and walker.qualify(expr.func) == "dict":
        return arguments(walker, expr.args)
    return arguments(walker, [cst.Arg(value=expr)])


def options(walker: Walker, args: Iterable[cst.Arg], skip: frozenset[str]) -> tuple:
    result: list[tuple[str, Value]] = []
    for arg in args:
        if arg.keyword is not None and arg.keyword.value not in skip:
            result.append((arg.keyword.value, walker.evaluate(arg.value)))
        elif arg.star == "**":
            # Options passed as **options: any option may be set there.
            result.append((SPLAT, walker.evaluate(arg.value)))
    return tuple(result)


def site(
    walker: Walker,
    node: cst.Call,
    method: str,
    target: str | None,
    target_text: str,
    args: tuple[Argument, ...],
    opts: tuple = (),
    receiver: str | None = None,
    framework: str | None = None,
    is_signature: bool = False,
    bound_to: str | None = None,
) -> EnqueueSite:
    scope = walker.function
    walker.current_site = EnqueueSite(
        method=method,
        target=target,
        target_text=target_text,
        loc=walker.loc(node),
        order=walker.order,
        function=scope.facts.qualname if scope else None,
        arguments=args,
        options=opts,
        receiver=receiver,
        framework_hint=framework,
        atomic=walker.atomic_state(),
        deferred=walker.deferred > 0,
        in_loop=walker.loops[-1] if walker.loops else None,
        is_signature=is_signature,
        bound_to=bound_to,
    )
    return walker.current_site
