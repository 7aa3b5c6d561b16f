"""Source positions, computed only where a fact needs one, and cheaply.

libcst's ``PositionProvider`` regenerates the code of the whole module (and its metadata
wrapper rebuilds every node) to place every node: that costs more than the parse. Facts
need positions for a few nodes, so this index places one small piece of code at a time:

1. Statement positions come from the standard library's ``ast`` (about a tenth of
   libcst's parse time), matched to libcst's statements by their order: both trees list
   the same statements in the same pre-order.
2. A node's range comes from regenerating, with libcst's own position-tracking code
   generator, only its innermost statement (for compound statements only the header:
   decorators, name, parameters, test), primed with the statement's real indentation so
   that columns on continuation lines come out right.
3. Every placement is verified against the source text (the generated code must equal
   the source up to the node's end); anything that does not match falls back to the
   slow, exact path: generating the enclosing top-level statement, else the module.

The ranges are the same as ``PositionProvider``'s; tests/test_positions.py compares them
node by node.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Sequence
from typing import Any

import libcst as cst

from jobcheck.facts import Loc
from jobcheck.syntax import quiet

_NEWLINE = re.compile(r"\r\n?|\n")

# libcst statement (and handler) types and the ``ast`` types they correspond to.
_AST_TYPES: dict[type, tuple[type, ...]] = {
    cst.Assign: (ast.Assign,),
    cst.AnnAssign: (ast.AnnAssign,),
    cst.AugAssign: (ast.AugAssign,),
    cst.Expr: (ast.Expr,),
    cst.Return: (ast.Return,),
    cst.Raise: (ast.Raise,),
    cst.Assert: (ast.Assert,),
    cst.Del: (ast.Delete,),
    cst.Pass: (ast.Pass,),
    cst.Break: (ast.Break,),
    cst.Continue: (ast.Continue,),
    cst.Global: (ast.Global,),
    cst.Nonlocal: (ast.Nonlocal,),
    cst.Import: (ast.Import,),
    cst.ImportFrom: (ast.ImportFrom,),
    cst.FunctionDef: (ast.FunctionDef, ast.AsyncFunctionDef),
    cst.ClassDef: (ast.ClassDef,),
    cst.If: (ast.If,),
    cst.For: (ast.For, ast.AsyncFor),
    cst.While: (ast.While,),
    cst.Try: (ast.Try,),
    cst.With: (ast.With, ast.AsyncWith),
    cst.Match: (ast.Match,),
    cst.ExceptHandler: (ast.ExceptHandler,),
}
if hasattr(ast, "TryStar"):  # Python 3.11+
    _AST_TYPES[cst.TryStar] = (ast.TryStar,)
    _AST_TYPES[cst.ExceptStarHandler] = (ast.ExceptHandler,)
if hasattr(ast, "TypeAlias"):  # Python 3.12+
    _AST_TYPES[cst.TypeAlias] = (ast.TypeAlias,)

ANCHOR_TYPES: frozenset[type] = frozenset(
    t
    for t in vars(cst).values()
    if isinstance(t, type)
    and issubclass(t, cst.CSTNode)
    and issubclass(
        t,
        (
            cst.BaseSmallStatement,
            cst.BaseCompoundStatement,
            cst.ExceptHandler,
            cst.ExceptStarHandler,
        ),
    )
)
"""Node types that start a statement (or an ``except`` clause): the units placed."""

# Compound statements whose header can be generated alone (body replaced by ``pass``);
# the fields to replace.
_HEADER_ONLY: dict[type, dict[str, Any]] = {
    cst.FunctionDef: {"body": None, "leading_lines": ()},
    cst.ClassDef: {"body": None, "leading_lines": ()},
    cst.If: {"body": None, "orelse": None, "leading_lines": ()},
    cst.For: {"body": None, "orelse": None, "leading_lines": ()},
    cst.While: {"body": None, "orelse": None, "leading_lines": ()},
    cst.With: {"body": None, "leading_lines": ()},
    cst.ExceptHandler: {"body": None, "leading_lines": ()},
    cst.ExceptStarHandler: {"body": None, "leading_lines": ()},
}
_PASS_SUITE = cst.SimpleStatementSuite(body=[cst.Pass()])

CodeRange = tuple[int, int, int, int]
"""(start line, start column, end line, end column), 1-based lines, 0-based columns."""


class _State:
    """libcst's position-tracking code generator (``PositionProvidingCodegenState``),
    rewritten for speed with the same results: ranges are plain tuples
    ``((line, column), (line, column))`` instead of dataclasses, syntactic ranges are
    recorded with a small context object instead of a generator, and tokens without a
    newline (nearly all) skip the line split. Nodes only call the methods below.
    tests/test_positions.py compares the ranges with libcst's node by node."""

    __slots__ = (
        "_stack",
        "column",
        "computed",
        "default_indent",
        "default_newline",
        "indent_tokens",
        "line",
        "tokens",
    )

    def __init__(self, default_indent: str, default_newline: str) -> None:
        self.default_indent = default_indent
        self.default_newline = default_newline
        self.indent_tokens: list[str] = []
        self.tokens: list[str] = []
        self.line = 1
        self.column = 0
        self._stack: list[tuple[int, int]] = []
        self.computed: dict[cst.CSTNode, tuple[tuple[int, int], tuple[int, int]]] = {}

    def increase_indent(self, value: str) -> None:
        self.indent_tokens.append(value)

    def decrease_indent(self) -> None:
        self.indent_tokens.pop()

    def add_indent_tokens(self) -> None:
        for token in self.indent_tokens:
            self.add_token(token)

    def add_token(self, value: str) -> None:
        self.tokens.append(value)
        if "\n" in value or "\r" in value:
            segments = _NEWLINE.split(value)
            self.line += len(segments) - 1
            self.column = len(segments[-1])
        else:
            self.column += len(value)

    def pop_trailing_newline(self) -> None:
        if self.tokens:
            self.tokens.pop()

    def before_codegen(self, node: cst.CSTNode) -> None:
        self._stack.append((self.line, self.column))

    def after_codegen(self, node: cst.CSTNode) -> None:
        start = self._stack.pop()
        if node not in self.computed:  # a syntactic range was recorded already
            self.computed[node] = (start, (self.line, self.column))

    def record_syntactic_position(
        self,
        node: cst.CSTNode,
        *,
        start_node: cst.CSTNode | None = None,
        end_node: cst.CSTNode | None = None,
    ) -> _Syntactic:
        return _Syntactic(self, node, start_node, end_node)


