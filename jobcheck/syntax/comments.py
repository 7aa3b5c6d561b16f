"""Suppression comments, read from real comments only: ``# jobcheck: ignore[...]``.

Only a comment suppresses. ``"# jobcheck: ignore"`` inside a string literal (a log
message, a template, a docstring), a YAML block scalar, a heredoc or a quoted shell word
is data, and a pull request must not be able to silence a finding with text that does
not look like a suppression in the diff. Each file kind is read with its own comment
syntax (:data:`SYNTAX_OF_KIND`): Python with its tokenizer, Ruby with tree-sitter's
comment nodes (:func:`ruby_suppressions`), YAML, shell-like files (crontab, Procfile,
scripts, Dockerfiles), systemd units, supervisord's INI and TOML with a scanner that
knows their quotes. Extraction reads them here (the facts keep them); ``--add-ignore``
(``jobcheck/suppress.py``) writes them.
"""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from jobcheck.facts import UNCLOSED_SUPPRESSION

MARKER = re.compile(r"#\s*jobcheck:\s*ignore(?!-file)\b(?:\[([^\]]*)\])?", re.IGNORECASE)
FILE_MARKER = re.compile(r"#\s*jobcheck:\s*ignore-file\b(?:\[([^\]]*)\])?", re.IGNORECASE)
"""``# jobcheck: ignore-file`` (every finding of the file) or ``ignore-file[SCL-18]``
(Ruff's file-level ``# ruff: noqa``): kept under :data:`FILE_LINE`."""
FILE_LINE = 0
"""The suppression, inside a comment: ``# jobcheck: ignore`` or ``...ignore[A, b]``."""

Suppressions = dict[int, frozenset[str] | None]
"""Codes by 1-based line; None for a bare ``# jobcheck: ignore`` (everything)."""

# Lines as Python and libcst count them: str.splitlines would also split at form feeds
# and other separators, and number every later line wrong.
_LINES = re.compile(r"\r\n?|\n")
LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n|$)")


# -- reading ----------------------------------------------------------------------------


@dataclass(frozen=True)
class CommentSyntax:
    """How a line-oriented file kind writes comments and quotes."""

    openers: str = "#"
    """Characters that start a comment."""
    after: str | None = ""
    """What may stand right before an opener besides whitespace and the line's start;
    None: anything (a comment may start in the middle of a word)."""
    quotes: str = "\"'"
    quote_after: str | None = None
    """What must come before a quote that opens a string, besides the line's start and
    whitespace after it (YAML: a value's start); None: anything."""
    escaping: str = '"'
    """Quotes inside which a backslash escapes the next character."""
    escapes_outside: bool = False
    """A backslash outside quotes escapes the next character (shells)."""
    whole_lines: bool = False
    """Only a line that starts with an opener is a comment (systemd)."""
    block_scalars: bool = False
    """YAML: the lines of a ``|`` or ``>`` scalar are text."""
    heredocs: bool = False
    """Shells and Ruby: the lines of a ``<<EOF`` document are text."""


YAML = CommentSyntax(quote_after=":-[{,?", block_scalars=True)
SHELL = CommentSyntax(after=";&|()", escapes_outside=True, heredocs=True)
RUBY = CommentSyntax(after=None, quotes="\"'`", escaping='"`', heredocs=True)
SYSTEMD = CommentSyntax(openers="#;", whole_lines=True)
INI = CommentSyntax(openers="#;", quotes="", escaping="")
TOML = CommentSyntax(after=None)

SYNTAX_OF_KIND: dict[str, CommentSyntax | None] = {
    "python": None,  # the tokenizer
    "ruby": RUBY,  # tree-sitter's comments when there is a tree (ruby_suppressions)
    "yaml": YAML,
    "kubernetes": YAML,
    "compose": YAML,
    "crontab": SHELL,
    "procfile": SHELL,
    "shell": SHELL,
    "dockerfile": SHELL,
    "systemd": SYSTEMD,
    "supervisord": INI,
    "fly": TOML,
}
"""The comment syntax of each file kind (``jobcheck/extract/files.py`` FILE_KINDS)."""


def suppressions(text: str, kind: str = "python") -> Suppressions:
    """``# jobcheck: ignore[SCL-21, fat-payload]`` comments by line, read with the comment
    syntax of ``kind`` (a name of :data:`SYNTAX_OF_KIND`). Several on one line count
    together (``# jobcheck: ignore[A]  # jobcheck: ignore[B]`` suppresses A and B)."""
    if "jobcheck" not in text.lower():
        return {}
    return from_comments((line, comment) for line, _, comment in comments(text, kind))


def ruby_suppressions(tree: Any, text: str) -> Suppressions:
    """The suppressions in the comment nodes of ``text``'s tree-sitter Ruby tree
    (``=begin`` blocks included)."""
    if "jobcheck" not in text.lower():
        return {}
    found = []
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        if node.type == "comment":
            comment = node.text.decode("utf-8", "replace")
            if "jobcheck" in comment.lower():
                found.append((node.start_point[0] + 1, comment))
        else:
            stack.extend(node.children)
    return from_comments(found)


