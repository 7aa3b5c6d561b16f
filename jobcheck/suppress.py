"""``--add-ignore``: a ``# jobcheck: ignore[...]`` comment on the line of every finding
(Ruff's ``--add-noqa``), so a project can adopt jobcheck and fix what it finds later.

A line that already has a ``# jobcheck: ignore[...]`` gets its codes merged in; one with
other comments (``# noqa: E501``, ``# type: ignore``) keeps them first, as mypy and
flake8 read theirs at the start of the comment. A finding whose line cannot end with a
comment (inside a multi-line string, after a backslash) is put on its last line, else
left for a person.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from jobcheck.findings import Finding
from jobcheck.lsp.actions import SUPPRESSION, lines_that_cannot_end_with_a_comment

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n|$)")


@dataclass
class Added:
    texts: dict[str, tuple[str, str]] = field(default_factory=dict)
    """Path -> (text before, text after)."""
    count: int = 0
    """Findings given a suppression."""
    skipped: list[Finding] = field(default_factory=list)
    """Findings on no line that can carry a comment."""


def add_ignores(findings: Iterable[Finding], read: Callable[[str], str | None]) -> Added:
    added = Added()
    by_path: dict[str, list[Finding]] = {}
    for finding in findings:
        by_path.setdefault(finding.path, []).append(finding)
    for path, items in sorted(by_path.items()):
        text = read(path)
        if text is None:
            added.skipped.extend(items)
            continue
        new, count, skipped = suppressed(text, items)
        added.skipped.extend(skipped)
        if new != text:
            added.texts[path] = (text, new)
            added.count += count
    return added


def suppressed(text: str, findings: list[Finding]) -> tuple[str, int, list[Finding]]:
    """``text`` with a suppression for each finding, how many got one, and the rest."""
    lines = [m.group(0) for m in _LINE.finditer(text)]
    if lines and lines[-1] == "":
        lines.pop()
    unsafe = lines_that_cannot_end_with_a_comment(text, lines)
    codes: dict[int, list[str]] = {}
    skipped: list[Finding] = []
    for finding in findings:
        for number in dict.fromkeys((finding.loc.line, finding.loc.end_line)):
            index = number - 1
            if 0 <= index < len(lines) and index not in unsafe:
                if finding.rule not in codes.setdefault(index, []):
                    codes[index].append(finding.rule)
                break
        else:
            skipped.append(finding)
    count = len(findings) - len(skipped)
    for index, wanted in codes.items():
        lines[index] = _with_codes(lines[index], wanted)
    return "".join(lines), count, skipped


def _with_codes(line: str, codes: list[str]) -> str:
    body = line.rstrip("\r\n")
    ending = line[len(body) :]
    match = SUPPRESSION.search(body)
    if match is None:
        return f"{body.rstrip()}  # jobcheck: ignore[{', '.join(codes)}]{ending}"
    if match.group(1) is None:
        return line  # a bare "# jobcheck: ignore" already silences everything
    present = [c.strip() for c in match.group(1).split(",") if c.strip()]
    merged = present + [c for c in codes if c.upper() not in {p.upper() for p in present}]
    comment = f"# jobcheck: ignore[{', '.join(merged)}]"
    return body[: match.start()] + comment + body[match.end() :] + ending
