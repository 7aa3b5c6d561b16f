"""What ``jobcheck jobs`` says of a job and what the checks report agree: both read the
job's contract (``jobcheck/project/contract.py``), computed once. For every job of every
fixture: ``missing-time-limit`` reports the job exactly when its contract has no time
limit, and the ``time limit`` line ``jobs`` prints says "none" exactly then; for every
Sidekiq and arq job, the same of ``no-dead-letter`` and its dead letter."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from jobcheck.checks.scl18_missing_time_limit import MissingTimeLimit
from jobcheck.checks.scl18_time_limit_exceeds_visibility import TimeLimitExceedsVisibility
from jobcheck.checks.scl34_no_dead_letter import NoDeadLetter
from jobcheck.checks.scl34_unbounded_retries import UnboundedRetries
from jobcheck.cli import cli
from jobcheck.config import Options
from jobcheck.engine import RunSettings, collect_facts
from jobcheck.frameworks.arq import checks as arq_checks
from jobcheck.frameworks.celery import contract as celery_contract
from jobcheck.frameworks.celery import routes as celery_routes
from jobcheck.frameworks.sidekiq import contract as sidekiq_contract
from jobcheck.project.contract import describe_dead_letter, describe_time_limit
from jobcheck.project.model import Project
from jobcheck.project.test_code import is_test_code
from tests.conftest import case_id, fixture_cases


def _project(case: Path) -> tuple[Project, Options]:
    """The project model of a fixture case, built from its files' facts."""
    root = str(case)
    options = Options(root=root)
    _, analysis = collect_facts([root], options, RunSettings(jobs=1))
    return Project(analysis.facts, loader=analysis.loader), options


def _python_job_cases() -> list[Path]:
    return [
        case
        for case in fixture_cases()
        if any(
            _JOB_LIBRARIES.search(path.read_bytes())
            for path in case.rglob("*.py")
            if path.is_file()
        )
    ]


def _cases_mentioning(word: bytes, files: str = "*.py") -> list[Path]:
    """The fixture cases with a file matching ``files`` that mentions ``word``."""
    return [
        case
        for case in fixture_cases()
        if any(word in path.read_bytes() for path in case.rglob(files) if path.is_file())
    ]


_JOB_LIBRARIES = re.compile(rb"celery|rq|dramatiq|huey|arq|taskiq", re.IGNORECASE)


@pytest.mark.parametrize("case", _python_job_cases(), ids=case_id)
def test_missing_time_limit_fires_exactly_when_the_contract_has_none(case: Path) -> None:
    """Every job of every framework with a time limit to set (Celery, RQ, Dramatiq, Huey,
    arq, taskiq): ``missing-time-limit`` reports it, by name or at the place that decides
    it (a worker pool, a middleware list), exactly when its contract's limit is not
    present; and ``jobs`` says "none" exactly then."""
    project, options = _project(case)
    findings = list(MissingTimeLimit(project, options).run({"missing-time-limit"}))
    places = {(f.path, f.loc.line) for f in findings}
    for job in project.jobs:
        if is_test_code(job.file):
            continue
        function = project.function(job.task.function)
        if function is not None and function.not_implemented:
            continue
        limit = project.contract(job).time_limit
        if limit is None or not limit.settable:
            continue
        named = any(f"'{job.task.name}'" in f.message and f.path == job.file.path for f in findings)
        decided = limit.decided_at
        at_decision = decided is not None and (decided.path, decided.loc.line) in places
        assert (named or at_decision) == (not limit.present), job.task.qualname
        if limit.present:
            assert not named, job.task.qualname
        words = describe_time_limit(limit)
        assert words.startswith("none") == (not limit.present and not limit.unknown), words


@pytest.mark.parametrize("case", _python_job_cases(), ids=case_id)
def test_unbounded_retries_fire_exactly_when_the_contract_has_no_cap(case: Path) -> None:
    """Every job whose framework gives its retries a contract (Celery, Dramatiq):
    ``unbounded-retries`` reports the option that removes the cap exactly when the
    contract has one, and ``jobs`` says "unbounded" exactly then."""
    project, options = _project(case)
    findings = list(UnboundedRetries(project, options).run({"unbounded-retries"}))
    for job in project.jobs:
        retries = project.contract(job).retries
        if retries is None or is_test_code(job.file):
            continue
        written = f"'{job.task.name}' sets {retries.written}:"
        flagged = any(written in f.message for f in findings)
        assert flagged == retries.unbounded, job.task.qualname
        assert ("unbounded" in retries.words) == retries.unbounded, retries.words


