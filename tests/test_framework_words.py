"""A job of one framework is never reported in another's terms: the findings of each
framework's fixture projects name none of the other frameworks, their options or their
tools (issue: taskiq and Huey tasks were reported as Celery tasks with no time_limit)."""

from __future__ import annotations

import re

import pytest

from tests.conftest import FIXTURES, run_case

# Words only one framework's messages may use (option names, tools, products).
WORDS = {
    "celery": (
        "Celery",
        "soft_time_limit",
        "task_time_limit",
        "beat",
        "apply_async",
        "autoretry",
        "chunks",
        "countdown",
    ),
    "rq": ("RQ", "Retry(max", "failed job registry"),
    "dramatiq": ("Dramatiq", "actor", "max_age", "milliseconds"),
    "huey": ("Huey", "lock_task", "SIGNAL_ERROR"),
    "arq": ("arq", "WorkerSettings", "job_timeout", "enqueue_job", "_defer_by"),
    "taskiq": ("taskiq", "kiq", "TaskiqMiddleware", "with_labels"),
    "kubernetes": ("CronJob", "concurrencyPolicy", "activeDeadlineSeconds"),
    "sidekiq": ("Sidekiq", "sidekiq_options"),
}
# The fixture folders that hold one framework's projects.
FOLDERS = {
    "huey": "frameworks/huey",
    "arq": "frameworks/arq",
    "taskiq": "frameworks/taskiq",
    "kubernetes": "frameworks/kubernetes",
}
CASES = [
    (framework, case)
    for framework, folder in FOLDERS.items()
    for case in sorted((FIXTURES / folder).iterdir())
    if case.is_dir()
]


def _judged(framework: str, finding) -> bool:  # type: ignore[no-untyped-def]
    """A manifest project also holds Python jobs (to pile up with): only the findings on
    manifests are its own, and a pile-up names the other framework's entry on purpose."""
    if framework != "kubernetes":
        return True
    return finding.path.endswith((".yaml", ".yml")) and finding.check != "schedule-pile-up"


def _foreign(framework: str) -> re.Pattern[str]:
    words = [w for name, ws in WORDS.items() if name != framework for w in ws]
    return re.compile("|".join(rf"(?<![\w.]){re.escape(w)}(?!\w)" for w in words))


@pytest.mark.parametrize(
    ("framework", "case"), CASES, ids=[f"{c.parent.name}/{c.name}" for _, c in CASES]
)
def test_findings_speak_only_their_own_framework(framework: str, case) -> None:  # type: ignore[no-untyped-def]
    report = run_case(case)
    assert report.findings, "the case has findings to read"
    foreign = _foreign(framework)
    wrong = [
        f"{f.path}:{f.loc.line} {f.check}: {match.group(0)!r} in {f.message!r}"
        for f in report.findings
        if _judged(framework, f) and (match := foreign.search(f.message))
    ]
    assert not wrong, "\n".join(wrong)


def test_a_sqlalchemy_session_is_told_to_enqueue_after_its_commit() -> None:
    """Django's transaction.on_commit is no advice for a SQLAlchemy session."""
    report = run_case(FIXTURES / "JOB-01/enqueue-before-commit/sqlalchemy_commit")
    messages = [f.message for f in report.findings if f.rule == "JOB-01"]
    assert len(messages) == 3
    for message in messages:
        assert "after session.commit() returns" in message
        assert "transaction.on_commit" not in message


def test_a_huey_task_without_retries_is_not_said_to_be_redelivered() -> None:
    """Huey runs a task again only through retries= (0 by default), and redelivers
    nothing: the repeat comes from an enqueue made twice."""
    report = run_case(FIXTURES / "frameworks/huey/checked_project")
    messages = [f.message for f in report.findings if f.rule == "SCL-17"]
    assert messages and all("redelivered" not in m for m in messages)
    assert any("a task enqueued twice" in m for m in messages)
