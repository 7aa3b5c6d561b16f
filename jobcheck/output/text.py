"""``--format text``: ``path:line:col: RULE check message  (url)``, coloured with rich
on a terminal, plain when piped, with a summary line at the end."""

from __future__ import annotations

from typing import TYPE_CHECKING, TextIO

from jobcheck.findings import Finding, Report

if TYPE_CHECKING:
    from rich.text import Text

SEVERITY_STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}


def finding_line(finding: Finding) -> Text:
    from rich.text import Text

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
    from rich.text import Text

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
    if not color:
        lines = _plain_lines(report)
        if lines is not None:
            stream.write("".join(f"{line}\n" for line in lines))
            return
    write_with_rich(report, stream, color)


def write_with_rich(report: Report, stream: TextIO, color: bool = False) -> None:
    from rich.console import Console
    from rich.text import Text

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


# The control characters rich's Text removes (rich.control.strip_control_codes).
_STRIPPED = {7: None, 8: None, 11: None, 12: None, 13: None}


def _plain_lines(report: Report) -> list[str] | None:
    """The lines rich would print without colour, without importing rich (a run whose
    facts all come from the cache is done in a fraction of rich's import time); None
    when a tab needs rich's cell-width-aware expansion."""
    lines = [
        f"{f.path}:{f.loc.line}:{f.loc.column}: {f.rule} {f.check} {f.message}  ({f.url})"
        for f in report.findings
    ]
    lines.extend(f"{error.path}: error: {error.message}" for error in report.errors)
    for unused in report.unused_suppressions:
        codes = f"[{', '.join(unused.codes)}]" if unused.codes else ""
        lines.append(f"{unused.path}:{unused.line}:1: unused suppression # jobcheck: ignore{codes}")
    lines.append(_summary_text(report))
    if any("\t" in line for line in lines):
        return None
    return [line.translate(_STRIPPED) for line in lines]


def _summary_text(report: Report) -> str:
    count = len(report.findings)
    noun = "finding" if count == 1 else "findings"
    if not report.failed:
        return f"All checks passed ({report.files_checked} files)."
    parts = [f"Found {count} {noun} in {report.files_checked} files"]
    if report.errors:
        parts.append(f"{len(report.errors)} could not be checked")
    if report.unused_suppressions:
        parts.append(f"{len(report.unused_suppressions)} unused suppressions")
    return "; ".join(parts) + "."
