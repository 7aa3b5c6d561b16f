"""One file as fixes see it: its text, parsed with libcst on first use, nodes found by
the location a finding gives, and edits made by replacing a node in the tree (so the
code around it, its comments and its formatting are kept exactly)."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from typing import TypeVar

import libcst as cst
from libcst.metadata import MetadataWrapper, ParentNodeProvider, PositionProvider

from jobcheck.findings import TextEdit
from jobcheck.fixes.edits import line_starts, loc_of, minimal_edit
from jobcheck.location import Loc
from jobcheck.syntax import quiet

Node = TypeVar("Node", bound=cst.CSTNode)


class Source:
    def __init__(self, path: str, text: str | None) -> None:
        self.path = path
        self.text = text

    @functools.cached_property
    def module(self) -> cst.Module | None:
        if self.text is None:
            return None
        try:
            return cst.parse_module(self.text)
        except Exception:  # libcst's syntax errors, or recursion on hostile input
            return None

    @functools.cached_property
    def _metadata(self) -> tuple[dict, dict]:
        module = self.module
        if module is None:
            return {}, {}
        wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
        resolved = wrapper.resolve_many([PositionProvider, ParentNodeProvider])
        return dict(resolved[PositionProvider]), dict(resolved[ParentNodeProvider])

    @functools.cached_property
    def _by_loc(self) -> dict[Loc, list[cst.CSTNode]]:
        index: dict[Loc, list[cst.CSTNode]] = {}
        for node, where in self._metadata[0].items():
            loc = Loc(
                where.start.line, where.start.column + 1, where.end.line, where.end.column + 1
            )
            index.setdefault(loc, []).append(node)
        return index

    def loc(self, node: cst.CSTNode) -> Loc | None:
        where = self._metadata[0].get(node)
        if where is None:
            return None
        return Loc(where.start.line, where.start.column + 1, where.end.line, where.end.column + 1)

    def at(self, loc: Loc, kind: type[Node]) -> Node | None:
        """The outermost node of type ``kind`` whose range is exactly ``loc``."""
        found = [n for n in self._by_loc.get(loc, ()) if isinstance(n, kind)]
        if not found:
            return None
        # Nested nodes with one range (a call in parentheses...): the outermost one.
        return next((n for n in found if not any(self.parent(n) is m for m in found)), found[0])

    def parent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        return self._metadata[1].get(node)

    def ancestors(self, node: cst.CSTNode) -> Iterator[cst.CSTNode]:
        current = self.parent(node)
        while current is not None:
            yield current
            current = self.parent(current)

    def inside(self, loc: Loc, kind: type[Node]) -> Node | None:
        """The innermost node of type ``kind`` that contains ``loc``."""
        best: Node | None = None
        best_size: tuple[int, int] | None = None
        for node, where in self._metadata[0].items():
            if not isinstance(node, kind):
                continue
            start = (where.start.line, where.start.column + 1)
            end = (where.end.line, where.end.column + 1)
            if start <= (loc.line, loc.column) and (loc.end_line, loc.end_column) <= end:
                size = (end[0] - start[0], end[1] - start[1])
                if best_size is None or size < best_size:
                    best, best_size = node, size
        return best

    def replace(self, old: cst.CSTNode, new: cst.CSTNode) -> TextEdit | None:
        """The edit that replaces ``old`` with ``new``, or None when the result does not
        parse (a fix must never break a file)."""
        module = self.module
        if module is None or self.text is None:
            return None
        try:
            changed = module.deep_replace(old, new)
            code = changed.code  # type: ignore[union-attr]
            quiet.parse(code)
        except Exception:
            return None
        return minimal_edit(self.text, code)

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
