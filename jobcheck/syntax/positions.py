"""Source positions, computed only where a fact needs one.

libcst's ``PositionProvider`` regenerates the code of the whole module to place every
node, which costs more than the parse. Facts need positions for a few nodes, so this
index places one top-level statement at a time: it generates that statement's code
with positions, finds where the code stands in the source text, and offsets the
statement-relative positions. When a statement's code is not found exactly once in
the source, it falls back to positions for the whole module.
"""

from __future__ import annotations

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from jobcheck.facts import Loc


class Positions:
    def __init__(self, module: cst.Module, source: str) -> None:
        self._module = module
        self._source = source
        self._ranges: dict[int, tuple[int, CodeRange]] = {}
        self._placed: set[int] = set()
        self._whole_module = False

    def loc(self, node: cst.CSTNode, statement: cst.CSTNode | None) -> Loc:
        """The range of ``node``, which lies inside top-level ``statement``."""
        entry = self._ranges.get(id(node))
        if entry is None:
            self._place(statement)
            entry = self._ranges.get(id(node))
        if entry is None:
            self._place_whole_module()
            entry = self._ranges.get(id(node))
        if entry is None:
            return Loc(1, 1, 1, 1)
        line_offset, code_range = entry
        return Loc(
            code_range.start.line + line_offset,
            code_range.start.column + 1,
            code_range.end.line + line_offset,
            code_range.end.column + 1,
        )

    def _place(self, statement: cst.CSTNode | None) -> None:
        if statement is None or id(statement) in self._placed or self._whole_module:
            return
        self._placed.add(id(statement))
        module = self._module
        alone = module.with_changes(body=[statement], header=[], footer=[])
        code = alone.code_for_node(statement)
        start = self._source.find(code)
        if start < 0 or self._source.find(code, start + 1) >= 0:
            self._place_whole_module()
            return
        line_offset = self._source.count("\n", 0, start)
        self._record(alone, line_offset)

    def _place_whole_module(self) -> None:
        if self._whole_module:
            return
        self._whole_module = True
        self._record(self._module, 0)

    def _record(self, module: cst.Module, line_offset: int) -> None:
        ranges = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
        for node, code_range in ranges.items():
            self._ranges[id(node)] = (line_offset, code_range)
