"""``--statistics``: how many findings each rule's check produced, most first, instead
of the findings themselves: JSON with ``--output-format json``, a plain table with
``text`` (the default) or ``concise``; other formats are refused with ``--statistics``
(SARIF, JUnit and the CI formats describe findings, not counts)."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from typing import TextIO

from jobcheck.findings import Report
from jobcheck.output.locations import PARSE_ERROR_ID
from jobcheck.output.summary import summary_text
from jobcheck.output.suppressions import UNUSED_ID


@dataclass(frozen=True)
class Row:
    count: int
    rule: str | None
    alias: str | None
    check: str
    url: str | None


def rows(report: Report) -> list[Row]:
    counted = Counter((f.rule, f.alias, f.check, f.url) for f in report.findings)
    result = [Row(n, rule, alias, check, url) for (rule, alias, check, url), n in counted.items()]
    if report.errors:
        result.append(Row(len(report.errors), None, None, PARSE_ERROR_ID, None))
    if report.unused_suppressions:
        result.append(Row(len(report.unused_suppressions), None, None, UNUSED_ID, None))
    return sorted(result, key=lambda r: (-r.count, r.rule or "~", r.check))


def write(report: Report, stream: TextIO, as_json: bool = False) -> None:
    table = rows(report)
    if as_json:
        json.dump([row.__dict__ for row in table], stream, indent=2)
        stream.write("\n")
        return
    if not table:
        stream.write(summary_text(report) + "\n")
        return
    width = len(str(table[0].count))
    rule_width = max(len(row.rule or "") for row in table)
    for row in table:
        rule = (row.rule or "").ljust(rule_width)
        stream.write(f"{str(row.count).rjust(width)}  {rule}  {row.check}\n")
    stream.write(summary_text(report) + "\n")
