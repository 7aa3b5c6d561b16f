"""Static evaluation of configuration expressions into plain values.

Only what is certain is evaluated: literals, arithmetic on literals, module constants
assigned earlier in the same file. Everything else becomes a :class:`Ref`, a
:class:`CallV` or an :class:`Opaque` excerpt, never a guess.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Mapping

from jobcheck.facts.values import JOIN, CallV, Const, DictV, Opaque, Ref, SeqV, Value, is_join
from jobcheck.syntax import quiet
from jobcheck.syntax import tree as cst
from jobcheck.syntax.names import Names, dotted
from jobcheck.timing import bounded

_BINARY: dict[type, Callable[[object, object], object]] = {
    cst.Add: operator.add,
    cst.Subtract: operator.sub,
    cst.Multiply: operator.mul,
    cst.Divide: operator.truediv,
    cst.FloorDivide: operator.floordiv,
    cst.Modulo: operator.mod,
    cst.Power: operator.pow,
}

MAX_EXCERPT = 60
MAX_DEPTH = 40
"""Deeper values become :class:`Opaque`: configuration is never nested this deep, and
every reader of values (the caches, the project model) may recurse through them."""
_MAX_LITERAL = 64
"""Longer number literals are not converted (Python refuses decimal ints of more than
4300 digits); such a number is beyond :data:`jobcheck.timing.MAX_NUMBER` anyway."""
_MAX_COMPREHENSION = 64
"""A comprehension over more items is not unrolled (settings loop over a few names)."""
_MAX_COMPREHENSION_TEXT = 2000
"""Characters of a comprehension's key and value beyond which it is not unrolled."""
_MAX_EXPONENT = 64
"""A power is folded only with an exponent this small: ``10 ** 10 ** 10`` is valid
Python, and computing it would stall the run."""


def excerpt(module: cst.Module, node: cst.CSTNode) -> str:
    text = " ".join(cst.source_of(module, node).split())
    return text if len(text) <= MAX_EXCERPT else text[: MAX_EXCERPT - 3] + "..."


