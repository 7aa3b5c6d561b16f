"""RQ's part of the checks: infinite job timeouts (SCL-18) and flat retries (SCL-34).

rq/queue.py: ``Queue.DEFAULT_TIMEOUT = 180`` s; a job timeout of -1 means "no timeout"
(rq/worker/worker_classes.py treats ``job.timeout == -1`` as infinite). rq/job.py
``Retry.__init__``: ``interval`` defaults to 0; a list grows per attempt.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from jobcheck.facts.values import CallV, SeqV, Value, number, truthy
from jobcheck.frameworks.rq import contract
from jobcheck.frameworks.semantics_base import Check, CheckParts
from jobcheck.project import production

if TYPE_CHECKING:
    from jobcheck.facts import Loc
    from jobcheck.findings import Finding
    from jobcheck.project.contract import TimeLimit
    from jobcheck.project.model import Job

NAME = "rq"
RQ_INFINITE = -1.0
RQ_RETRY = frozenset({"rq.Retry", "rq.retry.Retry", "rq.job.Retry"})


def infinite_job(check: Check, job: Job, limit: TimeLimit) -> Iterator[Finding]:
    """A job whose timeout is -1: its own (reported at the job), or its django-rq
    queue's ``DEFAULT_TIMEOUT``; a project ``Queue(default_timeout=-1)`` is reported once,
    at the queue (:func:`infinite_sites_and_queues`)."""
    hard = limit.hard
    if hard is None or (hard.origin.loc is not None and hard.origin.where != "job"):
        return
    what = (
        f"sets {hard.written}, which disables RQ's timeout (default 180 s)"
        if hard.origin.where == "job"
        else f"runs on a queue whose {hard.origin.where} is -1, which disables RQ's timeout"
    )
    yield check.finding(
        "missing-time-limit",
        job.file.path,
        job.task.loc,
        f"RQ job '{job.task.name}' {what}: the job can run forever",
    )


def infinite_sites_and_queues(check: Check) -> Iterator[Finding]:
    for f, site, job in check.project.enqueues():
        if (job.framework if job else site.framework_hint) != NAME:
            continue
        limit = contract.call_time_limit(check.project, f, site)
        if limit is not None and limit.hard is not None and limit.hard.no_limit:
            yield check.finding(
                "missing-time-limit",
                f.path,
                site.loc,
                f"'{site.target_text}' is enqueued with {limit.hard.written}, which disables "
                "RQ's timeout (default 180 s): the job can run forever",
            )
    for f in check.project.files:
        # Queues declared at one place (``RQ_QUEUES = {q: {...} for q in (...)}``) are
        # one finding, naming them all.
        unlimited: dict[Loc, list[str]] = {}
        for queue in f.queues:
            if queue.framework == NAME and _is_infinite(queue.option("default_timeout")):
                unlimited.setdefault(queue.loc, []).append(f"'{queue.name}'")
        for loc, names in unlimited.items():
            subject = (
                f"RQ queue {names[0]} sets"
                if len(names) == 1
                else f"RQ queues {', '.join(names)} set"
            )
            yield check.finding(
                "missing-time-limit",
                f.path,
                loc,
                f"{subject} default_timeout=-1: every job on "
                f"{'it' if len(names) == 1 else 'them'} runs without a time limit",
            )


def flat_retry_job(check: Check, job: Job) -> Iterator[Finding]:
    if retry_is_flat(job.task.option("retry")):
        yield check.finding(
            "retry-without-backoff", job.file.path, job.task.loc, _flat_message(job.task.name)
        )


def flat_retry_sites(check: Check) -> Iterator[Finding]:
    for f, site, job in check.project.enqueues():
        if (job.framework if job else site.framework_hint) != NAME:
            continue
        if retry_is_flat(site.option("retry")):
            yield check.finding(
                "retry-without-backoff", f.path, site.loc, _flat_message(site.target_text)
            )


def _is_infinite(value: object) -> bool:
    if isinstance(value, CallV):
        return False
    return number(value) == RQ_INFINITE  # type: ignore[arg-type]


def retry_is_flat(value: Value | None) -> bool:
    """``Retry(max=3)`` or ``Retry(max=3, interval=60)``: the same wait every time
    (rq/job.py ``Retry.__init__``: interval defaults to 0; a list grows per attempt)."""
    if not isinstance(value, CallV) or value.func not in RQ_RETRY:
        return False
    interval = value.arg(1, "interval")
    if interval is None:
        return True
    if isinstance(interval, SeqV):
        numbers = [number(v) for v in interval.items]
        if any(n is None for n in numbers):
            return False
        return all(a >= b for a, b in zip(numbers, numbers[1:]))  # type: ignore[operator]
    return number(interval) is not None


def _flat_message(name: str) -> str:
    return (
        f"'{name}' uses RQ Retry without growing intervals: every retry waits the same "
        "time; pass interval=[10, 30, 120, ...] so waits grow"
    )


def jobs_run_eagerly(check: Check) -> Iterator[Finding]:
    """rq/queue.py ``Queue.__init__(..., is_async=True)``: with ``is_async=False`` a job
    runs "on the same process from where it was called"; django-rq's ``RQ_QUEUES``
    ``ASYNC`` key is passed as ``is_async``."""
    for f in check.project.files:
        if not production.is_production(f):
            continue
        for queue in f.queues:
            if queue.framework != NAME:
                continue
            value = queue.option("is_async")
            if value is None or truthy(value) is not False:
                continue
            yield check.finding(
                "jobs-run-eagerly",
                f.path,
                queue.loc,
                f"RQ queue '{queue.name or '?'}' is made with is_async=False "
                f"in {production.settings_module(f)}: every job enqueued on it runs at once in "
                "the process that enqueues it, inside the request, as if there were no "
                "worker; keep is_async=False for tests",
            )


PARTS = CheckParts(
    per_project={
        "missing-time-limit": infinite_sites_and_queues,
        "retry-without-backoff": flat_retry_sites,
        "jobs-run-eagerly": jobs_run_eagerly,
    },
    per_job={
        "retry-without-backoff": flat_retry_job,
    },
    per_time_limit={
        "missing-time-limit": infinite_job,
    },
)
"""Its own part of checks (``semantics_base.CheckParts``), by check slug."""
