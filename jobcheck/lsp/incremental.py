"""Re-parsing an edited buffer one top-level statement at a time.

A full libcst parse of a 2,000-line module, plus the positions of its facts, costs well
over a second of CPU; a keystroke changes one statement. A buffer keeps its syntax tree,
and an edit re-parses only the top-level statements around the changed lines (with one
unchanged neighbour on each side), splicing the new statements between the old ones.
Unchanged statements keep their node objects, so the positions computed for them on an
earlier version stay valid: only their line offset moves.

The splice gives the tree a full parse of the new text would give, because the segment
starts and ends at boundaries of top-level statements in unchanged text, where the
tokenizer is at the top level with nothing open. Comment lines libcst would attach to a
neighbouring statement in a full parse (they land in the segment's header or footer when
the segment is parsed alone) are moved to that statement. Any doubt falls back to a full
parse. tests/test_lsp_incremental.py checks the result against full parses over many
random edits.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import libcst as cst

from jobcheck.extract import extract_tree, suppressions
from jobcheck.facts import FileFacts, Loc
from jobcheck.lsp.reuse import Replays, ReusingWalker
from jobcheck.syntax.positions import CodeRange, Positions, node_ranges
from jobcheck.syntax.source import parse

# Python's (and the LSP's) line ends; ``str.splitlines`` also splits on form feeds and
# other characters that do not end a line in Python source.
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")

# Relative positions of every node of one top-level statement, keyed by node id, with
# the statement itself kept alive so that the ids stay unique while cached.
_StatementRanges = tuple[cst.CSTNode, dict[int, CodeRange]]


def split_lines(text: str) -> list[str]:
    """The lines of ``text`` with their line ends, split where Python and the LSP do."""
    return _LINE.findall(text)


@dataclass
class ParsedBuffer:
    """A buffer's text, its syntax tree and where each top-level statement starts."""

    text: str
    lines: list[str]
    tree: cst.Module
    starts: list[int]
    """0-based line of each ``tree.body`` statement's first line (its leading comments
    and blank lines included)."""
    ranges: dict[int, _StatementRanges] = field(default_factory=dict)
    """Positions of statements placed so far, shared by the versions of one buffer."""
    replays: Replays = field(default_factory=Replays)
    """What the walker learnt from each statement (:mod:`jobcheck.lsp.reuse`)."""
    reparsed_lines: int = 0
    """How many lines the last update parsed (for benchmarks and tests)."""
    walked_statements: int = 0
    """How many top-level statements the last extraction walked (the rest replayed)."""
    rewalked_statements: int = 0
    """How many replayed statements it walked again to rebuild the walker's state."""
    exact: bool = True
    """Whether the tree gives back the text line for line. libcst drops a line that
    holds only a backslash; such a buffer is always parsed in full."""


def parse_buffer(text: str) -> ParsedBuffer:
    """Parse ``text`` in full; raises :class:`~jobcheck.syntax.source.SourceError`."""
    text = _without_bom(text)
    tree = parse(text)
    lines = split_lines(text)
    ranges: dict[int, _StatementRanges] = {}
    starts = _starts(tree, _line_count(tree, tree.header), tree.body, ranges)
    buffer = ParsedBuffer(text, lines, tree, starts, ranges, reparsed_lines=len(lines))
    if tree.body:
        last = starts[-1] + len(split_lines(tree.code_for_node(tree.body[-1])))
        buffer.exact = last + _line_count(tree, tree.footer) == len(lines)
    return buffer


def update_buffer(old: ParsedBuffer, text: str) -> ParsedBuffer:
    """The buffer after an edit, re-parsing as little as possible; raises
    :class:`~jobcheck.syntax.source.SourceError` when the new text does not parse."""
    text = _without_bom(text)
    if text == old.text:
        return old
    lines = split_lines(text)
    spliced = _splice(old, text, lines)
    if spliced is None:
        fresh = parse_buffer(text)
        old.ranges.update(fresh.ranges)
        fresh.ranges, fresh.replays = old.ranges, old.replays
        _forget_unused(fresh)
        return fresh
    _forget_unused(spliced)
    return spliced


def extract_buffer(buffer: ParsedBuffer, path: str, module: str, is_package: bool) -> FileFacts:
    """The facts of a parsed buffer (what ``extract_file`` gives for its text)."""
    facts = FileFacts(path=path, module=module)
    facts.suppressions = suppressions(buffer.text)
    positions = BufferPositions(buffer)
    if not buffer.exact:
        return extract_tree(facts, buffer.tree, buffer.text, is_package, positions)
    return extract_tree(
        facts, buffer.tree, buffer.text, is_package, positions, walker_class=BufferWalker
    )


