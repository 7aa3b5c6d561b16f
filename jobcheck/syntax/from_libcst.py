"""A libcst tree into :mod:`jobcheck.syntax.tree`: for source in grammar newer than the
running interpreter parses (``type X = ...`` or PEP 695 type parameters on Python 3.11),
which CPython's parser refuses and libcst's reads.

The tree's classes carry libcst's names and fields, so the conversion is a copy, field
by field; positions are libcst's own (its ``PositionProvider``).
"""

from __future__ import annotations

from typing import Any

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from jobcheck.syntax import tree as t
from jobcheck.syntax.walk import children as cst_children

_SLOTS: dict[type, tuple[str, ...]] = {}


def _slots(kind: type) -> tuple[str, ...]:
    found = _SLOTS.get(kind)
    if found is None:
        names: list[str] = []
        for klass in reversed(kind.__mro__):
            names += [s for s in getattr(klass, "__slots__", ()) if s != "pos" and s not in names]
        found = _SLOTS[kind] = tuple(names)
    return found


class _Copier:
    def __init__(self, positions: Any) -> None:
        self.positions = positions

    def node(self, node: Any) -> Any:
        if node is None or isinstance(node, cst.MaybeSentinel):
            return None
        if isinstance(node, (list, tuple)):
            return [self.node(item) for item in node]
        if not isinstance(node, cst.CSTNode):
            return node
        name = type(node).__name__
        if isinstance(node, cst.BaseUnaryOp | cst.BaseBinaryOp | cst.BaseBooleanOp):
            return t.OPERATOR.get(name)
        if isinstance(node, (cst.BaseCompOp, cst.BaseAugOp)):
            return t.OPERATOR.get(name)
        if isinstance(node, cst.MatchPattern):
            built = t.Opaque()  # patterns are not read
            built.pos = self._pos(node)
            return built
        kind = getattr(t, name, None)
        if kind is None or not isinstance(kind, type) or not issubclass(kind, t.CSTNode):
            built: Any = t.Opaque([self.node(child) for child in cst_children(node)])
        else:
            built = object.__new__(kind)
            for slot in _slots(kind):
                setattr(built, slot, self._field(node, slot))
        built.pos = self._pos(node)
        return built

    def _field(self, node: Any, slot: str) -> Any:
        if slot == "asynchronous":
            return t.ASYNC if getattr(node, "asynchronous", None) is not None else None
        if slot == "relative":
            return [t.Dot() for _ in node.relative]
        if slot == "operator":
            return self.node(node.operator)
        if slot == "type_parameters":
            return None
        if slot == "posonly_ind":
            return t.ParamSlash() if node.posonly_params else None
        if slot == "source":
            return ""
        if slot == "evaluated_value":
            try:
                return node.evaluated_value
            except Exception:  # an escape libcst cannot evaluate
                return None
        if slot == "nodes":
            return [self.node(child) for child in cst_children(node)]
        value = getattr(node, slot, None)
        if slot == "star" and not isinstance(value, str):
            return "" if isinstance(node, (cst.Arg, cst.Param)) else None
        return self.node(value)

    def _pos(self, node: cst.CSTNode) -> t.Pos:
        found = self.positions.get(node)
        if found is None:
            return t.NOWHERE
        return (found.start.line, found.start.column + 1, found.end.line, found.end.column + 1)


def convert(module: cst.Module, text: str) -> t.Module:
    """The tree of a module libcst parsed from ``text``."""
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    positions = wrapper.resolve(PositionProvider)
    built = _Copier(positions).node(wrapper.module)
    built.source = text
    return built  # type: ignore[no-any-return]
