"""How text taken from the analysed project is written in each output.

Names of jobs, queues, files and schedules, quoted commands and source lines come from a
stranger's pull request, so every output treats them as hostile:

- secrets are masked first, the same way everywhere (:func:`jobcheck.vocabulary.
  credentials.mask`): a finding's message, a review's cell and a baseline entry never
  repeat a password;
- a terminal or a CI log (:func:`terminal`, :func:`guard_line`) gets no control
  characters (an ``ESC ]52`` clipboard write, a cursor move, a bidirectional override),
  no line break inside a name, no line a CI runner would read as a command (GitHub
  Actions runs ``::command::`` at the start of a line and ``##[command]`` anywhere in it);
- Markdown (:func:`md_text`, :func:`md_code`) gets no live syntax: no heading, table
  cell, link, image, HTML, mention or autolink from a name;
- HTML (:func:`html_text`) and JSON (:func:`json_text`) are escaped by their own rules;
- a lone surrogate (a file name that is not UTF-8, a ``"\\udcff"`` literal in a queue
  name) is written as an escape, never raised as an encoding error.
"""

from __future__ import annotations

import html
import json
import re
import unicodedata
from dataclasses import replace
from typing import Any

from jobcheck.findings import FileError, Finding, Fix, Related, Report, UnusedSuppression
from jobcheck.vocabulary.credentials import mask

# Categories never written raw to a terminal: controls, format characters (bidi
# overrides, zero-width joiners), line and paragraph separators, surrogates, private use
# and unassigned code points.
HIDDEN = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"})
_SURROGATE = re.compile("[\ud800-\udfff]")
# GitHub Actions reads "##[command]" anywhere in a line (its older syntax), Azure
# Pipelines "##vso[command]".
_LOG_COMMAND = re.compile(r"##(vso)?\[", re.IGNORECASE)
# A workflow command ("::error::") where a line may start: the text's start, or after
# whitespace (where a wrapped line starts).
_LINE_COMMAND = re.compile(r"(?:^|(?<=\s))::")


def escaped_char(char: str) -> str:
    """``\\x1b``, ``\\u202e``, ``\\udcff``: a character as Python writes it in a string."""
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def visible(text: str) -> str:
    """``text`` on one line with nothing a terminal acts on: tabs and line breaks as
    spaces, every other control, format or unassigned character (and a lone surrogate)
    as its escape."""
    if text.isprintable():
        return text
    out = []
    for char in text:
        if char in "\t\r\n":
            out.append(" ")
        elif not char.isprintable() and unicodedata.category(char) in HIDDEN:
            out.append(escaped_char(char))
        else:
            out.append(char)
    return "".join(out)


def source_lines(text: str) -> str:
    """Source text shown as it is (``--diff``), its line breaks and tabs kept: secrets
    masked and every other character a terminal acts on escaped, so a diff of a
    hostile file can neither leak a password nor drive the terminal (such a hunk no
    longer applies with ``patch``; the file's own lines are not changed)."""
    lines = text.splitlines(keepends=True)
    shown = []
    for line in lines:
        body = line.rstrip("\r\n")
        ending = line[len(body) :]
        body = mask(body)
        if not body.isprintable():
            body = "".join(
                char
                if char == "\t" or char.isprintable() or unicodedata.category(char) not in HIDDEN
                else escaped_char(char)
                for char in body
            )
        shown.append(body + ending)
    return "".join(shown)


def terminal(text: str) -> str:
    """Project text for a terminal or a CI log: secrets masked, :func:`visible`, and no
    workflow command where a line could start with it."""
    shown = visible(mask(text))
    if "##" in shown:
        shown = _LOG_COMMAND.sub(lambda m: m.group(0)[:-1] + "\\[", shown)
    if "::" in shown:
        shown = _LINE_COMMAND.sub("\\::", shown)
    return shown


def guard_line(line: str) -> str:
    """A whole output line a CI runner must not take for a command: ``::`` at its start
    (after whitespace, as GitHub reads it) gets a backslash, ``##[`` anywhere too."""
    if "##" in line:
        line = _LOG_COMMAND.sub(lambda m: m.group(0)[:-1] + "\\[", line)
    body = line.lstrip()
    if body.startswith("::"):
        start = len(line) - len(body)
        line = line[:start] + "\\" + body
    return line


def surrogates_escaped(text: str) -> str:
    """``text`` with each lone surrogate as its escape (``\\udcff``)."""
    return _SURROGATE.sub(lambda m: escaped_char(m.group(0)), text)


