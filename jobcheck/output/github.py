"""``--format github``: GitHub Actions workflow commands, one annotation per finding::

    ::warning file=app/tasks.py,line=14,col=2,endLine=14,endColumn=13,title=jobcheck \
    SCL-18 (missing-time-limit)::app/tasks.py:14:2: SCL-18 missing-time-limit ...

(one line; broken here for width).

Escaping follows the Actions toolkit (``@actions/core`` command.ts) and the runner
(``ActionCommand.cs``): in the message ``%``, CR and LF are percent-encoded; in
properties also ``:`` and ``,``. Before that, secrets are masked and control characters
(and lone surrogates) escaped, as in every format (``jobcheck/output/encoding.py``).
"""

from __future__ import annotations

from typing import TextIO

from jobcheck.findings import FileError, Finding, Report
from jobcheck.output.encoding import masked_report, visible
from jobcheck.output.locations import PARSE_ERROR_ID, error_position, repository_path
from jobcheck.output.suppressions import describe

COMMANDS = {"error": "error", "warning": "warning", "info": "notice"}


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(name: str, properties: dict[str, str | int], message: str) -> str:
    joined = ",".join(f"{key}={escape_property(str(value))}" for key, value in properties.items())
    return f"::{name} {joined}::{escape_data(message)}"


def finding_command(finding: Finding) -> str:
    loc = finding.loc
    path = visible(repository_path(finding.path))
    properties: dict[str, str | int] = {
        "file": path,
        "line": loc.line,
        "col": loc.column,
        "endLine": loc.end_line,
        "endColumn": loc.end_column,
        "title": f"jobcheck {finding.rule} ({finding.check})",
    }
    message = (
        f"{path}:{loc.line}:{loc.column}: {finding.rule} {finding.check} "
        f"{visible(finding.message)} ({finding.url})"
    )
    return command(COMMANDS.get(finding.severity, "warning"), properties, message)


def error_command(error: FileError) -> str:
    line, column = error_position(error)
    path = visible(repository_path(error.path))
    properties: dict[str, str | int] = {
        "file": path,
        "line": line,
        "col": column,
        "title": f"jobcheck ({PARSE_ERROR_ID})",
    }
    return command("error", properties, f"{path}:{line}:{column}: {visible(error.message)}")


def write(report: Report, stream: TextIO, color: bool = False, **_: object) -> None:
    report = masked_report(report)
    for finding in report.findings:
        stream.write(finding_command(finding) + "\n")
    for error in report.errors:
        stream.write(error_command(error) + "\n")
    for unused in report.unused_suppressions:
        path = visible(repository_path(unused.path))
        properties: dict[str, str | int] = {
            "file": path,
            "line": unused.line,
            "title": "jobcheck (unused-suppression)",
        }
        message = f"{path}:{unused.line}:1: {visible(describe(unused))}"
        stream.write(command("warning", properties, message) + "\n")
