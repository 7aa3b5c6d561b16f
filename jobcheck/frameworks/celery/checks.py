"""Celery's part of the checks: time limits and the visibility timeout (SCL-18), retries,
backoff and dead letters (SCL-34), backlog bounds (SCL-19) and beat expiry.

Library facts are cited where encoded (and in ``semantics.py``); the checks call these
through ``CelerySemantics``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from jobcheck.facts import FileFacts, RetryCall
from jobcheck.facts.values import (
    SeqV,
    Value,
    env_note,
    is_infinite,
    is_none,
    number,
    string,
    truthy,
)
from jobcheck.frameworks.celery import contract, routes
from jobcheck.frameworks.celery.options import option
from jobcheck.frameworks.celery.prefetch import prefetch_holds_short_jobs
from jobcheck.frameworks.semantics_base import Check, CheckParts
from jobcheck.project import production
from jobcheck.project.schedule_words import describe, expiry_hint, job_label
from jobcheck.project.test_code import is_test_code
from jobcheck.registry import semantics

if TYPE_CHECKING:
    from jobcheck.facts import ScheduleEntry
    from jobcheck.findings import Finding
    from jobcheck.project.contract import Seconds, TimeLimit
    from jobcheck.project.model import Job, Resolved
    from jobcheck.project.routing import QueueUse

# Celery: Task.default_retry_delay = 3 * 60 (celery/app/task.py) is the fixed delay
# ``self.retry()`` waits when no countdown is given; autoretry_for only backs off when
# retry_backoff is set (celery/app/autoretry.py reads it with a default of False).
CELERY_DEFAULT_RETRY_DELAY = 180
NAME = "celery"
_SPECIFICITY = {"task": 0, "base": 1, "annotations": 2, "settings": 3}
# Celery transports whose queues take RabbitMQ's x-max-length / x-message-ttl arguments.
AMQP_SCHEMES = frozenset({"amqp", "amqps", "pyamqp", "librabbitmq"})


def missing_time_limit(check: Check, job: Job, limit: TimeLimit) -> Iterator[Finding]:
    """The words for a task whose time limit (``contract.time_limit``) is not present:
    Celery has no time limit by default (celery/app/defaults.py declares
    ``task_time_limit`` and ``task_soft_time_limit`` with no default, None)."""
    set_limits = list(limit.limits)
    infinite = next((s for s in set_limits if is_infinite(s.value)), None)
    if infinite is not None:
        name = "time_limit" if infinite is limit.hard else "soft_time_limit"
        yield _at(
            check,
            job,
            infinite,
            f"Celery task '{job.task.name}' sets {name} to "
            "infinity: it can run forever and pin a worker; set a finite limit",
        )
        return
    pool = contract.unenforcing_pool(check.project)
    if limit.is_set and pool is not None:
        yield check.finding(
            "missing-time-limit",
            pool.path,
            pool.loc,
            f"Celery task '{job.task.name}' and every task these workers run have time "
            f"limits that are never applied: the workers run the {pool.pool} pool, which "
            "ignores them (celery/concurrency: only prefork and gevent time a task): a stuck "
            "call pins a worker forever; run the prefork pool (the default) or gevent, or "
            "put timeouts on the calls themselves",
        )
        return
    zero = next((s for s in set_limits if s.seconds == 0), None)
    if zero is not None:
        where = "the global setting" if zero.origin.where == "global setting" else "its time_limit"
        yield _at(
            check,
            job,
            zero,
            f"Celery task '{job.task.name}' has a time limit of 0 "
            f"({where}), which means no limit (billiard starts no timer for 0): a stuck "
            "call pins the worker forever; set a limit in seconds",
        )
        return
    unset = next((s for s in set_limits if s.from_environment), None)
    if unset is not None:
        yield _at(
            check,
            job,
            unset,
            f"Celery task '{job.task.name}' has no time limit "
            f"unless ${unset.from_environment} is set (the setting's default is None, "
            "so wherever the variable is unset there is none): a stuck call pins the "
            "worker forever; give the read a default in seconds",
        )
        return
    if limit.hard is not None and limit.hard.origin.where == "task":
        yield _at(
            check,
            job,
            limit.hard,
            f"Celery task '{job.task.name}' sets time_limit="
            "None, which takes the global task_time_limit, and none is set: a stuck "
            "call pins the worker forever; set time_limit= (seconds)",
        )
        return
    yield check.finding(
        "missing-time-limit",
        job.file.path,
        job.task.loc,
        f"Celery task '{job.task.name}' has no time limit (Celery sets none by default, "
        "and no task_time_limit/CELERY_TASK_TIME_LIMIT was found): set time_limit= "
        "and soft_time_limit= on the task, or a global task_time_limit",
    )


def _at(check: Check, job: Job, limit: Seconds, message: str) -> Finding:
    """A finding at the place that sets ``limit`` (the task's own file when unknown)."""
    path = limit.origin.path or job.file.path
    return check.finding("missing-time-limit", path, limit.origin.loc or job.task.loc, message)


def time_limit_exceeds_visibility(check: Check) -> Iterator[Finding]:
    visibility = contract.visibility_timeout(check.project)
    if visibility is None:
        return
    seconds, origin = visibility
    reported_settings = False
    for job in check.project.jobs:
        if job.framework != NAME:
            continue
        if contract.delivery(check.project, job).late is not True:
            # With early acknowledgement (Celery's default) the message is acked
            # when the task starts, so a long run is never redelivered.
            continue
        hard = option(check.project, job, "time_limit")
        limit = number(hard.value)
        if limit is None or limit < seconds:
            continue
        message = (
            f"time limit {limit:g} s is at or above the broker's visibility timeout "
            f"{seconds:g} s ({origin}): with acks_late a second worker can start "
            "the job while it still runs; keep the limit below the visibility timeout"
        )
        if hard.source == "settings":
            if not reported_settings:
                reported_settings = True
                yield check.finding(
                    "time-limit-exceeds-visibility",
                    hard.path or job.file.path,
                    hard.loc or job.task.loc,
                    "the global " + message,
                )
            continue
        yield check.finding(
            "time-limit-exceeds-visibility",
            hard.path or job.file.path,
            hard.loc or job.task.loc,
            f"Celery task '{job.task.name}': {message}",
        )


def countdown_exceeds_visibility(check: Check) -> Iterator[Finding]:
    visibility = contract.visibility_timeout(check.project)
    if visibility is None:
        return
    seconds, origin = visibility
    for f, site, job in check.project.enqueues():
        if job is not None and job.framework != NAME:
            continue
        countdown = number(site.option("countdown"))
        if countdown is None or countdown < seconds:
            continue
        yield check.finding(
            "countdown-exceeds-visibility",
            f.path,
            site.loc,
            f"countdown {countdown:g} s is at or above the broker's visibility timeout "
            f"{seconds:g} s ({origin}): the waiting message is redelivered and the job "
            "runs more than once; schedule long delays with a periodic job or raise "
            "visibility_timeout",
        )


def soft_limit_not_below_hard(check: Check) -> Iterator[Finding]:
    seen: set[tuple] = set()
    for job in check.project.jobs:
        if job.framework != NAME:
            continue
        soft = option(check.project, job, "soft_time_limit")
        hard = option(check.project, job, "time_limit")
        soft_value, hard_value = number(soft.value), number(hard.value)
        if soft_value is None or hard_value is None or soft_value < hard_value:
            continue
        if not soft_value or not hard_value:
            continue  # 0 is no limit (billiard starts no timer): nothing to compare
        # Point at the more specific of the two settings: a task's own option
        # before a base class, before a global setting.
        culprit = min((soft, hard), key=lambda r: _SPECIFICITY.get(r.source, 9))
        where = (culprit.path or job.file.path, culprit.loc or job.task.loc)
        if where in seen:
            continue
        seen.add(where)
        subject = (
            "the global time limits"
            if soft.source == hard.source == "settings"
            else f"Celery task '{job.task.name}'"
        )
        yield check.finding(
            "soft-limit-not-below-hard",
            where[0],
            where[1],
            f"{subject}: soft_time_limit {soft_value:g} s ({_origin(soft)}) is not below "
            f"time_limit {hard_value:g} s ({_origin(hard)}): the task is killed before "
            "SoftTimeLimitExceeded can let it clean up; set the soft limit a little "
            "below the hard one",
        )


def _origin(resolved: Resolved) -> str:
    where = {
        "task": "set on the task",
        "base": "from its base class",
        "annotations": "from task_annotations",
        "settings": "global setting",
    }.get(resolved.source, resolved.source)
    return where + env_note(resolved.value)


def autoretry_backoff(check: Check, job: Job) -> Iterator[Finding]:
    autoretry = option(check.project, job, "autoretry_for")
    if not autoretry.is_set or not _non_empty(autoretry.value):
        return
    backoff = option(check.project, job, "retry_backoff")
    where = (autoretry.path or job.file.path, autoretry.loc or job.task.loc)
    if not backoff.is_set or truthy(backoff.value) is False:
        yield check.finding(
            "retry-without-backoff",
            *where,
            f"Celery task '{job.task.name}' uses autoretry_for without retry_backoff: "
            f"every retry waits the same {_retry_delay(check, job)}, so a struggling "
            "dependency is hit at a steady rate; set retry_backoff=True (jitter is on "
            "by default)",
        )
        return
    capped = contract.capped_backoff(check.project, job)
    if capped is not None:
        yield check.finding(
            "retry-without-backoff",
            capped.path or job.file.path,
            capped.loc or job.task.loc,
            f"Celery task '{job.task.name}' backs off without growing: {capped.words()}, "
            f"so every retry waits up to {capped.cap} s and a long outage is met at the "
            "same pace; start small (retry_backoff=True doubles from 1 s) or raise "
            "retry_backoff_max above the wait you mean",
        )
    jitter = option(check.project, job, "retry_jitter")
    if jitter.is_set and truthy(jitter.value) is False:
        yield check.finding(
            "retry-without-backoff",
            jitter.path or job.file.path,
            jitter.loc or job.task.loc,
            f"Celery task '{job.task.name}' turns retry_jitter off: tasks that failed "
            "together retry together, in bursts; keep jitter on",
        )


def manual_retry_backoff(check: Check, job: Job) -> Iterator[Finding]:
    function = check.project.function(job.task.function)
    if function is None:
        return
    for call in function.retry_calls:
        delay = _fixed_delay(check, job, call)
        if delay is None:
            continue
        yield check.finding(
            "retry-without-backoff",
            job.file.path,
            call.loc,
            f"'{job.task.name}' retries after a fixed {delay}: each retry waits the "
            "same time, with no backoff or jitter"
            + _backoff_not_applied(check, job)
            + "; grow the countdown with the attempt "
            "(e.g. countdown=2 ** self.request.retries * 30 + random jitter)",
        )


def _backoff_not_applied(check: Check, job: Job) -> str:
    """A note for tasks that set retry_backoff and retry by hand: Celery applies it
    only to the retries autoretry_for makes (celery/app/autoretry.py)."""
    backoff = option(check.project, job, "retry_backoff")
    if backoff.is_set and truthy(backoff.value):
        return " (retry_backoff applies only to autoretry_for retries, not to self.retry())"
    return ""


def _retry_delay(check: Check, job: Job) -> str:
    """How long each retry waits when no countdown is given."""
    delay = option(check.project, job, "default_retry_delay")
    if not delay.is_set:
        return f"{CELERY_DEFAULT_RETRY_DELAY} s (Celery's default_retry_delay)"
    seconds = number(delay.value)
    return (
        f"{seconds:g} s (default_retry_delay)" if seconds is not None else ("default_retry_delay")
    )


def _fixed_delay(check: Check, job: Job, call: RetryCall) -> str | None:
    if call.countdown is None:
        return _retry_delay(check, job)
    value = number(call.countdown)
    return f"{value:g} s (countdown)" if value is not None else None


RETRYING_LONG_SECONDS = 3600.0
"""A few quick retries of a deterministic error waste little; an hour or more of them
(or no cap) keeps a failing task in the queue: only those are reported."""


def _retries_long(check: Check, job: Job) -> bool:
    retries = check.project.contract(job).retries
    seconds = retries.every_error_seconds if retries is not None else None
    return seconds is not None and seconds >= RETRYING_LONG_SECONDS


def retry_on_all_exceptions(check: Check) -> Iterator[Finding]:
    for job in check.project.jobs:
        if job.framework != NAME:
            continue
        autoretry = option(check.project, job, "autoretry_for")
        caught = contract.catch_all(autoretry.value)
        if autoretry.is_set and caught and _retries_long(check, job):
            yield check.finding(
                "retry-on-all-exceptions",
                autoretry.path or job.file.path,
                autoretry.loc or job.task.loc,
                f"Celery task '{job.task.name}' retries on {caught}: deterministic "
                "errors (bad input, a missing record, a bug) are retried like "
                "transient ones; list the transient exceptions (timeouts, connection "
                "errors) instead",
            )
        function = check.project.function(job.task.function)
        if function is None:
            continue
        for call in function.retry_calls:
            broad = [name for name in call.in_handler_of if name in contract.CATCH_ALL]
            if broad:
                label = "a bare except" if broad[0] == "BaseException" else broad[0]
                yield check.finding(
                    "retry-on-all-exceptions",
                    job.file.path,
                    call.loc,
                    f"'{job.task.name}' calls retry() from {label} handler: every error, "
                    "deterministic ones included, is retried; catch the transient "
                    "exceptions only and let the rest fail",
                )


def no_dead_letter(check: Check) -> Iterator[Finding]:
    """A Celery project with nowhere for a task that failed for good to go.

    Celery acknowledges a task that fails its last attempt (``task_acks_on_failure_or
    _timeout`` defaults to True in celery/app/defaults.py), so its message is gone
    unless a queue has a dead-letter exchange or a failure handler stores it."""
    tasks = [
        job for job in check.project.jobs if job.framework == NAME and not is_test_code(job.file)
    ]
    app = routes.of(check.project.routing).app_place()
    if not tasks or app is None:
        return  # no Celery app in sight: its configuration cannot be judged
    lost = [job for job in tasks if not contract.dead_letter(check.project, job).kept]
    if not lost:
        return
    count = f"{len(lost)} Celery task" + ("s" if len(lost) != 1 else "")
    names = [f"'{job.task.name}'" for job in lost[:3]] + (["more"] if len(lost) > 3 else [])
    listed = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
    subject = (
        f"This project has {count} and no dead-letter destination"
        if len(lost) == len(tasks)
        else f"{len(lost)} of this project's {len(tasks)} Celery tasks ({listed}) have no "
        "dead-letter destination"
    )
    yield check.finding(
        "no-dead-letter",
        app.path,
        app.loc,
        f"{subject}: no queue declares "
        "x-dead-letter-exchange and no Task.on_failure override or task_failure handler "
        "stores the failed task. Celery acknowledges a task that fails its last attempt, "
        "so its message is gone and cannot be inspected or replayed. Give the queues a "
        "dead-letter exchange (RabbitMQ) or store failures from a task_failure handler",
    )


def _non_empty(value: Value | None) -> bool:
    if isinstance(value, SeqV):
        return bool(value.items)
    return value is not None and not is_none(value)


def unbounded_queue_message(use: QueueUse, broker: str | None = None) -> str:
    who = (
        f"Celery's default queue '{use.name}' (where every task nothing routes elsewhere goes)"
        if not use.explicit
        else f"Celery queue '{use.name}'"
    )
    if broker is not None and broker not in AMQP_SCHEMES:
        return (
            f"{who} has no backlog bound: no expires on the tasks, routes or calls that "
            "use it, so while workers lag it grows without end. Bound it with expires= "
            f"on its tasks (the {broker} transport takes no queue length limit)"
        )
    return (
        f"{who} has no backlog bound: no x-max-length, x-max-length-bytes or "
        "x-message-ttl on its declaration and no expires on the tasks, routes or calls "
        "that use it, so while workers lag it grows without end. Bound it: "
        "queue_arguments={'x-max-length': N, 'x-overflow': 'reject-publish'} on "
        "RabbitMQ, or expires= on its tasks (any broker)"
    )


def schedule_without_expiry(
    check: Check, f: FileFacts, entry: ScheduleEntry, job: Job | None
) -> Iterator[Finding]:
    """Beat sends the entry's ``options`` to ``apply_async`` (celery/beat.py
    ``Scheduler.apply_async``), and the task's own ``expires`` attribute is merged in
    (celery/app/task.py ``extract_exec_options``)."""
    if entry.option("expires") is not None:
        return
    if job is None:
        return  # a library's task, or one not found: its own expiry is unknown
    if option(check.project, job, "expires").is_set:
        return
    if _beat_only_inside_workers(check):
        return
    hint, within = expiry_hint(entry)
    where = "options={'expires': " + hint + "}"
    if entry.source == "add_periodic_task":
        where = f"expires={hint}"
    elif entry.source == "periodic_task":
        where = f"expires={hint} on the decorator"
    elif entry.source == "periodic_task_row":
        where = f"expire_seconds={hint} on the row"
    yield check.finding(
        "schedule-without-expiry",
        f.path,
        entry.loc,
        f"{describe(entry)} sends '{job_label(entry)}' without expires: while "
        "workers are down every missed run waits in the queue, and they all run at "
        f"once when workers return; set {where}, no longer than the time between "
        f"two runs{within}, or expires= on the task",
    )


def _beat_only_inside_workers(check: Check) -> bool:
    """Every Celery worker in sight runs beat inside it (``celery worker -B``) and no beat
    runs on its own: while the workers are down, beat is down too and sends nothing, so
    nothing piles up for them to run at once (celery/bin/worker.py ``-B/--beat``)."""
    memo = check.project.memo(NAME)
    if "beat_only_inside_workers" not in memo:
        memo["beat_only_inside_workers"] = _beat_inside(check)
    return bool(memo["beat_only_inside_workers"])


def _beat_inside(check: Check) -> bool:
    from jobcheck.commandline import programs

    rules = semantics(NAME)
    embedded = standalone = lone_worker = False
    for f in check.project.files:
        if is_test_code(f):
            continue
        for process in f.processes:
            for words in programs(process.command):
                started = rules.process_scheduler(check.project, words)
                if started is not None:
                    embedded = embedded or started[1]
                    standalone = standalone or not started[1]
                elif rules.worker_queues(words) is not None:
                    lone_worker = True
    return embedded and not standalone and not lone_worker


# celery/app/defaults.py ``always_eager=Option(False, type='bool')`` under ``task``:
# ``Task.apply_async`` runs ``self.apply(...)`` in the caller when it is set
# (celery/app/task.py).
EAGER_SETTING = "task_always_eager"


def jobs_run_eagerly(check: Check) -> Iterator[Finding]:
    found = production.production_settings(check.project, EAGER_SETTING)
    if any(truthy(setting.value) is False for _, setting in found):
        return  # another production settings module turns it off: which one wins is unknown
    memory = {
        f.path
        for f, setting in check.project.settings("broker_url")
        if (string(setting.value) or "").startswith("memory://")
    }
    for f, setting in found:
        if not truthy(setting.value) or f.path in memory:
            # With an in-memory broker beside it (kompassi's ``else: CELERY_BROKER_URL =
            # "memory://"``) eager mode is the fallback for a machine with no broker.
            continue
        yield check.finding(
            "jobs-run-eagerly",
            f.path,
            setting.loc,
            f"{setting.raw_key} = True in {production.settings_module(f)}"
            f"{env_note(setting.value)}: every Celery task runs inline in the process that "
            "sends it, inside the request, as if there were no queue; set it only in test "
            "settings",
        )


def retry_without_backoff(check: Check, job: Job) -> Iterator[Finding]:
    yield from autoretry_backoff(check, job)
    yield from manual_retry_backoff(check, job)


PARTS = CheckParts(
    per_project={
        "jobs-run-eagerly": jobs_run_eagerly,
        "time-limit-exceeds-visibility": time_limit_exceeds_visibility,
        "countdown-exceeds-visibility": countdown_exceeds_visibility,
        "soft-limit-not-below-hard": soft_limit_not_below_hard,
        "retry-on-all-exceptions": retry_on_all_exceptions,
        "no-dead-letter": no_dead_letter,
        "prefetch-holds-short-jobs": prefetch_holds_short_jobs,
    },
    per_job={
        "retry-without-backoff": retry_without_backoff,
    },
    per_time_limit={
        "missing-time-limit": missing_time_limit,
    },
    per_schedule={
        "schedule-without-expiry": schedule_without_expiry,
    },
)
"""Its own part of checks (``semantics_base.CheckParts``), by check slug."""
