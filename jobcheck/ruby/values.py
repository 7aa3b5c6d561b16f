"""Ruby literals as jobcheck values (``jobcheck/facts/values.py``): numbers, strings,
symbols (as their name), ``true``/``false``/``nil``, arrays, hashes, constants
(``Ref`` with a dotted path) and ActiveSupport durations (``5.minutes`` is 300 seconds).
Anything else is ``Opaque`` with a short excerpt: an ``ENV[...]`` lookup, a block, a call.
"""

from __future__ import annotations

from typing import Any

from jobcheck.facts.values import CallV, Const, DictV, Opaque, Ref, SeqV, Value
from jobcheck.ruby.parse import Source, call_parts, constant_path, identifier, pair_key
from jobcheck.timing import bounded

# ActiveSupport::Duration units (activesupport/lib/active_support/duration.rb:
# SECONDS_PER_MINUTE = 60, SECONDS_PER_HOUR = 3600, SECONDS_PER_DAY = 86400,
# SECONDS_PER_WEEK = 604800; a month is 1/12 of a Gregorian year, 2629746 s, and a year
# 31556952 s).
DURATION_SECONDS = {
    "second": 1,
    "minute": 60,
    "hour": 3600,
    "day": 86400,
    "week": 604800,
    "fortnight": 1209600,
    "month": 2629746,
    "year": 31556952,
}
_DURATION_METHODS = {
    **DURATION_SECONDS,
    **{f"{unit}s": seconds for unit, seconds in DURATION_SECONDS.items()},
}
# Calls that leave a duration (or a number) as it is.
_NUMERIC_NO_OPS = frozenset({"to_i", "to_f", "seconds_since_epoch", "freeze"})
_MAX_ITEMS = 200
_MAX_LITERAL = 64
"""Longer number literals are not converted: beyond :data:`jobcheck.timing.MAX_NUMBER`."""


def duration_seconds(node: Any, source: Source) -> float | None:
    """``5.minutes``, ``1.day``, ``90.seconds.to_i``, ``2 * 60``: seconds, when constant."""
    value = evaluate(node, source)
    if isinstance(value, Const) and isinstance(value.value, (int, float)):
        if not isinstance(value.value, bool):
            return float(value.value)
    return None


def evaluate(node: Any | None, source: Source, depth: int = 0) -> Value:
    """The value of a Ruby expression node."""
    if node is None:
        return Opaque("?")
    if depth > 20:
        return Opaque(source.text(node))
    kind = node.type
    if kind == "integer":
        return _integer(identifier(node) or "", node, source)
    if kind == "float":
        try:
            return _number(float((identifier(node) or "").replace("_", "")), node, source)
        except ValueError:
            return Opaque(source.text(node))
    if kind in ("true", "false"):
        return Const(kind == "true")
    if kind == "nil":
        return Const(None)
    if kind == "string":
        return _string(node, source)
    if kind == "simple_symbol":
        return Const((identifier(node) or "").lstrip(":"))
    if kind == "delimited_symbol":
        inner = _string(node, source)
        return inner
    if kind in ("constant", "scope_resolution"):
        path = constant_path(node)
        return Ref(path) if path else Opaque(source.text(node))
    if kind == "array":
        items = [c for c in node.named_children if c.type != "comment"][:_MAX_ITEMS]
        return SeqV(tuple(evaluate(c, source, depth + 1) for c in items))
    if kind in ("string_array", "symbol_array"):
        words = [
            c for c in node.named_children if c.type == "bare_string" or c.type == "bare_symbol"
        ]
        return SeqV(tuple(Const(source.raw(c)) for c in words[:_MAX_ITEMS]))
    if kind == "hash":
        return _hash(node, source, depth)
    if kind == "parenthesized_statements" and node.named_child_count == 1:
        return evaluate(node.named_children[0], source, depth + 1)
    if kind == "call":
        return _call(node, source, depth)
    if kind == "binary":
        return _binary(node, source, depth)
    if kind == "unary" and node.child_count == 2 and source.raw(node.children[0]) == "-":
        inner = evaluate(node.children[1], source, depth + 1)
        if isinstance(inner, Const) and isinstance(inner.value, (int, float)):
            return Const(-inner.value)
    return Opaque(source.text(node))


