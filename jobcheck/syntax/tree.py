"""The syntax tree extraction walks: libcst's shape, without libcst's cost.

Extraction was written against libcst's node classes (``cst.Call(func, args)``,
``cst.Arg(value, keyword, star)``, ``cst.Attribute(value, attr)``...). Parsing with libcst
costs about ten times CPython's own parser, and its trees have three or four times as
many nodes (whitespace, commas, parentheses), so a walk over them costs as much again.
This module keeps libcst's classes and field names for the code nodes extraction reads,
and nothing else: no whitespace, no punctuation, no code generation. Trees of it are
built from CPython's ``ast`` (``jobcheck/syntax/from_ast.py``, the fast path, whenever
the running interpreter parses the file) or from a libcst tree (``from_libcst.py``, for
grammar newer than the interpreter's); both place every node where libcst's
``PositionProvider`` would (``tests/test_syntax_tree.py`` compares them).

Every node has ``pos``: its 1-based line and column and its end (exclusive), as
:class:`jobcheck.location.Loc` takes them. Fixes still use libcst (they must print code
back exactly); nothing here is ever turned back into code.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Any, ClassVar

Pos = tuple[int, int, int, int]
NOWHERE: Pos = (1, 1, 1, 1)


class CSTNode:
    """Base of every node. ``FIELDS``: the fields that may hold nodes, in the order
    libcst's dataclasses declare them (the order a generic walk visits them)."""

    __slots__ = ("pos",)
    FIELDS: ClassVar[tuple[str, ...]] = ()

    def __init__(self) -> None:
        self.pos: Pos = NOWHERE

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.FIELDS[:2])
        return f"{type(self).__name__}({shown})"


def children(node: CSTNode) -> Iterator[CSTNode]:
    """The child nodes of ``node``, in libcst's field order."""
    for name in node.FIELDS:
        value = getattr(node, name)
        if isinstance(value, CSTNode):
            yield value
        elif type(value) is list or type(value) is tuple:
            for item in value:
                if isinstance(item, CSTNode):
                    yield item


def walk(node: CSTNode) -> Iterator[CSTNode]:
    """``node`` and all its descendants, pre-order."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(list(children(current))))


# -- abstract bases (for isinstance checks written against libcst's) --------------------


class BaseExpression(CSTNode):
    __slots__ = ()


class BaseAssignTargetExpression(BaseExpression):
    __slots__ = ()


class BaseDelTargetExpression(BaseExpression):
    __slots__ = ()


class BaseStatement(CSTNode):
    __slots__ = ()


class BaseSmallStatement(CSTNode):
    __slots__ = ()


class BaseCompoundStatement(BaseStatement):
    __slots__ = ()


class BaseSuite(CSTNode):
    __slots__ = ()


class BaseElement(CSTNode):
    __slots__ = ()


class BaseDictElement(CSTNode):
    __slots__ = ()


class BaseString(BaseExpression):
    __slots__ = ()


class BaseNumber(BaseExpression):
    __slots__ = ()


class BaseComp(BaseExpression):
    __slots__ = ()


class BaseSlice(CSTNode):
    __slots__ = ()


class BaseParenthesizableWhitespace(CSTNode):
    """Never built: libcst's whitespace, kept so that ``isinstance`` checks hold."""

    __slots__ = ()


# -- operators ---------------------------------------------------------------------------


class BaseOperator(CSTNode):
    __slots__ = ()


def _operators(*names: str) -> dict[str, type[BaseOperator]]:
    return {name: type(name, (BaseOperator,), {"__slots__": ()}) for name in names}


