"""``--format json``: the contract in RULES.md, ``{"version": 1, "findings": [...],
"errors": [...]}``. Secrets in messages are masked; a name that is not UTF-8 keeps its
lone surrogates as ``\\udcff`` escapes (``jobcheck/output/encoding.py``)."""

from __future__ import annotations

from typing import Any, TextIO

from jobcheck.findings import Finding, Fix, Report
from jobcheck.output.encoding import json_text, masked_report
from jobcheck.output.suppressions import describe

VERSION = 1


APPLICABILITY = {"safe": "safe", "unsafe": "unsafe", "display": "display-only"}


def fix_dict(fix: Fix | None) -> dict[str, Any] | None:
    """Ruff's shape: the applicability, a message and the edits (1-based, end
    exclusive)."""
    if fix is None:
        return None
    return {
        "applicability": APPLICABILITY.get(fix.applicability, fix.applicability),
        "message": fix.title,
        "edits": [
            {
                "line": edit.loc.line,
                "column": edit.loc.column,
                "end_line": edit.loc.end_line,
                "end_column": edit.loc.end_column,
                "content": edit.new_text,
            }
            for edit in fix.edits
        ],
    }


def finding_dict(finding: Finding, with_fix: bool = False) -> dict[str, Any]:
    """A finding as the contract has it; ``related`` (the calls that reach the flagged
    code, then the code itself) only for a finding reached through calls."""
    data: dict[str, Any] = {
        "rule": finding.rule,
        "alias": finding.alias,
        "check": finding.check,
        "path": finding.path,
        "line": finding.loc.line,
        "column": finding.loc.column,
        "end_line": finding.loc.end_line,
        "end_column": finding.loc.end_column,
        "message": finding.message,
        "severity": finding.severity,
        "url": finding.url,
    }
    if finding.related:
        data["related"] = [
            {"path": r.path, "line": r.loc.line, "column": r.loc.column, "message": r.message}
            for r in finding.related
        ]
    if with_fix:
        data["fix"] = fix_dict(finding.fix)
    return data


def to_dict(report: Report, fixes_computed: bool = False) -> dict[str, Any]:
    report = masked_report(report)
    data: dict[str, Any] = {
        "version": VERSION,
        "findings": [finding_dict(f, fixes_computed) for f in report.findings],
        "errors": [{"path": e.path, "message": e.message} for e in report.errors],
    }
    if report.unused_suppressions:
        data["unused_suppressions"] = [
            {
                "path": u.path,
                "line": u.line,
                "codes": list(u.codes),
                "unknown": list(u.unknown),
                "message": describe(u),
            }
            for u in report.unused_suppressions
        ]
    return data


def write(
    report: Report,
    stream: TextIO,
    color: bool = False,
    *,
    fixes_computed: bool = False,
    **_: object,
) -> None:
    stream.write(json_text(to_dict(report, fixes_computed)) + "\n")