@pytest.mark.parametrize("case", _cases_mentioning(b"Sidekiq", "*.rb"), ids=case_id)
def test_no_dead_letter_fires_exactly_when_the_contract_keeps_nothing(case: Path) -> None:
    """Sidekiq's dead letter: ``no-dead-letter`` names the job exactly when its contract
    keeps nothing of a failure, and ``jobs`` says "none" then (``retry: 0`` is the dead
    set; ``retry: false`` on a base class counts for the jobs built on it)."""
    project, options = _project(case)
    check = NoDeadLetter(project, options)
    reported = " ".join(f.message for f in check.run({"no-dead-letter"}))
    for job in project.jobs:
        if job.framework != "sidekiq" or is_test_code(job.file):
            continue
        dead = sidekiq_contract.dead_letter(project, job)
        flagged = f"Sidekiq job '{job.task.name}' sets " in reported
        assert flagged == (not dead.kept), job.task.qualname
        assert describe_dead_letter(dead).startswith("none") == (not dead.kept)


@pytest.mark.parametrize("case", _cases_mentioning(b"arq"), ids=case_id)
def test_arq_no_dead_letter_fires_exactly_when_a_job_keeps_nothing(case: Path) -> None:
    """arq: the project's no-dead-letter finding exists exactly when some job's contract
    keeps nothing of a failure (``keep_result_forever=True`` keeps every failed result, a
    cron job's next run replays it), and ``jobs`` says "none" for exactly those jobs."""
    project, options = _project(case)
    check = NoDeadLetter(project, options)
    flagged = any("arq job" in f.message for f in check.run({"no-dead-letter"}))
    lost = [
        job
        for job in project.jobs
        if job.framework == "arq" and not arq_checks.dead_letter(project, job).kept
    ]
    assert flagged == bool(lost and arq_checks.workers(project))
    for job in project.jobs:
        if job.framework == "arq":
            dead = arq_checks.dead_letter(project, job)
            assert describe_dead_letter(dead).startswith("none") == (not dead.kept)


def test_arq_results_kept_forever_are_the_dead_letter_in_review() -> None:
    case = Path(__file__).parent / "fixtures/SCL-34/no-dead-letter/arq_results_kept"
    result = CliRunner().invoke(cli, ["jobs", "--format", "json", str(case)])
    assert result.exit_code == 0, result.output
    dead = {c["job"]: c["dead_letter"] for c in json.loads(result.output)["jobs"]}
    assert dead == {
        "sync_orders": "its failed result, kept forever (WorkerSettings.keep_result_forever)",
        "cron:nightly": "its next scheduled run (a cron job takes no arguments)",
    }


@pytest.mark.parametrize("case", _cases_mentioning(b"celery"), ids=case_id)
def test_celery_no_dead_letter_fires_exactly_when_a_task_keeps_nothing(case: Path) -> None:
    """Celery: the project's no-dead-letter finding counts exactly the tasks whose
    contract keeps nothing of a failure (no dead-letter exchange on their queue, no
    handler that stores it), and ``jobs`` says "none found" for exactly those."""
    project, options = _project(case)
    findings = [
        f
        for f in NoDeadLetter(project, options).run({"no-dead-letter"})
        if "Celery task" in f.message
    ]
    tasks = [j for j in project.jobs if j.framework == "celery" and not is_test_code(j.file)]
    lost = [job for job in tasks if not celery_contract.dead_letter(project, job).kept]
    if findings:
        (finding,) = findings
        counted = f"has {len(lost)} Celery task" if len(lost) == len(tasks) else f"{len(lost)} of"
        assert counted in finding.message, finding.message
    else:  # every task keeps its failures, or no Celery app is in sight to judge
        assert not lost or celery_routes.of(project.routing).app_place() is None
    for job in tasks:
        dead = celery_contract.dead_letter(project, job)
        assert (describe_dead_letter(dead) == "none found") == (not dead.kept)


@pytest.mark.parametrize("case", _cases_mentioning(b"celery"), ids=case_id)
def test_visibility_findings_name_only_tasks_review_calls_late(case: Path) -> None:
    """Celery's delivery: ``time-limit-exceeds-visibility`` names a task only when its
    contract's delivery is late (an ``acks_late`` jobcheck cannot read is neither), and
    ``jobs`` starts the delivery line with "late", "early" or "unknown" as the contract
    says."""
    project, options = _project(case)
    check = TimeLimitExceedsVisibility(project, options)
    reported = " ".join(f.message for f in check.run({"time-limit-exceeds-visibility"}))
    for job in project.jobs:
        if job.framework != "celery" or is_test_code(job.file):
            continue
        delivery = celery_contract.delivery(project, job)
        if f"Celery task '{job.task.name}':" in reported:
            assert delivery.late is True, job.task.qualname
        state = {True: "late", False: "early", None: "unknown"}[delivery.late]
        assert delivery.words.startswith(state), delivery.words
