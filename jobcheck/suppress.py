"""``--add-ignore`` (Ruff's ``--add-noqa``): a ``# jobcheck: ignore[...]`` comment on the
line of every finding. Suppressions are read from real comments only
(``jobcheck/syntax/comments.py``).

A line that already has a ``# jobcheck: ignore[...]`` comment gets its codes merged in;
one with other comments (``# noqa: E501``, ``# type: ignore``) keeps them first, as mypy
and flake8 read theirs at the start of the comment. A finding whose line cannot end with
a comment (inside a multi-line string, after a backslash) is put on its last line, else
left for a person.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from jobcheck.findings import Finding, UnusedSuppression
from jobcheck.syntax.comments import (
    LINE,
    MARKER,
    Suppressions,
    comment_columns,
    ruby_suppressions,
    suppressions,
)

__all__ = ["MARKER", "Suppressions", "add_ignores", "ruby_suppressions", "suppressions"]


def kind_of(path: str, text: str) -> str:
    """The comment syntax's name for the file at ``path`` (Python unless its name or
    content makes it another kind)."""
    if path.endswith((".py", ".pyi")):
        return "python"
    from jobcheck.extract.files import kind_for

    kind = kind_for(path, text.encode("utf-8", "surrogateescape"))
    return kind.name if kind is not None else "python"


# -- --add-ignore -----------------------------------------------------------------------


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
        new, count, skipped = suppressed(text, items, kind_of(path, text))
        added.skipped.extend(skipped)
        if new != text:
            added.texts[path] = (text, new)
            added.count += count
    return added


def suppressed(
    text: str, findings: list[Finding], kind: str = "python"
) -> tuple[str, int, list[Finding]]:
    """``text`` with a suppression for each finding, how many got one, and the rest."""
    from jobcheck.lsp.actions import lines_that_cannot_end_with_a_comment

    lines = [m.group(0) for m in LINE.finditer(text)]
    if lines and lines[-1] == "":
        lines.pop()
    unsafe = lines_that_cannot_end_with_a_comment(text, lines) if kind == "python" else set()
    comments = comment_columns(text, kind)
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
        lines[index] = _with_codes(lines[index], wanted, comments.get(index + 1))
    return "".join(lines), count, skipped


def _with_codes(line: str, codes: list[str], comment: int | None) -> str:
    """``line`` with ``codes`` in its suppression comment; ``comment`` is the column its
    comment starts at (None: it has none), so a marker in a string is left alone."""
    body = line.rstrip("\r\n")
    ending = line[len(body) :]
    match = MARKER.search(body, comment) if comment is not None else None
    if match is None:
        return f"{body.rstrip()}  # jobcheck: ignore[{', '.join(codes)}]{ending}"
    if match.group(1) is None:
        return line  # a bare "# jobcheck: ignore" already silences everything
    present = [c.strip() for c in match.group(1).split(",") if c.strip()]
    merged = present + [c for c in codes if c.upper() not in {p.upper() for p in present}]
    comment_text = f"# jobcheck: ignore[{', '.join(merged)}]"
    return body[: match.start()] + comment_text + body[match.end() :] + ending


# -- --fix: unused suppressions -----------------------------------------------------------


def without_unused(text: str, unused: Iterable[UnusedSuppression], kind: str = "python") -> str:
    """``text`` with the codes of ``unused`` taken out of their ``# jobcheck: ignore``
    comments (Ruff's RUF100 fix), and a comment left with none removed. A file-level
    ``ignore-file`` comment is left to the reader."""
    lines = [m.group(0) for m in LINE.finditer(text)]
    if lines and lines[-1] == "":
        lines.pop()
    columns = comment_columns(text, kind)
    for item in unused:
        index = item.line - 1
        if item.file_level or not 0 <= index < len(lines) or item.line not in columns:
            continue
        lines[index] = _without_codes(
            lines[index], {*item.codes, *item.unknown}, columns[item.line]
        )
    return "".join(lines)


def _without_codes(line: str, codes: set[str], comment: int) -> str:
    body = line.rstrip("\r\n")
    ending = line[len(body) :]
    match = MARKER.search(body, comment)
    if match is None:
        return line
    present = [] if match.group(1) is None else [c.strip() for c in match.group(1).split(",")]
    kept = [c for c in present if c and c not in codes]
    if kept:
        return (
            body[: match.start()]
            + f"# jobcheck: ignore[{', '.join(kept)}]"
            + body[match.end() :]
            + ending
        )
    rest = body[match.end() :].strip()
    before = body[: match.start()].rstrip()
    if rest:  # another comment follows on the line: keep it
        return f"{before}  {rest}{ending}" if before else f"{rest}{ending}"
    return f"{before}{ending}"
