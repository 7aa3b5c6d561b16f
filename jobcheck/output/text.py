"""``--output-format text`` (also ``full``), the default, laid out like Ruff's: for each
finding a headline, the flagged source with the range underlined, then what the
headline left out, the help (why it matters, what to do) and the rule's playbook page::

    orders/tasks.py:15:2: SCL-18 missing-time-limit Celery task 'send_receipt' has no time limit
       |
    14 | # Mistakes: no time limit (SCL-18)
    15 | @shared_task
       |  ^^^^^^^^^^^ SCL-18
    16 | def send_receipt(order: Order):
       |
       = note: Celery sets none by default, and no task_time_limit/... was found
       = help: set time_limit= and soft_time_limit= on the task, or a global task_time_limit
               https://agentwranglers.se/playbook/scaling/background-jobs-and-queues/job-time-limits

Then files that could not be checked, unused suppressions and a summary line. Coloured
with rich on a terminal; written without importing rich otherwise (a run replayed from
the cache is over before rich would have loaded). Text from the checked code is shown
with secrets masked and control characters escaped, so a file can neither drive the
terminal nor start a line a CI runner reads as a command (``jobcheck/output/encoding.py``).
"""

from __future__ import annotations

import textwrap
import unicodedata
from collections.abc import Iterable
from typing import TYPE_CHECKING, TextIO

from jobcheck.findings import Finding, Report
from jobcheck.messages import split
from jobcheck.output import snippets
from jobcheck.output.encoding import HIDDEN, escaped_char, guard_line, masked_report, terminal
from jobcheck.output.summary import fix_hint, summary_text
from jobcheck.output.suppressions import describe as describe_unused
from jobcheck.vocabulary.credentials import MASK, secret_spans

if TYPE_CHECKING:
    from rich.text import Text

SEVERITY_STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}
DEFAULT_WIDTH = 100
CONTEXT_LINES = 1
MAX_SHOWN_LINES = 4
MAX_LINE_CHARS = 200
TAB = "    "

Segment = tuple[str, str]
"""Text and its rich style ("" for none)."""


def clean(text: str) -> str:
    """Text from the checked code as a terminal shows it: secrets masked, no control or
    bidirectional formatting character, no workflow command (:func:`terminal`)."""
    return terminal(text)


def write(
    report: Report,
    stream: TextIO,
    color: bool = False,
    *,
    width: int | None = None,
    show_fixes: bool = False,
    unsafe_fixes: bool = False,
    quiet: bool = False,
    fixes_computed: bool = False,
) -> None:
    lines = render(report, width or DEFAULT_WIDTH, show_fixes, unsafe_fixes, quiet, fixes_computed)
    if not color:
        stream.write("".join("".join(text for text, _ in line) + "\n" for line in lines))
        return
    write_with_rich(lines, stream, color)


def write_with_rich(lines: list[list[Segment]], stream: TextIO, color: bool = True) -> None:
    from rich.console import Console

    console = Console(
        file=stream,
        force_terminal=color,
        no_color=not color,
        highlight=False,
        soft_wrap=True,
        width=10_000,
    )
    for line in lines:
        console.print(_rich_text(line))


def _rich_text(line: list[Segment]) -> Text:
    from rich.text import Text

    text = Text(end="")
    for part, style in line:
        text.append(part, style=style or None)
    return text


def render(
    report: Report,
    width: int = DEFAULT_WIDTH,
    show_fixes: bool = False,
    unsafe_fixes: bool = False,
    quiet: bool = False,
    fixes_computed: bool = False,
) -> list[list[Segment]]:
    report = masked_report(report)
    lines: list[list[Segment]] = []
    sources = snippets.SourceCache()
    for finding in report.findings:
        lines.extend(finding_block(finding, sources, width, show_fixes, unsafe_fixes))
        lines.append([])
    for error in report.errors:
        lines.append(
            [
                (f"{clean(error.path)}:", "bold"),
                (" error: ", "bold red"),
                (clean(error.message), ""),
            ]
        )
    for unused in report.unused_suppressions:
        where = f"{clean(unused.path)}:{unused.line}:1: "
        lines.append([(where, "bold"), (clean(describe_unused(unused)), "")])
    if quiet:  # the findings and nothing else
        while lines and not lines[-1]:
            lines.pop()
        return lines
    if report.errors or report.unused_suppressions:
        lines.append([])
    lines.append([(summary_text(report), "bold red" if report.failed else "bold green")])
    hint = fix_hint(report, unsafe_fixes, fixes_computed)
    if hint:
        lines.append([(hint, "")])
    return [guarded(line) for line in lines]


def guarded(line: list[Segment]) -> list[Segment]:
    """``line`` with :func:`guard_line` applied (a path, or a wrapped piece of a message,
    may start with ``::``); a line it changes loses its styles."""
    text = "".join(part for part, _ in line)
    safe = guard_line(text)
    return line if safe == text else [(safe, "")]


def fix_marker(finding: Finding, unsafe_fixes: bool) -> str:
    """Ruff's ``[*]``: the fix a plain ``--fix`` (or ``--fix --unsafe-fixes``) applies."""
    fix = finding.fix
    if fix is None:
        return ""
    if fix.applicability == "safe" or (fix.applicability == "unsafe" and unsafe_fixes):
        return "[*] "
    return ""


