"""Turning a file's bytes into a libcst module, with clear errors for broken input."""

from __future__ import annotations

import ast
import io
import tokenize

import libcst as cst

# The newest grammar libcst knows: code written for a newer Python than the one running
# jobcheck (PEP 695 generics, ``match``, ``except*``) must still parse.
_PARSER_CONFIG = cst.PartialParserConfig(python_version="3.14")


class SourceError(Exception):
    """A file that cannot be read as Python source; the message says why."""


def decode(data: bytes) -> str:
    """Decode source bytes as Python does (BOM, PEP 263 cookie, else UTF-8)."""
    if b"\x00" in data:
        raise SourceError("file contains a NUL byte; it is not Python source")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as error:
        raise SourceError(f"cannot decode: {error}") from None
    try:
        text = data.decode(encoding)
    except (UnicodeDecodeError, LookupError) as error:
        raise SourceError(f"cannot decode as {encoding}: {error}") from None
    return text[1:] if text.startswith("\ufeff") else text


def parse(text: str, first_line: int = 1) -> cst.Module:
    """Parse ``text``; error messages count lines from ``first_line`` (the language
    server parses a piece of a buffer that starts there)."""
    try:
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
