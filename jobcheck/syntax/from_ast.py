"""CPython's ``ast`` into :mod:`jobcheck.syntax.tree`, placed as libcst places nodes.

CPython's parser is about ten times faster than libcst's and builds a quarter of the
nodes. Its positions are UTF-8 byte columns, and it has no node for what libcst wraps
(an argument, a list element, a decorator with its ``@``, a statement line); this
converter turns columns into code points and computes those wrappers' ranges from the
source, as libcst's ``PositionProvider`` gives them (a wrapper covers its child with the
child's own parentheses; a node's own parentheses are outside it).

Only for source the running interpreter parses: ``jobcheck/syntax/source.py`` takes
libcst's parser (``from_libcst.py``) for newer grammar.
"""

from __future__ import annotations

import ast
import re
import sys
import unicodedata
from collections.abc import Callable, Sequence
from typing import Any

from jobcheck.syntax import tree as t

Point = tuple[int, int]
"""(1-based line, 1-based column in code points)."""

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_DEF_NAME = re.compile(r"(?:async\s+)?def\s+(\w+)|class\s+(\w+)", re.UNICODE)

_BINARY = {
    ast.Add: "Add",
    ast.Sub: "Subtract",
    ast.Mult: "Multiply",
    ast.Div: "Divide",
    ast.FloorDiv: "FloorDivide",
    ast.Mod: "Modulo",
    ast.Pow: "Power",
    ast.MatMult: "MatrixMultiply",
    ast.LShift: "LeftShift",
    ast.RShift: "RightShift",
    ast.BitOr: "BitOr",
    ast.BitAnd: "BitAnd",
    ast.BitXor: "BitXor",
}
_UNARY = {ast.Not: "Not", ast.USub: "Minus", ast.UAdd: "Plus", ast.Invert: "BitInvert"}
_COMPARE = {
    ast.Eq: "Equal",
    ast.NotEq: "NotEqual",
    ast.Lt: "LessThan",
    ast.LtE: "LessThanEqual",
    ast.Gt: "GreaterThan",
    ast.GtE: "GreaterThanEqual",
    ast.In: "In",
    ast.NotIn: "NotIn",
    ast.Is: "Is",
    ast.IsNot: "IsNot",
}


_IDENTIFIER = re.compile(r"[\w\u0080-\U0010ffff]+")
"""A run of word and non-ASCII characters: where an identifier written in another form
than CPython's NFKC one may be (a line that is not ASCII)."""


def _identifier_char(char: str) -> bool:
    """A character an identifier may hold after its first: a word character, or one
    Python's identifiers also take (``·``, U+00B7, and other ID_Continue characters
    outside ``\\w``: combining marks...)."""
    return char.isalnum() or char == "_" or (not char.isascii() and ("a" + char).isidentifier())


