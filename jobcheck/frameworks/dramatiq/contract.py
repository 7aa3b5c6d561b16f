"""Dramatiq's part of ``jobcheck jobs``: TimeLimit(time_limit=600000) and
Retries(max_retries=20) with exponential backoff and jitter (dramatiq/middleware/);
dead-lettered messages are kept 7 days (dramatiq/brokers/)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from jobcheck.facts.values import Const, Ref, SeqV, describe, is_infinite, is_none, number
from jobcheck.frameworks.dramatiq.companions import (
    BrokerMiddleware,
    broker_class,
    broker_middleware,
)
from jobcheck.project.contract import Delivery, Origin, Retries, Seconds, TimeLimit

if TYPE_CHECKING:
    from jobcheck.project.model import Job, Project

NAME = "dramatiq"

# dramatiq/middleware/time_limit.py ``TimeLimit(*, time_limit=600000, ...)``, in
# milliseconds; only that middleware reads an actor's ``time_limit``.
DRAMATIQ_DEFAULT_MS = 600_000
MILLISECONDS = 0.001


def time_limit(project: Project, job: Job) -> TimeLimit:
    """The actor's ``time_limit=`` (ms), else the TimeLimit middleware's, else 600 s; none
    applied when the broker's middleware list leaves TimeLimit out."""
    middleware = broker_middleware(project)
    unenforced = middleware is not None and "TimeLimit" not in middleware.names
    if job.task.has_option("time_limit"):
        value = project.value(job.task.option("time_limit"))
        origin = Origin("actor", job.file.path, job.task.option_loc("time_limit"))
        # None fails in the middleware (``None / 1000``) and infinity never fires; 0
        # times every run out at once: a limit, if a useless one.
        written = "time_limit=None" if is_none(value) else ""
        unlimited = is_none(value) or is_infinite(value)
        hard = Seconds(value, origin, scale=MILLISECONDS, unlimited=unlimited, written=written)
    else:
        # time_limit.py: ``TimeLimit(time_limit=N)`` is the default of every actor.
        given = _middleware_option(middleware, "TimeLimit", "time_limit")
        where = "TimeLimit middleware" if given is not None else "Dramatiq default"
        amount = Const(given if given is not None else DRAMATIQ_DEFAULT_MS)
        hard = Seconds(amount, Origin(where), scale=MILLISECONDS)
    if not unenforced or middleware is None:
        return TimeLimit(hard=hard)
    return TimeLimit(
        hard=hard,
        unenforced=f"no TimeLimit middleware in {middleware.where}",
        unenforced_at=Origin(middleware.where, middleware.path, middleware.loc),
    )


def retrying(project: Project) -> bool:
    """Whether the broker has the Retries middleware (which also dead-letters)."""
    middleware = broker_middleware(project)
    return middleware is None or "Retries" in middleware.names


def retries(project: Project, job: Job) -> Retries:
    """dramatiq/middleware/retries.py ``after_process_message``: an actor's
    ``retry_when`` decides alone when given; else ``max_retries`` (20 by default), None
    for no cap. Nothing retries without the Retries middleware."""
    default = "Dramatiq's default is 20"  # retries.py ``Retries(max_retries=20)``
    forever = "retried forever and never reaches the dead-letter queue"
    middleware = broker_middleware(project)
    if middleware is not None and "Retries" not in middleware.names:
        words = f"none: a failure is dropped (no Retries middleware in {middleware.where})"
        return Retries(words)
    if job.task.has_option("retry_when"):
        return Retries(f"while retry_when says so ({describe(job.task.option('retry_when'))})")
    every = _every_error(job, middleware)
    thrown = _thrown(job)
    if job.task.has_option("max_retries"):
        value = job.task.option("max_retries")
        if is_none(value):
            origin = Origin("actor", job.file.path, job.task.option_loc("max_retries"))
            return Retries(
                "unbounded",
                origin,
                "max_retries=None",
                default,
                forever,
                every_error=every[0],
                every_error_seconds=every[1],
                given_up_on=thrown,
            )
        return Retries(
            f"max {describe(value)}",
            every_error=every[0],
            every_error_seconds=every[1],
            given_up_on=thrown,
        )
    # retries.py: ``Retries(max_retries=N)`` is the default of every actor.
    given = _middleware_option(middleware, "Retries", "max_retries")
    words = (
        f"max {given:g} (Retries middleware)" if given is not None else "max 20 (Dramatiq default)"
    )
    return Retries(
        words,
        every_error=every[0],
        every_error_seconds=every[1],
        given_up_on=thrown,
        give_up=_GIVE_UP,
    )


