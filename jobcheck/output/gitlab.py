"""``--format gitlab``: a GitLab Code Quality report (a subset of the Code Climate issue
format): a JSON array with ``description``, ``check_name``, ``fingerprint``,
``severity`` and ``location`` for each finding.

GitLab compares reports of two pipelines by fingerprint and treats issues with the same
fingerprint as one, so fingerprints come from :mod:`jobcheck.fingerprint`: the rule,
the check, the path and the flagged source text plus an occurrence index, never the
line. Moving code does not make old findings look new in the merge request widget.
"""

from __future__ import annotations

import hashlib
from typing import Any, TextIO

from jobcheck.findings import FileError, Finding, Report, UnusedSuppression
from jobcheck.fingerprint import identities
from jobcheck.output.encoding import json_text, masked_report
from jobcheck.output.locations import PARSE_ERROR_ID, error_position, repository_path
from jobcheck.output.suppressions import UNUSED_HELP, UNUSED_ID, describe, fingerprints

# GitLab's scale is info, minor, major, critical, blocker.
SEVERITIES = {"error": "major", "warning": "minor", "info": "info"}


def write(report: Report, stream: TextIO, color: bool = False, **_: object) -> None:
    stream.write(json_text(to_list(report)) + "\n")


def to_list(report: Report) -> list[dict[str, Any]]:
    report = masked_report(report)
    ids = identities(report.findings, path_of=repository_path)
    issues = [
        _finding_issue(finding, identity.fingerprint)
        for finding, identity in zip(report.findings, ids, strict=True)
    ]
    issues += [_error_issue(error) for error in report.errors]
    unused = report.unused_suppressions
    issues += [
        _unused_issue(u, fingerprint)
        for u, fingerprint in zip(unused, fingerprints(unused, repository_path), strict=True)
    ]
    return issues


def _unused_issue(unused: UnusedSuppression, fingerprint: str) -> dict[str, Any]:
    return {
        "type": "issue",
        "check_name": UNUSED_ID,
        "description": describe(unused),
        "content": {"body": UNUSED_HELP},
        "categories": ["Clarity"],
        "fingerprint": fingerprint,
        "severity": "minor",
        "location": {"path": repository_path(unused.path), "lines": {"begin": unused.line}},
    }


def _finding_issue(finding: Finding, fingerprint: str) -> dict[str, Any]:
    return {
        "type": "issue",
        "check_name": f"{finding.rule} {finding.check}",
        "description": f"{finding.rule} {finding.check}: {finding.message}",
        "content": {"body": f"See {finding.url}"},
        "categories": ["Bug Risk"],
        "fingerprint": fingerprint,
        "severity": SEVERITIES.get(finding.severity, "minor"),
        "location": {
            "path": repository_path(finding.path),
            "lines": {"begin": finding.loc.line, "end": finding.loc.end_line},
        },
    }


def _error_issue(error: FileError) -> dict[str, Any]:
    path = repository_path(error.path)
    line, _ = error_position(error)
    identity = "\x1f".join((PARSE_ERROR_ID, path, error.message))
    return {
        "type": "issue",
        "check_name": PARSE_ERROR_ID,
        "description": f"File could not be checked: {error.message}",
        "categories": ["Bug Risk"],
        "fingerprint": hashlib.sha256(identity.encode("utf-8", "surrogateescape")).hexdigest(),
        "severity": "critical",
        "location": {"path": path, "lines": {"begin": line}},
    }
