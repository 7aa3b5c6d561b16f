"""SCL-19 Bound the backlog and push back on producers (EVT-18). REQUIRED.

Every queue needs a maximum backlog, as a count or an age; when it is reached, new work
is slowed or refused instead of piling up without end. Docs: docs/rules/SCL-19.md.

A queue "the project declares or routes to" is one its code names: a kombu or RQ
``Queue(...)``, a django_rq ``get_queue("name")``, an ``RQ_QUEUES`` or ``task_queues``
entry, a ``queue=`` on a task, a call or a beat entry, a ``task_routes`` target, an
``@job("name")``, a Dramatiq ``queue_name``; or a framework's default queue that the
project's jobs land on (for Celery only when the app or its settings are in sight, as
bounds live there).
"""

from __future__ import annotations

from collections.abc import Iterator

from jobcheck.checks.base import RuleChecks, check
from jobcheck.findings import Finding
from jobcheck.project.routing import Place, QueueUse, is_test_code


class BoundedBacklog(RuleChecks):
    rule = "SCL-19"

    # -- unbounded-queue -------------------------------------------------------------

    @check("unbounded-queue")
    def unbounded_queue(self) -> Iterator[Finding]:
        celery_in_sight = self.project.routing.celery_config_in_sight()
        broker = self.project.broker_scheme()
        for use in self.project.routing.queues().values():
            if use.bounds or use.maybe_bounded:
                continue
            if use.framework == "celery" and not celery_in_sight:
                continue
            if not use.explicit and not (use.jobs or use.sites):
                continue
            place = self._place_of(use)
            if place is not None:
                message = _message(use, broker)
                yield self.finding("unbounded-queue", place.path, place.loc, message)

    def _place_of(self, use: QueueUse) -> Place | None:
        """Its first declaration, else the first place naming it, else (an implicit
        default queue) its ``task_default_queue`` setting or the Celery app, where a
        bound would be configured (none of them in sight: nothing is said), or for RQ
        and Dramatiq the first job or call landing on it."""
        for places in ([p for p, _ in use.declarations], use.namings):
            if places:
                return min(places, key=_order)
        routing = self.project.routing
        if use.framework == "celery":
            return routing.celery_default.where or routing.app_place()
        candidates = [Place(job.file.path, job.task.loc) for job in use.jobs]
        candidates += [Place(f.path, site.loc) for f, site in use.sites]
        return min(candidates, key=_order) if candidates else None

    # -- unbounded-fan-out ----------------------------------------------------------------

    @check("unbounded-fan-out")
    def unbounded_fan_out(self) -> Iterator[Finding]:
        loops = self.project.routing.loop_enqueues
        for f, site, job in self.project.enqueues():
            if is_test_code(f):
                continue
            loop = loops.get((f.path, site.order))
            if loop is None or loop.throttled or loop.batched:
                continue
            name = job.task.name if job is not None else site.target_text
            if loop.source == "query":
                what = (
                    f"once per row of '{loop.source_text}' (line {loop.loop_loc.line}), a query "
                    "nothing bounds: one run puts as many jobs on the queue as the table has rows"
                )
            else:
                what = (
                    f"inside the paginated loop 'while {loop.source_text}' (line "
                    f"{loop.loop_loc.line}): one run enqueues a job for every item of every page"
                )
            yield self.finding(
                "unbounded-fan-out",
                f.path,
                site.loc,
                f"'{name}' is enqueued {what}, with no batching or throttling. Enqueue batches "
                "of IDs (e.g. a group of chunks, task.chunks(...)), slice or paginate the "
                "query, or throttle (a countdown that grows with the index)",
            )


def _order(place: Place) -> tuple[str, int, int]:
    return place.path, place.loc.line, place.loc.column


# Celery transports whose queues take RabbitMQ's x-max-length / x-message-ttl arguments.
AMQP_SCHEMES = frozenset({"amqp", "amqps", "pyamqp", "librabbitmq"})


def _message(use: QueueUse, broker: str | None = None) -> str:
    implicit = not use.explicit
    if use.framework == "celery":
        who = (
            f"Celery's default queue '{use.name}' (where every task nothing routes elsewhere goes)"
            if implicit
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
    if use.framework == "rq":
        return (
            f"RQ queue '{use.name}' has no backlog bound: no job enqueued on it sets ttl=, "
            "so jobs wait for ever and the queue grows without end while workers are down. "
            "Pass ttl= (seconds a job may wait) to enqueue() or @job, and check len(queue) "
            "before enqueueing more"
        )
    return (
        f"Dramatiq queue '{use.name}' has no backlog bound: no actor on it sets max_age and "
        "no AgeLimit(max_age=...) middleware is configured, so messages wait for ever and "
        "the queue grows without end. Set max_age= (milliseconds) on its actors or add "
        "AgeLimit(max_age=...) to the broker"
    )
