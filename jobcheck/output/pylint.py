"""``--output-format pylint``: ``path:line: [RULE(check)] message``, the line format of
Pylint's ``parseable`` output that editors and CI parsers read (Ruff's ``pylint``)."""

from __future__ import annotations

from typing import TextIO

from jobcheck.findings import Report
from jobcheck.messages import split
from jobcheck.output.encoding import guard_line, masked_report
from jobcheck.output.locations import error_position
from jobcheck.output.text import clean


def write(report: Report, stream: TextIO, color: bool = False, **_: object) -> None:
    report = masked_report(report)
    for finding in report.findings:
        headline = clean(split(finding.message).headline)
        line = f"{clean(finding.path)}:{finding.loc.line}: [{finding.rule}({finding.check})] "
        stream.write(guard_line(line + headline) + "\n")
    for error in report.errors:
        row, _ = error_position(error)
        line = f"{clean(error.path)}:{row}: [parse-error] {clean(error.message)}"
        stream.write(guard_line(line) + "\n")
