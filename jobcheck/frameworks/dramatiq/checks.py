"""Dramatiq's part of the checks: broken time limits (SCL-18) and unbounded retries
(SCL-34).

dramatiq/middleware/time_limit.py: the TimeLimit middleware defaults to 600000 ms; it
reads ``actor.options.get("time_limit", self.time_limit)`` and computes ``ttl / 1000``,
so an explicit None fails at run time and infinity never fires.
dramatiq/middleware/retries.py: 20 retries by default; with ``max_retries=None`` and no
``retry_when``, ``retries >= max_retries`` is never tested, so the message never fails.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from jobcheck.facts.values import is_infinite, is_none
from jobcheck.frameworks.dramatiq.companions import STUB_BROKER, broker_class, broker_middleware
from jobcheck.frameworks.semantics_base import Check, CheckParts
from jobcheck.project import production

if TYPE_CHECKING:
    from jobcheck.findings import Finding
    from jobcheck.project.contract import TimeLimit
    from jobcheck.project.model import Job

NAME = "dramatiq"


def broken_time_limit(check: Check, job: Job, limit: TimeLimit) -> Iterator[Finding]:
    """An actor whose own ``time_limit`` means none (:func:`contract.time_limit`); a
    middleware list without TimeLimit is reported once, at the list
    (:func:`middleware_without_time_limit`).

    dramatiq/middleware/time_limit.py: the TimeLimit middleware defaults to 600000 ms; it
    reads ``actor.options.get("time_limit", self.time_limit)`` and computes ``ttl /
    1000``, so an explicit None fails at run time and infinity never fires."""
    if limit.unenforced or limit.hard is None or limit.hard.origin.where != "actor":
        return
    value = limit.hard.value
    loc = job.task.option_loc("time_limit")
    if is_infinite(value):
        yield check.finding(
            "missing-time-limit",
            job.file.path,
            loc,
            f"Dramatiq actor '{job.task.name}' sets time_limit to infinity: it can run "
            "forever; keep a finite limit in milliseconds (the default is 600000)",
        )
    elif is_none(value):
        yield check.finding(
            "missing-time-limit",
            job.file.path,
            loc,
            f"Dramatiq actor '{job.task.name}' sets time_limit=None: Dramatiq's TimeLimit "
            "middleware computes None / 1000 and fails; this is not 'no limit'. Set a "
            "limit in milliseconds or leave the option out (default 600000 ms)",
        )


def middleware_without_time_limit(check: Check) -> Iterator[Finding]:
    """dramatiq/middleware/time_limit.py: only the TimeLimit middleware reads an actor's
    ``time_limit``; a broker given a middleware list without it runs every actor with no
    limit at all. One finding, at the setting."""
    yield from _missing_middleware(
        check,
        "TimeLimit",
        "missing-time-limit",
        "so the project's {actors} run with no time limit (time_limit= is read by that "
        "middleware only) and a hung actor holds its worker thread for ever",
    )


def middleware_without_retries(check: Check) -> Iterator[Finding]:
    """dramatiq/worker.py ``post_process_message``: a message is rejected (and
    dead-lettered by the broker) only when ``message.failed``, which the Retries
    middleware sets when retries run out (retries.py ``message.fail()``); without it a
    message whose actor raised is acknowledged: dropped, neither retried nor kept."""
    yield from _missing_middleware(
        check,
        "Retries",
        "no-dead-letter",
        "so when one of the project's {actors} raises, the worker acknowledges its "
        "message: it is neither retried nor moved to the dead-letter queue, and the "
        "failure is only logged",
    )


def _missing_middleware(check: Check, name: str, slug: str, consequence: str) -> Iterator[Finding]:
    middleware = broker_middleware(check.project)
    actors = _actors(check)
    if middleware is None or name in middleware.names or not actors:
        return
    yield check.finding(
        slug,
        middleware.path,
        middleware.loc,
        f"{middleware.where} has no dramatiq.middleware.{name}, "
        + consequence.format(actors=_count(actors))
        + f'; add "dramatiq.middleware.{name}" to the list',
    )


def _actors(check: Check) -> list[Job]:
    return [job for job in check.project.jobs if job.framework == "dramatiq"]


def _count(actors: list[Job]) -> str:
    return f"{len(actors)} actor" + ("s" if len(actors) != 1 else "")


def jobs_run_eagerly(check: Check) -> Iterator[Finding]:
    """A ``StubBroker`` (dramatiq/brokers/stub.py, "a broker that can be used within unit
    tests") as the project's broker outside tests: messages stay in the memory of the
    process that sends them, where no worker process sees them. A stub under ``if
    TESTING:`` (or ``DEBUG``...), or standing in when no broker URL is configured, is left
    alone."""
    for f, config in check.project.configs(NAME):
        if not production.is_production(f):
            continue
        if broker_class(config) != STUB_BROKER:
            continue
        if config.development is not None or _no_broker_fallback(config.condition):
            continue  # ``if TESTING:``, or the stand-in when no broker URL is configured
        if config.condition is None and any(
            c.kind == "broker" and broker_class(c) != STUB_BROKER for c in f.configs
        ):
            continue  # beside a real broker, chosen in a way jobcheck cannot read
        yield check.finding(
            "jobs-run-eagerly",
            f.path,
            config.loc,
            f"the Dramatiq broker is a StubBroker in {production.settings_module(f)}: "
            "messages stay in the memory of the process that sends them, so no worker "
            "process ever runs them (they run only where a test starts a Worker in that "
            "process); use RedisBroker or RabbitmqBroker outside tests",
        )


def _no_broker_fallback(condition: str | None) -> bool:
    """An ``if``/``else`` on whether a broker is configured (``if not REDIS_URL:``)."""
    text = (condition or "").lower()
    return any(word in text for word in ("url", "redis", "broker", "rabbit"))


PARTS = CheckParts(
    per_project={
        "missing-time-limit": middleware_without_time_limit,
        "no-dead-letter": middleware_without_retries,
        "jobs-run-eagerly": jobs_run_eagerly,
    },
    per_time_limit={
        "missing-time-limit": broken_time_limit,
    },
)
"""Its own part of checks (``semantics_base.CheckParts``), by check slug."""