# retries.py: an exception the actor's ``throws`` lists fails the message at once.
_GIVE_UP = "catch {error} and return (or add it to the actor's throws=)"


def _thrown(job: Job) -> tuple[str, ...]:
    """The actor's ``throws``: exceptions failed at once, not retried (retries.py)."""
    value = job.task.option("throws")
    items = value.items if isinstance(value, SeqV) else (value,) if value is not None else ()
    return tuple(item.qualname for item in items if isinstance(item, Ref))


# retries.py ``DEFAULT_MIN_BACKOFF = 15000``, ``DEFAULT_MAX_BACKOFF = 86400000 * 7`` (ms).
_MIN_BACKOFF_MS = 15_000.0
_MAX_BACKOFF_MS = 86_400_000.0 * 7


def _every_error(job: Job, middleware: BrokerMiddleware | None) -> tuple[str, float | None]:
    """The Retries middleware retries any exception (``after_process_message``) unless
    the actor's ``throws`` lists it; the n-th retry waits ``min_backoff * 2**n`` ms,
    capped at ``max_backoff`` (common.py ``compute_backoff``; jitter only lengthens it).
    ("", None) when ``retry_when`` decides, or the cap is not a number."""
    if job.task.has_option("retry_when"):
        return "", None

    def setting(key: str, default: float | None) -> float | None:
        if job.task.has_option(key):
            return number(job.task.option(key))
        given = _middleware_option(middleware, "Retries", key)
        return given if given is not None else default

    if job.task.has_option("max_retries") and is_none(job.task.option("max_retries")):
        return "without end (max_retries=None)", math.inf
    count = setting("max_retries", 20.0)
    low = setting("min_backoff", _MIN_BACKOFF_MS)
    high = min(setting("max_backoff", _MAX_BACKOFF_MS) or _MAX_BACKOFF_MS, _MAX_BACKOFF_MS)
    if not count or low is None:
        return "", None
    span = sum(min(low * 2**n, high) for n in range(int(count))) / 1000
    where = "Dramatiq's default" if not job.task.has_option("max_retries") else "max_retries"
    return f"{count:g} times with backoff, {where}", span


def _middleware_option(middleware: BrokerMiddleware | None, name: str, key: str) -> float | None:
    if middleware is None:
        return None
    return number(dict(middleware.options.get(name, ())).get(key))


# dramatiq/brokers/redis.py ``DEFAULT_HEARTBEAT_TIMEOUT = 60000`` (ms): maintenance in
# brokers/redis/dispatch.lua moves the unacked messages of a worker without a heartbeat
# for that long back to their queue. brokers/rabbitmq.py acks (``basic_ack``) only after
# the message is processed, so RabbitMQ redelivers a lost consumer's unacked messages.
REDIS_HEARTBEAT_TIMEOUT_MS = 60_000
_REDELIVERY = {
    "RedisBroker": (
        f"a dead worker's messages return to the queue once its heartbeat is "
        f"{REDIS_HEARTBEAT_TIMEOUT_MS // 1000} s old (RedisBroker heartbeat_timeout)"
    ),
    "RabbitmqBroker": "RabbitMQ redelivers a lost worker's unacked messages",
}


def delivery(project: Project) -> Delivery:
    """Dramatiq acks a message after the actor returns, on either broker."""
    brokers = {name for _, config in project.configs(NAME) if (name := broker_class(config))}
    known = sorted(brokers & _REDELIVERY.keys())
    if len(known) == 1:
        return Delivery(f"late: acked after the actor returns; {_REDELIVERY[known[0]]}", True)
    return Delivery(
        "late: acked after the actor returns; the broker redelivers a lost worker's "
        "messages (RabbitMQ at once, Redis after 60 s without a heartbeat)",
        late=True,
    )