class _Syntactic:
    """``with state.record_syntactic_position(node, ...)``: the node's range excluding
    the whitespace it owns, optionally hoisted from a child's start or end."""

    __slots__ = ("end_node", "node", "start", "start_node", "state")

    def __init__(
        self,
        state: _State,
        node: cst.CSTNode,
        start_node: cst.CSTNode | None,
        end_node: cst.CSTNode | None,
    ) -> None:
        self.state = state
        self.node = node
        self.start_node = start_node
        self.end_node = end_node
        self.start = (state.line, state.column)

    def __enter__(self) -> None:
        return None

    def __exit__(self, *_: object) -> None:
        state = self.state
        computed = state.computed
        start = computed[self.start_node][0] if self.start_node is not None else self.start
        end = (
            computed[self.end_node][1] if self.end_node is not None else (state.line, state.column)
        )
        computed[self.node] = (start, end)


class _Anchor:
    """Where a statement starts in the source: its line, the text before it on that line
    and the block's indentation; ``elif`` says an ``If`` is written ``elif``."""

    __slots__ = ("elif_", "indent", "line", "prefix")

    def __init__(self, line: int, prefix: str, indent: str, elif_: bool) -> None:
        self.line = line
        self.prefix = prefix
        self.indent = indent
        self.elif_ = elif_


