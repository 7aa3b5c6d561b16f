"""Turning a file's bytes into a libcst module, with clear errors for broken input."""

from __future__ import annotations

import ast
import contextlib
from collections.abc import Iterator

import libcst as cst

from jobcheck.syntax.decoding import SourceError

# The newest grammar libcst knows: code written for a newer Python than the one running
# jobcheck (PEP 695 generics, ``match``, ``except*``) must still parse.
_PARSER_CONFIG = cst.PartialParserConfig(python_version="3.14")


def parse(text: str, first_line: int = 1) -> cst.Module:
    """Parse ``text``; error messages count lines from ``first_line`` (the language
    server parses a piece of a buffer that starts there)."""
    try:
        with _unvalidated():
            return cst.parse_module(text, config=_PARSER_CONFIG)
    except cst.ParserSyntaxError as error:
        raise SourceError(_syntax_message(text, error, first_line)) from None
    except (RecursionError, MemoryError, ValueError) as error:
        raise SourceError(f"cannot parse: {type(error).__name__}: {error}") from None


def _syntax_message(text: str, error: cst.ParserSyntaxError, first_line: int = 1) -> str:
    """Python's own message and position when it agrees the code is broken: libcst's
    native parser reports the token after the mistake, in its own words."""
    try:
        ast.parse(text)
    except SyntaxError as python_error:
        line = (python_error.lineno or error.raw_line) + first_line - 1
        column = python_error.offset or error.raw_column + 1
        return f"syntax error at line {line}, column {column}: {python_error.msg}"
    except (ValueError, RecursionError, MemoryError):
        pass
    message = error.message.strip().splitlines()[0] if error.message else "invalid syntax"
    line = error.raw_line + first_line - 1
    return f"syntax error at line {line}, column {error.raw_column + 1}: {message}"


@contextlib.contextmanager
def _unvalidated() -> Iterator[None]:
    """Build the parser's nodes without libcst's per-node validation.

    ``CSTNode.__post_init__`` only calls ``_validate()``, whose checks (matching
    parentheses, required whitespace...) the parser has already enforced: a tree it
    returns is valid by construction ("validation is both expensive and usually
    unneeded", libcst/_nodes/base.py). Skipping it makes the parse about a fifth faster.
    Nodes made after the parse (``with_changes``) are validated as usual."""
    base = cst.CSTNode
    original = base.__dict__.get("__post_init__")
    if original is None:  # a libcst without the hook: nothing to skip
        yield
        return
    base.__post_init__ = _no_validation  # type: ignore[method-assign]
    try:
        yield
    finally:
        base.__post_init__ = original  # type: ignore[method-assign]


def _no_validation(self: cst.CSTNode) -> None:
    return None
