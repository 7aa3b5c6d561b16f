"""Project functions that make jobs of what they decorate.

Projects wrap their job library's decorator in a function of their own and decorate
every job with it:

- a factory whose inner decorator hands the function (or a ``functools.wraps`` wrapper of
  it) to the library: ``def actor(queue_name=None, **options): def decorator(fn): ...
  dramatiq.actor(wrapped, queue_name=queue_name, **options); return wrapped; return
  decorator``, used as ``@actor(actor_name="x")`` (polar);
- a plain decorator: ``def job(fn): return shared_task(bind=True)(fn)``, used as ``@job``;
- a pass-through factory: ``def task(*args, **kwargs): return app.task(*args, base=X,
  **kwargs)``.

Each becomes a value of the function's name, a call of the library callable with the
options it presets (``CallV``), which the project model follows from a decorator to the
library as it follows ``bg_task = shared_task(acks_late=True)``
(``Project.resolve_callable``). An option the factory computes (``queue_name`` chosen by
a ``match`` on a priority) is unknown, not the library's default.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from jobcheck.facts.values import CONNECTS, CallV, Const, Opaque, Value
from jobcheck.syntax import tree as cst
from jobcheck.syntax.names import Names


def factory_value(
    node: cst.FunctionDef, names: Names, evaluate: Callable[[cst.BaseExpression], Value]
) -> CallV | None:
    """The library call a module-level function stands for as a decorator, or None."""
    outer = _params(node)
    positional = _positional(node)
    found = None
    for inner, call, func in _registrations(node):
        written = cst.full_name(func)
        head = (written or "").partition(".")[0]
        if written == f"{head}.connect" and head in positional:
            # ``signal.connect(wrapped, sender=sender)`` on the factory's own parameter:
            # a receiver of the signal its callers pass (``@search_receiver(post_save,
            # User)``), as Django's ``receiver(signal)`` is.
            return CallV(CONNECTS, (Const(positional.index(head)),))
        if head not in names.aliases and head not in names.defined:
            continue  # a local or a builtin (``fn(...)``, ``setattr(fn, ...)``)
        qualname = names.qualify(func)
        if qualname is None or qualname == names.local(node.name.value):
            continue
        found = (inner, call, qualname)  # the last one: the registration ends the factory
    if found is None:
        return None
    inner, call, qualname = found
    params = outer | (_params(inner) if inner is not None else set())
    assigned = _assigned(node) - (_params(inner) if inner is not None else set())
    defaults = tuple(_kwargs_defaults(node, inner, params, evaluate))
    presets = tuple(_presets(call, params, assigned, evaluate))
    return CallV(func=qualname, kwargs=defaults + presets)


def _kwargs_defaults(
    node: cst.FunctionDef,
    inner: cst.FunctionDef | None,
    params: set[str],
    evaluate: Callable[[cst.BaseExpression], Value],
) -> Iterator[tuple[str, Value]]:
    """Options the factory puts into its own ``**kwargs`` before handing them on:
    ``kwargs.setdefault("max_age", X)``, ``kwargs["queue_name"] = X``,
    ``kwargs.update(time_limit=X)`` (karmaspace's ``dramatiq_actor``). They come first,
    so an option the decorator is given wins, as ``setdefault`` lets it."""
    spread = {
        p.name.value
        for f in (node, inner)
        if f is not None
        for p in (f.params.star_kwarg,)
        if isinstance(p, cst.Param)
    }
    if not spread:
        return
    for function in (node, inner):
        for statement in _statements(function) if function is not None else ():
            if not isinstance(statement, cst.SimpleStatementLine):
                continue
            for small in statement.body:
                yield from _kwargs_default(small, spread, params, evaluate)


def _kwargs_default(
    small: cst.BaseSmallStatement,
    spread: set[str],
    params: set[str],
    evaluate: Callable[[cst.BaseExpression], Value],
) -> Iterator[tuple[str, Value]]:
    pairs: list[tuple[cst.BaseExpression, cst.BaseExpression]] = []
    if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
        call = small.value
        func = call.func
        if not (
            isinstance(func, cst.Attribute)
            and isinstance(func.value, cst.Name)
            and func.value.value in spread
        ):
            return
        if func.attr.value == "setdefault" and len(call.args) == 2:
            pairs.append((call.args[0].value, call.args[1].value))
        elif func.attr.value == "update":
            for arg in call.args:
                if arg.keyword is not None:
                    pairs.append((cst.SimpleString(repr(arg.keyword.value)), arg.value))
    elif isinstance(small, cst.Assign) and len(small.targets) == 1:
        target = small.targets[0].target
        if (
            isinstance(target, cst.Subscript)
            and isinstance(target.value, cst.Name)
            and target.value.value in spread
            and len(target.slice) == 1
            and isinstance(target.slice[0].slice, cst.Index)
        ):
            pairs.append((target.slice[0].slice.value, small.value))
    for key_node, value_node in pairs:
        key = evaluate(key_node)
        if not (isinstance(key, Const) and isinstance(key.value, str)):
            continue
        if isinstance(value_node, cst.Name) and value_node.value in params:
            continue  # passed on from the decorator's own arguments
        yield key.value, evaluate(value_node)


def _registrations(
    node: cst.FunctionDef,
) -> Iterator[tuple[cst.FunctionDef | None, cst.Call, cst.BaseExpression]]:
    """(inner decorator or None, the library call, its callee) for each way ``node``
    may hand what it decorates to a library decorator."""
    outer = _params(node)
    body = _statements(node)
    for statement in body:
        # A plain decorator: ``return lib(...)(fn)`` or ``return lib(fn, ...)``.
        returned = _returned(statement)
        if isinstance(returned, cst.Call):
            found = _hands_over(returned, outer)
            if found is not None:
                yield None, *found
            elif _passes_through(returned, node):
                yield None, returned, returned.func
    inner_names = {
        s.name.value: s for s in body if isinstance(s, cst.FunctionDef) and len(_params(s)) >= 1
    }
    returned_names = {
        r.value for s in body if isinstance(r := _returned(s), cst.Name) and r.value in inner_names
    }
    for name in returned_names:
        inner = inner_names[name]
        local = _params(inner) | _defined(inner)
        for call in _calls(inner):
            found = _hands_over(call, local)
            if found is not None:
                yield inner, *found


def _hands_over(call: cst.Call, functions: set[str]) -> tuple[cst.Call, cst.BaseExpression] | None:
    """``lib(fn, ...)`` or ``lib(...)(fn)`` with ``fn`` one of ``functions``: the call
    that carries the options, and the library callable."""
    first = call.args[0] if call.args else None
    if first is None or first.keyword is not None or first.star:
        return None
    if not isinstance(first.value, cst.Name) or first.value.value not in functions:
        return None
    if isinstance(call.func, cst.Call):  # lib(options)(fn)
        return call.func, call.func.func
    return call, call.func


def _passes_through(call: cst.Call, node: cst.FunctionDef) -> bool:
    """``return lib(*args, **kwargs)`` with the factory's own ``*args``/``**kwargs``."""
    star = node.params.star_arg
    kwargs = node.params.star_kwarg
    spread = {p.name.value for p in (star, kwargs) if isinstance(p, cst.Param)}
    return bool(spread) and any(
        arg.star and isinstance(arg.value, cst.Name) and arg.value.value in spread
        for arg in call.args
    )


def _presets(
    call: cst.Call,
    params: set[str],
    assigned: set[str],
    evaluate: Callable[[cst.BaseExpression], Value],
) -> Iterator[tuple[str, Value]]:
    for arg in call.args:
        if arg.keyword is None or arg.star:
            continue
        key, value = arg.keyword.value, arg.value
        if isinstance(value, cst.Name) and value.value in params | assigned:
            if value.value in assigned:
                yield key, Opaque(value.value)  # computed by the factory
            continue  # passed on from the decorator's own arguments
        yield key, evaluate(value)


def _returned(statement: cst.CSTNode) -> cst.BaseExpression | None:
    if isinstance(statement, cst.SimpleStatementLine):
        for small in statement.body:
            if isinstance(small, cst.Return) and small.value is not None:
                return small.value
    return None


def _statements(node: cst.FunctionDef) -> list[cst.CSTNode]:
    body = node.body
    return list(body.body) if isinstance(body, cst.IndentedBlock) else [body]


def _positional(node: cst.FunctionDef) -> list[str]:
    params = node.params
    return [p.name.value for p in (*params.posonly_params, *params.params)]


def _params(node: cst.FunctionDef) -> set[str]:
    params = node.params
    every = [*params.posonly_params, *params.params, *params.kwonly_params]
    every += [p for p in (params.star_arg, params.star_kwarg) if isinstance(p, cst.Param)]
    return {p.name.value for p in every}


def _defined(node: cst.FunctionDef) -> set[str]:
    """Names a function defines in its own body (a ``functools.wraps`` wrapper)."""
    return {s.name.value for s in _statements(node) if isinstance(s, cst.FunctionDef)} | _assigned(
        node
    )


def _assigned(node: cst.CSTNode) -> set[str]:
    """Names assigned anywhere inside ``node``."""
    names: set[str] = set()
    for item in cst.walk(node.body):  # type: ignore[attr-defined]
        if isinstance(item, (cst.AssignTarget, cst.AnnAssign, cst.AugAssign)):
            if isinstance(item.target, cst.Name):
                names.add(item.target.value)
    return names


def _calls(node: cst.FunctionDef) -> list[cst.Call]:
    """The calls in a function's body, not in decorators (``@functools.wraps(fn)``
    describes, it does not register)."""
    calls: list[cst.Call] = []
    stack: list[cst.CSTNode] = [node.body]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Decorator):
            continue
        if isinstance(current, cst.Call):
            calls.append(current)
        stack.extend(reversed(list(cst.children(current))))
    return calls


