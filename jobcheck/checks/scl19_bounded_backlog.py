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
from jobcheck.registry import semantics


class BoundedBacklog(RuleChecks):
    rule = "SCL-19"

    # -- unbounded-queue -------------------------------------------------------------

    @check("unbounded-queue")
    def unbounded_queue(self) -> Iterator[Finding]:
        routing = self.project.routing
        broker = self.project.broker_scheme()
        for use in routing.queues().values():
            if use.bounds or use.maybe_bounded:
                continue
            if not semantics(use.framework).config_in_sight(routing):
                continue
            if not use.explicit and not (use.jobs or use.sites):
                continue
            place = self._place_of(use)
            if place is not None:
                message = semantics(use.framework).unbounded_queue_message(use, broker)
                yield self.finding("unbounded-queue", place.path, place.loc, message)

    def _place_of(self, use: QueueUse) -> Place | None:
        """Its first declaration, else the first place naming it, else (an implicit
        default queue) its ``task_default_queue`` setting or the Celery app, where a
        bound would be configured (none of them in sight: nothing is said), or for RQ
        and Dramatiq the first job or call landing on it."""
        for places in ([p for p, _ in use.declarations], use.namings):
            if places:
                return min(places, key=_order)
        framework = semantics(use.framework)
        if framework.bounds_configured_centrally:
            return framework.default_queue_place(self.project.routing, use)
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
                f"'{name}' is enqueued {what}, with no batching or throttling. "
                + semantics(job.framework if job else site.framework_hint).fan_out_advice(),
            )


def _order(place: Place) -> tuple[str, int, int]:
    return place.path, place.loc.line, place.loc.column