_OPS = _operators(
    "Add",
    "Subtract",
    "Multiply",
    "Divide",
    "FloorDivide",
    "Modulo",
    "Power",
    "MatrixMultiply",
    "LeftShift",
    "RightShift",
    "BitOr",
    "BitAnd",
    "BitXor",
    "And",
    "Or",
    "Not",
    "Minus",
    "Plus",
    "BitInvert",
    "Equal",
    "NotEqual",
    "LessThan",
    "LessThanEqual",
    "GreaterThan",
    "GreaterThanEqual",
    "In",
    "NotIn",
    "Is",
    "IsNot",
    "AddAssign",
    "SubtractAssign",
    "MultiplyAssign",
    "DivideAssign",
    "FloorDivideAssign",
    "ModuloAssign",
    "PowerAssign",
    "MatrixMultiplyAssign",
    "LeftShiftAssign",
    "RightShiftAssign",
    "BitOrAssign",
    "BitAndAssign",
    "BitXorAssign",
)
Add = _OPS["Add"]
Subtract = _OPS["Subtract"]
Multiply = _OPS["Multiply"]
Divide = _OPS["Divide"]
FloorDivide = _OPS["FloorDivide"]
Modulo = _OPS["Modulo"]
Power = _OPS["Power"]
MatrixMultiply = _OPS["MatrixMultiply"]
LeftShift = _OPS["LeftShift"]
RightShift = _OPS["RightShift"]
BitOr = _OPS["BitOr"]
BitAnd = _OPS["BitAnd"]
BitXor = _OPS["BitXor"]
And = _OPS["And"]
Or = _OPS["Or"]
Not = _OPS["Not"]
Minus = _OPS["Minus"]
Plus = _OPS["Plus"]
BitInvert = _OPS["BitInvert"]
Equal = _OPS["Equal"]
NotEqual = _OPS["NotEqual"]
LessThan = _OPS["LessThan"]
LessThanEqual = _OPS["LessThanEqual"]
GreaterThan = _OPS["GreaterThan"]
GreaterThanEqual = _OPS["GreaterThanEqual"]
In = _OPS["In"]
NotIn = _OPS["NotIn"]
Is = _OPS["Is"]
IsNot = _OPS["IsNot"]
AddAssign = _OPS["AddAssign"]
SubtractAssign = _OPS["SubtractAssign"]
MultiplyAssign = _OPS["MultiplyAssign"]
DivideAssign = _OPS["DivideAssign"]
FloorDivideAssign = _OPS["FloorDivideAssign"]
ModuloAssign = _OPS["ModuloAssign"]
PowerAssign = _OPS["PowerAssign"]
MatrixMultiplyAssign = _OPS["MatrixMultiplyAssign"]
LeftShiftAssign = _OPS["LeftShiftAssign"]
RightShiftAssign = _OPS["RightShiftAssign"]
BitOrAssign = _OPS["BitOrAssign"]
BitAndAssign = _OPS["BitAndAssign"]
BitXorAssign = _OPS["BitXorAssign"]
OPERATOR = {name: cls() for name, cls in _OPS.items()}
"""One instance of each operator (operators hold no position extraction reads)."""


class Asynchronous(CSTNode):
    """``async`` before ``def``, ``for`` or ``with``: present or None."""

    __slots__ = ()


ASYNC = Asynchronous()


class Dot(CSTNode):
    """One dot of a relative import (``ImportFrom.relative``)."""

    __slots__ = ()


# -- expressions -------------------------------------------------------------------------


class Name(BaseAssignTargetExpression, BaseDelTargetExpression):
    __slots__ = ("value",)
    FIELDS = ()

    def __init__(self, value: str) -> None:
        self.pos = NOWHERE
        self.value = value


class Attribute(BaseAssignTargetExpression, BaseDelTargetExpression):
    __slots__ = ("attr", "value")
    FIELDS = ("value", "attr")

    def __init__(self, value: BaseExpression, attr: Name) -> None:
        self.pos = NOWHERE
        self.value = value
        self.attr = attr


class Arg(CSTNode):
    __slots__ = ("keyword", "star", "value")
    FIELDS = ("value", "keyword")

    def __init__(self, value: BaseExpression, keyword: Name | None = None, star: str = "") -> None:
        self.pos = NOWHERE
        self.value = value
        self.keyword = keyword
        self.star = star


class Call(BaseExpression):
    __slots__ = ("args", "func")
    FIELDS = ("func", "args")

    def __init__(self, func: BaseExpression, args: Sequence[Arg]) -> None:
        self.pos = NOWHERE
        self.func = func
        self.args = args


class SimpleString(BaseString):
    """A string literal: ``value`` is its source text, quotes and prefix included."""

    __slots__ = ("evaluated_value", "value")
    FIELDS = ()

    def __init__(self, value: str, evaluated_value: str | bytes | None) -> None:
        self.pos = NOWHERE
        self.value = value
        self.evaluated_value = evaluated_value


