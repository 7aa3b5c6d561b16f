"""Shapes of code inside job bodies: retry loops, what an exception handler does."""

from __future__ import annotations

from jobcheck.syntax import tree as cst
from jobcheck.syntax.tree import children


def is_constant_true(expr: cst.BaseExpression) -> bool:
    if isinstance(expr, cst.Name):
        return expr.value == "True"
    return isinstance(expr, cst.Integer) and expr.value not in ("0", "0x0", "0o0", "0b0")


def is_unbounded_retry_loop(node: cst.While) -> bool:
    """``while True: try: ...; break / except ...: sleep(...)`` with no way out on
    repeated failure: no handler raises, breaks or returns, and nothing else in the
    loop stops it."""
    if not is_constant_true(node.test):
        return False
    tries = [s for s in node.body.body if isinstance(s, (cst.Try, cst.TryStar))]
    if not tries:
        return False
    for statement in node.body.body:
        if isinstance(statement, (cst.Try, cst.TryStar)):
            if any(_exits(handler.body) for handler in statement.handlers):
                return False
            if statement.orelse is not None and _exits(statement.orelse, allow_break=False):
                return False
        elif _exits(statement, allow_break=True) and not isinstance(
            statement, cst.SimpleStatementLine
        ):
            return False
    return True


def _exits(node: cst.CSTNode, allow_break: bool = True) -> bool:
    """Whether ``node`` contains a raise, return or break (outside nested definitions
    and nested loops, whose breaks are their own)."""
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, (cst.Raise, cst.Return)):
            return True
        if allow_break and isinstance(current, cst.Break):
            return True
        if isinstance(current, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        if isinstance(current, (cst.For, cst.While)) and current is not node:
            continue
        stack.extend(children(current))
    return False
