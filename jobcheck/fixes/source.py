"""One file as fixes see it: its text, parsed with libcst on first use, nodes found by
the location a finding gives, and edits made by replacing a node in the tree (so the
code around it, its comments and its formatting are kept exactly).

libcst's position metadata regenerates the whole module, which costs more than the
parse; a fix needs the positions of one top-level statement, so they are computed for
that statement alone (``_Statement``), placed by the lines the statements before it
take up.
"""

from __future__ import annotations

import ast
import bisect
import functools
from dataclasses import dataclass
from typing import TypeVar

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from jobcheck.findings import TextEdit
from jobcheck.fixes.edits import line_starts, loc_of, minimal_edit
from jobcheck.location import Loc
from jobcheck.syntax import quiet

Node = TypeVar("Node", bound=cst.CSTNode)

_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


@dataclass
class _Statement:
    """A top-level statement with the positions and parents of the nodes in it."""

    node: cst.CSTNode
    rendered: cst.CSTNode
    """``node``, or for a function or class flagged in its header (decorators, name,
    parameters) a copy whose body is ``pass``: the header is all that is placed."""
    first_line: int
    """The line ``rendered``'s code (leading comment lines included) starts on."""
    ranges: dict[cst.CSTNode, Loc]
    parents: dict[cst.CSTNode, cst.CSTNode]


@dataclass(frozen=True)
class _Top:
    """Where a top-level statement is, from the standard library's ``ast``."""

    first_line: int
    """Its first line: the first decorator's, else its first token's."""
    line: int
    """The line of its first token (``def``, ``class``, the statement itself)."""
    body_line: int | None
    """For a function or class, the line its body starts on."""
    end_line: int


_PASS_BODY = cst.IndentedBlock(body=[cst.SimpleStatementLine(body=[cst.Pass()])])


class Source:
    def __init__(self, path: str, text: str | None) -> None:
        self.path = path
        self.text = text
        self._placed: dict[int, _Statement] = {}
        """id of a node -> its placed statement."""
        self._statements: dict[tuple[int, bool], _Statement] = {}

    @functools.cached_property
    def module(self) -> cst.Module | None:
        if self.text is None or self.text.startswith("\ufeff"):
            return None  # a byte order mark would shift every column of line 1
        try:
            return cst.parse_module(self.text)
        except Exception:  # libcst's syntax errors, or recursion on hostile input
            return None

    @functools.cached_property
    def _tops(self) -> list[_Top]:
        """Where each of the module's top-level statements is (libcst's ``a; b`` is one
        statement, two for ``ast``); empty when the two parsers disagree."""
        module = self.module
        if module is None or self.text is None:
            return []
        try:
            tree = quiet.parse(self.text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return []
        found: list[_Top] = []
        position = 0
        for statement in module.body:
            count = len(statement.body) if isinstance(statement, cst.SimpleStatementLine) else 1
            taken = tree.body[position : position + count]
            position += count
            if len(taken) != count or not taken:
                return []
            first = taken[0]
            decorators = getattr(first, "decorator_list", None) or []
            body = getattr(first, "body", None)
            body_line = body[0].lineno if isinstance(first, _DEFINITIONS) and body else None
            start = decorators[0].lineno if decorators else first.lineno
            found.append(_Top(start, first.lineno, body_line, taken[-1].end_lineno or first.lineno))
        return found if position == len(tree.body) else []

    @functools.cached_property
    def _first_lines(self) -> list[int]:
        return [top.first_line for top in self._tops]

    def _statement_at(self, loc: Loc) -> _Statement | None:
        """The top-level statement ``loc`` starts in: the last to start on or before its
        line (a module of thousands of tasks has a finding on each)."""
        index = bisect.bisect_right(self._first_lines, loc.line) - 1
        if index < 0:
            return None
        top = self._tops[index]
        header = top.body_line is not None and loc.end_line < top.body_line
        return self._statement(index, header)

    def _statement(self, index: int, header: bool) -> _Statement:
        key = (index, header)
        cached = self._statements.get(key)
        if cached is not None:
            return cached
        module = self.module
        assert module is not None
        node = module.body[index]
        rendered = node.with_changes(body=_PASS_BODY) if header else node
        alone = module.with_changes(body=[rendered], header=[], footer=[])
        positions = MetadataWrapper(alone, unsafe_skip_copy=True).resolve(PositionProvider)
        # The statement's first token is on the line ``ast`` gives; the lines before it
        # in ``alone`` (comments, decorators) come before that.
        shift = self._tops[index].line - positions[rendered].start.line
        ranges = {
            n: Loc(r.start.line + shift, r.start.column + 1, r.end.line + shift, r.end.column + 1)
            for n, r in positions.items()
        }
        parents: dict[cst.CSTNode, cst.CSTNode] = {}
        stack = [rendered]
        while stack:
            current = stack.pop()
            for child in current.children:
                parents[child] = current
                stack.append(child)
        statement = _Statement(node, rendered, shift + 1, ranges, parents)
        self._statements[key] = statement
        for placed in ranges:
            self._placed[id(placed)] = statement
        return statement

    # -- finding nodes ------------------------------------------------------------------

    def at(self, loc: Loc, kind: type[Node]) -> Node | None:
        """The outermost node of type ``kind`` whose range is exactly ``loc``."""
        statement = self._statement_at(loc)
        if statement is None:
            return None
        found = [n for n, r in statement.ranges.items() if r == loc and isinstance(n, kind)]
        if not found:
            return None
        # Nested nodes with one range (a call in parentheses...): the outermost one.
        return next((n for n in found if statement.parents.get(n) not in found), found[0])

    def parent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        """The parent of a node :meth:`at` found (None for others)."""
        statement = self._placed.get(id(node))
        return statement.parents.get(node) if statement else None

    def statement_lines(self) -> list[tuple[cst.CSTNode, int, int]]:
        """Every top-level statement with its first line (decorators included) and its
        last."""
        module = self.module
        if module is None or not self._tops:
            return []
        return [(s, top.first_line, top.end_line) for s, top in zip(module.body, self._tops)]

    # -- edits ----------------------------------------------------------------------------

    def replace(self, old: cst.CSTNode, new: cst.CSTNode) -> TextEdit | None:
        """The edit that replaces ``old`` (a node :meth:`at` found) with ``new``, or None
        when its statement would not parse any more (a fix must never break a file)."""
        module = self.module
        statement = self._placed.get(id(old))
        if module is None or statement is None:
            return None
        before = module.code_for_node(statement.rendered)
        try:
            after = module.code_for_node(statement.rendered.deep_replace(old, new))
            quiet.parse(after)
        except Exception:
            return None
        edit = minimal_edit(before, after)
        if edit is None:
            return None
        shift = statement.first_line - 1
        loc = edit.loc
        moved = Loc(loc.line + shift, loc.column, loc.end_line + shift, loc.end_column)
        return TextEdit(moved, edit.new_text)

    def insert_line(self, line: int, text: str) -> TextEdit:
        """An edit inserting ``text`` (ending in this file's newline) before ``line``."""
        content = self.text or ""
        starts = line_starts(content)
        position = starts[line - 1] if line - 1 < len(starts) else len(content)
        if position == len(content) and content and not content.endswith(("\n", "\r")):
            text = self.newline + text.rstrip("\r\n")  # after a last line with no newline
        return TextEdit(loc_of(starts, position, position), text)

    @property
    def newline(self) -> str:
        module = self.module
        return module.default_newline if module is not None else "\n"

    def code(self, node: cst.CSTNode) -> str:
        module = self.module
        return module.code_for_node(node) if module is not None else ""