class SourceLines:
    """The module's lines, and columns turned from UTF-8 bytes into code points (one per
    text: the parts of a file share it)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.lines = _LINE_BREAK.split(text)
        self.ascii = text.isascii()
        """Every byte column is a code-point column (most files)."""
        self._encoded: dict[int, bytes] = {}
        self._code_ends: dict[int, int] = {}

    def column(self, line: int, byte_column: int) -> int:
        """The 1-based code-point column of a 0-based byte column of a 1-based line."""
        if self.ascii or line < 1 or line > len(self.lines):
            return byte_column + 1
        text = self.lines[line - 1]
        if text.isascii():
            return byte_column + 1
        encoded = self._encoded.get(line)
        if encoded is None:
            encoded = self._encoded[line] = text.encode("utf-8", "surrogatepass")
        return len(encoded[:byte_column].decode("utf-8", "replace")) + 1

    def ascii_line(self, line: int) -> bool:
        return not (0 < line <= len(self.lines)) or self.lines[line - 1].isascii()

    def identifier_at(self, point: Point) -> str:
        """The identifier as written from ``point`` on (CPython's tree holds its NFKC
        normal form, which may differ in length)."""
        line, column = point
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        start = end = column - 1
        while end < len(text) and _identifier_char(text[end]):
            end += 1
        return text[start:end] if start >= 0 else ""

    def identifier_before(self, point: Point) -> str:
        """The identifier as written that ends just before ``point``."""
        line, column = point
        text = self.lines[line - 1][: column - 1] if 0 < line <= len(self.lines) else ""
        start = len(text)
        while start > 0 and _identifier_char(text[start - 1]):
            start -= 1
        return text[start:]

    def char(self, point: Point) -> str:
        line, column = point
        if line < 1 or line > len(self.lines):
            return ""
        text = self.lines[line - 1]
        return text[column - 1] if 0 < column <= len(text) else ""

    def after(self, point: Point) -> Point:
        """The first point from ``point`` on that is code: whitespace, line
        continuations and comments skipped."""
        line, column = point
        lines = self.lines
        while line <= len(lines):
            text = lines[line - 1]
            index = _SPACES.match(text, column - 1).end()  # type: ignore[union-attr]
            if index < len(text):
                char = text[index]
                if char != "#" and not (char == "\\" and index == len(text) - 1):
                    return line, index + 1
            line, column = line + 1, 1
        return point

    def before(self, point: Point) -> Point:
        """The last point before ``point`` that is code (its character's position), or
        ``(0, 0)`` at the start of the file."""
        line, column = point
        index = column - 2
        while line >= 1:
            text = self.lines[line - 1]
            if index is None:
                index = self._code_end(line) - 1
            while index >= 0 and text[index] in " \t\f\\":
                index -= 1
            if index >= 0:
                return line, index + 1
            line, index = line - 1, None  # type: ignore[assignment]
        return 0, 0

    def _code_end(self, line: int) -> int:
        found = self._code_ends.get(line)
        if found is None:
            found = self._code_ends[line] = _code_end(self.lines[line - 1])
        return found


_SPACES = re.compile(r"[ \t\f]*")
# A string literal alone on one line, not triple-quoted (a backslash escapes the quote
# in raw strings too, as the tokenizer reads them).
_ONE_LITERAL = re.compile(
    r"""(?:[rRbBuU]|[rR][bB]|[bB][rR])?(?:"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')"""
)


def _code_end(text: str) -> int:
    """The length of a line without its comment (quotes tracked, escapes honoured)."""
    if "#" not in text:
        return len(text)
    quote = ""
    index = 0
    while index < len(text):
        char = text[index]
        if quote:
            if char == "\\":
                index += 2
                continue
            if text.startswith(quote, index):
                index += len(quote)
                quote = ""
                continue
        elif char == "#":
            return index
        elif char in "'\"":
            quote = text[index : index + 3] if text[index : index + 3] in ("'''", '"""') else char
            index += len(quote)
            continue
        index += 1
    return len(text)


def _after(point: Point) -> Point:
    return point[0], point[1] + 1


class Converter:
    """One module's conversion."""

    def __init__(self, text: str, source: SourceLines | None = None, line_offset: int = 0) -> None:
        """``source`` and ``line_offset``: an expression parsed alone, as part of a module
        whose source is given (its line 1 is the module's line ``line_offset + 1``)."""
        self.source = source or SourceLines(text)
        self._ascii = self.source.ascii
        self.line_offset = line_offset
        self._expr: dict[type, Callable[[Any], t.BaseExpression]] = {
            ast.Name: self._name,
            ast.Attribute: self._attribute,
            ast.Call: self._call,
            ast.Constant: self._constant,
            ast.JoinedStr: self._string,
            ast.Dict: self._dict,
            ast.List: self._list,
            ast.Tuple: self._tuple,
            ast.Set: self._set,
            ast.Subscript: self._subscript,
            ast.BinOp: self._binop,
            ast.BoolOp: self._boolop,
            ast.UnaryOp: self._unaryop,
            ast.Compare: self._compare,
            ast.IfExp: self._ifexp,
            ast.Lambda: self._lambda,
            ast.Await: self._await,
            ast.Yield: self._yield,
            ast.YieldFrom: self._yield_from,
            ast.NamedExpr: self._named,
            ast.ListComp: self._listcomp,
            ast.SetComp: self._setcomp,
            ast.GeneratorExp: self._genexp,
            ast.DictComp: self._dictcomp,
            ast.Starred: self._starred,
            ast.Slice: self._opaque_slice,
        }
        self._stmt: dict[type, Callable[[Any], t.CSTNode]] = {
            ast.FunctionDef: self._function,
            ast.AsyncFunctionDef: self._function,
            ast.ClassDef: self._class,
            ast.If: self._if,
            ast.For: self._for,
            ast.AsyncFor: self._for,
            ast.While: self._while,
            ast.Try: self._try,
            ast.With: self._with,
            ast.AsyncWith: self._with,
            ast.Match: self._match,
            ast.Expr: self._expr_statement,
            ast.Assign: self._assign,
            ast.AnnAssign: self._ann_assign,
            ast.AugAssign: self._aug_assign,
            ast.Return: self._return,
            ast.Raise: self._raise,
            ast.Pass: self._simple(t.Pass),
            ast.Break: self._simple(t.Break),
            ast.Continue: self._simple(t.Continue),
            ast.Global: self._global,
            ast.Nonlocal: self._nonlocal,
            ast.Delete: self._delete,
            ast.Assert: self._assert,
            ast.Import: self._import,
            ast.ImportFrom: self._import_from,
        }
        if sys.version_info >= (3, 11):
            self._stmt[ast.TryStar] = self._try
        if sys.version_info >= (3, 12):
            self._stmt[ast.TypeAlias] = self._type_alias

    # -- positions ------------------------------------------------------------------------

    def start(self, node: ast.AST) -> Point:
        line = node.lineno + self.line_offset  # type: ignore[attr-defined]
        if self._ascii:
            return line, node.col_offset + 1  # type: ignore[attr-defined]
        return line, self.source.column(line, node.col_offset)  # type: ignore[attr-defined]

    def end(self, node: ast.AST) -> Point:
        line = node.end_lineno + self.line_offset  # type: ignore[attr-defined]
        if self._ascii:
            return line, node.end_col_offset + 1  # type: ignore[attr-defined]
        return line, self.source.column(line, node.end_col_offset)  # type: ignore[attr-defined]

    def place(self, built: t.CSTNode, start: Point, end: Point) -> t.CSTNode:
        built.pos = (start[0], start[1], end[0], end[1])
        return built

    def at(self, built: t.CSTNode, node: ast.AST) -> Any:
        if self._ascii:
            offset = self.line_offset
            built.pos = (
                node.lineno + offset,  # type: ignore[attr-defined]
                node.col_offset + 1,  # type: ignore[attr-defined]
                node.end_lineno + offset,  # type: ignore[attr-defined]
                node.end_col_offset + 1,  # type: ignore[attr-defined]
            )
            return built
        return self.place(built, self.start(node), self.end(node))

    def outer(self, built: t.CSTNode, low: Point, high: Point) -> tuple[Point, Point]:
        """``built``'s range with its own parentheses, within (``low``, ``high``)
        exclusive: what libcst's wrappers (an argument, an element) cover."""
        start = (built.pos[0], built.pos[1])
        end = (built.pos[2], built.pos[3])
        while True:
            before = self.source.before(start)
            if before <= low or self.source.char(before) != "(":
                return start, end
            after = self.source.after(end)
            if after < high and self.source.char(after) == ")":
                start, end = before, _after(after)
            else:
                return start, end

    def name_at(self, value: str, start: Point) -> t.Name:
        if not self._ascii and not self.source.ascii_line(start[0]):
            # CPython's tree holds identifiers in NFKC form (``ª`` is ``a``): the name
            # as written is the source's.
            value = self.source.identifier_at(start) or value
        built = t.Name(value)
        built.pos = (start[0], start[1], start[0], start[1] + len(value))
        return built

    # -- the module -----------------------------------------------------------------------

    def module(self, node: ast.Module) -> t.Module:
        return t.Module(self.statements(node.body), self.source.text, self.source.lines)

    def statements(self, body: Sequence[ast.stmt]) -> list[t.BaseStatement]:
        """Statements as libcst groups them: small statements that share a line in one
        ``SimpleStatementLine``."""
        found: list[t.BaseStatement] = []
        line: list[t.BaseSmallStatement] = []
        for statement in body:
            converted = self.statement(statement)
            if isinstance(converted, t.BaseSmallStatement):
                if line and self._same_line(line[-1], converted):
                    line.append(converted)
                else:
                    if line:
                        found.append(self._line(line))
                    line = [converted]
            else:
                if line:
                    found.append(self._line(line))
                    line = []
                found.append(converted)  # type: ignore[arg-type]
        if line:
            found.append(self._line(line))
        return found

    def _same_line(self, previous: t.CSTNode, current: t.CSTNode) -> bool:
        """``a = 1; b = 2``: a semicolon between them, and nothing but blanks and line
        continuations between it and the second (``pass;  # note`` ends its line)."""
        semicolon = self.source.after((previous.pos[2], previous.pos[3]))
        if self.source.char(semicolon) != ";":
            return False
        line, column = semicolon
        rest = self.source.lines[line - 1][column:]
        while line < current.pos[0]:
            if not rest.rstrip(" \t\f").endswith("\\") or rest.strip(" \t\f\\"):
                return False
            line += 1
            rest = self.source.lines[line - 1]
        return True

    def _line(self, body: list[t.BaseSmallStatement]) -> t.SimpleStatementLine:
        built = t.SimpleStatementLine(body)
        built.pos = (*body[0].pos[:2], *body[-1].pos[2:])  # type: ignore[assignment]
        return built

    def suite(self, body: Sequence[ast.stmt], header_line: int) -> t.BaseSuite:
        statements = self.statements(body)
        if (
            body
            and body[0].lineno == header_line
            and isinstance(statements[0], t.SimpleStatementLine)
        ):
            built: t.BaseSuite = t.SimpleStatementSuite(statements[0].body)
            built.pos = statements[0].pos
            return built
        built = t.IndentedBlock(statements)
        if statements:
            built.pos = (*statements[0].pos[:2], *statements[-1].pos[2:])  # type: ignore[assignment]
        return built

    def statement(self, node: ast.stmt) -> t.CSTNode:
        handler = self._stmt.get(type(node))
        if handler is None:
            return self.at(t.Expr(t.Opaque()), node)
        return handler(node)

    # -- compound statements ----------------------------------------------------------------

    def _decorators(self, node: ast.AST) -> list[t.Decorator]:
        found = []
        for expression in node.decorator_list:  # type: ignore[attr-defined]
            value = self.expression(expression)
            start, end = self.outer(value, (0, 0), (sys.maxsize, 0))
            at = self.source.before(start)
            while self.source.char(at) == "(":  # ``@ (x)``: parens of the expression
                at = self.source.before(at)
            built = t.Decorator(value)
            self.place(built, at if self.source.char(at) == "@" else start, end)
            found.append(built)
        return found

    def _definition_name(self, node: ast.AST) -> t.Name:
        start = self.start(node)
        line = self.source.lines[start[0] - 1]
        match = _DEF_NAME.match(line, start[1] - 1)
        if match is not None:
            group = 1 if match.group(1) is not None else 2
            return self.name_at(match.group(group), (start[0], match.start(group) + 1))
        name = node.name  # type: ignore[attr-defined]
        return self._find_name(name, start)

    def _find_name(self, name: str, start: Point) -> t.Name:
        """A name written at or after ``start`` (on a later line when the header is split
        with a backslash)."""
        line, column = start
        while line <= len(self.source.lines):
            text = self.source.lines[line - 1]
            if text.isascii():
                found = re.search(rf"\b{re.escape(name)}\b", text[column - 1 :])
            else:
                # Written in another form than CPython's NFKC one (``ª`` for ``a``).
                found = next(
                    (
                        word
                        for word in _IDENTIFIER.finditer(text, column - 1)
                        if unicodedata.normalize("NFKC", word.group()) == name
                    ),
                    None,
                )
                if found is not None:
                    return self.name_at(name, (line, found.start() + 1))
            if found is not None:
                return self.name_at(name, (line, column + found.start()))
            line, column = line + 1, 1
        return self.name_at(name, start)

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> t.FunctionDef:
        name = self._definition_name(node)
        paren = self.source.after((name.pos[2], name.pos[3]))
        params = self.parameters(node.args, _after(paren))
        returns = None
        if node.returns is not None:
            returns = self._annotation(node.returns)
        built = t.FunctionDef(
            name,
            params,
            self.suite(node.body, node.body[0].lineno if False else self._header_line(node)),
            self._decorators(node),
            returns,
            t.ASYNC if isinstance(node, ast.AsyncFunctionDef) else None,
        )
        return self.at(built, node)

    def _header_line(self, node: ast.AST) -> int:
        """The line the header's colon is on: a body on it is a one-line suite."""
        body = node.body  # type: ignore[attr-defined]
        first = body[0]
        colon = self.source.before(self.start(first))
        return colon[0] if self.source.char(colon) == ":" else -1

    def _class(self, node: ast.ClassDef) -> t.ClassDef:
        name = self._definition_name(node)
        low = (name.pos[2], name.pos[3])
        high = self.start(node.body[0])
        bases = [self._arg(base, low, high) for base in node.bases]
        keywords = [self._keyword(keyword, low, high) for keyword in node.keywords]
        built = t.ClassDef(
            name,
            self.suite(node.body, self._header_line(node)),
            bases,
            keywords,
            self._decorators(node),
        )
        return self.at(built, node)

    def _if(self, node: ast.If) -> t.If:
        body = self.suite(node.body, self._header_line(node))
        orelse: t.If | t.Else | None = None
        if node.orelse:
            first = node.orelse[0]
            keyword = self._keyword_before(self.start(first), ("else", "elif"))
            if isinstance(first, ast.If) and len(node.orelse) == 1 and keyword == "elif":
                orelse = self._if(first)
                elif_at = self._keyword_point(self.start(first), "elif")
                orelse.pos = (*elif_at, *orelse.pos[2:])  # type: ignore[assignment]
            else:
                orelse = self._else(node.orelse, "else")
        return self.at(t.If(self.expression(node.test), body, orelse), node)

    def _keyword_before(self, point: Point, words: tuple[str, ...]) -> str | None:
        """Which of ``words`` introduces the block starting at ``point``."""
        line = self.source.lines[point[0] - 1]
        stripped = line.lstrip()
        for word in words:
            if stripped.startswith(word) and point[1] - 1 < len(line) - len(stripped) + len(word):
                return word
        before = self.source.before(point)
        if self.source.char(before) == ":":
            line = self.source.lines[before[0] - 1].lstrip()
            for word in words:
                if line.startswith(word):
                    return word
        return None

    def _keyword_point(self, point: Point, word: str) -> Point:
        line = self.source.lines[point[0] - 1]
        index = line.find(word)
        return (point[0], index + 1) if index >= 0 else point

    def _else(self, body: Sequence[ast.stmt], word: str) -> t.Else:
        first = body[0]
        colon = self.source.before(self.start(first))
        header = colon[0] if self.source.char(colon) == ":" else -1
        suite = self.suite(body, header)
        built = t.Else(suite)
        keyword_line = colon[0] if header > 0 else self.start(first)[0]
        text = self.source.lines[keyword_line - 1]
        index = text.find(word)
        start = (keyword_line, index + 1) if index >= 0 else (suite.pos[0], suite.pos[1])
        return self.place(built, start, (suite.pos[2], suite.pos[3]))  # type: ignore[return-value]

    def _for(self, node: ast.For | ast.AsyncFor) -> t.For:
        built = t.For(
            self.expression(node.target),
            self.expression(node.iter),
            self.suite(node.body, self._header_line(node)),
            self._else(node.orelse, "else") if node.orelse else None,
            t.ASYNC if isinstance(node, ast.AsyncFor) else None,
        )
        return self.at(built, node)

    def _while(self, node: ast.While) -> t.While:
        built = t.While(
            self.expression(node.test),
            self.suite(node.body, self._header_line(node)),
            self._else(node.orelse, "else") if node.orelse else None,
        )
        return self.at(built, node)

    def _try(self, node: Any) -> t.Try:
        star = type(node).__name__ == "TryStar"
        handlers = []
        for handler in node.handlers:
            name = None
            if handler.name is not None:
                inner = self._find_name(
                    handler.name,
                    self.end(handler.type) if handler.type is not None else self.start(handler),
                )
                name = self._as_name(inner)
            kind = t.ExceptStarHandler if star else t.ExceptHandler
            built = kind(
                self.suite(handler.body, self._header_line(handler)),
                self.expression(handler.type) if handler.type is not None else None,
                name,  # type: ignore[arg-type]
            )
            handlers.append(self.at(built, handler))
        orelse = self._else(node.orelse, "else") if node.orelse else None
        finalbody = None
        if node.finalbody:
            block = self._else(node.finalbody, "finally")
            finalbody = self.place(t.Finally(block.body), block.pos[:2], block.pos[2:])  # type: ignore[arg-type]
        kind_try = t.TryStar if star else t.Try
        built_try = kind_try(
            self.suite(node.body, self._header_line(node)),
            handlers,
            orelse,
            finalbody,  # type: ignore[arg-type]
        )
        return self.at(built_try, node)

    def _with(self, node: ast.With | ast.AsyncWith) -> t.With:
        items = []
        for item in node.items:
            value = self.expression(item.context_expr)
            asname = None
            start, end = self.outer(value, (node.lineno, 0), (sys.maxsize, 0))
            if item.optional_vars is not None:
                target = self.expression(item.optional_vars)
                target_start, target_end = self.outer(target, start, (sys.maxsize, 0))
                asname = self._as_name(target, target_start, target_end)
                end = target_end
            items.append(self.place(t.WithItem(value, asname), start, end))  # type: ignore[arg-type]
        built = t.With(
            items,  # type: ignore[arg-type]
            self.suite(node.body, self._header_line(node)),
            t.ASYNC if isinstance(node, ast.AsyncWith) else None,
        )
        return self.at(built, node)

    def _as_name(
        self, inner: t.BaseExpression, start: Point | None = None, end: Point | None = None
    ) -> t.AsName:
        """``as x``: libcst's range starts at ``as``."""
        start = start or (inner.pos[0], inner.pos[1])
        end = end or (inner.pos[2], inner.pos[3])
        keyword = self.source.before(start)
        begin = start
        if self.source.char(keyword) == "s":  # from the end of what is before ``as``
            begin = _after(self.source.before((keyword[0], keyword[1] - 1)))
        return self.place(t.AsName(inner), begin, end)  # type: ignore[return-value]

    def _match(self, node: ast.Match) -> t.Match:
        cases = []
        for case in node.cases:
            pattern = self.at(t.Opaque(), case.pattern)
            guard = self.expression(case.guard) if case.guard is not None else None
            body = self.suite(case.body, self._header_line(case))
            built = t.MatchCase(pattern, body, guard)
            keyword = self.source.before(self.start(case.pattern))
            while self.source.char(keyword) in "([":
                keyword = self.source.before(keyword)
            start = (keyword[0], keyword[1] - 3)
            cases.append(self.place(built, start, (body.pos[2], body.pos[3])))
        return self.at(t.Match(self.expression(node.subject), cases), node)  # type: ignore[arg-type]

    # -- small statements --------------------------------------------------------------------

    def _simple(self, kind: type[t.CSTNode]) -> Callable[[ast.stmt], t.CSTNode]:
        return lambda node: self.at(kind(), node)

    def _expr_statement(self, node: ast.Expr) -> t.Expr:
        return self.at(t.Expr(self.expression(node.value)), node)

    def _assign(self, node: ast.Assign) -> t.Assign:
        targets = []
        for target in node.targets:
            built = self.expression(target)
            start, end = self.outer(built, (node.lineno, 0), (sys.maxsize, 0))
            targets.append(self.place(t.AssignTarget(built), start, end))
        return self.at(t.Assign(targets, self.expression(node.value)), node)  # type: ignore[arg-type]

    def _annotation(self, node: ast.expr) -> t.Annotation:
        value = self.expression(node)
        start, end = self.outer(value, (0, 0), (sys.maxsize, 0))
        return self.place(t.Annotation(value), start, end)  # type: ignore[return-value]

    def _ann_assign(self, node: ast.AnnAssign) -> t.AnnAssign:
        value = self.expression(node.value) if node.value is not None else None
        built = t.AnnAssign(self.expression(node.target), self._annotation(node.annotation), value)
        return self.at(built, node)

    def _aug_assign(self, node: ast.AugAssign) -> t.AugAssign:
        operator = t.OPERATOR[_BINARY[type(node.op)] + "Assign"]
        built = t.AugAssign(self.expression(node.target), operator, self.expression(node.value))
        return self.at(built, node)

    def _return(self, node: ast.Return) -> t.Return:
        value = self.expression(node.value) if node.value is not None else None
        return self.at(t.Return(value), node)

    def _raise(self, node: ast.Raise) -> t.Raise:
        cause = None
        if node.cause is not None:
            item = self.expression(node.cause)
            start, end = self.outer(item, (0, 0), (sys.maxsize, 0))
            keyword = self.source.before(start)
            cause = self.place(t.From(item), (keyword[0], keyword[1] - 3), end)
        exc = self.expression(node.exc) if node.exc is not None else None
        return self.at(t.Raise(exc, cause), node)  # type: ignore[arg-type]

    def _names(self, node: ast.Global | ast.Nonlocal) -> list[t.NameItem]:
        found = []
        point = self.start(node)
        for name in node.names:
            built = self._find_name(name, (point[0], point[1] + 1))
            item = self.place(t.NameItem(built), built.pos[:2], built.pos[2:])  # type: ignore[arg-type]
            found.append(item)
            point = (built.pos[2], built.pos[3])
        return found  # type: ignore[return-value]

    def _global(self, node: ast.Global) -> t.Global:
        return self.at(t.Global(self._names(node)), node)

    def _nonlocal(self, node: ast.Nonlocal) -> t.Nonlocal:
        return self.at(t.Nonlocal(self._names(node)), node)

    def _delete(self, node: ast.Delete) -> t.Del:
        targets = [self.expression(target) for target in node.targets]
        if len(targets) == 1:
            target: t.BaseExpression = targets[0]
        else:
            target = t.Tuple([self._element(e) for e in targets])
            self.place(target, targets[0].pos[:2], targets[-1].pos[2:])  # type: ignore[arg-type]
        return self.at(t.Del(target), node)

    def _assert(self, node: ast.Assert) -> t.Assert:
        message = self.expression(node.msg) if node.msg is not None else None
        return self.at(t.Assert(self.expression(node.test), message), node)

    def _dotted(self, dotted: str, start: Point) -> t.Name | t.Attribute:
        """``a.b.c`` written from ``start`` (spaces around the dots are rare: skipped)."""
        parts = dotted.split(".")
        line, column = start
        node: t.Name | t.Attribute = self.name_at(parts[0], (line, column))
        point = (node.pos[2], node.pos[3])
        for part in parts[1:]:
            dot = self.source.after(point)
            name_start = self.source.after(_after(dot))
            attr = self.name_at(part, name_start)
            node = self.place(t.Attribute(node, attr), start, (attr.pos[2], attr.pos[3]))  # type: ignore[assignment]
            point = (attr.pos[2], attr.pos[3])
        return node

    def _alias(self, alias: ast.alias, fallback: Point) -> t.ImportAlias:
        start = self.start(alias) if hasattr(alias, "lineno") else fallback
        name = self._dotted(alias.name, start)
        asname = None
        end = (name.pos[2], name.pos[3])
        if alias.asname is not None:
            inner = self._find_name(alias.asname, _after(self.source.after(end)))
            asname = self._as_name(inner)
            end = (inner.pos[2], inner.pos[3])
        return self.place(t.ImportAlias(name, asname), start, end)  # type: ignore[return-value, arg-type]

    def _import(self, node: ast.Import) -> t.Import:
        start = self.start(node)
        names = [self._alias(alias, (start[0], start[1] + 7)) for alias in node.names]
        return self.at(t.Import(names), node)

    def _import_from(self, node: ast.ImportFrom) -> t.ImportFrom:
        start = self.start(node)
        point = self.source.after((start[0], start[1] + 4))
        relative = []
        while self.source.char(point) == ".":
            relative.append(self.place(t.Dot(), point, _after(point)))
            point = self.source.after(_after(point))
        module = None
        if node.module is not None:
            module = self._dotted(node.module, point)
        if len(node.names) == 1 and node.names[0].name == "*":
            names: Any = t.ImportStar()
            star = self.source.after((module.pos[2], module.pos[3]) if module else point)
            while self.source.char(star) != "*" and star[0] <= len(self.source.lines):
                star = self.source.after(_after(star))
            self.place(names, star, _after(star))
        else:
            names = [self._alias(alias, point) for alias in node.names]
        return self.at(t.ImportFrom(module, names, relative), node)  # type: ignore[arg-type]

    def _type_alias(self, node: Any) -> t.TypeAlias:
        name = self.expression(node.name)
        return self.at(t.TypeAlias(name, self.expression(node.value)), node)  # type: ignore[arg-type]

    # -- expressions ------------------------------------------------------------------------

    def expression(self, node: ast.expr) -> t.BaseExpression:
        handler = self._expr.get(type(node))
        if handler is None:
            return self.at(t.Opaque(), node)
        return handler(node)

    def _name(self, node: ast.Name) -> t.Name:
        value = node.id
        if not self._ascii:
            start = self.start(node)
            if not self.source.ascii_line(start[0]):
                value = self.source.identifier_at(start) or value
        return self.at(t.Name(value), node)

    def _attribute(self, node: ast.Attribute) -> t.Attribute:
        end = self.end(node)
        value = node.attr
        if not self._ascii and not self.source.ascii_line(end[0]):
            value = self.source.identifier_before(end) or value
        attr = self.name_at(value, (end[0], end[1] - len(value)))
        return self.at(t.Attribute(self.expression(node.value), attr), node)

    def _call(self, node: ast.Call) -> t.Call:
        func = self.expression(node.func)
        low = self.source.after(self.outer(func, (0, 0), (sys.maxsize, 0))[1])  # its "("
        end = self.end(node)
        high = (end[0], end[1] - 1)
        items: list[tuple[tuple[int, int], t.Arg]] = []
        for arg in node.args:
            items.append(((arg.lineno, arg.col_offset), self._arg(arg, low, high)))
        for keyword in node.keywords:
            items.append(((keyword.lineno, keyword.col_offset), self._keyword(keyword, low, high)))
        items.sort(key=lambda item: item[0])
        return self.at(t.Call(func, [arg for _, arg in items]), node)

    def _arg(self, node: ast.expr, low: Point, high: Point) -> t.Arg:
        if isinstance(node, ast.Starred):
            value = self.expression(node.value)
            _, end = self.outer(value, low, high)
            built = t.Arg(value, None, "*")
            return self.place(built, self.start(node), end)  # type: ignore[return-value]
        value = self.expression(node)
        start, end = self.outer(value, low, high)
        return self.place(t.Arg(value), start, end)  # type: ignore[return-value]

    def _keyword(self, node: ast.keyword, low: Point, high: Point) -> t.Arg:
        value = self.expression(node.value)
        _, end = self.outer(value, low, high)
        start = self.start(node)
        if node.arg is None:
            return self.place(t.Arg(value, None, "**"), start, end)  # type: ignore[return-value]
        keyword = self.name_at(node.arg, start)
        return self.place(t.Arg(value, keyword), start, end)  # type: ignore[return-value]

    def _constant(self, node: ast.Constant) -> t.BaseExpression:
        value = node.value
        if value is None or value is True or value is False:
            return self.at(t.Name(str(value)), node)
        if value is ...:
            return self.at(t.Ellipsis(), node)
        if isinstance(value, (str, bytes)):
            return self._string(node)
        text = self._text(node)
        if isinstance(value, bool):
            return self.at(t.Name(str(value)), node)
        if isinstance(value, int):
            return self.at(t.Integer(text, value), node)
        if isinstance(value, float):
            return self.at(t.Float(text, value), node)
        if isinstance(value, complex):
            return self.at(t.Imaginary(text, value), node)
        return self.at(t.Opaque(), node)

    def _text(self, node: ast.AST) -> str:
        start, end = self.start(node), self.end(node)
        lines = self.source.lines
        if start[0] == end[0]:
            return lines[start[0] - 1][start[1] - 1 : end[1] - 1]
        return "\n".join(
            [
                lines[start[0] - 1][start[1] - 1 :],
                *lines[start[0] : end[0] - 1],
                lines[end[0] - 1][: end[1] - 1],
            ]
        )

    def _string(self, node: ast.Constant | ast.JoinedStr) -> t.BaseString:
        """A string literal, or adjacent ones as libcst nests them
        (``ConcatenatedString(left, right)``, right-nested). The literals are read from
        the source: CPython joins adjacent ones into one node, and before 3.12 places
        nothing inside an f-string."""
        begin = self.start(node)
        text = self._text(node)
        if isinstance(node, ast.Constant) and _ONE_LITERAL.fullmatch(text):
            # One literal on one line (most strings): nothing to split.
            end = (begin[0], begin[1] + len(text))
            return self.place(t.SimpleString(text, node.value), begin, end)  # type: ignore[return-value]
        pieces = _literals(text, begin)
        if not pieces:
            return self.at(t.SimpleString(self._text(node), getattr(node, "value", None)), node)
        if len(pieces) == 1 and isinstance(node, ast.Constant):
            text, start, end = pieces[0]
            return self.place(t.SimpleString(text, node.value), start, end)  # type: ignore[return-value]
        built = [self._literal(text, start, end) for text, start, end in pieces]
        result: t.BaseString = built[-1]
        for piece in reversed(built[:-1]):
            joined = t.ConcatenatedString(piece, result)
            result = self.place(joined, piece.pos[:2], result.pos[2:])  # type: ignore[assignment, arg-type]
        return result

    def _literal(self, text: str, start: Point, end: Point) -> t.BaseString:
        prefix = _prefix(text)
        if "f" in prefix.lower():
            return self.place(self._fstring(text, start, prefix), start, end)  # type: ignore[return-value]
        try:
            value = ast.literal_eval(text)
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            value = None
        return self.place(t.SimpleString(text, value), start, end)  # type: ignore[return-value]

    def _fstring(self, text: str, start: Point, prefix: str) -> t.FormattedString:
        quote = _quote_of(text[len(prefix) :])
        body_start = _advance(text, start, 0, len(prefix) + len(quote))
        body = text[len(prefix) + len(quote) : len(text) - len(quote)]
        parts = self._fstring_parts(body, body_start, "r" in prefix.lower())
        return t.FormattedString(parts, text[: len(prefix)] + quote, quote)

    def _fstring_parts(self, body: str, body_start: Point, raw: bool) -> list[t.CSTNode]:
        """The text and ``{expression}`` parts of an f-string's body (or of a format
        spec), each placed."""
        parts: list[t.CSTNode] = []
        index = text_from = 0
        while index < len(body):
            char = body[index]
            if char == "\\" and not raw:
                index += 2
                continue
            if char in "{}" and body.startswith(char * 2, index):
                index += 2
                continue
            if char != "{":
                index += 1
                continue
            if index > text_from:
                parts.append(self._fstring_text(body, body_start, text_from, index))
            close = _closing_brace(body, index)
            parts.append(self._fstring_expression(body, body_start, index, close))
            index = text_from = close + 1
        if len(body) > text_from:
            parts.append(self._fstring_text(body, body_start, text_from, len(body)))
        return parts

    def _fstring_text(self, body: str, body_start: Point, begin: int, end: int) -> t.CSTNode:
        built = t.FormattedStringText(body[begin:end])
        start = _advance(body, body_start, 0, begin)
        return self.place(built, start, _advance(body, start, begin, end))

    def _fstring_expression(
        self, body: str, body_start: Point, opening: int, close: int
    ) -> t.CSTNode:
        inner = body[opening + 1 : close]
        expression_end, conversion, spec_at = _split_replacement(inner)
        expression_start = _advance(body, body_start, 0, opening + 1)
        expression = self._sub_expression(inner[:expression_end], expression_start)
        spec = None
        if spec_at is not None:
            spec_start = _advance(body, expression_start, opening + 1, opening + 1 + spec_at)
            spec = self._fstring_parts(inner[spec_at:], spec_start, True)
        built = t.FormattedStringExpression(expression, conversion, spec)
        start = _advance(body, body_start, 0, opening)
        return self.place(built, start, _advance(body, start, opening, close + 1))

    def _sub_expression(self, text: str, start: Point) -> t.BaseExpression:
        """An expression written at ``start`` (inside an f-string), parsed alone and
        placed where it is: padded with spaces to its column's bytes, its line added."""
        line, column = start
        source_line = self.source.lines[line - 1] if 0 < line <= len(self.source.lines) else ""
        padding = len(source_line[: column - 2].encode("utf-8", "surrogatepass"))
        try:
            parsed = ast.parse("(" + " " * padding + text + "\n)", mode="eval").body
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            return self.place(t.Opaque(), start, start)  # type: ignore[return-value]
        inner = Converter(self.source.text, self.source, line - 1)
        return inner.expression(parsed)

    def _element(
        self, value: t.BaseExpression, low: Point = (0, 0), high: Point = (sys.maxsize, 0)
    ) -> t.BaseElement:
        if isinstance(value, t.StarredElement):
            return value
        start, end = self.outer(value, low, high)
        return self.place(t.Element(value), start, end)  # type: ignore[return-value]

    def _elements(
        self, node: ast.AST, items: Sequence[ast.expr], opened: bool
    ) -> list[t.BaseElement]:
        start, end = self.start(node), self.end(node)
        low = start if opened else (0, 0)
        high = (end[0], end[1] - 1) if opened else (sys.maxsize, 0)
        return [self._element(self.expression(item), low, high) for item in items]

    def _starred(self, node: ast.Starred) -> t.StarredElement:
        value = self.expression(node.value)
        return self.at(t.StarredElement(value), node)

    def _list(self, node: ast.List) -> t.List:
        return self.at(t.List(self._elements(node, node.elts, True)), node)

    def _set(self, node: ast.Set) -> t.Set:
        return self.at(t.Set(self._elements(node, node.elts, True)), node)

    def _tuple(self, node: ast.Tuple) -> t.Tuple:
        """libcst leaves a tuple's own parentheses outside it, where CPython's ranges
        include them."""
        start, end = self.start(node), self.end(node)
        wrapped = self.source.char(start) == "(" and self._closes(start, (end[0], end[1] - 1))
        elements = self._elements(node, node.elts, wrapped)
        built = t.Tuple(elements)
        if not wrapped:
            return self.place(built, start, end)  # type: ignore[return-value]
        inner_start = self.source.after(_after(start))
        if not elements:
            return self.place(built, inner_start, inner_start)  # type: ignore[return-value]
        return self.place(built, inner_start, _after(self.source.before((end[0], end[1] - 1))))  # type: ignore[return-value]

    def _closes(self, opening: Point, closing: Point) -> bool:
        """Whether the ``(`` at ``opening`` is closed by the ``)`` at ``closing``."""
        if self.source.char(closing) != ")":
            return False
        lines = self.source.lines
        if opening[0] == closing[0]:
            text = lines[opening[0] - 1][opening[1] - 1 : closing[1]]
        else:
            text = "\n".join(
                [
                    lines[opening[0] - 1][opening[1] - 1 :],
                    *lines[opening[0] : closing[0] - 1],
                    lines[closing[0] - 1][: closing[1]],
                ]
            )
        return _closing_paren(text) == len(text) - 1

    def _dict(self, node: ast.Dict) -> t.Dict:
        start, end = self.start(node), self.end(node)
        high = (end[0], end[1] - 1)
        elements: list[t.BaseDictElement] = []
        for key, value in zip(node.keys, node.values):
            converted = self.expression(value)
            _, value_end = self.outer(converted, start, high)
            if key is None:
                at = self.source.before(self.outer(converted, start, high)[0])
                star = (at[0], at[1] - 1)
                elements.append(self.place(t.StarredDictElement(converted), star, value_end))  # type: ignore[arg-type]
                continue
            key_node = self.expression(key)
            key_start, _ = self.outer(key_node, start, high)
            elements.append(self.place(t.DictElement(key_node, converted), key_start, value_end))  # type: ignore[arg-type]
        return self.at(t.Dict(elements), node)

    def _subscript(self, node: ast.Subscript) -> t.Subscript:
        value = self.expression(node.value)
        start, end = self.start(node), self.end(node)
        low = self.source.after(self.outer(value, (0, 0), (sys.maxsize, 0))[1])
        high = (end[0], end[1] - 1)
        index = node.slice
        if sys.version_info < (3, 9) and isinstance(index, ast.Index):  # pragma: no cover
            index = index.value  # type: ignore[attr-defined]
        items: Sequence[ast.expr]
        if isinstance(index, ast.Tuple) and self.source.char(self.start(index)) != "(":
            items = index.elts
        else:
            items = [index]
        elements = []
        for item in items:
            if isinstance(item, ast.Slice):
                part: t.BaseSlice = self._slice(item)
                element_start, element_end = part.pos[:2], part.pos[2:]
            else:
                inner = self.expression(item)
                element_start, element_end = self.outer(inner, low, high)
                part = self.place(t.Index(inner), element_start, element_end)  # type: ignore[assignment]
            elements.append(self.place(t.SubscriptElement(part), element_start, element_end))  # type: ignore[arg-type]
        return self.place(t.Subscript(value, elements), start, end)  # type: ignore[return-value, arg-type]

    def _slice(self, node: ast.Slice) -> t.Slice:
        parts = [
            self.expression(part) if part is not None else None
            for part in (node.lower, node.upper, node.step)
        ]
        return self.at(t.Slice(*parts), node)

    def _opaque_slice(self, node: ast.Slice) -> t.BaseExpression:
        return self.at(
            t.Opaque([p for p in self._slice(node).__dict__.values()] if False else []), node
        )

    def _binop(self, node: ast.BinOp) -> t.BinaryOperation:
        built = t.BinaryOperation(
            self.expression(node.left),
            t.OPERATOR[_BINARY[type(node.op)]],
            self.expression(node.right),
        )
        return self.at(built, node)

    def _boolop(self, node: ast.BoolOp) -> t.BooleanOperation:
        """``a and b and c`` as libcst nests it: ``(a and b) and c``."""
        operator = t.OPERATOR["And" if isinstance(node.op, ast.And) else "Or"]
        values = [self.expression(value) for value in node.values]
        start = self.start(node)
        result = values[0]
        for value in values[1:]:
            _, end = self.outer(value, start, (sys.maxsize, 0))
            built = t.BooleanOperation(result, operator, value)
            result = self.place(built, start, end)  # type: ignore[assignment]
        result.pos = (*start, *self.end(node))  # type: ignore[assignment]
        return result  # type: ignore[return-value]

    def _unaryop(self, node: ast.UnaryOp) -> t.UnaryOperation:
        built = t.UnaryOperation(t.OPERATOR[_UNARY[type(node.op)]], self.expression(node.operand))
        return self.at(built, node)

    def _compare(self, node: ast.Compare) -> t.Comparison:
        left = self.expression(node.left)
        start = self.start(node)
        point = self.outer(left, (0, 0), (sys.maxsize, 0))[1]
        targets = []
        for operator, comparator in zip(node.ops, node.comparators):
            converted = self.expression(comparator)
            _, end = self.outer(converted, start, (sys.maxsize, 0))
            at = point
            targets.append(
                self.place(
                    t.ComparisonTarget(t.OPERATOR[_COMPARE[type(operator)]], converted), at, end
                )
            )
            point = end
        return self.at(t.Comparison(left, targets), node)  # type: ignore[arg-type]

    def _ifexp(self, node: ast.IfExp) -> t.IfExp:
        built = t.IfExp(
            self.expression(node.test), self.expression(node.body), self.expression(node.orelse)
        )
        return self.at(built, node)

    def _lambda(self, node: ast.Lambda) -> t.Lambda:
        start = self.start(node)
        return self.at(
            t.Lambda(
                self.parameters(node.args, (start[0], start[1] + 6)), self.expression(node.body)
            ),
            node,
        )

    def _await(self, node: ast.Await) -> t.Await:
        return self.at(t.Await(self.expression(node.value)), node)

    def _yield(self, node: ast.Yield) -> t.Yield:
        value = self.expression(node.value) if node.value is not None else None
        return self.at(t.Yield(value), node)

    def _yield_from(self, node: ast.YieldFrom) -> t.Yield:
        item = self.expression(node.value)
        start, end = self.outer(item, (0, 0), (sys.maxsize, 0))
        keyword = self.source.before(start)
        return self.at(t.Yield(self.place(t.From(item), (keyword[0], keyword[1] - 3), end)), node)  # type: ignore[arg-type]

    def _named(self, node: ast.NamedExpr) -> t.NamedExpr:
        return self.at(t.NamedExpr(self.expression(node.target), self.expression(node.value)), node)

    def _comprehension(self, generators: Sequence[ast.comprehension]) -> t.CompFor:
        result: t.CompFor | None = None
        for generator in reversed(generators):
            ifs = []
            for test in generator.ifs:
                condition = self.expression(test)
                start, end = self.outer(condition, (0, 0), (sys.maxsize, 0))
                keyword = self.source.before(start)
                begin = _after(self.source.before((keyword[0], keyword[1] - 1)))
                ifs.append(self.place(t.CompIf(condition), begin, end))
            target = self.expression(generator.target)
            built = t.CompFor(
                target,
                self.expression(generator.iter),
                ifs,  # type: ignore[arg-type]
                result,
                t.ASYNC if generator.is_async else None,
            )
            target_start = self.outer(target, (0, 0), (sys.maxsize, 0))[0]
            keyword = self.source.before(target_start)
            start = (keyword[0], keyword[1] - 2)
            if generator.is_async:
                before = self.source.before(start)
                start = (before[0], before[1] - 4)
            start = _after(self.source.before(start))  # libcst's range opens after the element
            last = ifs[-1].pos[2:] if ifs else self.outer(built.iter, (0, 0), (sys.maxsize, 0))[1]
            end = result.pos[2:] if result is not None else last
            result = self.place(built, start, end)  # type: ignore[assignment, arg-type]
        assert result is not None
        return result

    def _listcomp(self, node: ast.ListComp) -> t.ListComp:
        return self.at(
            t.ListComp(self.expression(node.elt), self._comprehension(node.generators)), node
        )

    def _setcomp(self, node: ast.SetComp) -> t.SetComp:
        return self.at(
            t.SetComp(self.expression(node.elt), self._comprehension(node.generators)), node
        )

    def _genexp(self, node: ast.GeneratorExp) -> t.GeneratorExp:
        """Its parentheses are its own (or the call's, for a sole argument): outside."""
        elt = self.expression(node.elt)
        for_in = self._comprehension(node.generators)
        start = self.outer(elt, self.start(node), self.end(node))[0]
        return self.place(t.GeneratorExp(elt, for_in), start, for_in.pos[2:])  # type: ignore[return-value, arg-type]

    def _dictcomp(self, node: ast.DictComp) -> t.DictComp:
        built = t.DictComp(
            self.expression(node.key),
            self.expression(node.value),
            self._comprehension(node.generators),
        )
        return self.at(built, node)

    # -- parameters ----------------------------------------------------------------------

    def _param(self, node: ast.arg, default: ast.expr | None, star: str = "") -> t.Param:
        start = self.start(node)
        name = self.name_at(node.arg, start)
        annotation = self._annotation(node.annotation) if node.annotation is not None else None
        value = self.expression(default) if default is not None else None
        built = t.Param(name, annotation, value, star)
        begin = start
        if star:
            at = self.source.before(start)
            begin = (at[0], at[1] - len(star) + 1)
        return self.place(built, begin, (name.pos[2], name.pos[3]))  # type: ignore[return-value]

    def parameters(self, node: ast.arguments, opening: Point | None = None) -> t.Parameters:
        """``opening``: where an empty parameter list is (just inside its parentheses)."""
        positional = [*node.posonlyargs, *node.args]
        defaults: list[ast.expr | None] = [None] * (len(positional) - len(node.defaults))
        defaults += node.defaults
        converted = [self._param(arg, default) for arg, default in zip(positional, defaults)]
        posonly = converted[: len(node.posonlyargs)]
        params = converted[len(node.posonlyargs) :]
        star_arg: t.Param | t.ParamStar | None = None
        if node.vararg is not None:
            star_arg = self._param(node.vararg, None, "*")
        elif node.kwonlyargs:
            star_arg = t.ParamStar()
            first = self.start(node.kwonlyargs[0])
            comma = self.source.before(first)
            star = self.source.before(comma)
            self.place(star_arg, star, first)
        kwonly = [
            self._param(arg, default) for arg, default in zip(node.kwonlyargs, node.kw_defaults)
        ]
        star_kwarg = self._param(node.kwarg, None, "**") if node.kwarg is not None else None
        built = t.Parameters(params, star_arg, kwonly, star_kwarg, posonly)
        every = [*posonly, *params, *([star_arg] if isinstance(star_arg, t.Param) else []), *kwonly]
        every += [star_kwarg] if star_kwarg is not None else []
        if every:
            first, last = min(every, key=lambda p: p.pos[:2]), max(every, key=lambda p: p.pos[:2])
            # libcst's range runs to the closing parenthesis (or a lambda's colon), over a
            # trailing comma and line breaks.
            end = self.source.after(self._param_end(last))
            if self.source.char(end) == ",":
                end = self.source.after(_after(end))
            self.place(built, first.pos[:2], end)  # type: ignore[arg-type]
        elif opening is not None:
            self.place(built, opening, opening)
        return built

    def _param_end(self, param: t.Param) -> Point:
        """Where a parameter's text ends: its default, else its annotation, else its name."""
        for part in (param.default, param.annotation):
            if part is not None:
                return self.outer(part, (0, 0), (sys.maxsize, 0))[1]  # type: ignore[arg-type]
        return param.name.pos[2], param.name.pos[3]


def _prefix(text: str) -> str:
    index = 0
    while index < len(text) and text[index].isalpha():
        index += 1
    return text[:index]


def _quote_of(text: str) -> str:
    return text[:3] if text[:3] in ('"""', "'''") else text[:1]


def _advance(text: str, point: Point, begin: int, end: int) -> Point:
    """The point of ``text[end]`` given that ``text[begin]`` is at ``point``."""
    line, column = point
    breaks = text.count("\n", begin, end)
    if not breaks:
        return line, column + end - begin
    return line + breaks, end - text.rfind("\n", begin, end)


def _skip_string(text: str, index: int) -> int:
    """The index after the string literal starting at ``text[index]`` (its prefix
    included); f-strings' nested literals and braces are skipped whole."""
    prefix = _prefix(text[index:])
    index += len(prefix)
    quote = _quote_of(text[index:])
    if not quote or quote[0] not in "'\"":
        return index + 1
    raw = "r" in prefix.lower()
    formatted = "f" in prefix.lower()
    index += len(quote)
    while index < len(text):
        char = text[index]
        if char == "\\":
            index += 2
            continue
        if formatted and char == "{":
            if text.startswith("{{", index):
                index += 2
                continue
            index = _closing_brace(text, index) + 1
            continue
        if text.startswith(quote, index):
            return index + len(quote)
        index += 1
    del raw
    return index


def closing_bracket(text: str, opening: int) -> int:
    """The index of the bracket closing the one at ``text[opening]`` (-1 when none),
    nested brackets, string literals and comments skipped."""
    return _closing(text, opening, comments=True)


def _closing_paren(text: str) -> int:
    """The index of the bracket closing the one at ``text[0]`` (-1 when none); comments
    skipped."""
    return _closing(text, 0, comments=True)


def _closing_brace(text: str, opening: int) -> int:
    """The index of the ``}`` closing the ``{`` at ``opening`` of an f-string's body
    (where ``#`` is a format spec's, not a comment); the text's end when it has none."""
    found = _closing(text, opening, comments=False)
    return found if found >= 0 else len(text) - 1


def _closing(text: str, opening: int, comments: bool) -> int:
    """The index of the bracket closing the one at ``opening``, nested brackets and
    string literals skipped (and comments, with ``comments``); -1 when none."""
    depth = 0
    index = opening
    while index < len(text):
        char = text[index]
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth == 0:
                return index
        elif char == "#" and comments:
            newline = text.find("\n", index)
            index = len(text) if newline < 0 else newline
            continue
        elif char in "'\"" or (char.isalpha() and _starts_string(text, index)):
            index = _skip_string(text, index)
            continue
        index += 1
    return -1


def _starts_string(text: str, index: int) -> bool:
    """A string prefix (``rb``, ``f``...) at ``index``, directly followed by a quote."""
    if index > 0 and (text[index - 1].isalnum() or text[index - 1] == "_"):
        return False
    prefix = _prefix(text[index:])
    return (
        len(prefix) <= 2
        and prefix.lower() in _STRING_PREFIXES
        and text[index + len(prefix) : index + len(prefix) + 1] in ("'", '"')
    )


_STRING_PREFIXES = frozenset({"r", "u", "f", "b", "br", "rb", "fr", "rf", "t", "tr", "rt"})


def _split_replacement(inner: str) -> tuple[int, str | None, int | None]:
    """Of ``expression[=][!conversion][:spec]``: where the expression ends, the
    conversion, and where the spec starts (None when there is none)."""
    depth = 0
    index = 0
    end = len(inner)
    conversion = None
    spec = None
    while index < len(inner):
        char = inner[index]
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char in "'\"" or (char.isalpha() and _starts_string(inner, index)):
            index = _skip_string(inner, index)
            continue
        elif depth == 0 and char == "!" and not inner.startswith("!=", index):
            end = min(end, index)
            conversion = inner[index + 1 : index + 2]
            colon = inner.find(":", index)
            spec = colon + 1 if colon >= 0 else None
            break
        elif depth == 0 and char == ":":
            end = min(end, index)
            spec = index + 1
            break
        index += 1
    expression = inner[:end].rstrip()
    if expression.endswith("=") and not expression.endswith(("==", "!=", "<=", ">=")):
        end = len(expression) - 1
    return end, conversion, spec


def _literals(text: str, start: Point) -> list[tuple[str, Point, Point]]:
    """The string literals of a string expression's text (adjacent ones are several),
    each with its range; empty when the text is not read as expected."""
    found = []
    index = 0
    while index < len(text):
        char = text[index]
        if char in " \t\f\n\r\\":
            index += 1
            continue
        if char == "#":
            newline = text.find("\n", index)
            index = len(text) if newline < 0 else newline
            continue
        if char == "(" or char == ")":
            index += 1
            continue
        end = _skip_string(text, index)
        if end <= index:
            return []
        begin_point = _advance(text, start, 0, index)
        found.append((text[index:end], begin_point, _advance(text, begin_point, index, end)))
        index = end
    return found


def convert(tree: ast.Module, text: str, source: SourceLines | None = None) -> t.Module:
    """The tree of a module CPython parsed from ``text`` (whose ``source`` lines may be
    given, split once for all the parts of a file)."""
    return Converter(text, source).module(tree)
