"""Parsing Ruby with tree-sitter, and what the rest of the Ruby front end asks of a tree:
locations in jobcheck's convention, source excerpts, constant paths.

tree-sitter and its Ruby grammar are an optional extra (``pip install 'jobcheck[ruby]'``):
:func:`parser` raises :class:`RubyUnavailable` when they are not installed, and the
front end turns that into one error line per Ruby file (``jobcheck/ruby/__init__.py``).
tree-sitter never fails on bad syntax: it builds ``ERROR`` nodes around what it cannot
read, and the walk goes on through the rest.
"""

from __future__ import annotations

import functools
from typing import Any

from jobcheck.facts import Loc

INSTALL_HINT = "pip install 'jobcheck[ruby]'"


class RubyUnavailable(RuntimeError):
    """tree-sitter or tree-sitter-ruby is not installed (or cannot be loaded)."""


@functools.cache
def parser() -> Any:
    """A tree-sitter parser for Ruby (one per process; workers inherit it on fork)."""
    try:
        import tree_sitter
        import tree_sitter_ruby
    except ImportError as error:
        raise RubyUnavailable(
            f"Ruby files need tree-sitter and tree-sitter-ruby ({INSTALL_HINT}): {error}"
        ) from error
    try:
        return tree_sitter.Parser(tree_sitter.Language(tree_sitter_ruby.language()))
    except (ValueError, TypeError) as error:  # a grammar built for another ABI
        raise RubyUnavailable(f"tree-sitter cannot load the Ruby grammar: {error}") from error


def available() -> bool:
    try:
        parser()
    except RubyUnavailable:
        return False
    return True


class Source:
    """A Ruby file's bytes, with positions converted to 1-based character columns."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self._lines: list[bytes] | None = None

    def parse(self) -> Any:
        return parser().parse(self.data)

    def text(self, node: Any, limit: int = 80) -> str:
        """The node's source, on one line and shortened to ``limit`` characters."""
        raw = self.data[node.start_byte : node.end_byte].decode("utf-8", "replace")
        text = " ".join(raw.split())
        return text if len(text) <= limit else text[: limit - 3] + "..."

    def raw(self, node: Any) -> str:
        return self.data[node.start_byte : node.end_byte].decode("utf-8", "replace")

    def loc(self, node: Any) -> Loc:
        (line, column), (end_line, end_column) = node.start_point, node.end_point
        return Loc(
            line + 1,
            self._column(line, column) + 1,
            end_line + 1,
            self._column(end_line, end_column) + 1,
        )

    def _column(self, row: int, byte_column: int) -> int:
        """tree-sitter counts bytes; jobcheck's columns count characters."""
        if byte_column == 0:
            return 0
        if self._lines is None:
            self._lines = self.data.split(b"\n")
        line = self._lines[row] if row < len(self._lines) else b""
        prefix = line[:byte_column]
        return byte_column if prefix.isascii() else len(prefix.decode("utf-8", "replace"))


def constant_path(node: Any | None) -> str | None:
    """``Admin::ReportJob`` as ``Admin.ReportJob`` (``::Foo`` as ``Foo``); None when the
    node is not a constant path."""
    if node is None:
        return None
    if node.type == "constant":
        return node.text.decode("utf-8", "replace")
    if node.type == "scope_resolution":
        name = node.child_by_field_name("name")
        scope = node.child_by_field_name("scope")
        if name is None or name.type != "constant":
            return None
        if scope is None:
            return name.text.decode("utf-8", "replace")
        head = constant_path(scope)
        return f"{head}.{name.text.decode('utf-8', 'replace')}" if head else None
    return None


def ruby_name(qualname: str) -> str:
    """``Admin.ReportJob`` as Ruby writes it: ``Admin::ReportJob``."""
    return qualname.replace(".", "::")


def identifier(node: Any | None) -> str | None:
    """The text of an identifier, constant or method-name node."""
    if node is None:
        return None
    return node.text.decode("utf-8", "replace")


def call_parts(node: Any) -> tuple[Any | None, str | None, Any | None, Any | None]:
    """(receiver, method name, argument list, block) of a ``call`` node."""
    method = node.child_by_field_name("method")
    return (
        node.child_by_field_name("receiver"),
        identifier(method),
        node.child_by_field_name("arguments"),
        node.child_by_field_name("block"),
    )


def arguments(arg_list: Any | None) -> tuple[list[Any], list[tuple[str, Any, Any]]]:
    """Positional argument nodes and ``(key, value node, pair node)`` keyword pairs of an
    argument list (a trailing hash's pairs count as keywords, as Ruby passes them)."""
    positional: list[Any] = []
    keywords: list[tuple[str, Any, Any]] = []
    if arg_list is None:
        return positional, keywords
    for child in arg_list.named_children:
        if child.type == "pair":
            key = pair_key(child)
            value = child.child_by_field_name("value")
            if key is not None and value is not None:
                keywords.append((key, value, child))
        elif child.type == "comment":
            continue
        else:
            positional.append(child)
    return positional, keywords


def pair_key(pair: Any) -> str | None:
    """The key of ``queue: "x"``, ``:queue => "x"`` or ``"queue" => "x"``."""
    key = pair.child_by_field_name("key")
    if key is None:
        return None
    if key.type == "hash_key_symbol":
        return identifier(key)
    if key.type == "simple_symbol":
        return identifier(key).lstrip(":")  # type: ignore[union-attr]
    if key.type == "string" and key.named_child_count == 1:
        content = key.named_children[0]
        if content.type == "string_content":
            return identifier(content)
    if key.type == "string" and key.named_child_count == 0:
        return ""
    return None


def block_body(block: Any | None) -> Any | None:
    """The body of a ``do ... end`` or ``{ ... }`` block."""
    if block is None:
        return None
    return block.child_by_field_name("body")