class ConcatenatedString(BaseString):
    """Adjacent string literals (``"a" "b"``)."""

    __slots__ = ("evaluated_value", "left", "right")
    FIELDS = ("left", "right")

    def __init__(self, left: BaseString, right: BaseString) -> None:
        self.pos = NOWHERE
        self.left = left
        self.right = right
        values = (left.evaluated_value, right.evaluated_value)  # type: ignore[attr-defined]
        if all(isinstance(v, str) for v in values) or all(isinstance(v, bytes) for v in values):
            self.evaluated_value = values[0] + values[1]  # type: ignore[operator]
        else:
            self.evaluated_value = None


class FormattedStringText(CSTNode):
    __slots__ = ("value",)
    FIELDS = ()

    def __init__(self, value: str) -> None:
        self.pos = NOWHERE
        self.value = value


class FormattedStringExpression(CSTNode):
    __slots__ = ("conversion", "expression", "format_spec")
    FIELDS = ("expression", "format_spec")

    def __init__(
        self,
        expression: BaseExpression,
        conversion: str | None = None,
        format_spec: Sequence[CSTNode] | None = None,
    ) -> None:
        self.pos = NOWHERE
        self.expression = expression
        self.conversion = conversion
        self.format_spec = format_spec


class FormattedString(BaseString):
    __slots__ = ("end", "evaluated_value", "parts", "start")
    FIELDS = ("parts",)

    def __init__(self, parts: Sequence[CSTNode], start: str = 'f"', end: str = '"') -> None:
        self.pos = NOWHERE
        self.parts = parts
        self.start = start
        self.end = end
        self.evaluated_value = None


class Integer(BaseNumber):
    __slots__ = ("evaluated_value", "value")
    FIELDS = ()

    def __init__(self, value: str, evaluated_value: int) -> None:
        self.pos = NOWHERE
        self.value = value
        self.evaluated_value = evaluated_value


class Float(BaseNumber):
    __slots__ = ("evaluated_value", "value")
    FIELDS = ()

    def __init__(self, value: str, evaluated_value: float) -> None:
        self.pos = NOWHERE
        self.value = value
        self.evaluated_value = evaluated_value


class Imaginary(BaseNumber):
    __slots__ = ("evaluated_value", "value")
    FIELDS = ()

    def __init__(self, value: str, evaluated_value: complex) -> None:
        self.pos = NOWHERE
        self.value = value
        self.evaluated_value = evaluated_value


class Ellipsis(BaseExpression):
    __slots__ = ()


class Element(BaseElement):
    __slots__ = ("value",)
    FIELDS = ("value",)

    def __init__(self, value: BaseExpression) -> None:
        self.pos = NOWHERE
        self.value = value


class StarredElement(BaseElement, BaseExpression):
    __slots__ = ("value",)
    FIELDS = ("value",)

    def __init__(self, value: BaseExpression) -> None:
        self.pos = NOWHERE
        self.value = value


class _Sequence(BaseAssignTargetExpression, BaseDelTargetExpression):
    __slots__ = ("elements",)
    FIELDS = ("elements",)

    def __init__(self, elements: Sequence[BaseElement]) -> None:
        self.pos = NOWHERE
        self.elements = elements


class Tuple(_Sequence):
    __slots__ = ()


class List(_Sequence):
    __slots__ = ()


class Set(BaseExpression):
    __slots__ = ("elements",)
    FIELDS = ("elements",)

    def __init__(self, elements: Sequence[BaseElement]) -> None:
        self.pos = NOWHERE
        self.elements = elements


class DictElement(BaseDictElement):
    __slots__ = ("key", "value")
    FIELDS = ("key", "value")

    def __init__(self, key: BaseExpression, value: BaseExpression) -> None:
        self.pos = NOWHERE
        self.key = key
        self.value = value


class StarredDictElement(BaseDictElement):
    __slots__ = ("value",)
    FIELDS = ("value",)

    def __init__(self, value: BaseExpression) -> None:
        self.pos = NOWHERE
        self.value = value


class Dict(BaseExpression):
    __slots__ = ("elements",)
    FIELDS = ("elements",)

    def __init__(self, elements: Sequence[BaseDictElement]) -> None:
        self.pos = NOWHERE
        self.elements = elements


