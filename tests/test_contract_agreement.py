"""What ``jobcheck jobs`` says of a job and what the checks report agree: both read the
job's contract (``jobcheck/project/contract.py``), computed once. For every Celery task
of every fixture: ``missing-time-limit`` names the task exactly when its contract has no
time limit, and the ``time limit`` line ``jobs`` prints says "none" exactly then; for
every Sidekiq job, the same of ``no-dead-letter`` and its dead letter."""

from __future__ import annotations

from pathlib import Path

import pytest

from jobcheck.checks.scl18_missing_time_limit import MissingTimeLimit
from jobcheck.checks.scl34_no_dead_letter import NoDeadLetter
from jobcheck.config import Options
from jobcheck.engine import RunSettings, collect_facts
from jobcheck.frameworks.celery import contract
from jobcheck.frameworks.sidekiq import contract as sidekiq_contract
from jobcheck.project.contract import describe_dead_letter, describe_time_limit
from jobcheck.project.model import Project
from jobcheck.project.test_code import is_test_code
from tests.conftest import case_id, fixture_cases


def _celery_cases() -> list[Path]:
    return [
        case
        for case in fixture_cases()
        if any(
            b"celery" in path.read_bytes().lower() for path in case.rglob("*.py") if path.is_file()
        )
    ]


@pytest.mark.parametrize("case", _celery_cases(), ids=case_id)
def test_missing_time_limit_fires_exactly_when_the_contract_has_none(case: Path) -> None:
    root = str(case)
    options = Options(root=root)
    _, analysis = collect_facts([root], options, RunSettings(jobs=1))
    project = Project(analysis.facts, loader=analysis.loader)
    check = MissingTimeLimit(project, options)
    reported = " ".join(f.message for f in check.run({"missing-time-limit"}))
    for job in project.jobs:
        if job.framework != "celery" or is_test_code(job.file):
            continue
        function = project.function(job.task.function)
        if function is not None and function.not_implemented:
            continue
        limit = contract.time_limit(project, job)
        flagged = f"Celery task '{job.task.name}' " in reported
        assert flagged == (not limit.present), job.task.qualname
        assert describe_time_limit(limit).startswith("none") == (not limit.present)


def _sidekiq_cases() -> list[Path]:
    return [
        case
        for case in fixture_cases()
        if any(b"Sidekiq" in path.read_bytes() for path in case.rglob("*.rb") if path.is_file())
    ]


@pytest.mark.parametrize("case", _sidekiq_cases(), ids=case_id)
def test_no_dead_letter_fires_exactly_when_the_contract_keeps_nothing(case: Path) -> None:
    """Sidekiq's dead letter: ``no-dead-letter`` names the job exactly when its contract
    keeps nothing of a failure, and ``jobs`` says "none" then (``retry: 0`` is the dead
    set; ``retry: false`` on a base class counts for the jobs built on it)."""
    root = str(case)
    options = Options(root=root)
    _, analysis = collect_facts([root], options, RunSettings(jobs=1))
    project = Project(analysis.facts, loader=analysis.loader)
    check = NoDeadLetter(project, options)
    reported = " ".join(f.message for f in check.run({"no-dead-letter"}))
    for job in project.jobs:
        if job.framework != "sidekiq" or is_test_code(job.file):
            continue
        dead = sidekiq_contract.dead_letter(project, job)
        flagged = f"Sidekiq job '{job.task.name}' sets " in reported
        assert flagged == (not dead.kept), job.task.qualname
        assert describe_dead_letter(dead).startswith("none") == (not dead.kept)