def _number(value: float, node: Any, source: Source) -> Value:
    """A number as a constant; one beyond :data:`jobcheck.timing.MAX_NUMBER`, or not
    finite (``1e999``), is unknown."""
    return Const(value) if bounded(value) is not None else Opaque(source.text(node))


def _integer(text: str, node: Any, source: Source) -> Value:
    if len(text) > _MAX_LITERAL:  # Python refuses decimal ints of more than 4300 digits
        return Opaque(source.text(node))
    try:
        return _number(int(text.replace("_", ""), 0), node, source)
    except ValueError:
        try:
            return _number(int(text.replace("_", "")), node, source)
        except ValueError:
            return Opaque(source.text(node))


def _string(node: Any, source: Source) -> Value:
    parts = node.named_children
    if not parts:
        return Const("")
    if all(p.type in ("string_content", "escape_sequence") for p in parts):
        text = "".join(
            _unescape(source.raw(p)) if p.type == "escape_sequence" else source.raw(p)
            for p in parts
        )
        return Const(text)
    return Opaque(source.text(node))


def _unescape(text: str) -> str:
    simple = {"\\n": "\n", "\\t": "\t", '\\"': '"', "\\'": "'", "\\\\": "\\"}
    return simple.get(text, text)


def _hash(node: Any, source: Source, depth: int) -> Value:
    items: list[tuple[Value | None, Value]] = []
    for child in node.named_children[:_MAX_ITEMS]:
        if child.type == "pair":
            key = pair_key(child)
            value = evaluate(child.child_by_field_name("value"), source, depth + 1)
            if key is not None:
                items.append((Const(key), value))
            else:
                items.append((evaluate(child.child_by_field_name("key"), source, depth + 1), value))
        elif child.type == "hash_splat_argument":
            items.append((None, Opaque(source.text(child))))
    return DictV(tuple(items))


def _call(node: Any, source: Source, depth: int) -> Value:
    receiver, method, args, block = call_parts(node)
    if receiver is not None and method in _DURATION_METHODS and args is None:
        base = evaluate(receiver, source, depth + 1)
        if isinstance(base, Const) and isinstance(base.value, (int, float)):
            return _number(base.value * _DURATION_METHODS[method], node, source)
    if receiver is not None and method in _NUMERIC_NO_OPS and args is None:
        base = evaluate(receiver, source, depth + 1)
        if isinstance(base, Const) and isinstance(base.value, (int, float)):
            return Const(int(base.value) if method == "to_i" else base.value)
    if block is not None or method is None:
        return Opaque(source.text(node))
    func = method
    if receiver is not None:
        path = constant_path(receiver)
        if path is None:
            return Opaque(source.text(node))
        func = f"{path}.{method}"
    from jobcheck.ruby.parse import arguments

    positional, keywords = arguments(args)
    return CallV(
        func,
        tuple(evaluate(a, source, depth + 1) for a in positional[:_MAX_ITEMS]),
        tuple((k, evaluate(v, source, depth + 1)) for k, v, _ in keywords[:_MAX_ITEMS]),
    )


def _binary(node: Any, source: Source, depth: int) -> Value:
    left = evaluate(node.child_by_field_name("left"), source, depth + 1)
    right = evaluate(node.child_by_field_name("right"), source, depth + 1)
    operator = node.child_by_field_name("operator")
    op = source.raw(operator) if operator is not None else ""
    if (
        isinstance(left, Const)
        and isinstance(right, Const)
        and isinstance(left.value, (int, float))
        and isinstance(right.value, (int, float))
        and not isinstance(left.value, bool)
        and not isinstance(right.value, bool)
    ):
        a, b = left.value, right.value
        if op == "*" and abs(a) < 1e12 and abs(b) < 1e12:
            return _number(a * b, node, source)
        if op == "+":
            return _number(a + b, node, source)
        if op == "-":
            return _number(a - b, node, source)
        if op == "/" and b:
            return _number(
                a // b if isinstance(a, int) and isinstance(b, int) else a / b, node, source
            )
    return Opaque(source.text(node))
