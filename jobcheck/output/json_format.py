"""``--format json``: the contract in RULES.md, ``{"version": 1, "findings": [...],
"errors": [...]}``."""

from __future__ import annotations

import json
from typing import Any, TextIO

from jobcheck.findings import Finding, Report

VERSION = 1


def finding_dict(finding: Finding) -> dict[str, Any]:
    """A finding as the contract has it; ``related`` (the calls that reach the flagged
    code, then the code itself) only for a finding reached through calls."""
    found = {
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
        found["related"] = [
            {"path": r.path, "line": r.loc.line, "column": r.loc.column, "message": r.message}
            for r in finding.related
        ]
    return found


def to_dict(report: Report) -> dict[str, Any]:
    data: dict[str, Any] = {
        "version": VERSION,
        "findings": [finding_dict(f) for f in report.findings],
        "errors": [{"path": e.path, "message": e.message} for e in report.errors],
    }
    if report.unused_suppressions:
        data["unused_suppressions"] = [
            {"path": u.path, "line": u.line, "codes": list(u.codes)}
            for u in report.unused_suppressions
        ]
    return data


def write(report: Report, stream: TextIO, color: bool = False) -> None:
    json.dump(to_dict(report), stream, indent=2, ensure_ascii=False)
    stream.write("\n")
