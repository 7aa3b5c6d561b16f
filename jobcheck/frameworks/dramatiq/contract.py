"""Dramatiq's part of ``jobcheck jobs``: TimeLimit(time_limit=600000) and
Retries(max_retries=20) with exponential backoff and jitter (dramatiq/middleware/);
dead-lettered messages are kept 7 days (dramatiq/brokers/)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from jobcheck.facts.values import describe, is_none, number
from jobcheck.frameworks.dramatiq.companions import (
    BrokerMiddleware,
    broker_class,
    broker_middleware,
)

if TYPE_CHECKING:
    from jobcheck.project.model import Job, Project

NAME = "dramatiq"

DRAMATIQ_DEFAULT_LIMIT = "600 s (Dramatiq default)"


def time_limit(project: Project, job: Job) -> str:
    middleware = broker_middleware(project)
    if middleware is not None and "TimeLimit" not in middleware.names:
        return f"none (no TimeLimit middleware in {middleware.where})"
    if job.task.has_option("time_limit"):
        value = job.task.option("time_limit")
        milliseconds = number(value)
        return f"{milliseconds / 1000:g} s" if milliseconds is not None else describe(value)
    # time_limit.py: ``TimeLimit(time_limit=N)`` is the default of every actor.
    given = _middleware_option(middleware, "TimeLimit", "time_limit")
    if given is not None:
        return f"{given / 1000:g} s (TimeLimit middleware)"
    return DRAMATIQ_DEFAULT_LIMIT


def retrying(project: Project) -> bool:
    """Whether the broker has the Retries middleware (which also dead-letters)."""
    middleware = broker_middleware(project)
    return middleware is None or "Retries" in middleware.names


def retries(project: Project, job: Job) -> str:
    middleware = broker_middleware(project)
    if middleware is not None and "Retries" not in middleware.names:
        return f"none: a failure is dropped (no Retries middleware in {middleware.where})"
    if job.task.has_option("max_retries"):
        value = job.task.option("max_retries")
        return "unbounded" if is_none(value) else f"max {describe(value)}"
    # retries.py: ``Retries(max_retries=N)`` is the default of every actor.
    given = _middleware_option(middleware, "Retries", "max_retries")
    if given is not None:
        return f"max {given:g} (Retries middleware)"
    return "max 20 (Dramatiq default)"


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


def delivery(project: Project) -> str:
    """Dramatiq acks a message after the actor returns, on either broker."""
    brokers = {broker_class(config) for _, config in project.configs(NAME)}
    known = sorted(brokers & _REDELIVERY.keys())
    if len(known) == 1:
        return f"late: acked after the actor returns; {_REDELIVERY[known[0]]}"
    return (
        "late: acked after the actor returns; the broker redelivers a lost worker's "
        "messages (RabbitMQ at once, Redis after 60 s without a heartbeat)"
    )