class Index(BaseSlice):
    __slots__ = ("star", "value")
    FIELDS = ("value",)

    def __init__(self, value: BaseExpression, star: str | None = None) -> None:
        self.pos = NOWHERE
        self.value = value
        self.star = star


class Slice(BaseSlice):
    __slots__ = ("lower", "step", "upper")
    FIELDS = ("lower", "upper", "step")

    def __init__(
        self,
        lower: BaseExpression | None,
        upper: BaseExpression | None,
        step: BaseExpression | None,
    ) -> None:
        self.pos = NOWHERE
        self.lower = lower
        self.upper = upper
        self.step = step


class SubscriptElement(CSTNode):
    __slots__ = ("slice",)
    FIELDS = ("slice",)

    def __init__(self, slice: BaseSlice) -> None:
        self.pos = NOWHERE
        self.slice = slice


class Subscript(BaseAssignTargetExpression, BaseDelTargetExpression):
    __slots__ = ("slice", "value")
    FIELDS = ("value", "slice")

    def __init__(self, value: BaseExpression, slice: Sequence[SubscriptElement]) -> None:
        self.pos = NOWHERE
        self.value = value
        self.slice = slice


class BinaryOperation(BaseExpression):
    __slots__ = ("left", "operator", "right")
    FIELDS = ("left", "right")

    def __init__(self, left: BaseExpression, operator: BaseOperator, right: BaseExpression) -> None:
        self.pos = NOWHERE
        self.left = left
        self.operator = operator
        self.right = right


class BooleanOperation(BaseExpression):
    __slots__ = ("left", "operator", "right")
    FIELDS = ("left", "right")

    def __init__(self, left: BaseExpression, operator: BaseOperator, right: BaseExpression) -> None:
        self.pos = NOWHERE
        self.left = left
        self.operator = operator
        self.right = right


class UnaryOperation(BaseExpression):
    __slots__ = ("expression", "operator")
    FIELDS = ("expression",)

    def __init__(self, operator: BaseOperator, expression: BaseExpression) -> None:
        self.pos = NOWHERE
        self.operator = operator
        self.expression = expression


class ComparisonTarget(CSTNode):
    __slots__ = ("comparator", "operator")
    FIELDS = ("comparator",)

    def __init__(self, operator: BaseOperator, comparator: BaseExpression) -> None:
        self.pos = NOWHERE
        self.operator = operator
        self.comparator = comparator


class Comparison(BaseExpression):
    __slots__ = ("comparisons", "left")
    FIELDS = ("left", "comparisons")

    def __init__(self, left: BaseExpression, comparisons: Sequence[ComparisonTarget]) -> None:
        self.pos = NOWHERE
        self.left = left
        self.comparisons = comparisons


class IfExp(BaseExpression):
    __slots__ = ("body", "orelse", "test")
    FIELDS = ("test", "body", "orelse")

    def __init__(self, test: BaseExpression, body: BaseExpression, orelse: BaseExpression) -> None:
        self.pos = NOWHERE
        self.test = test
        self.body = body
        self.orelse = orelse


class Await(BaseExpression):
    __slots__ = ("expression",)
    FIELDS = ("expression",)

    def __init__(self, expression: BaseExpression) -> None:
        self.pos = NOWHERE
        self.expression = expression


class From(CSTNode):
    __slots__ = ("item",)
    FIELDS = ("item",)

    def __init__(self, item: BaseExpression) -> None:
        self.pos = NOWHERE
        self.item = item


class Yield(BaseExpression):
    __slots__ = ("value",)
    FIELDS = ("value",)

    def __init__(self, value: BaseExpression | From | None) -> None:
        self.pos = NOWHERE
        self.value = value


class NamedExpr(BaseExpression):
    __slots__ = ("target", "value")
    FIELDS = ("target", "value")

    def __init__(self, target: BaseExpression, value: BaseExpression) -> None:
        self.pos = NOWHERE
        self.target = target
        self.value = value


class CompIf(CSTNode):
    __slots__ = ("test",)
    FIELDS = ("test",)

    def __init__(self, test: BaseExpression) -> None:
        self.pos = NOWHERE
        self.test = test


