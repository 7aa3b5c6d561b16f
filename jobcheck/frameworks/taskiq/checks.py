"""taskiq's part of the checks, in taskiq's terms: the ``timeout`` label (SCL-18),
retries at once and no dead letter (SCL-34).

Read in taskiq 0.13.0 and its main branch of 2026-07 (``taskiq/receiver/receiver.py``,
``taskiq/middlewares/*_retry_middleware.py``); the facts are in ``semantics.py``.
Light module: no libcst.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from jobcheck.facts import FrameworkConfig, MiddlewareDecl
from jobcheck.facts.values import describe as describe_value
from jobcheck.facts.values import is_none, number, truthy
from jobcheck.frameworks.semantics_base import Check, CheckParts
from jobcheck.project.contract import Origin, Seconds, TimeLimit

if TYPE_CHECKING:
    from jobcheck.findings import Finding
    from jobcheck.project.model import Job, Project

NAME = "taskiq"
SIMPLE_RETRY = "SimpleRetryMiddleware"
SMART_RETRY = "SmartRetryMiddleware"
# A middleware of the project's own (``class M(TaskiqMiddleware)`` with ``on_error``) may
# keep failed tasks: taskiq/abc/middleware.py.
MIDDLEWARE_BASES = frozenset({"taskiq.TaskiqMiddleware", "taskiq.abc.middleware.TaskiqMiddleware"})


def time_limit(project: Project, job: Job) -> TimeLimit:
    """receiver.py ``Receiver.run_task``: ``anyio.fail_after(float(timeout))`` only when
    the message has a ``timeout`` label; other labels (``time_limit``) are never read.
    A call's ``.kicker().with_labels(timeout=...)`` is not read here."""
    if job.task.option("timeout") is None:
        unread = job.task.has_option("time_limit")
        unread_note = "; its time_limit= label is never read" if unread else ""
        return TimeLimit(hard=None, none_by_default=f"no timeout label{unread_note}")
    origin = Origin("timeout label", job.file.path, job.task.option_loc("timeout"))
    value = project.value(job.task.option("timeout"))
    return TimeLimit(hard=Seconds(value, origin, unlimited=is_none(value)))


def missing_time_limit(check: Check, job: Job, limit: TimeLimit) -> Iterator[Finding]:
    """The words for a task :func:`time_limit` finds unlimited."""
    function = check.project.function(job.task.function)
    sync = function is not None and not function.is_async
    wrong = "time_limit" if job.task.has_option("time_limit") else None
    if limit.hard is not None:
        what = f"sets timeout={describe_value(limit.hard.value)}, which bounds nothing,"
    else:
        what = "sets time_limit=, a label taskiq never reads," if wrong else "has no timeout label,"
    sync_note = (
        " (for a plain def, which taskiq runs in its thread pool, the timeout frees the "
        "worker but cannot stop the thread: bound each call inside it too)"
        if sync
        else ""
    )
    yield check.finding(
        "missing-time-limit",
        job.file.path,
        job.task.option_loc(wrong) if wrong else job.task.loc,
        f"taskiq task '{job.task.name}' {what} so the worker awaits it with no limit and "
        "a call that hangs holds one of its max_async_tasks slots for good; pass "
        f"timeout= (seconds) to the task decorator or .kicker().with_labels(timeout=...)"
        f"{sync_note}",
    )


def retry_middlewares(project: Project, job: Job | None = None) -> list[MiddlewareDecl]:
    """The retry middlewares the project makes; for ``job``, those of its own broker when
    the broker's ``with_middlewares(...)`` names them (a project with two brokers)."""
    found = [
        m
        for f in project.files
        for m in f.middleware
        if m.framework == NAME and m.name.rsplit(".", 1)[-1] in (SIMPLE_RETRY, SMART_RETRY)
    ]
    broker = broker_of(project, job) if job is not None else None
    if broker is None or not broker.parts:
        return found
    kinds = {part.rsplit(".", 1)[-1] for part in broker.parts} & {SIMPLE_RETRY, SMART_RETRY}
    mine = [m for m in found if m.name.rsplit(".", 1)[-1] in kinds]
    if mine or not kinds:
        return mine
    # Named by the broker, made where jobcheck did not see its options: the defaults.
    return [MiddlewareDecl(NAME, kind, (), broker.loc) for kind in sorted(kinds)]