def wrapping_callees(node: cst.FunctionDef, names: Names) -> tuple[str, ...]:
    """What a decorator wraps its function in (``f = locked_task(f)``, ``return
    locked_task(f)``), in ``node`` or the decorator it defines (indico's
    ``periodic_task`` method: ``def decorator(f): if locked: f = locked_task(f)``)."""
    found: list[str] = []
    for function in (node, *(s for s in _statements(node) if isinstance(s, cst.FunctionDef))):
        params = set(_positional(function))
        if not params:
            continue
        for statement in _with_branches(_statements(function)):
            call = _wrapping_call(statement, params)
            if call is not None:
                qualname = names.qualify(call.func)
                if qualname:
                    found.append(qualname)
    return tuple(dict.fromkeys(found))


def _with_branches(statements: list[cst.CSTNode]) -> Iterator[cst.CSTNode]:
    """Statements and those of the ``if`` blocks among them (one level)."""
    for statement in statements:
        yield statement
        if isinstance(statement, cst.If) and isinstance(statement.body, cst.IndentedBlock):
            yield from statement.body.body


def _wrapping_call(statement: cst.CSTNode, params: set[str]) -> cst.Call | None:
    """``p = wrap(p)`` or ``return wrap(p)`` with ``p`` one of ``params``."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    small = statement.body[0]
    value: cst.BaseExpression | None = None
    if isinstance(small, cst.Assign) and len(small.targets) == 1:
        target = small.targets[0].target
        if isinstance(target, cst.Name) and target.value in params:
            value = small.value
    elif isinstance(small, cst.Return):
        value = small.value
    if not isinstance(value, cst.Call) or not value.args:
        return None
    first = value.args[0].value
    if isinstance(first, cst.Name) and first.value in params and value.args[0].keyword is None:
        return value
    return None
