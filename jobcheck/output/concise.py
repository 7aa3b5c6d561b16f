"""``--format concise``: one line per finding, no colour and no summary, for grep,
editors' quickfix lists and logs::

    app/tasks.py:14:2: SCL-18 missing-time-limit Celery task 'x' has no time limit ... (https://...)

Files that could not be checked: ``path:line:col: error: message``.
"""

from __future__ import annotations

from typing import TextIO

from jobcheck.findings import Finding, Report
from jobcheck.output.locations import error_position


def finding_line(finding: Finding) -> str:
    loc = finding.loc
    return (
        f"{finding.path}:{loc.line}:{loc.column}: {finding.rule} {finding.check} "
        f"{finding.message} ({finding.url})"
    )


def write(report: Report, stream: TextIO, color: bool = False) -> None:
    for finding in report.findings:
        stream.write(finding_line(finding) + "\n")
    for error in report.errors:
        line, column = error_position(error)
        stream.write(f"{error.path}:{line}:{column}: error: {error.message}\n")
    for unused in report.unused_suppressions:
        codes = f"[{', '.join(unused.codes)}]" if unused.codes else ""
        stream.write(
            f"{unused.path}:{unused.line}:1: unused suppression # jobcheck: ignore{codes}\n"
        )