class CompFor(CSTNode):
    __slots__ = ("asynchronous", "ifs", "inner_for_in", "iter", "target")
    FIELDS = ("target", "iter", "ifs", "inner_for_in")

    def __init__(
        self,
        target: BaseExpression,
        iter: BaseExpression,
        ifs: Sequence[CompIf] = (),
        inner_for_in: CompFor | None = None,
        asynchronous: Asynchronous | None = None,
    ) -> None:
        self.pos = NOWHERE
        self.target = target
        self.iter = iter
        self.ifs = ifs
        self.inner_for_in = inner_for_in
        self.asynchronous = asynchronous


class _SimpleComp(BaseComp):
    __slots__ = ("elt", "for_in")
    FIELDS = ("elt", "for_in")

    def __init__(self, elt: BaseExpression, for_in: CompFor) -> None:
        self.pos = NOWHERE
        self.elt = elt
        self.for_in = for_in


class ListComp(_SimpleComp):
    __slots__ = ()


class SetComp(_SimpleComp):
    __slots__ = ()


class GeneratorExp(_SimpleComp):
    __slots__ = ()


class DictComp(BaseComp):
    __slots__ = ("for_in", "key", "value")
    FIELDS = ("key", "value", "for_in")

    def __init__(self, key: BaseExpression, value: BaseExpression, for_in: CompFor) -> None:
        self.pos = NOWHERE
        self.key = key
        self.value = value
        self.for_in = for_in


class Annotation(CSTNode):
    __slots__ = ("annotation",)
    FIELDS = ("annotation",)

    def __init__(self, annotation: BaseExpression) -> None:
        self.pos = NOWHERE
        self.annotation = annotation


class Param(CSTNode):
    __slots__ = ("annotation", "default", "name", "star")
    FIELDS = ("name", "annotation", "default")

    def __init__(
        self,
        name: Name,
        annotation: Annotation | None = None,
        default: BaseExpression | None = None,
        star: str = "",
    ) -> None:
        self.pos = NOWHERE
        self.name = name
        self.annotation = annotation
        self.default = default
        self.star = star


class ParamStar(CSTNode):
    """A bare ``*`` among the parameters."""

    __slots__ = ()


class ParamSlash(CSTNode):
    """``/`` after the positional-only parameters."""

    __slots__ = ()


class Parameters(CSTNode):
    __slots__ = (
        "kwonly_params",
        "params",
        "posonly_ind",
        "posonly_params",
        "star_arg",
        "star_kwarg",
    )
    FIELDS = ("params", "star_arg", "kwonly_params", "star_kwarg", "posonly_params")

    def __init__(
        self,
        params: Sequence[Param] = (),
        star_arg: Param | ParamStar | None = None,
        kwonly_params: Sequence[Param] = (),
        star_kwarg: Param | None = None,
        posonly_params: Sequence[Param] = (),
    ) -> None:
        self.pos = NOWHERE
        self.params = params
        self.star_arg = star_arg
        self.kwonly_params = kwonly_params
        self.star_kwarg = star_kwarg
        self.posonly_params = posonly_params
        self.posonly_ind = ParamSlash() if posonly_params else None


class Lambda(BaseExpression):
    __slots__ = ("body", "params")
    FIELDS = ("params", "body")

    def __init__(self, params: Parameters, body: BaseExpression) -> None:
        self.pos = NOWHERE
        self.params = params
        self.body = body


class Opaque(BaseExpression):
    """What extraction never reads (match patterns, type parameters): kept so that the
    nodes inside are still walked."""

    __slots__ = ("nodes",)
    FIELDS = ("nodes",)

    def __init__(self, nodes: Sequence[CSTNode] = ()) -> None:
        self.pos = NOWHERE
        self.nodes = nodes


# -- statements --------------------------------------------------------------------------


class _Small(BaseSmallStatement):
    __slots__ = ()


class Expr(_Small):
    __slots__ = ("value",)
    FIELDS = ("value",)

    def __init__(self, value: BaseExpression) -> None:
        self.pos = NOWHERE
        self.value = value


class AssignTarget(CSTNode):
    __slots__ = ("target",)
    FIELDS = ("target",)

    def __init__(self, target: BaseExpression) -> None:
        self.pos = NOWHERE
        self.target = target