def from_comments(comments: Iterable[tuple[int, str]]) -> Suppressions:
    """Suppressions from ``(first line, text)`` of each comment."""
    codes: dict[int, set[str]] = {}
    bare: set[int] = set()
    for first, comment in comments:
        for match in MARKER.finditer(comment):
            line = first + comment.count("\n", 0, match.start())
            listed = codes.setdefault(line, set())
            if match.group(1) is None and comment[match.end() : match.end() + 1] == "[":
                listed.add(UNCLOSED_SUPPRESSION)
            elif match.group(1) is None:
                bare.add(line)
            else:
                listed.update(c.strip() for c in match.group(1).split(",") if c.strip())
        for match in FILE_MARKER.finditer(comment):
            listed = codes.setdefault(FILE_LINE, set())
            if match.group(1) is None and comment[match.end() : match.end() + 1] == "[":
                listed.add(UNCLOSED_SUPPRESSION)
            elif match.group(1) is None:
                bare.add(FILE_LINE)
            else:
                listed.update(c.strip() for c in match.group(1).split(",") if c.strip())
    return {line: None if line in bare else frozenset(found) for line, found in codes.items()}


def comments(text: str, kind: str = "python") -> list[tuple[int, int, str]]:
    """``(line, 0-based column, text)`` of each comment of ``text``, read with the
    comment syntax of ``kind``."""
    syntax = SYNTAX_OF_KIND.get(kind, SHELL)
    return python_comments(text) if syntax is None else line_comments(text, syntax)


def python_comments(text: str) -> list[tuple[int, int, str]]:
    """``(line, column, text)`` of each comment token. A file the tokenizer stops in
    keeps the comments before that point (libcst parsed none of it past there)."""
    found = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.COMMENT:
                found.append((token.start[0], token.start[1], token.string))
    except (tokenize.TokenError, SyntaxError):
        pass
    return found


_BLOCK_SCALAR = re.compile(r"(?:^|[\s:-])[|>][+-]?\d?[+-]?\s*$")
_HEREDOC = re.compile(r"<<([-~]?)\s*(['\"]?)([A-Za-z_][\w-]*)\2")


def line_comments(text: str, syntax: CommentSyntax) -> list[tuple[int, int, str]]:
    """``(line, column, text)`` of each comment of a line-oriented file."""
    found = []
    reader = _LineReader(syntax)
    for number, line in enumerate(_LINES.split(text), start=1):
        column = reader.comment_column(line)
        if column is not None:
            found.append((number, column, line[column:]))
    return found


class _LineReader:
    """Where each line's comment starts, given what earlier lines left open: a quote, a
    YAML block scalar, a heredoc."""

    def __init__(self, syntax: CommentSyntax) -> None:
        self.syntax = syntax
        self.quote: str | None = None
        self.block_indent: int | None = None
        self.heredoc: tuple[str, str] | None = None
        """(delimiter, leading characters its closing line may have)."""

    def comment_column(self, line: str) -> int | None:
        if self.heredoc is not None:
            delimiter, strip = self.heredoc
            if line.lstrip(strip) == delimiter:
                self.heredoc = None
            return None
        indent = len(line) - len(line.lstrip(" \t"))
        if self.block_indent is not None:
            if not line.strip() or indent > self.block_indent:
                return None
            self.block_indent = None
        if self.syntax.whole_lines:
            return indent if line[indent : indent + 1] in tuple(self.syntax.openers) else None
        column = self._scan(line)
        code = line if column is None else line[:column]
        if self.quote is None:
            self._opens(code, indent)
        return column

    def _scan(self, line: str) -> int | None:
        syntax = self.syntax
        index = 0
        while index < len(line):
            char = line[index]
            if self.quote is not None:
                if char == "\\" and self.quote in syntax.escaping:
                    index += 2
                    continue
                if char == self.quote:
                    self.quote = None
            elif char == "\\" and syntax.escapes_outside:
                index += 2
                continue
            elif char in syntax.quotes and self._may_quote(line, index):
                self.quote = char
            elif char in syntax.openers and self._may_open(line, index):
                return index
            index += 1
        return None

    def _may_quote(self, line: str, index: int) -> bool:
        if self.syntax.quote_after is None:
            return True
        before = line[:index].rstrip()
        return not before or before[-1] in self.syntax.quote_after

    def _may_open(self, line: str, index: int) -> bool:
        if index == 0 or self.syntax.after is None:
            return True
        before = line[index - 1]
        return before.isspace() or before in self.syntax.after

    def _opens(self, code: str, indent: int) -> None:
        """Note a block scalar or a heredoc that starts on this line."""
        if self.syntax.block_scalars and _BLOCK_SCALAR.search(code):
            self.block_indent = indent
        if self.syntax.heredocs:
            match = _HEREDOC.search(code)
            if match is not None:
                strip = " \t" if match.group(1) else ""
                self.heredoc = (match.group(3), strip)


def comment_columns(text: str, kind: str = "python") -> dict[int, int]:
    """The 0-based column where each line's comment starts, by 1-based line."""
    columns: dict[int, int] = {}
    for line, column, _ in comments(text, kind):
        columns.setdefault(line, column)
    return columns
