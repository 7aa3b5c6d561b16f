"""What the evaluator makes of configuration expressions (syntax/evaluate.py)."""

from __future__ import annotations

import pytest

from jobcheck.extract import extract_file
from jobcheck.facts.values import Const, Opaque


def _queue_of(expression: str) -> object:
    source = (
        "from celery import shared_task\n"
        'PREFIX = "shop"\n'
        "REGION = 3\n"
        f"@shared_task(queue={expression}, time_limit=5)\n"
        "def job():\n"
        "    pass\n"
    )
    (task,) = extract_file("t.py", source.encode(), "t").tasks
    return task.option("queue")


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ('f"{PREFIX}-high"', "shop-high"),
        ('f"{PREFIX}-{REGION}"', "shop-3"),
        ('f"plain"', "plain"),
        ('"a" f"{PREFIX}"', "ashop"),
    ],
)
def test_f_strings_of_known_parts_are_strings(expression: str, expected: str) -> None:
    assert _queue_of(expression) == Const(expected)


@pytest.mark.parametrize(
    "expression",
    ['f"{unknown}-high"', 'f"{PREFIX!r}"', 'f"{REGION:>4}"', 'f"{{PREFIX}}"', 'f"{PREFIX}\\n"'],
)
def test_f_strings_with_unknown_or_formatted_parts_stay_opaque(expression: str) -> None:
    assert isinstance(_queue_of(expression), Opaque)