def finding_block(
    finding: Finding,
    sources: snippets.SourceCache,
    width: int,
    show_fixes: bool,
    unsafe_fixes: bool,
) -> list[list[Segment]]:
    parts = split(finding.message)
    loc = finding.loc
    head: list[Segment] = [
        (f"{clean(finding.path)}:{loc.line}:{loc.column}:", "bold"),
        (" ", ""),
        (finding.rule, SEVERITY_STYLE.get(finding.severity, "")),
        (" ", ""),
        (fix_marker(finding, unsafe_fixes), "cyan"),
        (finding.check, "magenta"),
        (f" {clean(parts.headline)}", ""),
    ]
    block = [head]
    shown = sources.lines(finding.path)
    gutter = len(str(min(loc.end_line, loc.line + MAX_SHOWN_LINES - 1) + CONTEXT_LINES))
    bar = " " * gutter + " |"
    if shown is not None and 1 <= loc.line <= len(shown):
        block.append([(bar, "blue")])
        block.extend(_snippet(shown, finding, gutter))
        block.append([(bar, "blue")])
    indent = " " * gutter + " = "
    if parts.note:
        block.extend(_wrapped(indent, "note: ", parts.note, width))
    help_text = parts.help
    block.extend(_wrapped(indent, "help: ", help_text, width, link=finding.url))
    if finding.fix is not None and (show_fixes or finding.fix.applicability != "safe"):
        block.extend(_fix_lines(finding, indent, width, unsafe_fixes))
    elif finding.fix is not None:
        block.extend(_wrapped(indent, "fix: ", finding.fix.title + " (--fix)", width))
    return block


def _fix_lines(
    finding: Finding, indent: str, width: int, unsafe_fixes: bool
) -> list[list[Segment]]:
    fix = finding.fix
    assert fix is not None
    how = {
        "safe": "--fix",
        "unsafe": "--fix --unsafe-fixes" if not unsafe_fixes else "--fix",
        "display": "display-only: not applied, edit by hand",
    }.get(fix.applicability, fix.applicability)
    label = {"safe": "fix: ", "unsafe": "unsafe fix: ", "display": "suggestion: "}.get(
        fix.applicability, "fix: "
    )
    return _wrapped(indent, label, f"{fix.title} ({how})", width)


def _wrapped(indent: str, label: str, text: str, width: int, link: str = "") -> list[list[Segment]]:
    lines: list[list[Segment]] = []
    body = clean(text)
    room = max(40, width - len(indent) - len(label))
    pieces = (
        textwrap.wrap(body, room, break_long_words=False, break_on_hyphens=False) if body else []
    )
    hanging = " " * (len(indent) + len(label))
    for index, piece in enumerate(pieces):
        if index == 0:
            lines.append([(indent, "blue"), (label, "bold"), (piece, "")])
        else:
            lines.append([(hanging, ""), (piece, "")])
    if link:
        if lines:
            lines.append([(hanging, ""), (clean(link), "dim")])
        else:
            lines.append([(indent, "blue"), (label, "bold"), (clean(link), "dim")])
    return lines


def _snippet(lines: list[str], finding: Finding, gutter: int) -> list[list[Segment]]:
    loc = finding.loc
    last_flagged = min(loc.end_line, len(lines), loc.line + MAX_SHOWN_LINES - 1)
    first = max(1, loc.line - CONTEXT_LINES)
    last = min(
        len(lines), last_flagged + CONTEXT_LINES if last_flagged == loc.end_line else last_flagged
    )
    out: list[list[Segment]] = []
    for number in range(first, last + 1):
        shown, columns = _display(lines[number - 1])
        out.append([(f"{number:>{gutter}} | ", "blue"), (shown, "")])
        if number == loc.line:
            end = loc.end_column if loc.end_line == loc.line else len(lines[number - 1]) + 1
            start_cell = _cell(columns, loc.column)
            end_cell = max(start_cell + 1, _cell(columns, end))
            carets = " " * start_cell + "^" * (end_cell - start_cell)
            style = SEVERITY_STYLE.get(finding.severity, "")
            out.append(
                [(" " * gutter + " | ", "blue"), (carets, style), (f" {finding.rule}", style)]
            )
    if last_flagged < loc.end_line:
        out.append([(" " * gutter + " | ", "blue"), ("...", "dim")])
    return out


def _display(line: str) -> tuple[str, list[int]]:
    """A source line as shown, and the cell where each of its characters starts (one
    more entry for the end of the line). A secret shows as ``****``, every character of
    it at the mask's first cell; a control character as its escape."""
    secrets = {start: end for start, end in secret_spans(line)}
    shown: list[str] = []
    columns: list[int] = []
    cell = 0
    index = 0
    while index < len(line):
        if index >= MAX_LINE_CHARS:
            shown.append("…")
            break
        if index in secrets:
            end = secrets[index]
            columns += [cell] * (end - index)
            shown.append(MASK)
            cell += len(MASK)
            index = end
            continue
        char = line[index]
        columns.append(cell)
        if char == "\t":
            piece = TAB
        elif char.isprintable() or unicodedata.category(char) not in HIDDEN:
            piece = char
        else:
            piece = escaped_char(char)
        shown.append(piece)
        cell += _width(piece)
        index += 1
    columns.append(cell)
    return "".join(shown), columns


def _cell(columns: list[int], column: int) -> int:
    """The display cell of 1-based ``column``."""
    index = max(0, column - 1)
    return columns[min(index, len(columns) - 1)]


def _width(text: str) -> int:
    total = 0
    for char in text:
        if unicodedata.combining(char):
            continue
        total += 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
    return total


def plain(lines: Iterable[list[Segment]]) -> str:
    return "".join("".join(text for text, _ in line) + "\n" for line in lines)
