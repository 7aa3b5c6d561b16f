"""``--format sarif``: a SARIF 2.1.0 log for GitHub code scanning and other viewers.

One run; ``tool.driver.rules`` holds every rule of the catalog with its help text and
its playbook page as ``helpUri``. Each finding is a result that points at its rule by
id and index, with a region and a line-independent fingerprint. Files that could not
be checked appear twice: as ``toolExecutionNotifications`` (where SARIF puts tool
problems) and as results of the ``parse-error`` descriptor, because GitHub code
scanning shows results only.
"""

from __future__ import annotations

import hashlib
from typing import Any, TextIO

from jobcheck import __version__
from jobcheck.catalog import Rule, load_catalog
from jobcheck.facts import Loc
from jobcheck.findings import FileError, Finding, Report, UnusedSuppression
from jobcheck.fingerprint import identities
from jobcheck.output.encoding import json_text, masked_report
from jobcheck.output.locations import (
    PARSE_ERROR_HELP,
    PARSE_ERROR_ID,
    PARSE_ERROR_TITLE,
    PARSE_ERROR_URL,
    artifact_uri,
    error_position,
    repository_path,
    working_directory_uri,
)
from jobcheck.output.suppressions import (
    UNUSED_HELP,
    UNUSED_ID,
    UNUSED_TITLE,
    UNUSED_URL,
    describe,
    fingerprints,
)

SCHEMA_URI = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
INFORMATION_URI = "https://agentwranglers.se/playbook/scaling/background-jobs-and-queues"
SOURCE_ROOT = "%SRCROOT%"
FINGERPRINT_KEY = "jobcheckFingerprint/v1"
LEVELS = {"error": "error", "warning": "warning", "info": "note"}
PROBLEM_SEVERITY = {"error": "error", "warning": "warning", "note": "recommendation"}


def write(report: Report, stream: TextIO, color: bool = False, **_: object) -> None:
    stream.write(json_text(to_dict(report)) + "\n")


def to_dict(report: Report) -> dict[str, Any]:
    report = masked_report(report)
    rules = list(load_catalog())
    index = {rule.id: position for position, rule in enumerate(rules)}
    parse_error_index = len(rules)
    unused_index = parse_error_index + 1
    prints = [i.fingerprint for i in identities(report.findings, path_of=repository_path)]
    results = [
        _result(finding, index[finding.rule], fingerprint)
        for finding, fingerprint in zip(report.findings, prints, strict=True)
    ]
    results += [_error_result(error, parse_error_index) for error in report.errors]
    unused = report.unused_suppressions
    results += [
        _unused_result(u, unused_index, fingerprint)
        for u, fingerprint in zip(unused, fingerprints(unused, repository_path), strict=True)
    ]
    invocation: dict[str, Any] = {
        "executionSuccessful": True,
        "workingDirectory": {"uri": working_directory_uri()},
    }
    if report.errors:
        invocation["toolExecutionNotifications"] = [_notification(e) for e in report.errors]
    run = {
        "tool": {
            "driver": {
                "name": "jobcheck",
                "semanticVersion": __version__,
                "version": __version__,
                "informationUri": INFORMATION_URI,
                "rules": [
                    *(_descriptor(rule) for rule in rules),
                    _parse_error_descriptor(),
                    _unused_descriptor(),
                ],
                "notifications": [_parse_error_descriptor()],
            }
        },
        "invocations": [invocation],
        "originalUriBaseIds": {SOURCE_ROOT: {"uri": working_directory_uri()}},
        "columnKind": "unicodeCodePoints",
        "results": results,
    }
    return {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}


def _descriptor(rule: Rule) -> dict[str, Any]:
    level = _rule_level(rule)
    checks_text = "\n".join(f"- {c.slug}: {c.summary}" for c in rule.checks)
    checks_markdown = "\n".join(f"- `{c.slug}`: {c.summary}" for c in rule.checks)
    credit = f"Rule from the Agent Wranglers playbook (CC BY 4.0): {rule.url}"
    tags = ["background-jobs", "maintainability", rule.id, *([rule.alias] if rule.alias else [])]
    return {
        "id": rule.id,
        "name": _pascal_case(rule.title),
        "shortDescription": {"text": rule.title},
        "fullDescription": {"text": rule.summary},
        "help": {
            "text": f"{rule.title}\n\n{rule.summary}\n\nChecks:\n{checks_text}\n\n{credit}",
            "markdown": (
                f"**{rule.title}**\n\n{rule.summary}\n\nChecks:\n{checks_markdown}\n\n"
                f"Rule from the [Agent Wranglers playbook]({rule.url}) (CC BY 4.0)."
            ),
        },
        "helpUri": rule.url,
        "defaultConfiguration": {"level": level},
        "properties": {
            "tags": tags,
            "problem.severity": PROBLEM_SEVERITY[level],
            "alias": rule.alias,
            "checks": [c.slug for c in rule.checks],
        },
    }


def _parse_error_descriptor() -> dict[str, Any]:
    return {
        "id": PARSE_ERROR_ID,
        "name": "ParseError",
        "shortDescription": {"text": PARSE_ERROR_TITLE},
        "fullDescription": {"text": PARSE_ERROR_HELP},
        "help": {"text": PARSE_ERROR_HELP},
        "helpUri": PARSE_ERROR_URL,
        "defaultConfiguration": {"level": "error"},
        "properties": {"tags": ["jobcheck"], "problem.severity": "error"},
    }


