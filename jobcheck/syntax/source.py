"""Turning a file's text into a syntax tree (``jobcheck/syntax/tree.py``), with clear
errors for broken input.

CPython's parser reads what the running interpreter can: about ten times libcst's speed,
and most files. Grammar newer than the interpreter's (``type X = ...`` on Python 3.11)
goes to libcst, which knows Python 3.14's, and its tree is copied into the same shape.
A file neither parses is an error with Python's own message where it has one."""

from __future__ import annotations

import ast
import contextlib
import re
import sys
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from jobcheck.syntax import from_ast, quiet, tree
from jobcheck.syntax.decoding import SourceError
from jobcheck.syntax.deep import run_deep
from jobcheck.syntax.screen import may_hold_huge_literals, screen

if TYPE_CHECKING:
    import libcst as cst

# The newest grammar libcst knows: code written for a newer Python than the one running
# jobcheck (PEP 695 generics, ``match``, ``except*``) must still parse. libcst is
# imported only for such a file (a sixth of a second a run without one need not pay).
_PYTHON_VERSION = "3.14"


def parse(text: str, first_line: int = 1) -> tree.Module:
    """Parse ``text``; error messages count lines from ``first_line`` (the language
    server parses a piece of a buffer that starts there). Text that would overflow or
    stall a parser (``jobcheck/syntax/screen.py``) is refused, not parsed."""
    return parse_source(text, first_line)[0]


def parse_source(text: str, first_line: int = 1) -> tuple[tree.Module, str]:
    """:func:`parse`, with the text the module was parsed from: ``text`` itself, or
    ``text`` with its huge literals elided (same lines); positions are computed on it.

    CPython's parser is linear and refuses nesting past its own limits with an
    exception, so a file that cannot hold a huge literal (it has too few commas) goes
    to it unscreened: the screen (``jobcheck/syntax/screen.py``), a pass as long as a
    fifth of the whole extraction, guards libcst's parser, and keeps huge literals
    (a megabyte of ``1,1,...`` is 700 MB of tree) from any parser."""
    tried = None
    if not may_hold_huge_literals(text):
        tried = text
        try:
            read = _python_tree(text)
        except SourceError:
            # Too deep for CPython: the screen says where (or the same error, below).
            read = tried = None
        if read is not None:
            return _converted_from_python(*read)
    screened = screen(text)
    if screened.refusal is not None:
        line = screened.refusal.line + first_line - 1
        raise SourceError(f"line {line}: {screened.refusal.message}")
    text = screened.text
    if text is not tried:
        read = _python_tree(text)
        if read is not None:
            return _converted_from_python(*read)
    from jobcheck.syntax import from_libcst

    module, parsed_text = _parse_with_libcst(text, first_line)
    return _converted(lambda: from_libcst.convert(module, parsed_text)), parsed_text


# A generic function or class (PEP 695), up to its type parameter list's "[".
_GENERIC = re.compile(r"^[ \t]*(?:async[ \t]+)?(?:def|class)[ \t]+\w+(?=\[)", re.MULTILINE)


def without_type_parameters(text: str) -> str | None:
    """``text`` with the type parameter lists of its generic functions and classes
    (PEP 695: ``def first[T](items: list[T])``, ``class Box[T]:``) blanked out, every
    other character at its place; None when it has none, or one spans lines.

    Python before 3.12 refuses them; blanked, the file is CPython's to read (libcst
    costs a sixth of a second to import and parses ten times slower). Nothing jobcheck
    reads is in a type parameter list."""
    if sys.version_info >= (3, 12):
        return None
    from jobcheck.syntax.from_ast import closing_bracket

    pieces: list[str] = []
    last = 0
    for match in _GENERIC.finditer(text):
        opening = match.end()
        if opening < last:
            continue
        closing = closing_bracket(text, opening)
        if closing < 0 or "\n" in text[opening:closing]:
            return None
        pieces += [text[last:opening], " " * (closing + 1 - opening)]
        last = closing + 1
    if not pieces:
        return None
    return "".join([*pieces, text[last:]])


def python_tree_of(text: str) -> tuple[ast.Module, str]:
    """CPython's tree of ``text`` and the text it was read from: ``text``, or ``text``
    with its type parameter lists blanked where this Python cannot read them. Raises
    what ``ast.parse`` raises for ``text`` when neither is read."""
    try:
        return quiet.parse(text), text
    except SyntaxError as error:
        refused = error
    blanked = without_type_parameters(text)
    if blanked is not None:
        with contextlib.suppress(SyntaxError):
            return quiet.parse(blanked), blanked
    raise refused


def _converted_from_python(python_tree: ast.Module, text: str) -> tuple[tree.Module, str]:
    return _converted(lambda: from_ast.convert(python_tree, text)), text


def _python_tree(text: str) -> tuple[ast.Module, str] | None:
    """CPython's tree of ``text`` and the text it read (:func:`python_tree_of`); None
    when the interpreter cannot read it (newer grammar, broken code: libcst's parser
    says which, after the screen)."""
    try:
        return python_tree_of(text)
    except (SyntaxError, ValueError):
        return None
    except (RecursionError, MemoryError) as error:
        raise SourceError(f"cannot parse: {type(error).__name__}: {error}") from None


def _converted(convert: Callable[[], tree.Module]) -> tree.Module:
    try:
        return run_deep(convert)
    except (RecursionError, MemoryError) as error:
        raise SourceError(f"cannot parse: {type(error).__name__}: {error}") from None


def _parse_with_libcst(text: str, first_line: int) -> tuple[cst.Module, str]:
    import libcst as cst

    try:
        return run_deep(_parse_unvalidated(text)), text
    except cst.ParserSyntaxError as error:
        repaired = _repaired(text)
        if repaired is not None:
            return repaired
        raise SourceError(_syntax_message(text, error, first_line)) from None
    except (RecursionError, MemoryError, ValueError) as error:
        raise SourceError(f"cannot parse: {type(error).__name__}: {error}") from None


# A line holding nothing but a backslash continuation: Python joins it to the next
# line, libcst's tokenizer rejects it ("expected INDENT"). Where it stands between
# statements, a blank line means the same and keeps every line's number.
_LONE_CONTINUATION = re.compile(r"^[ \t\f]*\\(\r?\n)", re.MULTILINE)


def _repaired(text: str) -> tuple[cst.Module, str] | None:
    """The module of valid Python that libcst rejects for a known quirk of its
    tokenizer, parsed from an equivalent text; None when no quirk applies or Python
    rejects the text too."""
    import libcst as cst

    if not _LONE_CONTINUATION.search(text) or not _python_accepts(text):
        return None
    fixed = _LONE_CONTINUATION.sub(lambda m: m.group(1), text)
    if not _python_accepts(fixed):
        return None
    try:
        return run_deep(_parse_unvalidated(fixed)), fixed
    except cst.ParserSyntaxError:
        return None


def _python_accepts(text: str) -> bool:
    try:
        quiet.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def _parse_unvalidated(text: str) -> Callable[[], cst.Module]:
    def work() -> cst.Module:
        import libcst as cst

        with _unvalidated():
            return cst.parse_module(
                text, config=cst.PartialParserConfig(python_version=_PYTHON_VERSION)
            )

    return work


def _syntax_message(text: str, error: cst.ParserSyntaxError, first_line: int = 1) -> str:
    """Python's own message and position when it agrees the code is broken: libcst's
    native parser reports the token after the mistake, in its own words."""
    try:
        quiet.parse(text)
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
    import libcst as cst

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