class Positions:
    def __init__(self, module: cst.Module, source: str) -> None:
        self._module = module
        self._source = source
        self._line_starts: list[int] | None = None
        self._anchors: dict[int, _Anchor] | None = None
        self._placed: dict[int, dict[int, CodeRange]] = {}
        """Anchor id -> ranges of the nodes generated with it (node id -> range)."""
        self._keep: list[object] = []
        """Header copies, kept alive so that the ids above stay unique."""
        self._fallback: dict[int, CodeRange] = {}
        self._fallback_done: set[int] = set()
        self._whole_module = False
        self.slow_placements = 0
        """How many times the exact slow path was needed (for profiling)."""

    # -- public ---------------------------------------------------------------------

    def loc(
        self,
        node: cst.CSTNode,
        statement: cst.CSTNode | None,
        anchors: Sequence[cst.CSTNode] = (),
    ) -> Loc:
        """The range of ``node``, which lies inside top-level ``statement`` and, most
        likely, in the header of the innermost of ``anchors`` (enclosing statements,
        outermost first)."""
        found = self._fast(node, anchors)
        if found is None:
            found = self._slow(node, statement)
        if found is None:
            return Loc(1, 1, 1, 1)
        line, column, end_line, end_column = found
        return Loc(line, column + 1, end_line, end_column + 1)

    # -- the fast path: one statement (or header) at a time ---------------------------

    def _fast(self, node: cst.CSTNode, anchors: Sequence[cst.CSTNode]) -> CodeRange | None:
        index = self._anchor_index()
        if index is None:
            return None
        if id(node) in index:
            return self._place(node, node, index[id(node)], whole=True)
        for anchor in reversed(anchors):
            info = index.get(id(anchor))
            if info is None:
                continue
            found = self._place(node, anchor, info, whole=False)
            if found is not None:
                return found
        return None

    def _place(
        self, node: cst.CSTNode, anchor: cst.CSTNode, info: _Anchor, whole: bool
    ) -> CodeRange | None:
        key = id(anchor) if not whole or not _is_compound(anchor) else -id(anchor)
        ranges = self._placed.get(key)
        if ranges is None:
            ranges = self._generate(anchor, info, header_only=key > 0)
            self._placed[key] = ranges
        return ranges.get(id(node))

    def _generate(
        self, anchor: cst.CSTNode, info: _Anchor, header_only: bool
    ) -> dict[int, CodeRange]:
        """Ranges of every node generated with ``anchor`` (its header when
        ``header_only``), in source coordinates; empty when the generated code does not
        match the source."""
        target = anchor
        fields: dict[str, Any] = {}
        if header_only and type(anchor) in _HEADER_ONLY:
            fields = {
                k: (_PASS_SUITE if v is None else v) for k, v in _HEADER_ONLY[type(anchor)].items()
            }
        elif getattr(anchor, "leading_lines", None):
            fields = {"leading_lines": ()}  # comment lines before the statement
        if fields:
            try:
                target = anchor.with_changes(**fields)
            except cst.CSTValidationError:
                target = anchor
            self._keep.append(target)
        state = _State(self._module.default_indent, self._module.default_newline)
        state.indent_tokens = [info.indent] if info.indent else []
        if isinstance(anchor, cst.BaseSmallStatement):
            state.add_token(info.prefix)
        elif info.prefix != info.indent:
            return {}
        try:
            if isinstance(anchor, cst.If):
                target._codegen(state, is_elif=info.elif_)  # type: ignore[arg-type]
            else:
                target._codegen(state)  # type: ignore[arg-type]
        except Exception:  # a libcst internal changed: take the exact slow path
            return {}
        generated = "".join(state.tokens)
        start = self._line_start(info.line)
        if start is None:
            return {}
        offset = info.line - 1
        result: dict[int, CodeRange] = {}
        checked_to = _matching_prefix(generated, self._source, start)
        ends = _line_ends(generated)
        computed = state.computed
        if target is not anchor and not header_only and target in computed:
            computed[anchor] = computed.pop(target)
        lines = len(ends)
        for node, ((line, column), (end_line, end_column)) in computed.items():
            if end_line > lines or ends[end_line - 1] + end_column > checked_to:
                continue  # generated text differs from the source before this node ends
            result[id(node)] = (line + offset, column, end_line + offset, end_column)
        return result

    # -- statement index from ``ast`` -------------------------------------------------

    def _anchor_index(self) -> dict[int, _Anchor] | None:
        if self._anchors is not None:
            return self._anchors or None
        self._anchors = {}
        try:
            tree = quiet.parse(self._source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None  # newer syntax than this Python knows: the slow path places all
        ours = list(_cst_statements(self._module.body, elif_=False))
        theirs = list(_ast_statements(tree.body))
        if len(ours) != len(theirs):
            return None
        index: dict[int, _Anchor] = {}
        for (node, elif_), their in zip(ours, theirs, strict=True):
            if not isinstance(their, _AST_TYPES.get(type(node), ())):
                return None
            anchor = self._anchor(node, their, elif_)
            if anchor is None:
                return None
            index[id(node)] = anchor
        self._anchors = index
        return index

    def _anchor(self, node: cst.CSTNode, their: Any, elif_: bool) -> _Anchor | None:
        line, column = their.lineno, their.col_offset
        text = self._line_text(line)
        if text is None:
            return None
        indent = text[: len(text) - len(text.lstrip(" \t\f"))]
        if column == len(indent):
            prefix = indent
        else:
            try:
                prefix = text.encode("utf-8")[:column].decode("utf-8")
            except UnicodeDecodeError:
                return None
        decorators = getattr(node, "decorators", ())
        if decorators and their.decorator_list:
            # Generated code starts at the first decorator (ast places ``def``/``class``)
            # and the comment lines libcst keeps before it.
            line = their.decorator_list[0].lineno - len(decorators[0].leading_lines)
        return _Anchor(line, prefix, indent, elif_)

    def _line_start(self, line: int) -> int | None:
        if self._line_starts is None:
            starts = [0]
            starts.extend(m.end() for m in _NEWLINE.finditer(self._source))
            self._line_starts = starts
        if line < 1 or line > len(self._line_starts):
            return None
        return self._line_starts[line - 1]

    def _line_text(self, line: int) -> str | None:
        start = self._line_start(line)
        if start is None:
            return None
        match = _NEWLINE.search(self._source, start)
        return self._source[start : match.start() if match else len(self._source)]

    # -- the exact slow path ------------------------------------------------------------

    def _slow(self, node: cst.CSTNode, statement: cst.CSTNode | None) -> CodeRange | None:
        found = self._fallback.get(id(node))
        if found is None and statement is not None and id(statement) not in self._fallback_done:
            self._fallback_done.add(id(statement))
            self._place_top_level(statement)
            found = self._fallback.get(id(node))
        if found is None and not self._whole_module:
            self._whole_module = True
            self.slow_placements += 1
            self._record(self._module, 0)
            found = self._fallback.get(id(node))
        return found

    def _place_top_level(self, statement: cst.CSTNode) -> None:
        self.slow_placements += 1
        alone = self._module.with_changes(body=[statement], header=[], footer=[])
        self._keep.append(alone)
        code = alone.code_for_node(statement)
        start = self._source.find(code)
        if start < 0 or self._source.find(code, start + 1) >= 0:
            return
        line_offset = len(_NEWLINE.findall(self._source, 0, start))
        self._record(alone, line_offset)

    def _record(self, module: cst.Module, line_offset: int) -> None:
        state = _State(module.default_indent, module.default_newline)
        module._codegen(state)  # type: ignore[arg-type]
        for node, ((line, column), (end_line, end_column)) in state.computed.items():
            self._fallback.setdefault(
                id(node), (line + line_offset, column, end_line + line_offset, end_column)
            )


def node_ranges(module: cst.Module) -> dict[int, CodeRange]:
    """The range of every node of ``module`` by node id (``PositionProvider``'s ranges,
    from one pass of the fast code generator)."""
    state = _State(module.default_indent, module.default_newline)
    module._codegen(state)  # type: ignore[arg-type]
    return {
        id(node): (line, column, end_line, end_column)
        for node, ((line, column), (end_line, end_column)) in state.computed.items()
    }


def _is_compound(node: cst.CSTNode) -> bool:
    return type(node) in _HEADER_ONLY or isinstance(node, cst.BaseCompoundStatement)


def _cst_statements(body: Sequence[cst.CSTNode], elif_: bool) -> Iterator[tuple[cst.CSTNode, bool]]:
    """libcst's statements (and ``except`` clauses) in pre-order, with an ``elif`` flag."""
    for statement in body:
        if isinstance(statement, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            for small in statement.body:
                yield small, False
            continue
        yield statement, elif_
        yield from _cst_children(statement)


def _cst_children(statement: cst.CSTNode) -> Iterator[tuple[cst.CSTNode, bool]]:
    if isinstance(statement, cst.Match):
        for case in statement.cases:
            yield from _cst_suite(case.body)
        return
    body = getattr(statement, "body", None)
    if isinstance(body, cst.BaseSuite):
        yield from _cst_suite(body)
    for handler in getattr(statement, "handlers", ()):
        yield handler, False
        yield from _cst_suite(handler.body)
    orelse = getattr(statement, "orelse", None)
    if isinstance(orelse, cst.If):
        yield orelse, True
        yield from _cst_children(orelse)
    elif orelse is not None:
        yield from _cst_suite(orelse.body)
    final = getattr(statement, "finalbody", None)
    if final is not None:
        yield from _cst_suite(final.body)


def _cst_suite(suite: cst.BaseSuite) -> Iterator[tuple[cst.CSTNode, bool]]:
    if isinstance(suite, cst.SimpleStatementSuite):
        for small in suite.body:
            yield small, False
    else:
        yield from _cst_statements(suite.body, elif_=False)  # type: ignore[attr-defined]


def _ast_statements(body: Sequence[ast.AST]) -> Iterator[ast.AST]:
    """``ast``'s statements (and ``except`` handlers) in the same pre-order."""
    for statement in body:
        yield statement
        if isinstance(statement, ast.Match):
            for case in statement.cases:
                yield from _ast_statements(case.body)
            continue
        yield from _ast_statements(getattr(statement, "body", ()))
        for handler in getattr(statement, "handlers", ()):
            yield handler
            yield from _ast_statements(handler.body)
        yield from _ast_statements(getattr(statement, "orelse", ()))
        yield from _ast_statements(getattr(statement, "finalbody", ()))


def _matching_prefix(generated: str, source: str, start: int) -> int:
    """How many leading characters of ``generated`` equal the source from ``start``."""
    if source.startswith(generated, start):
        return len(generated)
    low, high = 0, len(generated)
    while low < high:  # binary search on the longest matching prefix
        middle = (low + high + 1) // 2
        if source.startswith(generated[:middle], start):
            low = middle
        else:
            high = middle - 1
    return low


def _line_ends(text: str) -> list[int]:
    """Offsets at which each line of ``text`` starts (index 0 is line 1)."""
    starts = [0]
    starts.extend(m.end() for m in _NEWLINE.finditer(text))
    return starts