def _unused_descriptor() -> dict[str, Any]:
    return {
        "id": UNUSED_ID,
        "name": "UnusedSuppression",
        "shortDescription": {"text": UNUSED_TITLE},
        "fullDescription": {"text": UNUSED_HELP},
        "help": {"text": UNUSED_HELP},
        "helpUri": UNUSED_URL,
        "defaultConfiguration": {"level": "warning"},
        "properties": {"tags": ["jobcheck"], "problem.severity": "warning"},
    }


def _unused_result(unused: UnusedSuppression, rule_index: int, fingerprint: str) -> dict[str, Any]:
    return {
        "ruleId": UNUSED_ID,
        "ruleIndex": rule_index,
        "level": "warning",
        "message": {"text": describe(unused)},
        "locations": [_location(unused.path, {"startLine": unused.line, "startColumn": 1})],
        "partialFingerprints": {FINGERPRINT_KEY: fingerprint},
        "properties": {"codes": list(unused.codes), "unknown": list(unused.unknown)},
    }


def _fixes(finding: Finding) -> list[dict[str, Any]]:
    """SARIF's proposed fixes: one replacement per edit (display-only ones included,
    as a viewer only proposes them)."""
    fix = finding.fix
    if fix is None:
        return []
    uri, relative = artifact_uri(finding.path)
    artifact: dict[str, Any] = {"uri": uri, **({"uriBaseId": SOURCE_ROOT} if relative else {})}
    replacements = [
        {
            "deletedRegion": {
                "startLine": edit.loc.line,
                "startColumn": edit.loc.column,
                "endLine": edit.loc.end_line,
                "endColumn": edit.loc.end_column,
            },
            "insertedContent": {"text": edit.new_text},
        }
        for edit in fix.edits
    ]
    return [
        {
            "description": {"text": f"{fix.title} ({fix.applicability})"},
            "artifactChanges": [{"artifactLocation": artifact, "replacements": replacements}],
        }
    ]


def _result(finding: Finding, rule_index: int, fingerprint: str) -> dict[str, Any]:
    loc = finding.loc
    region = {
        "startLine": loc.line,
        "startColumn": loc.column,
        "endLine": loc.end_line,
        "endColumn": loc.end_column,
    }
    result = {
        "ruleId": finding.rule,
        "ruleIndex": rule_index,
        "level": LEVELS.get(finding.severity, "warning"),
        "message": {"text": f"{finding.message} [{finding.check}]"},
        "locations": [_location(finding.path, region)],
        "partialFingerprints": {FINGERPRINT_KEY: fingerprint},
        "properties": {"check": finding.check, "alias": finding.alias, "url": finding.url},
        **({"fixes": _fixes(finding)} if finding.fix is not None else {}),
    }
    if finding.related:
        result["relatedLocations"] = [
            {"id": index, **_location(r.path, _region(r.loc)), "message": {"text": r.message}}
            for index, r in enumerate(finding.related)
        ]
    return result


def _region(loc: Loc) -> dict[str, int]:
    return {
        "startLine": loc.line,
        "startColumn": loc.column,
        "endLine": loc.end_line,
        "endColumn": loc.end_column,
    }


def _error_result(error: FileError, rule_index: int) -> dict[str, Any]:
    return {
        "ruleId": PARSE_ERROR_ID,
        "ruleIndex": rule_index,
        "level": "error",
        "message": {"text": f"{PARSE_ERROR_TITLE}: {error.message}"},
        "locations": [_location(error.path, _error_region(error))],
        "partialFingerprints": {FINGERPRINT_KEY: _error_fingerprint(error)},
    }


def _error_fingerprint(error: FileError) -> str:
    """One alert per broken file, however its error moves."""
    identity = f"{PARSE_ERROR_ID}\x1f{repository_path(error.path)}"
    return hashlib.sha256(identity.encode("utf-8", "surrogateescape")).hexdigest()


def _notification(error: FileError) -> dict[str, Any]:
    return {
        "level": "error",
        "message": {"text": f"{error.path}: {error.message}"},
        "locations": [_location(error.path, _error_region(error))],
        "descriptor": {"id": PARSE_ERROR_ID, "index": 0},
    }


def _error_region(error: FileError) -> dict[str, int]:
    line, column = error_position(error)
    return {"startLine": line, "startColumn": column}


def _location(path: str, region: dict[str, int]) -> dict[str, Any]:
    uri, relative = artifact_uri(path)
    artifact: dict[str, Any] = {"uri": uri}
    if relative:
        artifact["uriBaseId"] = SOURCE_ROOT
    return {"physicalLocation": {"artifactLocation": artifact, "region": region}}


def _rule_level(rule: Rule) -> str:
    severities = {c.severity for c in rule.checks}
    for severity in ("error", "warning", "info"):
        if severity in severities:
            return LEVELS[severity]
    return "warning"


def _pascal_case(title: str) -> str:
    return "".join(word[:1].upper() + word[1:] for word in title.replace("-", " ").split())