class Assign(_Small):
    __slots__ = ("targets", "value")
    FIELDS = ("targets", "value")

    def __init__(self, targets: Sequence[AssignTarget], value: BaseExpression) -> None:
        self.pos = NOWHERE
        self.targets = targets
        self.value = value


class AnnAssign(_Small):
    __slots__ = ("annotation", "target", "value")
    FIELDS = ("target", "annotation", "value")

    def __init__(
        self, target: BaseExpression, annotation: Annotation, value: BaseExpression | None
    ) -> None:
        self.pos = NOWHERE
        self.target = target
        self.annotation = annotation
        self.value = value


class AugAssign(_Small):
    __slots__ = ("operator", "target", "value")
    FIELDS = ("target", "value")

    def __init__(
        self, target: BaseExpression, operator: BaseOperator, value: BaseExpression
    ) -> None:
        self.pos = NOWHERE
        self.target = target
        self.operator = operator
        self.value = value


class Return(_Small):
    __slots__ = ("value",)
    FIELDS = ("value",)

    def __init__(self, value: BaseExpression | None) -> None:
        self.pos = NOWHERE
        self.value = value


class Raise(_Small):
    __slots__ = ("cause", "exc")
    FIELDS = ("exc", "cause")

    def __init__(self, exc: BaseExpression | None, cause: From | None) -> None:
        self.pos = NOWHERE
        self.exc = exc
        self.cause = cause


class Pass(_Small):
    __slots__ = ()


class Break(_Small):
    __slots__ = ()


class Continue(_Small):
    __slots__ = ()


class NameItem(CSTNode):
    __slots__ = ("name",)
    FIELDS = ("name",)

    def __init__(self, name: Name) -> None:
        self.pos = NOWHERE
        self.name = name


class Global(_Small):
    __slots__ = ("names",)
    FIELDS = ("names",)

    def __init__(self, names: Sequence[NameItem]) -> None:
        self.pos = NOWHERE
        self.names = names


class Nonlocal(_Small):
    __slots__ = ("names",)
    FIELDS = ("names",)

    def __init__(self, names: Sequence[NameItem]) -> None:
        self.pos = NOWHERE
        self.names = names


class Del(_Small):
    __slots__ = ("target",)
    FIELDS = ("target",)

    def __init__(self, target: BaseExpression) -> None:
        self.pos = NOWHERE
        self.target = target


class Assert(_Small):
    __slots__ = ("msg", "test")
    FIELDS = ("test", "msg")

    def __init__(self, test: BaseExpression, msg: BaseExpression | None) -> None:
        self.pos = NOWHERE
        self.test = test
        self.msg = msg


class AsName(CSTNode):
    __slots__ = ("name",)
    FIELDS = ("name",)

    def __init__(self, name: BaseExpression) -> None:
        self.pos = NOWHERE
        self.name = name


class ImportAlias(CSTNode):
    __slots__ = ("asname", "name")
    FIELDS = ("name", "asname")

    def __init__(self, name: Name | Attribute, asname: AsName | None) -> None:
        self.pos = NOWHERE
        self.name = name
        self.asname = asname

    @property
    def evaluated_name(self) -> str:
        return dotted_text(self.name)

    @property
    def evaluated_alias(self) -> str | None:
        if self.asname is None:
            return None
        return dotted_text(self.asname.name)  # type: ignore[arg-type]


class ImportStar(CSTNode):
    __slots__ = ()


class Import(_Small):
    __slots__ = ("names",)
    FIELDS = ("names",)

    def __init__(self, names: Sequence[ImportAlias]) -> None:
        self.pos = NOWHERE
        self.names = names


class ImportFrom(_Small):
    __slots__ = ("module", "names", "relative")
    FIELDS = ("module", "names")

    def __init__(
        self,
        module: Name | Attribute | None,
        names: Sequence[ImportAlias] | ImportStar,
        relative: Sequence[Dot] = (),
    ) -> None:
        self.pos = NOWHERE
        self.module = module
        self.names = names
        self.relative = relative


class TypeAlias(_Small):
    __slots__ = ("name", "type_parameters", "value")
    FIELDS = ("name", "value")

    def __init__(self, name: Name, value: BaseExpression) -> None:
        self.pos = NOWHERE
        self.name = name
        self.value = value
        self.type_parameters = None


