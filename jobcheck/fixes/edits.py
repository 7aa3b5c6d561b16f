"""Text edits: applying a file's fixes together, and showing them as a unified diff.

An edit's :class:`~jobcheck.location.Loc` counts lines as libcst does (``\\n``,
``\\r\\n`` and a lone ``\\r`` end a line) and columns in code points, 1-based, end
exclusive; offsets into the text are computed from it.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Sequence

from jobcheck.findings import Fix, TextEdit
from jobcheck.location import Loc

_NEWLINE = re.compile(r"\r\n?|\n")


def line_starts(text: str) -> list[int]:
    """The offset of the first character of every line."""
    return [0, *(match.end() for match in _NEWLINE.finditer(text))]


def offset(starts: Sequence[int], text: str, line: int, column: int) -> int | None:
    """The offset of 1-based ``line``, ``column``; None when it lies outside the text."""
    if line < 1 or line > len(starts) or column < 1:
        return None
    position = starts[line - 1] + column - 1
    end = starts[line] if line < len(starts) else len(text)
    return position if position <= end else None


def loc_of(starts: Sequence[int], start: int, end: int) -> Loc:
    """The :class:`Loc` of offsets [start, end)."""

    def place(position: int) -> tuple[int, int]:
        low, high = 0, len(starts) - 1
        while low < high:  # the last line starting at or before ``position``
            middle = (low + high + 1) // 2
            if starts[middle] <= position:
                low = middle
            else:
                high = middle - 1
        return low + 1, position - starts[low] + 1

    line, column = place(start)
    end_line, end_column = place(end)
    return Loc(line, column, end_line, end_column)


def span(starts: Sequence[int], text: str, edit: TextEdit) -> tuple[int, int] | None:
    loc = edit.loc
    start = offset(starts, text, loc.line, loc.column)
    end = offset(starts, text, loc.end_line, loc.end_column)
    if start is None or end is None or end < start:
        return None
    return start, end


def minimal_edit(old: str, new: str) -> TextEdit | None:
    """One edit that turns ``old`` into ``new``: the part between their common start and
    common end (None when they are equal)."""
    if old == new:
        return None
    prefix = 0
    limit = min(len(old), len(new))
    while prefix < limit and old[prefix] == new[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and old[-1 - suffix] == new[-1 - suffix]:
        suffix += 1
    # Never split a "\r\n": a position between them is no place in libcst's lines.
    if 0 < prefix < len(old) and old[prefix - 1] == "\r" and old[prefix] == "\n":
        prefix -= 1
    starts = line_starts(old)
    return TextEdit(loc_of(starts, prefix, len(old) - suffix), new[prefix : len(new) - suffix])


def _conflict(a: tuple[int, int, str], b: tuple[int, int, str]) -> bool:
    if a == b:
        return False  # the same edit twice (two fixes adding one import) is applied once
    (a_start, a_end, _), (b_start, b_end, _) = a, b
    if max(a_start, b_start) < min(a_end, b_end):
        return True
    # An insertion touching another edit: which goes first is not for us to guess.
    return (a_start == a_end and b_start <= a_start <= b_end) or (
        b_start == b_end and a_start <= b_start <= a_end
    )


def apply_fixes(text: str, fixes: Iterable[Fix]) -> tuple[str, list[Fix]]:
    """``text`` with every fix applied that does not conflict with one before it, and
    the fixes applied (the others wait for the next round, after a new check)."""
    starts = line_starts(text)
    accepted: list[tuple[int, int, str]] = []
    applied: list[Fix] = []
    for fix in fixes:
        spans = []
        for edit in fix.edits:
            where = span(starts, text, edit)
            if where is None:
                break
            spans.append((*where, edit.new_text))
        else:
            if spans and not any(_conflict(s, a) for s in spans for a in accepted):
                accepted.extend(s for s in spans if s not in accepted)
                applied.append(fix)
    result = text
    for start, end, new_text in sorted(accepted, key=lambda s: (s[0], s[1]), reverse=True):
        result = result[:start] + new_text + result[end:]
    return result, applied


def non_conflicting(fixes: Iterable[Fix]) -> list[TextEdit]:
    """The edits of the fixes that conflict with none before them, each once."""
    accepted: list[tuple[int, int, str]] = []
    edits: list[TextEdit] = []
    for fix in fixes:
        spans = [(*_key(e), e.new_text) for e in fix.edits]
        if any(_conflict(s, a) for s in spans for a in accepted):
            continue
        for span, edit in zip(spans, fix.edits):
            if span not in accepted:
                accepted.append(span)
                edits.append(edit)
    return edits


def _key(edit: TextEdit) -> tuple[int, int]:
    """A sortable stand-in for an edit's offsets: (line, column) packed, enough to
    compare ranges without the text."""
    loc = edit.loc
    return loc.line * 1_000_000 + loc.column, loc.end_line * 1_000_000 + loc.end_column


def unified_diff(path: str, old: str, new: str) -> str:
    """A ``diff -u`` of one file, as git shows it (``a/`` and ``b/`` prefixes)."""
    lines = difflib.unified_diff(
        old.splitlines(keepends=True),
        new.splitlines(keepends=True),
        fromfile=f"a/{path}",
        tofile=f"b/{path}",
    )
    out = []
    for line in lines:
        out.append(
            line if line.endswith(("\n", "\r")) else line + "\n\\ No newline at end of file\n"
        )
    return "".join(out)
