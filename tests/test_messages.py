"""Finding messages split into headline, note and help (jobcheck/messages.py), for the
text and concise formats: on every fixture's findings the headline is short and the
three parts together keep every word of the message."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jobcheck.messages import HEADLINE_MAX, _scan, split
from tests.conftest import fixture_cases, run_case

CASES = fixture_cases()


def _words(text: str) -> list[str]:
    return re.findall(r"[\w=-]+", text)


@pytest.fixture(scope="module")
def messages() -> list[str]:
    found: set[str] = set()
    for case in CASES:
        found.update(f.message for f in run_case(case).findings)
    return sorted(found)


def test_headlines_are_short_and_nothing_is_lost(messages: list[str]) -> None:
    assert len(messages) > 100
    for message in messages:
        parts = split(message)
        assert parts.headline, message
        # Long first clauses lose their asides to the note; the longest kept are the
        # dead-letter runbook ones (one clause with no aside to drop).
        assert len(parts.headline) <= HEADLINE_MAX + 80, message
        together = _words(f"{parts.headline} {parts.note} {parts.help}")
        assert sorted(_words(message)) == sorted(together), message


@pytest.mark.parametrize(
    ("message", "headline", "note", "help"),
    [
        (
            "Celery task 'x' has no time limit (Celery sets none by default, and no "
            "task_time_limit/CELERY_TASK_TIME_LIMIT was found, anywhere in this project "
            "or its settings): set time_limit= on the task",
            "Celery task 'x' has no time limit",
            "Celery sets none by default, and no task_time_limit/CELERY_TASK_TIME_LIMIT "
            "was found, anywhere in this project or its settings",
            "set time_limit= on the task",
        ),
        (
            "beat entry 'report': crontab(hour=3) sets no minute; add minute=",
            "beat entry 'report': crontab(hour=3) sets no minute",
            "",
            "add minute=",
        ),
        (
            "job 'ship' takes 'order: Order', a model instance: take 'order_id'",
            "job 'ship' takes 'order: Order', a model instance",
            "",
            "take 'order_id'",
        ),
    ],
)
def test_split(message: str, headline: str, note: str, help: str) -> None:
    parts = split(message)
    assert (parts.headline, parts.note, parts.help) == (headline, note, help)


def _scan_every_character(text: str) -> list[tuple[int, str, int, bool]]:
    """The definition ``messages._scan`` keeps: the state at each character, read one
    by one (the module visits only the characters splitting looks at)."""
    states = []
    depth, quoted = 0, False
    for index, char in enumerate(text):
        if char == "'":
            if quoted and not text[index + 1 : index + 2].isalnum():
                quoted = False
                states.append((index, char, depth, True))
                continue
            if not quoted and (index == 0 or text[index - 1] in " ([{,=:"):
                quoted = True
        elif not quoted:
            if char in "([{":
                depth += 1
            elif char in ")]}":
                depth = max(0, depth - 1)
        states.append((index, char, depth, quoted))
    return states


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="ab 'c(d)[e]{f}:;.,XY=\"-\n", max_size=300))
def test_scan_sees_the_marks_as_a_character_by_character_reading(text: str) -> None:
    marks = set("'()[]{}:;.,")
    expected = [state for state in _scan_every_character(text) if state[1] in marks]
    assert list(_scan(text)) == expected
