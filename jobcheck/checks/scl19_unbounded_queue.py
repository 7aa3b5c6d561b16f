"""SCL-19 Bound the backlog and push back on producers (EVT-18), REQUIRED: unbounded-queue.

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

import functools
from collections.abc import Iterator

from jobcheck.checks.base import RuleChecks, check
from jobcheck.facts.values import string
from jobcheck.findings import Finding, Related
from jobcheck.project.routing import Place, QueueUse, Routing
from jobcheck.registry import semantics
from jobcheck.timing import gap_seconds

HOURLY = 3600.0
"""Schedules that fire at most this often feed a queue a few messages a day."""


class UnboundedQueue(RuleChecks):
    rule = "SCL-19"

    @check("unbounded-queue")
    def unbounded_queue(self) -> Iterator[Finding]:
        routing = self.project.routing
        # Queues one line declares or names (``RQ_QUEUES = {q: {...} for q in (...)}``,
        # ``get_queue(cls.queue_name)`` for each job class) are one finding, naming all.
        by_place: dict[Place, list[QueueUse]] = {}
        for use in routing.queues().values():
            if use.bounds or use.maybe_bounded:
                continue
            if not routing.rules(use.framework).config_in_sight():
                continue
            if not use.explicit and not (use.jobs or use.sites):
                continue
            if self._fed_only_by_schedules(use):
                continue
            place = self._place_of(use)
            if place is not None:
                by_place.setdefault(place, []).append(use)
        for place, uses, where, elsewhere in _by_file(by_place, routing):
            first, others = uses[0], uses[1:]
            message = routing.rules(first.framework).unbounded_queue_message(first)
            if others:
                names = [f"'{use.name}'" for use in others]
                listed = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
                noun, verb = ("queue", "has") if len(names) == 1 else ("queues", "have")
                message += f"; the other {noun} {where}, {listed}, {verb} no bound either"
            related = tuple(
                Related(other.path, other.loc, "another queue without a bound")
                for other in elsewhere
            )
            yield self.finding("unbounded-queue", place.path, place.loc, message, related=related)

    def _fed_only_by_schedules(self, use: QueueUse) -> bool:
        """A queue no call sends to, whose jobs run only on schedules that fire at most
        once an hour: a few messages a day, not a backlog that grows while the workers
        lag (what they may do while workers are down is schedule-without-expiry's)."""
        named_by_schedules = self._schedules_naming.get(use.name, [])
        if use.sites or not (use.jobs or named_by_schedules):
            return False
        sent, gaps = self._producers
        for job in use.jobs:
            if id(job) in sent:
                return False
            found = gaps.get(id(job))
            if not found or any(gap is None or gap < HOURLY for gap in found):
                return False
        return all(gap is not None and gap >= HOURLY for gap in named_by_schedules)

    @functools.cached_property
    def _schedules_naming(self) -> dict[str, list[float | None]]:
        """Queue name -> the gaps of the schedule entries that send to it by name (a
        sidekiq-cron entry's ``queue: "scheduled"``, a beat entry's options)."""
        found: dict[str, list[float | None]] = {}
        for _, entry, job in self.project.scheduled_jobs():
            queue = string(entry.option("queue"))
            if queue and job is not None:
                found.setdefault(queue, []).append(gap_seconds(entry.timing))
        return found

    @functools.cached_property
    def _producers(self) -> tuple[set[int], dict[int, list[float | None]]]:
        """The jobs some call enqueues, and each scheduled job's gaps between runs."""
        sent = {id(job) for _, _, job in self.project.enqueues() if job is not None}
        gaps: dict[int, list[float | None]] = {}
        for _, entry, job in self.project.scheduled_jobs():
            if job is not None:
                gaps.setdefault(id(job), []).append(gap_seconds(entry.timing))
        return sent, gaps

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
            return self.project.routing.rules(use.framework).default_queue_place(use)
        candidates = [Place(job.file.path, job.task.loc) for job in use.jobs]
        candidates += [Place(f.path, site.loc) for f, site in use.sites]
        return min(candidates, key=_order) if candidates else None


def _by_file(
    by_place: dict[Place, list[QueueUse]], routing: Routing
) -> Iterator[tuple[Place, list[QueueUse], str, list[Place]]]:
    """The groups to report, each with how the message names the others and the other
    places: queues one line names stay together ("this line names"); where a framework
    offers no bound to any queue (Sidekiq), its queues are one finding for the project
    ("this project uses"), at its queue configuration (``config/sidekiq.yml``) when in
    sight, as a reader wants one finding, not one per job file or line of config."""
    projects: dict[str, list[tuple[Place, list[QueueUse]]]] = {}
    for place, uses in by_place.items():
        framework = uses[0].framework
        if routing.rules(framework).one_finding_per_project:
            projects.setdefault(framework, []).append((place, uses))
        else:
            yield place, uses, "this line names", []
    for groups in projects.values():
        groups.sort(key=lambda group: (not _is_queue_config(group[0]), _order(group[0])))
        places = [place for place, _ in groups]
        uses = [use for _, group in groups for use in group]
        yield places[0], uses, "this project uses", places[1:]


def _is_queue_config(place: Place) -> bool:
    return place.path.replace("\\", "/").endswith(("sidekiq.yml", "sidekiq.yaml"))


def _order(place: Place) -> tuple[str, int, int]:
    return place.path, place.loc.line, place.loc.column
