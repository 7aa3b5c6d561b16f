"""``--output-format json-lines``: one JSON object per line, Ruff's ``json-lines``: each
finding as the JSON format writes it, then each file that could not be checked
(``{"path", "message", "error": true}``). For tools that stream a report line by line."""

from __future__ import annotations

from typing import TextIO

from jobcheck.findings import Report
from jobcheck.output.encoding import json_text, masked_report
from jobcheck.output.json_format import finding_dict


def write(
    report: Report,
    stream: TextIO,
    color: bool = False,
    *,
    fixes_computed: bool = False,
    **_: object,
) -> None:
    report = masked_report(report)
    for finding in report.findings:
        stream.write(json_text(finding_dict(finding, fixes_computed), indent=None) + "\n")
    for error in report.errors:
        record = {"path": error.path, "message": error.message, "error": True}
        stream.write(json_text(record, indent=None) + "\n")
