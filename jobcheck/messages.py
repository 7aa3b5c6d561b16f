"""A finding's message in parts, for formats that show a short headline: checks write
one sentence that says what was found, why it matters and what to do; the headline is
its first clause (what was found), the rest is the help. The JSON ``message`` stays
whole.

``split("Celery task 'x' has no time limit (Celery sets none by default): set
time_limit= on the task")`` gives the headline ``"Celery task 'x' has no time
limit"``, the note ``"Celery sets none by default"`` and the help ``"set time_limit=
on the task"``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

HEADLINE_MAX = 110
"""Longer first clauses lose their longer parentheses, then clauses after a comma."""
_LONG_ASIDE = 16
# A comma before one of these starts a clause that explains rather than reports.
_CLAUSE_STARTS = ("and ", "so ", "which ", "counted ", "whose ", "while ")
# "Celery task 'x'" before a colon is the subject, not a whole statement.
_SUBJECT_WORDS = 4


@dataclass(frozen=True)
class Parts:
    headline: str
    note: str
    """What the headline left out of the first clause ("" when nothing)."""
    help: str
    """The rest of the message: why it matters and what to do."""


def split(message: str) -> Parts:
    head, rest = _first_clause(message)
    headline, note = _shorten(head)
    return Parts(headline, note, rest)


_MARKS = re.compile(r"['()\[\]{}:;.,]")
"""The characters splitting looks at: quotes, brackets and punctuation."""


def _scan(text: str) -> Iterator[tuple[int, str, int, bool]]:
    """(index, character, bracket depth, inside a quoted name) for every quote, bracket
    and punctuation mark (:data:`_MARKS`; splitting looks at no other character). A
    quote opens after a space or bracket (so "Celery's" opens none) and closes before
    anything but a letter or digit."""
    depth = 0
    quoted = False
    for match in _MARKS.finditer(text):
        index = match.start()
        char = text[index]
        if char == "'":
            if quoted and not text[index + 1 : index + 2].isalnum():
                quoted = False
                yield index, char, depth, True
                continue
            if not quoted and (index == 0 or text[index - 1] in " ([{,=:"):
                quoted = True
        elif not quoted:
            if char in "([{":
                depth += 1
            elif char in ")]}":
                depth = max(0, depth - 1)
        yield index, char, depth, quoted


def _top_level(text: str) -> Iterator[tuple[int, str]]:
    """(index, character) of the characters outside brackets and quoted names."""
    for index, char, depth, quoted in _scan(text):
        if depth == 0 and not quoted and char not in ")]}":
            yield index, char


def _first_clause(message: str) -> tuple[str, str]:
    for index, char in _top_level(message):
        following = message[index + 1 : index + 3]
        ends = (char in ":;" and following[:1] == " ") or (
            char == "." and following[:1] == " " and following[1:2].isupper()
        )
        if not ends:
            continue
        head = message[:index].strip()
        if len(head.split()) < _SUBJECT_WORDS and head[-1:] in "')\"":
            continue  # "beat entry 'x': ..." names the subject first
        return head, message[index + 1 :].strip()
    return message.strip(), ""


def _shorten(head: str) -> tuple[str, str]:
    if len(head) <= HEADLINE_MAX:
        return head, ""
    kept, asides = _without_asides(head)
    notes = [*asides]
    if len(kept) > HEADLINE_MAX:
        cut = _clause_cut(kept)
        if cut is not None:
            kept, tail = kept[:cut].rstrip(" ,"), kept[cut:].strip(" ,")
            notes.append(tail)
    return kept, "; ".join(n for n in notes if n)


def _without_asides(text: str) -> tuple[str, list[str]]:
    """``text`` without its top-level parentheses longer than a few words, and those."""
    asides: list[tuple[int, int]] = []
    start = None
    for index, char, depth, quoted in _scan(text):
        if quoted:
            continue
        if char == "(" and depth == 1:
            start = index
        elif char == ")" and depth == 0 and start is not None:
            if index - start - 1 >= _LONG_ASIDE and start and text[start - 1] == " ":
                asides.append((start, index + 1))
            start = None
    if not asides:
        return text, []
    kept, position = [], 0
    for begin, end in asides:
        kept.append(text[position:begin])
        position = end
    kept.append(text[position:])
    cleaned = " ".join("".join(kept).split())
    for mark in (" ,", " ;", " :"):
        cleaned = cleaned.replace(mark, mark[1])
    return cleaned, [text[begin + 1 : end - 1] for begin, end in asides]


def _clause_cut(text: str) -> int | None:
    """The index of the first top-level ``, and``/``, which``... after which the
    clause explains; None when there is none before the end."""
    for index, char in _top_level(text):
        if char == "," and index >= 20 and text[index + 2 :].startswith(_CLAUSE_STARTS):
            return index + 1
    return None
