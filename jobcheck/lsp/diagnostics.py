"""Findings as LSP diagnostics.

jobcheck's :class:`~jobcheck.facts.Loc` counts 1-based lines and columns in code points
(end exclusive); the LSP counts 0-based lines and, by default, UTF-16 code units. The
server's position codec (negotiated with the client: UTF-16, UTF-8 or UTF-32) converts
each column against the line's text.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from lsprotocol import types
from pygls.workspace import PositionCodec

from jobcheck.facts import Loc
from jobcheck.findings import Finding, Related
from jobcheck.vocabulary.credentials import mask

SOURCE = "jobcheck"

SEVERITIES = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "info": types.DiagnosticSeverity.Information,
}


def to_range(loc: Loc, lines: Sequence[str], codec: PositionCodec) -> types.Range:
    """The LSP range of ``loc`` in a document with these ``lines``."""
    return types.Range(
        start=to_position(loc.line, loc.column, lines, codec),
        end=to_position(loc.end_line, loc.end_column, lines, codec),
    )


def to_position(
    line: int, column: int, lines: Sequence[str], codec: PositionCodec
) -> types.Position:
    if line - 1 >= len(lines):
        return types.Position(line=max(line - 1, 0), character=0)
    return codec.position_to_client_units(
        lines, types.Position(line=max(line - 1, 0), character=max(column - 1, 0))
    )


def code_of(finding: Finding) -> str:
    """The diagnostic's code: the rule id and the check slug, as in the text output."""
    return f"{finding.rule} {finding.check}"


def to_diagnostic(finding: Finding, lines: Sequence[str], codec: PositionCodec) -> types.Diagnostic:
    return types.Diagnostic(
        range=to_range(finding.loc, lines, codec),
        message=mask(finding.message),
        severity=SEVERITIES.get(finding.severity, types.DiagnosticSeverity.Warning),
        code=code_of(finding),
        code_description=types.CodeDescription(href=finding.url) if finding.url else None,
        source=SOURCE,
        data={"rule": finding.rule, "check": finding.check, "url": finding.url},
        related_information=[_related(r, finding.path, lines, codec) for r in finding.related]
        or None,
    )


def _related(
    related: Related, path: str, lines: Sequence[str], codec: PositionCodec
) -> types.DiagnosticRelatedInformation:
    """A hop of the call chain that reaches the flagged code. Columns are converted to
    the client's units in the document itself; in another file they are its code points
    (exact for ASCII lines, which code almost always is)."""
    loc = related.loc
    if related.path == path:
        where = to_range(loc, lines, codec)
    else:
        where = types.Range(
            start=types.Position(line=max(loc.line - 1, 0), character=max(loc.column - 1, 0)),
            end=types.Position(line=max(loc.end_line - 1, 0), character=max(loc.end_column - 1, 0)),
        )
    uri = Path(os.path.abspath(related.path)).as_uri()
    return types.DiagnosticRelatedInformation(types.Location(uri, where), mask(related.message))


def overlaps(a: types.Range, b: types.Range) -> bool:
    """Whether two ranges share a position (touching counts: a cursor at a range's end
    still asks about it)."""
    a_start, a_end = (a.start.line, a.start.character), (a.end.line, a.end.character)
    b_start, b_end = (b.start.line, b.start.character), (b.end.line, b.end.character)
    return a_start <= b_end and b_start <= a_end