class Evaluator:
    def __init__(
        self,
        module: cst.Module,
        names: Names,
        constants: Mapping[str, Value] | None = None,
        local_values: Callable[[], Mapping[str, Value]] | None = None,
    ) -> None:
        """``constants``: the module's names with their values; ``local_values``: those
        of the function being read (they shadow the module's)."""
        self.module = module
        self.names = names
        self.constants = constants if constants is not None else {}
        self.local_values = local_values
        self._depth = 0
        self._bound: dict[str, Value] = {}
        """A comprehension's loop variable, while its items are read."""

    def __call__(self, expr: cst.BaseExpression) -> Value:
        return self.value(expr)

    def value(self, expr: cst.BaseExpression) -> Value:
        if self._depth >= MAX_DEPTH:
            return Opaque(excerpt(self.module, expr))
        self._depth += 1
        try:
            return self._value(expr)
        finally:
            self._depth -= 1

    def _value(self, expr: cst.BaseExpression) -> Value:
        if isinstance(
            expr,
            (cst.Integer, cst.Float, cst.SimpleString, cst.ConcatenatedString, cst.FormattedString),
        ):
            return self._literal(expr)
        if isinstance(expr, cst.Name):
            if expr.value in ("True", "False", "None"):
                return Const({"True": True, "False": False, "None": None}[expr.value])
            if expr.value in self._bound:
                return self._bound[expr.value]
            if self.local_values is not None:
                local = self.local_values()
                if expr.value in local:
                    return local[expr.value]
            if expr.value in self.constants:
                return self.constants[expr.value]
            return Ref(self.names.resolve(expr.value))
        if isinstance(expr, cst.Attribute):
            name = dotted(expr)
            if name is not None:
                return Ref(self.names.resolve(name))
        if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
            inner = self.value(expr.expression)
            if isinstance(inner, Const) and isinstance(inner.value, (int, float)):
                return Const(-inner.value)  # numbers are bounded symmetrically
        if isinstance(expr, cst.BinaryOperation):
            return self._binary(expr)
        if isinstance(expr, (cst.Tuple, cst.List, cst.Set)):
            return SeqV(
                tuple(
                    self.value(el.value)
                    if isinstance(el, cst.Element)
                    else Opaque(excerpt(self.module, el))
                    for el in expr.elements
                )
            )
        if isinstance(expr, cst.Dict):
            items: list[tuple[Value | None, Value]] = []
            for el in expr.elements:
                if isinstance(el, cst.DictElement):
                    items.append((self.value(el.key), self.value(el.value)))
                else:
                    items.append((None, self.value(el.value)))
            return DictV(tuple(items))
        if isinstance(expr, cst.Call):
            return self.call(expr)
        if isinstance(expr, cst.DictComp):
            return self._dict_comp(expr)
        return Opaque(excerpt(self.module, expr))

    def _dict_comp(self, expr: cst.DictComp) -> Value:
        """``{name: {"DEFAULT_TIMEOUT": 300} for name in ("default", "low")}``: the dict
        it builds, when it loops once, unfiltered, over a short literal sequence of
        constants (django-rq's ``RQ_QUEUES`` written for every queue at once)."""
        loop = expr.for_in
        target = loop.target
        if loop.ifs or loop.inner_for_in is not None or loop.asynchronous is not None:
            return Opaque(excerpt(self.module, expr))
        # Each item reads the key and value again: never inside another comprehension
        # being read (a file could nest them to grow the work exponentially), and only
        # for a value of a few lines.
        written = len(cst.source_of(self.module, expr.key)) + len(
            cst.source_of(self.module, expr.value)
        )
        if self._bound or written > _MAX_COMPREHENSION_TEXT:
            return Opaque(excerpt(self.module, expr))
        items = self.value(loop.iter)
        if (
            not isinstance(target, cst.Name)
            or not isinstance(items, SeqV)
            or len(items.items) > _MAX_COMPREHENSION
            or not all(isinstance(item, Const) for item in items.items)
        ):
            return Opaque(excerpt(self.module, expr))
        name = target.value
        outer = self._bound.get(name)
        pairs: list[tuple[Value | None, Value]] = []
        try:
            for item in items.items:
                self._bound[name] = item
                pairs.append((self.value(expr.key), self.value(expr.value)))
        finally:
            if outer is None:
                self._bound.pop(name, None)
            else:
                self._bound[name] = outer
        return DictV(tuple(pairs))

    def call(self, call: cst.Call) -> CallV:
        func = self.names.qualify(call.func)
        args: list[Value] = []
        kwargs: list[tuple[str, Value]] = []
        for arg in call.args:
            if arg.keyword is not None:
                kwargs.append((arg.keyword.value, self.value(arg.value)))
            elif arg.star:
                args.append(Opaque(arg.star + excerpt(self.module, arg.value)))
            else:
                args.append(self.value(arg.value))
        if func == "dict" and not args:
            return CallV("dict", (), tuple(kwargs))
        return CallV(func, tuple(args), tuple(kwargs))

    def _formatted(self, expr: cst.FormattedString) -> Value:
        """An f-string whose parts are all known (``f"{PREFIX}-high"`` with ``PREFIX`` a
        string constant of the module): the string; with names of other modules among
        its parts, a join the project model resolves; else opaque."""
        parts: list[Value] = []
        for part in expr.parts:
            if isinstance(part, cst.FormattedStringText):
                if "{" in part.value or "}" in part.value or "\\" in part.value:
                    return Opaque(excerpt(self.module, expr))  # doubled braces, escapes
                parts.append(Const(part.value))
                continue
            if part.conversion is not None or part.format_spec is not None:
                return Opaque(excerpt(self.module, expr))
            parts.append(self.value(part.expression))
        return self._join(parts, expr)

    def _join(self, parts: list[Value], expr: cst.BaseExpression) -> Value:
        """The string of ``parts`` when all are known, a join when the unknown ones are
        names (resolved across modules later), else opaque."""
        flat: list[Value] = []
        for part in parts:
            if is_join(part):
                flat.extend(part.args)
            elif isinstance(part, CallV) and part.func == "str" and len(part.args) == 1:
                flat.append(part.args[0])
            else:
                flat.append(part)
        if not all(_joinable(p) for p in flat):
            return Opaque(excerpt(self.module, expr))
        if all(isinstance(p, Const) for p in flat):
            return Const("".join(str(p.value) for p in flat))  # type: ignore[union-attr]
        return CallV(JOIN, tuple(flat))

    def _literal(self, expr: cst.BaseExpression) -> Value:
        if isinstance(expr, cst.FormattedString):
            return self._formatted(expr)
        if isinstance(expr, cst.ConcatenatedString):
            parts = [self._literal(expr.left), self._literal(expr.right)]
            if all(isinstance(p, Const) and isinstance(p.value, str) for p in parts):
                return Const("".join(p.value for p in parts))  # type: ignore[union-attr]
            return Opaque(excerpt(self.module, expr))
        if not isinstance(expr, (cst.Integer, cst.Float, cst.SimpleString)):
            # An f-string inside an implicit concatenation: "a" f"{b}"
            return Opaque(excerpt(self.module, expr))
        if isinstance(expr, (cst.Integer, cst.Float)) and len(expr.value) > _MAX_LITERAL:
            return Opaque(excerpt(self.module, expr))  # too large to be a number here
        value = _quick_literal(expr.value)
        if value is None:
            try:
                value = quiet.literal_eval(expr.value)
            except (ValueError, SyntaxError):
                return Opaque(excerpt(self.module, expr))
        if isinstance(value, (int, float)) and bounded(value) is None:
            return Opaque(excerpt(self.module, expr))  # 0xfff... (many f), 1e999
        return Const(value)

    def _binary(self, expr: cst.BinaryOperation) -> Value:
        fold = _BINARY.get(type(expr.operator))
        left, right = self.value(expr.left), self.value(expr.right)
        if isinstance(expr.operator, cst.Add) and (_stringy(left) or _stringy(right)):
            return self._join([left, right], expr)  # "*/" + str(EVERY)
        if (
            fold is not None
            and isinstance(left, Const)
            and isinstance(right, Const)
            and isinstance(left.value, (int, float))
            and isinstance(right.value, (int, float))
        ):
            if _cheap(fold, right.value):
                try:
                    folded = bounded(fold(left.value, right.value))
                except (ArithmeticError, ValueError):
                    folded = None
                if folded is not None:
                    return Const(folded)
        return Opaque(excerpt(self.module, expr))


