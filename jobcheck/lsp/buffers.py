"""An editor buffer's text, parsed in full at each change.

CPython's parser reads a buffer of a few thousand lines in milliseconds
(``jobcheck/syntax/source.py``), so every edit parses the whole text and extracts its
facts as ``jobcheck check`` would: the language server and the command line cannot
disagree about a file."""

from __future__ import annotations

import re
from dataclasses import dataclass

from jobcheck.extract.pipeline import extract_tree, suppressions
from jobcheck.facts import FileFacts
from jobcheck.syntax import tree as syntax_tree
from jobcheck.syntax.source import parse_source

# Python's (and the LSP's) line ends; ``str.splitlines`` also splits on form feeds and
# other characters that do not end a line in Python source.
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def split_lines(text: str) -> list[str]:
    """The lines of ``text`` with their line ends, split where Python and the LSP do."""
    return _LINE.findall(text)


@dataclass
class ParsedBuffer:
    """A buffer's text (as parsed), its lines and its syntax tree."""

    text: str
    lines: list[str]
    tree: syntax_tree.Module


def parse_buffer(text: str) -> ParsedBuffer:
    """Parse ``text``; raises :class:`~jobcheck.syntax.source.SourceError`."""
    text = text.removeprefix("\ufeff")
    module, parsed_text = parse_source(text)
    return ParsedBuffer(parsed_text, split_lines(text), module)


def extract_buffer(buffer: ParsedBuffer, path: str, module: str, is_package: bool) -> FileFacts:
    """The facts of a parsed buffer (what ``extract_file`` gives for its text)."""
    facts = FileFacts(path=path, module=module)
    facts.suppressions = suppressions(buffer.text)
    return extract_tree(facts, buffer.tree, buffer.text, is_package)