def broker_of(project: Project, job: Job) -> FrameworkConfig | None:
    """The broker a task's decorator is a method of (``@broker.task``)."""
    for _, config in project.configs(NAME, "broker"):
        if config.qualname == job.task.app_ref:
            return config
    return None


def retries_at_once(check: Check, job: Job) -> Iterator[Finding]:
    """simple_retry_middleware.py ``on_error``: a task whose ``retry_on_error`` label (or
    the middleware's ``default_retry_label``) is true is sent again at once, with no
    delay; SmartRetryMiddleware waits ``default_delay`` (5 s) or more."""
    found = retry_middlewares(check.project, job)
    if len(found) != 1 or not found[0].name.endswith(SIMPLE_RETRY):
        return  # none (no retries), a smart one, or several: not judged here
    middleware = found[0]
    label = job.task.option("retry_on_error")
    retries = (
        truthy(label) if label is not None else truthy(middleware.option("default_retry_label"))
    )
    if not retries:
        return
    count = number(job.task.option("max_retries")) or number(
        middleware.option("default_retry_count")
    )
    times = f"{count:g} times" if count else "3 times (the middleware's default)"
    yield check.finding(
        "retry-without-backoff",
        job.file.path,
        job.task.option_loc("retry_on_error") if label is not None else job.task.loc,
        f"taskiq task '{job.task.name}' runs up to {times} under SimpleRetryMiddleware "
        "(max_retries counts the first run), which sends each retry at once: every retry "
        "hits the failing dependency within moments of "
        "the last; use SmartRetryMiddleware(use_delay_exponent=True, use_jitter=True) with "
        "a schedule_source so the delay is honoured on every broker",
    )


def no_dead_letter(check: Check) -> Iterator[Finding]:
    """receiver.py: the message is acknowledged when its result is saved (``ack_type``
    defaults to WHEN_SAVED), failed or not, and the retry middlewares drop a task after its
    last retry; taskiq-aio-pika's ``taskiq.dead_letter`` queue gets only what RabbitMQ
    dead-letters itself (AIO_PIKA_DLQ_GETS_FAILED_TASKS): nothing keeps a failed task."""
    jobs = [job for job in check.project.jobs if job.framework == NAME]
    brokers = [
        (f.path, config)
        for f in check.project.files
        for config in f.configs
        if config.framework == NAME and config.kind == "broker"
    ]
    if not jobs or not brokers:
        return
    if any(
        MIDDLEWARE_BASES.intersection(bases)
        for f in check.project.files
        for bases in f.classes.values()
    ):
        return  # a middleware of the project's own may keep them
    # The production broker, not the in-memory one kept for tests and local runs
    # (shopery's ``broker = InMemoryBroker() if ENV == "test" else AioPikaBroker(...)``).
    real = [(p, b) for p, b in brokers if not (b.cls or "").endswith("InMemoryBroker")]
    path, broker = (real or brokers)[0]
    count = f"{len(jobs)} taskiq task" + ("s" if len(jobs) != 1 else "")
    yield check.finding(
        "no-dead-letter",
        path,
        broker.loc,
        f"This project has {count} and nowhere for one that failed for good to go: taskiq "
        "acknowledges a task whether it failed or not, and after the last retry it is gone "
        "(a result backend keeps only the error, for as long as results are kept); store "
        "the task name, arguments and error from a TaskiqMiddleware's on_error, or from the "
        "task, so failures can be inspected and replayed",
    )


PARTS = CheckParts(
    per_project={
        "no-dead-letter": no_dead_letter,
    },
    per_job={
        "retry-without-backoff": retries_at_once,
    },
    per_time_limit={
        "missing-time-limit": missing_time_limit,
    },
)
"""Its own part of checks (``semantics_base.CheckParts``), by check slug."""
