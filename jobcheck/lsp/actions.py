"""Code actions: suppress a finding on its line, open its rule's documentation, and the
automatic fixes checks offer (:class:`jobcheck.findings.Fix`)."""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass

from jobcheck.findings import Finding, TextEdit
from jobcheck.syntax.comments import comment_columns

# The same comment the engine honours (jobcheck/extract/__init__.py).
SUPPRESSION = re.compile(r"#\s*jobcheck:\s*ignore\b(?:\[([^\]]*)\])?", re.IGNORECASE)

OPEN_DOCUMENTATION = "jobcheck.openDocumentation"
FIX_ALL_KIND = "source.fixAll.jobcheck"
FIX_ALL_TITLE = "jobcheck: fix all safely fixable findings"


@dataclass(frozen=True)
class LineEdit:
    """Replace columns [start, end) (0-based code points) of 0-based ``line``."""

    line: int
    start: int
    end: int
    new_text: str


def suppression_edit(text: str, lines: list[str], finding: Finding) -> LineEdit | None:
    """The edit that adds ``finding``'s rule to a ``# jobcheck: ignore[...]`` comment at
    the end of the finding's line (extending one already there), or None when no line of
    the finding can carry a comment (it ends inside a string or continues with a
    backslash) or the line already suppresses everything."""
    unsafe = lines_that_cannot_end_with_a_comment(text, lines)
    comments = comment_columns(text)
    for number in dict.fromkeys((finding.loc.line, finding.loc.end_line)):
        index = number - 1
        if index >= len(lines) or index in unsafe:
            continue
        line = lines[index].rstrip("\r\n")
        return _edit_line(index, line, finding.rule, comments.get(number, len(line)))
    return None


def _edit_line(index: int, line: str, rule: str, comment: int) -> LineEdit | None:
    """The edit of one line whose comment (if any) starts at column ``comment``: the
    marker is looked for in the comment only (in a string literal it is data)."""
    match = SUPPRESSION.search(line, comment)
    if match is None:
        code = line.rstrip()
        return LineEdit(index, len(code), len(line), f"  # jobcheck: ignore[{rule}]")
    if match.group(1) is None:
        return None  # ``# jobcheck: ignore`` already silences every rule here
    codes = [c.strip() for c in match.group(1).split(",") if c.strip()]
    if rule.upper() not in (c.upper() for c in codes):
        codes.append(rule)
    comment = f"# jobcheck: ignore[{', '.join(codes)}]"
    return LineEdit(index, match.start(), match.end(), comment)


def lines_that_cannot_end_with_a_comment(text: str, lines: list[str]) -> set[int]:
    """0-based lines whose end lies inside a string (a comment there would be part of
    the string) or that continue with a backslash (a comment after it is an error)."""
    unsafe = {i for i, line in enumerate(lines) if line.rstrip("\r\n").endswith("\\")}
    # Python 3.12+ splits f-strings (3.14: t-strings) into start, middle and end tokens.
    starts = {
        getattr(tokenize, n) for n in ("FSTRING_START", "TSTRING_START") if hasattr(tokenize, n)
    }
    ends = {getattr(tokenize, n) for n in ("FSTRING_END", "TSTRING_END") if hasattr(tokenize, n)}
    open_strings: list[int] = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.STRING and token.end[0] > token.start[0]:
                unsafe.update(range(token.start[0] - 1, token.end[0] - 1))
            elif token.type in starts:
                open_strings.append(token.start[0])
            elif token.type in ends and open_strings:
                unsafe.update(range(open_strings.pop() - 1, token.end[0] - 1))
            elif token.type == tokenize.COMMENT and token.string.rstrip().endswith("\\"):
                unsafe.discard(token.start[0] - 1)
    except (tokenize.TokenError, SyntaxError):
        pass  # broken code: the backslash check above is all we can say
    return unsafe


def suppression_title(finding: Finding) -> str:
    return f"Suppress {finding.rule} on this line (# jobcheck: ignore[{finding.rule}])"


def documentation_title(finding: Finding) -> str:
    return f"Open the documentation of {finding.rule} {finding.check}"


def wants(only: list[str], kind: str) -> bool:
    """Whether a request limited to the kinds ``only`` (none: any) asks for ``kind``:
    kinds are hierarchical, so "source" asks for "source.fixAll.jobcheck"."""
    return not only or any(kind == k or kind.startswith(k + ".") for k in only)


def fix_all_edits(findings: list[Finding]) -> list[TextEdit]:
    """The edits of every safe fix, those that conflict with an earlier one left out
    (the next check offers them again)."""
    from jobcheck.fixes.edits import non_conflicting

    fixes = [f.fix for f in findings if f.fix is not None and f.fix.applicability == "safe"]
    return non_conflicting(fixes)