class SimpleStatementLine(BaseStatement):
    """Small statements on one line (``x = 1; y = 2``)."""

    __slots__ = ("body",)
    FIELDS = ("body",)

    def __init__(self, body: Sequence[BaseSmallStatement]) -> None:
        self.pos = NOWHERE
        self.body = body


class SimpleStatementSuite(BaseSuite):
    """A body written on its header's line (``if x: y()``)."""

    __slots__ = ("body",)
    FIELDS = ("body",)

    def __init__(self, body: Sequence[BaseSmallStatement]) -> None:
        self.pos = NOWHERE
        self.body = body


class IndentedBlock(BaseSuite):
    __slots__ = ("body",)
    FIELDS = ("body",)

    def __init__(self, body: Sequence[BaseStatement]) -> None:
        self.pos = NOWHERE
        self.body = body


class Decorator(CSTNode):
    __slots__ = ("decorator",)
    FIELDS = ("decorator",)

    def __init__(self, decorator: BaseExpression) -> None:
        self.pos = NOWHERE
        self.decorator = decorator


class FunctionDef(BaseCompoundStatement):
    __slots__ = (
        "asynchronous",
        "body",
        "decorators",
        "name",
        "params",
        "returns",
        "type_parameters",
    )
    FIELDS = ("name", "params", "body", "decorators", "returns")

    def __init__(
        self,
        name: Name,
        params: Parameters,
        body: BaseSuite,
        decorators: Sequence[Decorator] = (),
        returns: Annotation | None = None,
        asynchronous: Asynchronous | None = None,
    ) -> None:
        self.pos = NOWHERE
        self.name = name
        self.params = params
        self.body = body
        self.decorators = decorators
        self.returns = returns
        self.asynchronous = asynchronous
        self.type_parameters = None


class ClassDef(BaseCompoundStatement):
    __slots__ = ("bases", "body", "decorators", "keywords", "name", "type_parameters")
    FIELDS = ("name", "body", "bases", "keywords", "decorators")

    def __init__(
        self,
        name: Name,
        body: BaseSuite,
        bases: Sequence[Arg] = (),
        keywords: Sequence[Arg] = (),
        decorators: Sequence[Decorator] = (),
    ) -> None:
        self.pos = NOWHERE
        self.name = name
        self.body = body
        self.bases = bases
        self.keywords = keywords
        self.decorators = decorators
        self.type_parameters = None


class Else(CSTNode):
    __slots__ = ("body",)
    FIELDS = ("body",)

    def __init__(self, body: BaseSuite) -> None:
        self.pos = NOWHERE
        self.body = body


class If(BaseCompoundStatement):
    __slots__ = ("body", "orelse", "test")
    FIELDS = ("test", "body", "orelse")

    def __init__(self, test: BaseExpression, body: BaseSuite, orelse: If | Else | None) -> None:
        self.pos = NOWHERE
        self.test = test
        self.body = body
        self.orelse = orelse


class For(BaseCompoundStatement):
    __slots__ = ("asynchronous", "body", "iter", "orelse", "target")
    FIELDS = ("target", "iter", "body", "orelse")

    def __init__(
        self,
        target: BaseExpression,
        iter: BaseExpression,
        body: BaseSuite,
        orelse: Else | None,
        asynchronous: Asynchronous | None = None,
    ) -> None:
        self.pos = NOWHERE
        self.target = target
        self.iter = iter
        self.body = body
        self.orelse = orelse
        self.asynchronous = asynchronous


class While(BaseCompoundStatement):
    __slots__ = ("body", "orelse", "test")
    FIELDS = ("test", "body", "orelse")

    def __init__(self, test: BaseExpression, body: BaseSuite, orelse: Else | None) -> None:
        self.pos = NOWHERE
        self.test = test
        self.body = body
        self.orelse = orelse


class ExceptHandler(CSTNode):
    __slots__ = ("body", "name", "type")
    FIELDS = ("body", "type", "name")

    def __init__(
        self,
        body: BaseSuite,
        type: BaseExpression | None,
        name: AsName | None,
    ) -> None:
        self.pos = NOWHERE
        self.body = body
        self.type = type
        self.name = name


