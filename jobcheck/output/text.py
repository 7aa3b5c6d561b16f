"""``--format text``: ``path:line:col: RULE check message  (url)``, coloured with rich
on a terminal, plain when piped, with a summary line at the end."""

from __future__ import annotations

from typing import TextIO

from rich.console import Console
from rich.text import Text

from jobcheck.findings import Finding, Report

SEVERITY_STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}


def finding_line(finding: Finding) -> Text:
    line = Text()
    line.append(f"{finding.path}:{finding.loc.line}:{finding.loc.column}:", style="bold")
    line.append(" ")
    line.append(finding.rule, style=SEVERITY_STYLE.get(finding.severity, ""))
    line.append(" ")
    line.append(finding.check, style="magenta")
    line.append(f" {finding.message}")
    line.append(f"  ({finding.url})", style="dim")
    return line


def summary(report: Report) -> Text:
    count = len(report.findings)
    noun = "finding" if count == 1 else "findings"
    parts = [f"Found {count} {noun} in {report.files_checked} files"]
    if report.errors:
        parts.append(f"{len(report.errors)} could not be checked")
    if report.unused_suppressions:
        parts.append(f"{len(report.unused_suppressions)} unused suppressions")
    style = "bold red" if report.failed else "bold green"
    if not report.failed:
        return Text(f"All checks passed ({report.files_checked} files).", style=style)
    return Text("; ".join(parts) + ".", style=style)


def write(report: Report, stream: TextIO, color: bool = False) -> None:
    console = Console(
        file=stream,
        force_terminal=color,
        no_color=not color,
        highlight=False,
        soft_wrap=True,
        width=10_000 if not color else None,
    )
    for finding in report.findings:
        console.print(finding_line(finding))
    for error in report.errors:
        line = Text()
        line.append(f"{error.path}:", style="bold")
        line.append(" error: ", style="bold red")
        line.append(error.message)
        console.print(line)
    for unused in report.unused_suppressions:
        codes = f"[{', '.join(unused.codes)}]" if unused.codes else ""
        console.print(
            Text(f"{unused.path}:{unused.line}:1: unused suppression # jobcheck: ignore{codes}")
        )
    console.print(summary(report))
