"""Screening source before libcst parses it: what would crash or stall the parser.

libcst's native parser recurses once per level of nesting, on the C stack: about 1,300
nested parentheses or 10,000 chained ``and`` overflow it and the whole process dies
with a segmentation fault (no exception to catch). Long chains of other operators do
not crash it but cost the square of their length (3,000 chained ``.attr`` or ``[0]``
take seconds; 10,000 take minutes and gigabytes). So before libcst parses a file (one
CPython cannot read), or any parser reads a file with commas enough for a huge literal
(``jobcheck/syntax/source.py``), one regular-expression pass over its text measures

- the depth of nested brackets: past CPython's own limit (``MAXLEVEL``, 200 in
  Parser/tokenizer.h; ``python -c "eval('(' * 201 + '1' + ')' * 201)"`` says "too many
  nested parentheses") the file is not valid Python anyway;
- the longest chain of nesting operators within one expression (``a.b.c``, ``a + b``,
  ``-x``, ``f()()``, ``a if b else c``, ``lambda: ...``), split at commas, semicolons
  and the ends of statements: past :data:`MAX_CHAIN` the file is refused;
- the longest chain of ``and``/``or``, which libcst parses in linear time but with one
  native stack frame per item: parsed on a thread with a large stack
  (``jobcheck/syntax/deep.py``) up to :data:`MAX_LIGHT_CHAIN`;
- the longest run of implicitly joined strings, which libcst refuses past
  :data:`MAX_JOINED_STRINGS` with a wrong syntax error;
- the items of each bracketed literal: one of more than :data:`MAX_ELEMENTS` items is
  data, and is parsed as ``[...]`` (or as a string of its newlines, so that every
  later line keeps its number).

The pass is approximate where it cannot be exact cheaply (strings are recognised by a
regular expression, not by Python's tokenizer). Only when it finds a limit exceeded is
the text tokenized exactly with :mod:`tokenize`, so a miscounted string never refuses
a valid file, and elisions are made at exact token positions.
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass

MAX_BRACKET_DEPTH = 200
MAX_CHAIN = 1000
MAX_LIGHT_CHAIN = 20_000
MAX_ELEMENTS = 5000
"""A bracketed literal with more items is data (a lookup table, a fixture): it is
parsed as ``[...]``, as libcst needs some 4 KB of memory per item (a 500,000-item list
took 20 s and 2.2 GB)."""
MAX_JOINED_STRINGS = 3000
"""libcst's parser refuses more implicitly joined strings than this with a wrong syntax
error ("expected one of STRING"), measured with libcst 1.9: refused here in our words."""

# Files this small cannot exceed any limit (a chain item needs at least two characters).
_SMALL = 2 * min(MAX_BRACKET_DEPTH, MAX_CHAIN)

_TOKENS = re.compile(
    r"""
    (?P<string>(?:[rRbBuUfFtT]{1,2})?(?:'''(?:[^\\]|\\.)*?'''|\"\"\"(?:[^\\]|\\.)*?\"\"\"
        |'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"))
    |(?P<comment>\#[^\n]*)
    |(?P<continuation>\\\r?\n)
    |(?P<open>[(\[{])
    |(?P<close>[)\]}])
    |(?P<separator>[,;\n])
    |(?P<light>\b(?:and|or)\b)
    |(?P<heavy>\*\*|//|<<|>>|[-+*/%@&|^~.]|\b(?:not|if|else|lambda|await)\b)
    """,
    re.VERBOSE | re.DOTALL,
)


@dataclass(frozen=True)
class Refusal:
    """Why a text is not handed to the parser, and where."""

    line: int
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


@dataclass(frozen=True)
class Screened:
    """What to hand the parser: the text (with huge literals elided), or why nothing."""

    text: str
    refusal: Refusal | None = None
    elided: int = 0
    """How many huge bracketed literals were replaced by ``...``."""


def may_hold_huge_literals(text: str) -> bool:
    """Whether ``text`` has commas enough for a literal of more than
    :data:`MAX_ELEMENTS` items (one count, in C)."""
    return text.count(",") > MAX_ELEMENTS


def screen(text: str) -> Screened:
    """``text`` as the parser can take it safely, or why it cannot."""
    if len(text) < _SMALL:
        return Screened(text)
    flagged = _fast_pass(text)
    if flagged is None:
        return Screened(text)
    return _exact_pass(text, flagged)


def _fast_pass(text: str) -> Refusal | None:
    """The first limit the fast pass sees exceeded (possibly miscounted)."""
    depth = 0
    heavy, light, strings, items = [0], [0], [0], [0]
    for match in _TOKENS.finditer(text):
        kind = match.lastgroup
        if kind == "heavy":
            heavy[depth] += 1
            if heavy[depth] > MAX_CHAIN:
                return _at(text, match.start(), "chain")
        elif kind == "string":
            strings[depth] += 1
            if strings[depth] > MAX_JOINED_STRINGS:
                return _at(text, match.start(), "strings")
        elif kind == "light":
            light[depth] += 1
            if light[depth] > MAX_LIGHT_CHAIN:
                return _at(text, match.start(), "light")
        elif kind == "separator":
            if match.group() != "\n" or depth == 0:
                heavy[depth] = light[depth] = strings[depth] = 0
            if match.group() == ",":
                items[depth] += 1
                if items[depth] > MAX_ELEMENTS:
                    return _at(text, match.start(), "elements")
        elif kind == "open":
            heavy[depth] += 1  # a call, subscript or parenthesis is one more level
            if heavy[depth] > MAX_CHAIN:
                return _at(text, match.start(), "chain")
            depth += 1
            if depth > MAX_BRACKET_DEPTH:
                return _at(text, match.start(), "depth")
            for counts in (heavy, light, strings, items):
                counts.append(0)
        elif kind == "close" and depth > 0:
            depth -= 1
            for counts in (heavy, light, strings, items):
                counts.pop()
    return None


def _at(text: str, offset: int, kind: str) -> Refusal:
    return Refusal(text.count("\n", 0, offset) + 1, _message(kind))


@dataclass
class _Level:
    opened_at: tuple[int, int]
    """(row, column) just after the opening bracket."""
    heavy: int = 0
    light: int = 0
    strings: int = 0
    items: int = 0


def _exact_pass(text: str, flagged: Refusal) -> Screened:
    """The same measure over Python's own tokens: exact, and slow (only for the rare
    text the fast pass flags); it also finds the brackets to elide. Text Python's
    tokenizer refuses keeps the fast verdict: handed to the parser, it could still
    overflow it."""
    levels = [_Level((0, 0))]
    spans: list[tuple[tuple[int, int], tuple[int, int]]] = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            refusal = _exact_token(token, levels, spans)
            if refusal is not None:
                return Screened(text, refusal)
    except (tokenize.TokenError, SyntaxError):
        if flagged.message == _message("elements"):
            return Screened(text)  # nothing deep: the parser reports the syntax error
        return Screened(text, flagged)
    return Screened(_elide(text, spans), elided=len(spans)) if spans else Screened(text)


def _exact_token(
    token: tokenize.TokenInfo,
    levels: list[_Level],
    spans: list[tuple[tuple[int, int], tuple[int, int]]],
) -> Refusal | None:
    kind, value, line = token.type, token.string, token.start[0]
    level = levels[-1]
    if kind in _STRING_STARTS:
        level.strings += 1
        if level.strings > MAX_JOINED_STRINGS:
            return Refusal(line, _message("strings"))
    elif (kind in (tokenize.NEWLINE, tokenize.NL) and len(levels) == 1) or value in (",", ";"):
        level.heavy = level.light = level.strings = 0
        if value == ",":
            level.items += 1
    elif kind == tokenize.OP and value in ("(", "[", "{"):
        level.heavy += 1
        if level.heavy > MAX_CHAIN:
            return Refusal(line, _message("chain"))
        levels.append(_Level(token.end))
        if len(levels) - 1 > MAX_BRACKET_DEPTH:
            return Refusal(line, _message("depth"))
    elif kind == tokenize.OP and value in (")", "]", "}") and len(levels) > 1:
        closed = levels.pop()
        if closed.items > MAX_ELEMENTS:
            spans.append((closed.opened_at, token.start))
    elif value in ("and", "or") and kind == tokenize.NAME:
        level.light += 1
        if level.light > MAX_LIGHT_CHAIN:
            return Refusal(line, _message("light"))
    elif _is_heavy(kind, value):
        level.heavy += 1
        if level.heavy > MAX_CHAIN:
            return Refusal(line, _message("chain"))
    return None


def _elide(text: str, spans: list[tuple[tuple[int, int], tuple[int, int]]]) -> str:
    """``text`` with the inside of each span replaced by ``...``, or by a string of
    the newlines it held (so every later line keeps its number). Nested spans: the
    outer one wins."""
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(position: tuple[int, int]) -> int:
        return starts[position[0] - 1] + position[1]

    pieces, cursor = [], 0
    for start, end in sorted((offset(a), offset(b)) for a, b in spans):
        if start < cursor:
            continue  # inside a span already elided
        pieces.append(text[cursor:start])
        # One string token holds the newlines: as blank lines, each would be a node.
        newlines = text.count("\n", start, end)
        pieces.append('"""' + "\n" * newlines + '"""' if newlines else "...")
        cursor = end
    pieces.append(text[cursor:])
    return "".join(pieces)


_HEAVY_OPERATORS = frozenset(
    {"**", "//", "<<", ">>", "-", "+", "*", "/", "%", "@", "&", "|", "^", "~", "."}
)
_HEAVY_WORDS = frozenset({"not", "if", "else", "lambda", "await"})


def _is_heavy(kind: int, value: str) -> bool:
    if kind == tokenize.OP:
        return value in _HEAVY_OPERATORS
    return kind == tokenize.NAME and value in _HEAVY_WORDS


_STRING_STARTS = frozenset(
    {tokenize.STRING, *(t for t in (getattr(tokenize, "FSTRING_START", None),) if t is not None)}
)


def _message(kind: str) -> str:
    if kind == "elements":
        return f"a bracketed literal of more than {MAX_ELEMENTS} items"
    if kind == "depth":
        return (
            f"too many nested parentheses (more than {MAX_BRACKET_DEPTH}, Python's own "
            "limit); the file was not parsed"
        )
    if kind == "chain":
        return (
            f"an expression chains more than {MAX_CHAIN} operations (attributes, calls, "
            "operators); it is too long to analyse and the file was not parsed"
        )
    if kind == "light":
        return (
            f"an expression joins more than {MAX_LIGHT_CHAIN} 'and'/'or' operands; it is "
            "too long to analyse and the file was not parsed"
        )
    return (
        f"more than {MAX_JOINED_STRINGS} strings are joined implicitly in one expression, "
        "more than libcst's parser takes; the file was not parsed"
    )
