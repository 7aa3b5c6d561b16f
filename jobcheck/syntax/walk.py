"""Fast read-only traversal of libcst trees.

libcst's own visitors rebuild every node while walking (``_visit_and_replace_children``),
which costs about as much as parsing. A read-only walk over the dataclass fields that can
hold code, skipping whitespace and punctuation, is several times cheaper.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Iterator

import libcst as cst

_TRIVIA_FIELDS = frozenset(
    {
        "lpar",
        "rpar",
        "leading_lines",
        "lines_after_decorators",
        "header",
        "footer",
        "comma",
        "semicolon",
        "colon",
        "equal",
        "dot",
        "lbracket",
        "rbracket",
        "lbrace",
        "rbrace",
        "asynchronous",
        "trailing_whitespace",
        "newline",
        "operator",
        "star_tok",
    }
)

_TRIVIA_TYPES: tuple[type, ...] = (
    cst.BaseParenthesizableWhitespace,
    cst.Comma,
    cst.Semicolon,
    cst.Colon,
    cst.AssignEqual,
    cst.Dot,
    cst.LeftParen,
    cst.RightParen,
    cst.LeftSquareBracket,
    cst.RightSquareBracket,
    cst.LeftCurlyBrace,
    cst.RightCurlyBrace,
    cst.EmptyLine,
    cst.Newline,
    cst.TrailingWhitespace,
    cst.Comment,
)


@functools.cache
def _code_fields(node_type: type) -> tuple[str, ...]:
    return tuple(
        f.name
        for f in dataclasses.fields(node_type)
        if not f.name.startswith("whitespace") and f.name not in _TRIVIA_FIELDS
    )


_NOT_A_NODE, _CODE, _TRIVIA, _SEQUENCE = 0, 1, 2, 3
_KINDS: dict[type, int] = {}
"""What a field value of each type is; ``isinstance`` against libcst's abstract bases
is slow, so each concrete type is classified once."""


def _kind(value_type: type) -> int:
    kind = _KINDS.get(value_type)
    if kind is None:
        if issubclass(value_type, cst.CSTNode):
            kind = _TRIVIA if issubclass(value_type, _TRIVIA_TYPES) else _CODE
        elif value_type is list or value_type is tuple:
            kind = _SEQUENCE
        else:
            kind = _NOT_A_NODE
        _KINDS[value_type] = kind
    return kind


def children(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """The child nodes of ``node`` that can hold code, in source order."""
    kinds = _KINDS
    for name in _code_fields(type(node)):
        value = getattr(node, name)
        kind = kinds.get(type(value))
        if kind is None:
            kind = _kind(type(value))
        if kind == _CODE:
            yield value
        elif kind == _SEQUENCE:
            for item in value:
                item_kind = kinds.get(type(item))
                if item_kind is None:
                    item_kind = _kind(type(item))
                if item_kind == _CODE:
                    yield item


def walk(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """``node`` and all its code-bearing descendants, pre-order."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(list(children(current))))


def find_calls(node: cst.CSTNode) -> Iterator[cst.Call]:
    for item in walk(node):
        if isinstance(item, cst.Call):
            yield item
