"""What the evaluator makes of configuration expressions (syntax/evaluate.py)."""

from __future__ import annotations

import pytest

from jobcheck.extract import extract_file
from jobcheck.facts.values import JOIN, CallV, Const, DictV, Opaque, Ref


def _queue_of(expression: str) -> object:
    source = (
        "from celery import shared_task\n"
        "from other import EVERY, OTHER\n"
        "import mod\n"
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
    [
        'f"{PREFIX!r}"',
        'f"{REGION:>4}"',
        'f"{{PREFIX}}"',
        'f"{PREFIX}\\n"',
        'f"{PREFIX}-{flag is True}"',
        '"a" + str(3.5)',
        "PREFIX + 1.5",
        'f"{PREFIX}-{True}"',
        'f"{local_variable}-high"',
    ],
)
def test_f_strings_with_unknown_or_formatted_parts_stay_opaque(expression: str) -> None:
    assert isinstance(_queue_of(expression), Opaque)


@pytest.mark.parametrize(
    ("expression", "parts"),
    [
        ('f"{OTHER}-high"', (Ref("other.OTHER"), Const("-high"))),
        ('"*/" + str(EVERY)', (Const("*/"), Ref("other.EVERY"))),
        ('PREFIX + "-" + OTHER', (Const("shop-"), Ref("other.OTHER"))),
        ('f"{PREFIX}-{mod.NAME}"', (Const("shop"), Const("-"), Ref("mod.NAME"))),
    ],
)
def test_strings_with_names_of_other_modules_are_joins(expression: str, parts: tuple) -> None:
    """A name the module does not define may be another module's constant: the parts
    are kept for the project model to resolve."""
    assert _queue_of(expression) == CallV(JOIN, parts)


@pytest.mark.parametrize(
    ("expression", "expected"),
    [('"*/" + str(REGION)', "*/3"), ('PREFIX + "-" + "high"', "shop-high")],
)
def test_concatenations_of_known_parts_are_strings(expression: str, expected: str) -> None:
    assert _queue_of(expression) == Const(expected)


def _project(files: dict[str, str]) -> object:
    from jobcheck.project import Project

    return Project(
        [extract_file(f"{m.replace('.', '/')}.py", src.encode(), m) for m, src in files.items()]
    )


def test_django_settings_names_resolve_to_the_settings_modules_values() -> None:
    project = _project(
        {
            "shop.settings": (
                "import os\n"
                'TASK_LIMIT = int(os.environ.get("TASK_LIMIT", "240"))\n'
                'QUEUE_PREFIX = "shop"\n'
            ),
            "shop.tests.settings": 'QUEUE_PREFIX = "test"\n',
        }
    )
    limit = project.value(Ref("django.conf.settings.TASK_LIMIT"))  # type: ignore[attr-defined]
    assert isinstance(limit, Const) and limit.value == 240
    prefix = project.value(Ref("django.conf.settings.QUEUE_PREFIX"))  # type: ignore[attr-defined]
    assert prefix == Const("shop")
    unknown = Ref("django.conf.settings.NOT_SET")
    assert project.value(unknown) == unknown  # type: ignore[attr-defined]


def test_joins_resolve_across_modules() -> None:
    project = _project(
        {
            "shop.naming": 'PREFIX = "shop"\nEVERY = 15\n',
            "shop.jobs": "from celery import shared_task\n",
        }
    )
    join = CallV(JOIN, (Ref("shop.naming.PREFIX"), Const("-bulk")))
    assert project.value(join) == Const("shop-bulk")  # type: ignore[attr-defined]
    every = CallV(JOIN, (Const("*/"), Ref("shop.naming.EVERY")))
    assert project.value(every) == Const("*/15")  # type: ignore[attr-defined]
    unresolved = CallV(JOIN, (Ref("shop.naming.MISSING"), Const("-x")))
    assert project.value(unresolved) == unresolved  # type: ignore[attr-defined]


def _settings_value(expression: str) -> object:
    source = f"NAMES = ('default', 'low')\nSETTING = {expression}\n"
    facts = extract_file("settings.py", source.encode(), "proj.settings")
    return facts.aliases.get("proj.settings.SETTING")


def test_a_dict_comprehension_over_literal_names_is_the_dict_it_builds() -> None:
    value = _settings_value("{name: {'TIMEOUT': 300, 'NAME': name} for name in ('a', 'b')}")
    assert value == DictV(
        (
            (Const("a"), DictV(((Const("TIMEOUT"), Const(300)), (Const("NAME"), Const("a"))))),
            (Const("b"), DictV(((Const("TIMEOUT"), Const(300)), (Const("NAME"), Const("b"))))),
        )
    )


@pytest.mark.parametrize(
    "expression",
    [
        "{name: 1 for name in range(3)}",  # not a literal sequence
        "{name: 1 for name in ('a', 'b') if name}",  # filtered
        "{k: v for k, v in PAIRS}",  # unknown items, two names
        "{a: b for a in ('x',) for b in ('y',)}",  # nested loops
    ],
)
def test_other_dict_comprehensions_stay_unknown(expression: str) -> None:
    assert _settings_value(expression) is None  # not a readable constant: no alias


def test_comprehensions_are_unrolled_once_and_small() -> None:
    """A value unrolled for each item is read again each time: not inside another
    comprehension being read (nesting would grow the work exponentially), nor when long."""
    nested = "{a: {b: 1 for b in ('x', 'y')} for a in ('p', 'q')}"
    value = _settings_value(nested)
    assert isinstance(value, DictV)
    assert all(isinstance(inner, Opaque) for _, inner in value.items)
    long_value = "{" + ", ".join(f"'k{i}': {i}" for i in range(400)) + "}"
    assert _settings_value(f"{{name: {long_value} for name in ('a', 'b')}}") is None