class BufferWalker(ReusingWalker):
    """The walker of a buffer: replays what earlier versions' walks remembered, and
    counts what it walked into the buffer. (A module-level class: one made per call
    would hold the buffer in a reference cycle, freed only by a garbage collection.)"""

    def __init__(
        self,
        facts: FileFacts,
        module: cst.Module,
        source: str,
        is_package: bool,
        positions: Positions | None = None,
    ) -> None:
        super().__init__(facts, module, source, is_package, positions)
        assert isinstance(positions, BufferPositions)
        self.buffer = buffer = positions.buffer
        body = buffer.tree.body
        starts = dict(zip(map(id, body), buffer.starts, strict=True))
        ends = [*buffer.starts[1:], len(buffer.lines)][: len(body)]
        lengths = {
            id(s): end - start for s, start, end in zip(body, buffer.starts, ends, strict=True)
        }
        self.use_replays(buffer.replays, starts, lengths)

    def run(self) -> FileFacts:
        try:
            return super().run()
        finally:
            self.buffer.walked_statements = self.walked
            self.buffer.rewalked_statements = self.rewalked


class BufferPositions(Positions):
    """Positions that reuse each unchanged statement's relative ranges."""

    def __init__(self, buffer: ParsedBuffer) -> None:
        super().__init__(buffer.tree, buffer.text)
        self.buffer = self._buffer = buffer
        statements = zip(buffer.tree.body, buffer.starts, strict=True)
        self._start_of = {id(statement): start for statement, start in statements}

    def loc(
        self,
        node: cst.CSTNode,
        statement: cst.CSTNode | None,
        anchors: Sequence[cst.CSTNode] = (),
    ) -> Loc:
        exact = self._buffer.exact and statement is not None
        start = self._start_of.get(id(statement)) if exact else None
        if start is not None:
            code_range = self._relative(statement).get(id(node))  # type: ignore[arg-type]
            if code_range is not None:
                line, column, end_line, end_column = code_range
                return Loc(line + start, column + 1, end_line + start, end_column + 1)
        return super().loc(node, statement, anchors)

    def _relative(self, statement: cst.CSTNode) -> dict[int, CodeRange]:
        cached = self._buffer.ranges.get(id(statement))
        if cached is not None and cached[0] is statement:
            return cached[1]
        relative, _ = _place(self._buffer.tree, statement)
        self._buffer.ranges[id(statement)] = (statement, relative)
        return relative


def _splice(old: ParsedBuffer, text: str, lines: list[str]) -> ParsedBuffer | None:
    """The new buffer with the changed statements re-parsed, or None when only a full
    parse will do."""
    body = old.tree.body
    if not body or not old.exact:
        return None
    first, old_end = _changed_lines(old.lines, lines)
    header_end = old.starts[0]
    if first < header_end:
        return None
    delta = len(lines) - len(old.lines)
    i0 = max(_statement_at(old.starts, first) - 1, 0)
    i1 = min(_statement_at(old.starts, max(old_end - 1, first)) + 2, len(body))
    segment_start = 0 if i0 == 0 else old.starts[i0]
    segment_end = (old.starts[i1] if i1 < len(body) else len(old.lines)) + delta
    segment = parse("".join(lines[segment_start:segment_end]), first_line=segment_start + 1)
    new_statements = list(segment.body)
    if not new_statements or not _same_defaults(segment, old.tree):
        return None
    header = old.tree.header
    if i0 == 0:
        header = segment.header
    elif segment.header:
        new_statements[0] = _with_leading(new_statements[0], segment.header)
    suffix = list(body[i1:])
    if suffix and segment.footer:
        suffix[0] = _with_leading(suffix[0], segment.footer)
    footer = segment.footer if not suffix else old.tree.footer
    first_new_line = _line_count(segment, header) if i0 == 0 else segment_start
    new_starts = _starts(segment, first_new_line, new_statements, old.ranges)
    body_end = segment_end - _line_count(segment, segment.footer)
    _keep_unchanged(old, i0, i1, lines, new_statements, new_starts, body_end)
    suffix_starts = [start + delta for start in old.starts[i1:]]
    if suffix and segment.footer:
        suffix_starts[0] -= _line_count(segment, segment.footer)
    tree = old.tree.with_changes(
        header=header,
        body=[*body[:i0], *new_statements, *suffix],
        footer=footer,
        has_trailing_newline=old.tree.has_trailing_newline
        if suffix
        else segment.has_trailing_newline,
    )
    starts = [*old.starts[:i0], *new_starts, *suffix_starts]
    return ParsedBuffer(
        text,
        lines,
        tree,
        starts,
        old.ranges,
        old.replays,
        reparsed_lines=segment_end - segment_start,
    )


