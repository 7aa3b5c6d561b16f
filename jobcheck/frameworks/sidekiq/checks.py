"""Sidekiq's and ActiveJob's part of SCL-34, in their terms: retries that do not back off
or retry every error, retries without end, and jobs whose failures are thrown away.
Semantics and their sources: ``semantics.py``; option lookup: ``contract.py``."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from jobcheck.facts.values import CallV, Opaque
from jobcheck.frameworks.semantics_base import Check, CheckParts
from jobcheck.frameworks.sidekiq import contract
from jobcheck.frameworks.sidekiq import defaults as sk

if TYPE_CHECKING:
    from jobcheck.facts import Loc
    from jobcheck.findings import Finding
    from jobcheck.project.model import Job

FRAMEWORKS = ("sidekiq", "activejob")
CATCH_ALL = frozenset({"StandardError", "Exception", "::StandardError", "::Exception"})


def _jobs(check: Check) -> Iterator[Job]:
    for job in check.project.jobs:
        if job.framework in FRAMEWORKS:
            yield job


def retry_without_backoff(check: Check, job: Job) -> Iterator[Finding]:
    """``sidekiq_retry_in`` returning a constant (job_retry.rb ``delay_for`` uses it for
    every retry, adding only ``rand(10 * (count + 1))`` of jitter); ActiveJob ``retry_on``
    with a fixed ``wait:`` (3 s by default, exceptions.rb:64)."""
    if job.framework not in FRAMEWORKS:
        return
    for key, value in job.task.options:
        if key == "sidekiq_retry_in" and isinstance(value, Opaque):
            constant = contract.constant_retry_in(value)
            if constant:
                yield check.finding(
                    "retry-without-backoff",
                    job.file.path,
                    job.task.option_loc(key),
                    f"Sidekiq job '{job.task.name}' retries every {constant.group(1)} s "
                    "(sidekiq_retry_in returns a constant): while a dependency is down every "
                    "retry hits it again at the same pace; return a delay that grows with "
                    "count (e.g. (count ** 4) + 15, Sidekiq's own), or drop "
                    "sidekiq_retry_in",
                )
    for owner, call in _own_retry_ons(check, job):
        if contract.grows(call) or _quick_lock_retry(check, job, call):
            continue
        errors = ", ".join(contract.exception_names(call)) or "its errors"
        yield check.finding(
            "retry-without-backoff",
            owner.file.path,
            _retry_on_loc(owner, call),
            f"{_label(check, owner)} retries {errors} every "
            f"{contract.retry_on_wait(call)}: retry_on waits the same time before each "
            "attempt (plus up to 15% jitter), so while the cause lasts (a service down, a "
            "lock held) the attempts are spent at the same pace, all failing the same way; "
            "pass wait: :polynomially_longer (Rails 7.1+; :exponentially_longer before)",
        )


# Errors a transaction meets when another holds a lock: gone in milliseconds, so a few
# quick retries are the remedy (the line Rails' ApplicationJob template suggests:
# ``retry_on ActiveRecord::Deadlocked``).
LOCK_ERRORS = frozenset(
    {
        "ActiveRecord::Deadlocked",
        "ActiveRecord::LockWaitTimeout",
        "ActiveRecord::SerializationFailure",
    }
)


def _quick_lock_retry(check: Check, job: Job, call: CallV) -> bool:
    """``retry_on ActiveRecord::Deadlocked`` (3 s, 5 attempts by default, exceptions.rb):
    a few quick attempts at an error that clears at once, after which Sidekiq's own
    retries, which back off, take the job when it still fails."""
    names = contract.exception_names(call)
    if not names or not set(names) <= LOCK_ERRORS:
        return False
    attempts = contract.retry_on_attempts(call)
    retries, _ = contract.max_retries(check.project, job)
    return attempts is not None and attempts != float("inf") and bool(retries)


def retry_on_all_exceptions(check: Check) -> Iterator[Finding]:
    """ActiveJob ``retry_on StandardError``/``Exception``: a bug or a missing record is
    retried like a timeout."""
    for job in _jobs(check):
        for owner, call in _own_retry_ons(check, job):
            caught = [name for name in contract.exception_names(call) if name in CATCH_ALL]
            if not caught:
                continue
            yield check.finding(
                "retry-on-all-exceptions",
                owner.file.path,
                _retry_on_loc(owner, call),
                f"{_label(check, owner)} has retry_on {caught[0]}: a bug or a "
                "missing record is retried like a network error, "
                f"{contract._attempts(contract.retry_on_attempts(call))} times before "
                "Sidekiq's own retries start; retry_on the transient errors only "
                "(Net::ReadTimeout, Faraday::ConnectionFailed, ActiveRecord::Deadlocked) and "
                "discard_on or let the others fail",
            )


def unbounded_retries(check: Check, job: Job) -> Iterator[Finding]:
    """ActiveJob ``retry_on ..., attempts: :unlimited`` (Rails 7.1+) or
    ``Float::INFINITY``: never gives up, so nothing reaches the dead set."""
    if job.framework not in FRAMEWORKS:
        return
    for owner, call in _own_retry_ons(check, job):
        if contract.retry_on_attempts(call) != float("inf"):
            continue
        yield check.finding(
            "unbounded-retries",
            owner.file.path,
            _retry_on_loc(owner, call),
            f"{_label(check, owner)} retries "
            f"{', '.join(contract.exception_names(call)) or 'its errors'} without end "
            "(attempts: unlimited): a job that can never succeed is retried for ever and "
            "never reaches the dead set; give attempts: a number, so Sidekiq's retries "
            "and dead set take over",
        )


def no_dead_letter(check: Check) -> Iterator[Finding]:
    """Judged on the job's dead letter as ``jobcheck jobs`` shows it
    (``contract.dead_letter``): ``retry: false`` (no retry, no dead set, only death
    handlers: job_retry.rb:96-104, :133) or ``dead: false`` without a
    ``sidekiq_retries_exhausted`` to record the failure leaves nothing to look at or
    replay. Reported where the option is written (a base class's line once for the jobs
    built on it)."""
    for job in _jobs(check):
        if job.framework != "sidekiq":
            continue
        dead = contract.dead_letter(check.project, job)
        if dead.kept or dead.origin is None:
            continue
        key = dead.decided_by.partition(":")[0]
        meaning = sk.RETRY_FALSE if key == "retry" else sk.DEAD_FALSE
        owner = "" if dead.origin.where == "job" else " (on its base class)"
        yield check.finding(
            "no-dead-letter",
            dead.origin.path or job.file.path,
            dead.origin.loc or job.task.loc,
            f"Sidekiq job '{job.task.name}' sets {key} to false{owner} ({meaning}), and "
            "nothing records the failure: a job that fails for good leaves nothing to "
            "inspect or replay; drop it to keep the dead set"
            + (", or record the failure in sidekiq_retries_exhausted" if key == "dead" else ""),
        )


def _own_retry_ons(check: Check, job: Job) -> Iterator[tuple[Job, CallV]]:
    """The ``retry_on`` declarations that apply to ``job`` (its own and its base
    classes'): a base's is reported where it is written, once (the check's findings are
    ``distinct``)."""
    yield from contract.retry_on_calls(check.project, job)


def _label(check: Check, owner: Job) -> str:
    """ "ActiveJob 'SyncJob'", or a base class's name with the jobs it serves."""
    if any(job.task.qualname == owner.task.qualname for job in check.project.jobs):
        return f"ActiveJob '{owner.task.name}'"
    return f"ActiveJob base class '{owner.task.name}' (so every job built on it)"


def _retry_on_loc(job: Job, call: object) -> Loc:
    """The line of the job's ``retry_on`` declaration that made ``call``."""
    index = 0
    for key, value in job.task.options:
        if key == "retry_on":
            if value is call:
                break
            index += 1
    locs = [loc for key, loc in job.task.option_locs if key == "retry_on"]
    return locs[index] if index < len(locs) else job.task.loc


PARTS = CheckParts(
    per_project={
        "retry-on-all-exceptions": retry_on_all_exceptions,
        "no-dead-letter": no_dead_letter,
    },
    per_job={
        "retry-without-backoff": retry_without_backoff,
        "unbounded-retries": unbounded_retries,
    },
)
"""Its own part of checks (``semantics_base.CheckParts``), by check slug."""
