"""The prefilter: triggers declared by recognizers and checks, compiled into one
matcher; what it keeps on real-looking code; that a check can add a trigger."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jobcheck import prefilter
from jobcheck.checks import RULE_CLASSES
from jobcheck.triggers import Prefilter, Trigger, names_pattern

KEPT = {
    "from celery import shared_task\n": "shared_task",
    "@task(max_retries=3)\ndef f(): ...\n": "bare task decorator",
    "app = Celery('proj')\n": "Celery app",
    "@app.task(bind=True)\ndef f(self): ...\n": "task decorator",
    "send_email.delay(user.pk)\n": "delay",
    "order_task.apply_async(args=[1], countdown=5)\n": "apply_async",
    "chain(a.s(1), b.si())\n": "signature",
    "CELERY_TASK_TIME_LIMIT = 60\n": "Django-style setting",
    "if DEBUG:\n    CELERY_TASK_ALWAYS_EAGER: bool = True\n": "Django-style setting",
    "app.conf.task_time_limit = 30\n": "app.conf",
    "app.conf.update(task_time_limit=30)\n": "app.conf",
    "class Base(app.Task):\n    abstract = True\n": "Task base class",
    "from kombu import Queue\n": "kombu",
    "from rq import Queue\n": "names rq",
    "q.enqueue(count_words, url)\n": "enqueue",
    "import dramatiq\n": "names dramatiq",
    "broker.actor.send_with_options(args=(1,))\n": "send_with_options",
    "DATABASES = {'default': {'ATOMIC_REQUESTS': True}}\n": "ATOMIC_REQUESTS",
    "x = 1  # jobcheck: ignore[SCL-21]\n": "suppression comment",
}
DROPPED = [
    "from celery.exceptions import Retry\n",
    "from django.conf import settings\nvalue = settings.CELERY_TASK_TIME_LIMIT\n",
    "# runs in the celery worker\nx = 1\n",
    "from saleor.celeryconf import app\n",
    "result_data = compute()\ntask_id = uuid4()\n",
    "mock_task.delay.assert_called_once()\n",
    "def get_signature(payload): ...\n",
    "self.conf = load()\n",
]


@pytest.mark.parametrize("source", sorted(KEPT), ids=lambda s: s.split("\n")[0][:40])
def test_kept_with_reason(source: str) -> None:
    assert prefilter.compiled().reason(source.encode(), "shop.module") == KEPT[source]


@pytest.mark.parametrize("source", DROPPED, ids=lambda s: s.split("\n")[0][:40])
def test_look_alikes_dropped(source: str) -> None:
    assert prefilter.compiled().reason(source.encode(), "shop.module") is None


def test_celery_config_module_kept_by_its_name() -> None:
    compiled = prefilter.compiled()
    assert compiled.reason(b"task_time_limit = 30\n", "proj.celeryconfig") == "Celery config module"
    assert compiled.reason(b"task_time_limit = 30\n", "proj.settings") is None


def test_sends_are_noted_for_the_second_pass() -> None:
    decision = prefilter.compiled().decide(b"from .actors import count as c\nc.send(1)\n")
    assert not decision.kept and decision.sends
    pattern = names_pattern({"count"})
    assert pattern is not None and pattern.search(b"from .actors import count as c")
    assert not pattern.search(b"recount = 1")


def test_a_check_adds_its_own_trigger(monkeypatch: pytest.MonkeyPatch) -> None:
    rule = RULE_CLASSES[0]
    trigger = Trigger("flask route", b"@app.route", rb"@app\.route\(")
    monkeypatch.setattr(rule, "PREFILTER", (trigger,), raising=False)
    monkeypatch.setattr(prefilter, "_compiled", {})
    assert prefilter.compiled().reason(b"@app.route('/')\ndef index(): ...\n") == "flask route"


def test_python_files_are_not_screened_with_the_plugins_ruby_and_yaml_triggers() -> None:
    """Sidekiq's triggers (``perform_async``, ``queues:``) keep Ruby and YAML files; a
    Python file that only mentions them matters to no Python recognizer."""
    data = b"# calls perform_async on the Rails side\nqueues: list = []\n"
    assert prefilter.decide("app/notes.py", data, "app.notes").kept is False
    assert prefilter.decide("app/workers/notes.rb", data, "").kept is True
    assert prefilter.decide("app/tasks.py", b"from celery import shared_task\n", "").kept


def test_confirm_runs_only_after_the_literal() -> None:
    matcher = Prefilter([Trigger("x", b"needle", rb"needle\s*\(")])
    assert matcher.reason(b"haystack needle (1)") == "x"
    assert matcher.reason(b"haystack needle = 1") is None
    assert matcher.reason(b"no match") is None


def test_every_trigger_compiles_and_has_a_literal_or_module() -> None:
    for trigger in prefilter.all_triggers():
        assert trigger.literal or trigger.module, trigger
        Prefilter([trigger])


def test_prefilter_keeps_every_fixture_file_with_expectations() -> None:
    """A file with an expected finding must be gathered: kept by a trigger, by the
    second pass (RQ jobs enqueued by reference, a project's own job decorators...), or
    read before the checks because a job reaches it (a helper's clause several jobs
    reach is reported there); checked end to end by the fixture suite with and without
    the prefilter."""
    from jobcheck.discovery import discover
    from jobcheck.engine import RunSettings, gather
    from jobcheck.project import Project
    from jobcheck.project.reach import read_reached

    fixtures = Path(__file__).parent / "fixtures"
    missed = []
    for file in fixtures.rglob("*.py"):
        data = file.read_bytes()
        decision = prefilter.compiled().decide(data, file.stem)
        if b"# expect:" in data and not decision.kept and not decision.sends:
            missed.append(file)
    by_case: dict[Path, list[Path]] = {}
    for file in missed:
        case = fixtures / file.relative_to(fixtures).parts[0] / file.relative_to(fixtures).parts[1]
        by_case.setdefault(case, []).append(file)
    still_missed = []
    for case, files in by_case.items():
        analysis = gather(discover([str(case)]), RunSettings(jobs=1))
        project = Project(analysis.facts, loader=analysis.loader)
        read_reached(project)
        gathered = [*analysis.all_facts(), *project.summaries.part_facts()]
        analysed = {Path(f.path).resolve() for f in gathered}
        still_missed += [f for f in files if f.resolve() not in analysed]
    assert not still_missed, still_missed


# -- RE2 matches what Python's re would --------------------------------------------------

# Fragments the patterns turn on, and bytes the engines could read differently: a
# vertical tab (``\s`` to Python, not to RE2), Latin-1 and invalid UTF-8 bytes, NUL.
_FRAGMENTS = [
    b"redis://",
    b"REDIS://",
    b"amqp://",
    b"db+postgresql://",
    b"x",
    b"user",
    b":",
    b"@",
    b"/",
    b" ",
    b"\t",
    b"\n",
    b"\v",
    b"\f",
    b"\r",
    b"'",
    b'"',
    b"\xe9",
    b"\xff",
    b"\x00",
    b"_",
    b"import ",
    b"from ",
    b"requests",
    b"django.core",
    b" import mail",
    b"django",
    b"flask",
    b"@app.route",
    b"(",
    b"self",
    b",",
    b"request",
    b"View",
    b"Route",
    b".get",
    b"smtplib",
    b"PIL",
]


def _linear_patterns() -> list[bytes]:
    from jobcheck.extract import effects
    from jobcheck.vocabulary import credentials

    return [
        credentials.PREFILTER,
        effects._SLOW_IMPORT.pattern,
        effects._WEB.pattern,
        effects._HANDLER.pattern,
    ]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_FRAGMENTS), max_size=14))
def test_linear_search_agrees_with_python_re(pieces: list[bytes]) -> None:
    import re

    from jobcheck.triggers import LinearSearch

    data = b"".join(pieces)
    for pattern in _linear_patterns():
        assert LinearSearch(pattern)(data) == (re.search(pattern, data) is not None), (
            pattern,
            data,
        )


def test_linear_search_finds_what_the_patterns_describe() -> None:
    from jobcheck.extract import effects
    from jobcheck.triggers import LinearSearch
    from jobcheck.vocabulary import credentials

    credentials_url = LinearSearch(credentials.PREFILTER)
    assert credentials_url(b'BROKER = "redis://:s3cret@cache:6379/0"')
    assert not credentials_url(b'BROKER = "redis://cache:6379/0"')
    assert not credentials_url(b'"redis://u\v:p@h"')  # whitespace in the user part
    assert effects._SLOW_IMPORT(b"import os\n  from smtplib import SMTP\n")
    assert not effects._SLOW_IMPORT(b"x = 'import smtplib'\n")
    assert effects._HANDLER(b"def get(self ,\v request):")


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([*_FRAGMENTS, b".delay", b"apply_async", b".s", b"CELERY"])))
def test_literals_found_in_one_pass_are_those_bytes_find_finds(pieces: list[bytes]) -> None:
    screen = prefilter.compiled()
    data = b"".join(pieces)
    expected = {literal for literal in screen._literals if literal in data}
    assert screen._present(data) == expected