def _stringy(value: Value) -> bool:
    """A string constant or a join: ``+`` with it concatenates."""
    if isinstance(value, Const):
        return isinstance(value.value, str)
    return is_join(value)


def _joinable(value: Value) -> bool:
    """A part a join may hold: a string or integer constant (not a bool), or a name of
    a module (imported, or defined at module level: a dotted path; a local variable
    resolves to nothing and stays opaque)."""
    if isinstance(value, Const):
        return isinstance(value.value, (str, int)) and not isinstance(value.value, bool)
    return isinstance(value, Ref) and "." in value.qualname


def _cheap(fold: Callable[[object, object], object], right: float) -> bool:
    """Whether folding stays small: a power only with a small exponent (its operands
    are within :data:`jobcheck.timing.MAX_NUMBER`)."""
    return fold is not operator.pow or abs(right) <= _MAX_EXPONENT


_PLAIN_STRING = re.compile(r"""(?:'[^'\\\n]*'|"[^"\\\n]*")\Z""")
_PLAIN_INTEGER = re.compile(r"(?:0|[1-9][0-9_]*)\Z")


def _quick_literal(text: str) -> object | None:
    """The value of the commonest literals without compiling them (``ast.literal_eval``
    compiles its argument, a quarter of a millisecond each): decimal integers and
    quoted strings with no prefix and no escapes. None: use ``literal_eval``."""
    if _PLAIN_INTEGER.match(text):
        return int(text.replace("_", ""))
    if _PLAIN_STRING.match(text) and (len(text) < 6 or text[:3] not in ('"""', "'''")):
        return text[1:-1]
    return None
