"""Stable identities for findings, for baselines and CI systems that track issues.

A finding's identity must survive edits that only move it (lines inserted above it),
so it is built from what was flagged, not where: the rule, the check, the file and the
flagged source text with whitespace collapsed. Identical flagged texts in one file
(two ``@shared_task`` decorators without a time limit) are told apart by an occurrence
index in file order. A secret in the flagged text is masked before it goes into an
identity (a baseline file is committed).
"""

from __future__ import annotations

import hashlib
import os
import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from jobcheck.findings import Finding
from jobcheck.guarded import ReadError, read_bytes
from jobcheck.location import Loc
from jobcheck.syntax.decoding import SourceError, decode
from jobcheck.vocabulary.credentials import mask

# libcst counts lines the way the tokenizer does: \r\n, \r and \n end a line, and
# nothing else (str.splitlines would also split on \f, \x1c, \u2028 ...).
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True)
class Identity:
    """What a finding is, independent of its line: the parts of its fingerprint."""

    rule: str
    check: str
    path: str
    source: str
    occurrence: int

    @property
    def fingerprint(self) -> str:
        parts = (self.rule, self.check, self.path, self.source, str(self.occurrence))
        return hashlib.sha256("\x1f".join(parts).encode("utf-8", "surrogateescape")).hexdigest()


class SourceLines:
    """Lines of source files, read once each, decoded as Python decodes them."""

    def __init__(self, read: Callable[[str], bytes | None] | None = None) -> None:
        self._read = read or _read_bytes
        self._lines: dict[str, list[str] | None] = {}

    def lines(self, path: str) -> list[str] | None:
        if path not in self._lines:
            self._lines[path] = self._load(path)
        return self._lines[path]

    def text(self, path: str, loc: Loc) -> str:
        """The source text of ``loc`` in ``path`` (columns 1-based, end exclusive);
        empty when the file or the range cannot be read."""
        lines = self.lines(path)
        if not lines or not 1 <= loc.line <= loc.end_line <= len(lines):
            return ""
        if loc.line == loc.end_line:
            return lines[loc.line - 1][loc.column - 1 : loc.end_column - 1]
        first = lines[loc.line - 1][loc.column - 1 :]
        middle = lines[loc.line : loc.end_line - 1]
        last = lines[loc.end_line - 1][: loc.end_column - 1]
        return "\n".join([first, *middle, last])

    def _load(self, path: str) -> list[str] | None:
        data = self._read(path)
        if data is None:
            return None
        try:
            return _LINE_BREAK.split(decode(data))
        except SourceError:
            return None


def normalized(text: str) -> str:
    """Source text with every run of whitespace collapsed to one space."""
    return " ".join(text.split())


def identities(
    findings: Iterable[Finding],
    sources: SourceLines | None = None,
    path_of: Callable[[str], str] = lambda path: path,
) -> list[Identity]:
    """The identity of each finding, in the order given. ``path_of`` maps a finding's
    path to the spelling that goes into the fingerprint (e.g. relative to a baseline)."""
    sources = sources or SourceLines()
    ordered = sorted(enumerate(findings), key=lambda pair: pair[1].sort_key)
    seen: Counter[tuple[str, str, str, str]] = Counter()
    result: dict[int, Identity] = {}
    for index, finding in ordered:
        key = (
            finding.rule,
            finding.check,
            path_of(finding.path),
            # A password in the flagged text (a broker URL, a crontab line's -a s3cret)
            # never reaches a baseline file.
            normalized(mask(sources.text(finding.path, finding.loc))),
        )
        result[index] = Identity(*key, occurrence=seen[key])
        seen[key] += 1
    return [result[index] for index in range(len(result))]


def relative_posix(path: str, base: Path) -> str:
    """``path`` relative to the folder ``base``, with forward slashes; unchanged (but
    absolute) when it lies outside ``base``."""
    absolute = Path(os.path.abspath(path))
    try:
        return absolute.relative_to(Path(os.path.abspath(base))).as_posix()
    except ValueError:
        return absolute.as_posix()


OVERRIDES: dict[str, bytes] = {}
"""Text not on disk, by path (``jobcheck check -`` reads its file from standard input)."""

MAX_SOURCE_BYTES = 256 * 1024 * 1024
"""A flagged file was read within ``max-file-size`` before; this only bounds a file that
grew since."""


def _read_bytes(path: str) -> bytes | None:
    if path in OVERRIDES:
        return OVERRIDES[path]
    try:
        return read_bytes(path, limit=MAX_SOURCE_BYTES)
    except ReadError:
        return None