# -- Markdown ---------------------------------------------------------------------------

# What starts Markdown syntax inside a line (a cell never starts one): escapes, code
# spans, emphasis and strikethrough, links and images, HTML and autolinks, entities,
# table cells, and GitHub's $math$.
_MARKDOWN = frozenset("\\`*_[]<>&|~$")
# GitHub links what Markdown does not: @user and @org/team mentions, e-mail addresses,
# bare URLs and www. names, #123 references. A zero-width space (written as its entity,
# so the comment's source shows it) after the "@", the ":" of "://", "www" and the "#"
# keeps each from being recognized; the text reads the same.
_GITHUB_LINKS = re.compile(r"(?<=@)|(?<=:)(?=//)|(?<=www)(?=\.)|(?<=#)(?=\d)", re.IGNORECASE)
_ZERO_WIDTH = "&#8203;"


def md_text(text: str) -> str:
    """Project text as plain Markdown text in a line (a paragraph's or a table cell's):
    on one line, each character that starts Markdown syntax backslash-escaped (no
    emphasis, link, image, HTML, code span or table cell can start), and GitHub's
    mentions and autolinks broken."""
    # Marked with NUL (visible() leaves none) until the escaping is done.
    shown = _GITHUB_LINKS.sub("\x00", visible(mask(text)))
    escaped = "".join("\\" + char if char in _MARKDOWN else char for char in shown)
    return escaped.replace("\x00", _ZERO_WIDTH)


def md_code(text: str, in_table: bool = True) -> str:
    """Project text as a Markdown code span: nothing inside one is live (no mention,
    link or HTML). The fence is longer than any run of backticks inside; in a table a
    ``|`` is escaped (GitHub splits cells before it reads code spans)."""
    shown = visible(mask(text))
    if not shown.strip():
        return "-"
    if in_table:
        # A backslash right before a pipe would escape the pipe's own escape.
        shown = shown.replace("\\|", "\\\\|").replace("|", "\\|")
    longest = max((len(run) for run in re.findall(r"`+", shown)), default=0)
    fence = "`" * (longest + 1)
    if shown[0] in "` " or shown[-1] in "` ":
        shown = f" {shown} "
    return f"{fence}{shown}{fence}"


# -- HTML and JSON ------------------------------------------------------------------------


def html_text(text: str) -> str:
    """Project text for an HTML page: secrets masked, :func:`visible`, HTML-escaped."""
    return html.escape(visible(mask(text)))


def json_text(data: Any, indent: int | None = 2) -> str:
    """``data`` as JSON text that any UTF-8 stream takes: non-ASCII kept, a lone
    surrogate written as its ``\\udcff`` escape (which reads back as the same string)."""
    return surrogates_escaped(json.dumps(data, indent=indent, ensure_ascii=False))


def masked_data(data: Any) -> Any:
    """``data`` (dicts, lists, strings, numbers) with every string :func:`mask`-ed."""
    if isinstance(data, str):
        return mask(data)
    if isinstance(data, dict):
        return {mask(k) if isinstance(k, str) else k: masked_data(v) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return [masked_data(item) for item in data]
    return data


# -- reports ----------------------------------------------------------------------------


def masked_report(report: Report) -> Report:
    """``report`` with every message (findings, calls that reach them, fixes, file
    errors, suppression codes) masked; paths and positions as they are. A fix whose edit
    would write a secret is left out: masked, it would write ``****`` into the code."""
    return replace(
        report,
        findings=[_masked_finding(f) for f in report.findings],
        errors=[FileError(e.path, mask(e.message)) for e in report.errors],
        unused_suppressions=[_masked_unused(u) for u in report.unused_suppressions],
    )


def _masked_finding(finding: Finding) -> Finding:
    return replace(
        finding,
        message=mask(finding.message),
        related=tuple(Related(r.path, r.loc, mask(r.message)) for r in finding.related),
        fix=_masked_fix(finding.fix),
    )


def _masked_fix(fix: Fix | None) -> Fix | None:
    if fix is None or any(mask(edit.new_text) != edit.new_text for edit in fix.edits):
        return None
    return replace(fix, title=mask(fix.title))


def _masked_unused(unused: UnusedSuppression) -> UnusedSuppression:
    return replace(
        unused,
        codes=tuple(mask(c) for c in unused.codes),
        unknown=tuple(mask(c) for c in unused.unknown),
    )
