"""``--output-format concise``: one short line per finding, for grep, editors' quickfix
lists and logs: the headline of the message (the whole message is in the JSON format
and the help in ``text``), and the rule's playbook page::

    app/tasks.py:14:2: SCL-18 missing-time-limit Celery task 'x' has no time limit (https://...)

Files that could not be checked: ``path:line:col: error: message``; then the summary.
"""

from __future__ import annotations

from typing import TextIO

from jobcheck.findings import Finding, Report
from jobcheck.messages import split
from jobcheck.output.encoding import guard_line, masked_report
from jobcheck.output.locations import error_position
from jobcheck.output.summary import fix_hint, summary_text
from jobcheck.output.suppressions import describe
from jobcheck.output.text import clean, fix_marker


def finding_line(finding: Finding, unsafe_fixes: bool = False) -> str:
    loc = finding.loc
    return guard_line(
        f"{clean(finding.path)}:{loc.line}:{loc.column}: {finding.rule} "
        f"{fix_marker(finding, unsafe_fixes)}{finding.check} "
        f"{clean(split(finding.message).headline)} ({finding.url})"
    )


def write(
    report: Report,
    stream: TextIO,
    color: bool = False,
    *,
    unsafe_fixes: bool = False,
    quiet: bool = False,
    fixes_computed: bool = False,
    **_: object,
) -> None:
    report = masked_report(report)
    for finding in report.findings:
        stream.write(finding_line(finding, unsafe_fixes) + "\n")
    for error in report.errors:
        line, column = error_position(error)
        where = f"{clean(error.path)}:{line}:{column}"
        stream.write(guard_line(f"{where}: error: {clean(error.message)}") + "\n")
    for unused in report.unused_suppressions:
        where = f"{clean(unused.path)}:{unused.line}:1"
        stream.write(guard_line(f"{where}: {clean(describe(unused))}") + "\n")
    if quiet:
        return
    stream.write(summary_text(report) + "\n")
    hint = fix_hint(report, unsafe_fixes, fixes_computed)
    if hint:
        stream.write(hint + "\n")
