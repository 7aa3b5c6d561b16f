"""``--output-format azure``: Azure Pipelines logging commands, one issue per finding
(Ruff's ``azure``)::

    ##vso[task.logissue type=warning;sourcepath=app/tasks.py;linenumber=14;...;code=SCL-18;]...

Escaping follows the Azure Pipelines agent (``CommandStringConvertor``): in property
values ``%``, ``;``, ``]``, CR and LF; in the message ``%``, CR and LF. Before that,
secrets are masked and control characters escaped, and ``##vso[`` inside a message is
broken (``jobcheck/output/encoding.py``), as in every format."""

from __future__ import annotations

from typing import TextIO

from jobcheck.findings import Report
from jobcheck.messages import split
from jobcheck.output.encoding import guard_line, masked_report, visible
from jobcheck.output.locations import error_position, repository_path

TYPES = {"error": "error", "warning": "warning", "info": "warning"}


def _data(text: str) -> str:
    return text.replace("%", "%AZP25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return guard_line(_data(text).replace(";", "%3B").replace("]", "%5D"))


def _command(properties: dict[str, str | int], message: str) -> str:
    joined = "".join(f"{key}={_property(str(value))};" for key, value in properties.items())
    # The message is guarded alone: the command the line starts with is ours.
    return f"##vso[task.logissue {joined}]{guard_line(_data(visible(message)))}"


def write(report: Report, stream: TextIO, color: bool = False, **_: object) -> None:
    report = masked_report(report)
    for finding in report.findings:
        properties: dict[str, str | int] = {
            "type": TYPES.get(finding.severity, "warning"),
            "sourcepath": visible(repository_path(finding.path)),
            "linenumber": finding.loc.line,
            "columnnumber": finding.loc.column,
            "code": finding.rule,
        }
        headline = split(finding.message).headline
        stream.write(_command(properties, f"{finding.check}: {headline} ({finding.url})") + "\n")
    for error in report.errors:
        row, column = error_position(error)
        properties = {
            "type": "error",
            "sourcepath": visible(repository_path(error.path)),
            "linenumber": row,
            "columnnumber": column,
            "code": "parse-error",
        }
        stream.write(_command(properties, error.message) + "\n")