class ExceptStarHandler(ExceptHandler):
    __slots__ = ()


class Finally(CSTNode):
    __slots__ = ("body",)
    FIELDS = ("body",)

    def __init__(self, body: BaseSuite) -> None:
        self.pos = NOWHERE
        self.body = body


class Try(BaseCompoundStatement):
    __slots__ = ("body", "finalbody", "handlers", "orelse")
    FIELDS = ("body", "handlers", "orelse", "finalbody")

    def __init__(
        self,
        body: BaseSuite,
        handlers: Sequence[ExceptHandler],
        orelse: Else | None,
        finalbody: Finally | None,
    ) -> None:
        self.pos = NOWHERE
        self.body = body
        self.handlers = handlers
        self.orelse = orelse
        self.finalbody = finalbody


class TryStar(Try):
    __slots__ = ()


class WithItem(CSTNode):
    __slots__ = ("asname", "item")
    FIELDS = ("item", "asname")

    def __init__(self, item: BaseExpression, asname: AsName | None) -> None:
        self.pos = NOWHERE
        self.item = item
        self.asname = asname


class With(BaseCompoundStatement):
    __slots__ = ("asynchronous", "body", "items")
    FIELDS = ("items", "body")

    def __init__(
        self, items: Sequence[WithItem], body: BaseSuite, asynchronous: Asynchronous | None = None
    ) -> None:
        self.pos = NOWHERE
        self.items = items
        self.body = body
        self.asynchronous = asynchronous


class MatchCase(CSTNode):
    __slots__ = ("body", "guard", "pattern")
    FIELDS = ("pattern", "body", "guard")

    def __init__(self, pattern: CSTNode, body: BaseSuite, guard: BaseExpression | None) -> None:
        self.pos = NOWHERE
        self.pattern = pattern
        self.body = body
        self.guard = guard


class Match(BaseCompoundStatement):
    __slots__ = ("cases", "subject")
    FIELDS = ("subject", "cases")

    def __init__(self, subject: BaseExpression, cases: Sequence[MatchCase]) -> None:
        self.pos = NOWHERE
        self.subject = subject
        self.cases = cases


class Module(CSTNode):
    __slots__ = ("_lines", "body", "source")
    FIELDS = ("body",)

    def __init__(
        self, body: Sequence[BaseStatement], source: str = "", lines: list[str] | None = None
    ) -> None:
        self.pos = NOWHERE
        self.body = body
        self.source = source
        """The module's text (for excerpts of nodes: :func:`source_of`)."""
        self._lines = lines

    @property
    def lines(self) -> list[str]:
        if self._lines is None:
            self._lines = _LINE_BREAK.split(self.source)
        return self._lines


def dotted_text(node: CSTNode) -> str:
    """``a.b.c`` of a Name/Attribute chain (libcst's ``get_full_name_for_node`` for the
    names an import statement holds)."""
    parts: list[str] = []
    while isinstance(node, Attribute):
        parts.append(node.attr.value)
        node = node.value
    if isinstance(node, Name):
        parts.append(node.value)
    return ".".join(reversed(parts))


def full_name(node: Any) -> str | None:
    """libcst's ``helpers.get_full_name_for_node``: the dotted name of a Name, an
    Attribute chain, or the callee of a Call or the value of a Subscript."""
    if isinstance(node, Name):
        return node.value
    if isinstance(node, Attribute):
        value = full_name(node.value)
        return f"{value}.{node.attr.value}" if value is not None else None
    if isinstance(node, Call):
        return full_name(node.func)
    if isinstance(node, Subscript):
        return full_name(node.value)
    if isinstance(node, str):
        return node
    return None


def source_of(module: Module, node: CSTNode) -> str:
    """The source text of ``node``, cut from the module's text at its position."""
    line, column, end_line, end_column = node.pos
    lines = module.lines
    if node.pos == NOWHERE or end_line > len(lines) or line < 1:
        return ""
    if line == end_line:
        return lines[line - 1][column - 1 : end_column - 1]
    return "\n".join(
        [
            lines[line - 1][column - 1 :],
            *lines[line : end_line - 1],
            lines[end_line - 1][: end_column - 1],
        ]
    )


_LINE_BREAK = re.compile(r"\r\n|\r|\n")