def _keep_unchanged(
    old: ParsedBuffer,
    i0: int,
    i1: int,
    lines: list[str],
    new_statements: list,
    new_starts: list[int],
    body_end: int,
) -> None:
    """Put the old node objects back for re-parsed statements whose text did not change
    (the neighbours parsed for context, the statements between two edits), so that their
    remembered positions and facts stay usable. A top-level statement's text parses the
    same wherever it stands. ``body_end`` is the line where the new statements end."""
    last_old = len(old.tree.body) - 1
    unchanged: dict[tuple[str, ...], list[int]] = {}
    for i in range(i0, min(i1, last_old)):  # the module's last statement has no known end
        text = tuple(old.lines[old.starts[i] : old.starts[i + 1]])
        unchanged.setdefault(text, []).append(i)
    for j in range(len(new_statements)):
        end = new_starts[j + 1] if j + 1 < len(new_starts) else body_end
        candidates = unchanged.get(tuple(lines[new_starts[j] : end]))
        if candidates:
            new_statements[j] = old.tree.body[candidates.pop(0)]


def _changed_lines(old: list[str], new: list[str]) -> tuple[int, int]:
    """[first, end) of the old lines that differ from the new ones (common prefix and
    suffix removed)."""
    limit = min(len(old), len(new))
    first = 0
    while first < limit and old[first] == new[first]:
        first += 1
    same_tail = 0
    while (
        same_tail < limit - first and old[len(old) - 1 - same_tail] == new[len(new) - 1 - same_tail]
    ):
        same_tail += 1
    return first, len(old) - same_tail


def _statement_at(starts: list[int], line: int) -> int:
    """Index of the top-level statement whose lines include ``line`` (the last one when
    ``line`` lies in the footer)."""
    low, high = 0, len(starts)
    while low < high:
        middle = (low + high) // 2
        if starts[middle] <= line:
            low = middle + 1
        else:
            high = middle
    return max(low - 1, 0)


def _starts(
    module: cst.Module, first_line: int, statements: list, ranges: dict[int, _StatementRanges]
) -> list[int]:
    """Where each statement starts. Generating a statement's code to count its lines
    also places its nodes: their positions go to ``ranges`` for the extraction."""
    starts = []
    line = first_line
    for statement in statements:
        starts.append(line)
        relative, lines = _place(module, statement)
        ranges[id(statement)] = (statement, relative)
        line += lines
    return starts


def _place(module: cst.Module, statement: cst.CSTNode) -> tuple[dict[int, CodeRange], int]:
    """The positions of a top-level statement's nodes, relative to its first line (its
    leading blank and comment lines included), and how many lines it spans."""
    alone = module.with_changes(body=[statement], header=[], footer=[])
    relative = node_ranges(alone)
    _, _, end_line, end_column = relative.pop(id(alone))
    return relative, end_line - 1 if end_column == 0 else end_line


def _line_count(module: cst.Module, empty_lines: Sequence[cst.EmptyLine]) -> int:
    """How many lines a header or footer takes (a blank line may continue onto the next
    with a backslash)."""
    if not empty_lines:
        return 0
    code = module.with_changes(header=empty_lines, body=[], footer=[]).code
    return len(split_lines(code))


def _same_defaults(segment: cst.Module, tree: cst.Module) -> bool:
    """Whether the segment's nodes mean the same in the whole tree: an indented block or
    a newline without an explicit value is rendered with the module's default, which
    libcst detects from the first one in the parsed text."""
    return (
        segment.default_indent == tree.default_indent
        and segment.default_newline == tree.default_newline
    )


def _with_leading(statement: cst.BaseStatement, lines: tuple | list) -> cst.BaseStatement:
    """``statement`` with ``lines`` (blank and comment lines) added above it."""
    return statement.with_changes(leading_lines=(*lines, *statement.leading_lines))


def _forget_unused(buffer: ParsedBuffer) -> None:
    """Drop cached positions of statements no longer in the tree (bounded memory)."""
    alive = {id(statement) for statement in buffer.tree.body}
    for key in [k for k in buffer.ranges if k not in alive]:
        del buffer.ranges[key]
    buffer.replays.keep_only(alive)


def _without_bom(text: str) -> str:
    return text[1:] if text.startswith("\ufeff") else text
