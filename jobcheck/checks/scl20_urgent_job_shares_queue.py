"""SCL-20 Keep urgent jobs in their own queue (EVT-19).

Jobs a person waits for (sign-in codes, password resets) need a queue of their own with
its own workers, so bulk work (exports, newsletters) never delays them.
Docs: docs/rules/SCL-20.md.

Heuristic: a job is urgent or bulk by the words of its name (``urgent-words`` and
``bulk-words`` in ``[tool.jobcheck]``), matched on word boundaries. Its queue comes from
the routing model (``jobcheck.project.routing``); a job whose queue cannot be known is
left alone.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from jobcheck.checks.base import RuleChecks, check
from jobcheck.findings import Finding
from jobcheck.project.routing import Place, Route, is_test_code
from jobcheck.registry import owner, semantics
from jobcheck.vocabulary.words import matching_word


@dataclass
class _Unit:
    """A job, or a function RQ enqueues without an ``@job`` decorator."""

    framework: str | None
    """None for a ``send_task`` by name whose framework nothing in sight tells."""
    name: str
    other_name: str = ""
    """The name it is registered under, when that differs (``@app.task(name=...)``)."""
    routes: list[tuple[Route, Place]] = field(default_factory=list)
    jumps_queue: bool = False
    """Taken before the other jobs of its queue (Huey's priority= on a priority storage)."""


class UrgentQueue(RuleChecks):
    rule = "SCL-20"

    @check("urgent-job-shares-queue")
    def urgent_job_shares_queue(self) -> Iterator[Finding]:
        units = self._units()
        bulk: dict[tuple[str | None, str | None], tuple[str, str]] = {}
        for unit in units:
            word = matching_word(f"{unit.name} {unit.other_name}", self.options.bulk_words)
            if word is None or self._urgent_word(unit) is not None:
                continue
            for route, _ in unit.routes:
                bulk.setdefault((owner(unit.framework), route.queue), (unit.name, word))
        seen: set[tuple[str, int]] = set()
        for unit in units:
            word = self._urgent_word(unit)
            if word is None or unit.jumps_queue:
                continue
            for route, place in unit.routes:
                key = (place.path, place.loc.line)
                if key in seen:
                    continue
                shared = bulk.get((owner(unit.framework), route.queue))
                if route.default:
                    why = (
                        f"runs on the default queue '{route.queue}', behind every job nothing "
                        "routes elsewhere"
                    )
                elif shared is not None:
                    why = (
                        f"runs on queue '{route.queue}', which also receives bulk job "
                        f"'{shared[0]}' ('{shared[1]}')"
                    )
                else:
                    continue
                seen.add(key)
                yield self.finding(
                    "urgent-job-shares-queue",
                    place.path,
                    place.loc,
                    f"'{unit.name}' looks like a job a person waits for (its name has "
                    f"'{word}'), but it {why}: a backlog of bulk work delays it. Give it a "
                    f"queue with its own workers ({semantics(unit.framework).words.how_to_route})",
                )

    def _urgent_word(self, unit: _Unit) -> str | None:
        return matching_word(f"{unit.name} {unit.other_name}", self.options.urgent_words)

    def _units(self) -> list[_Unit]:
        """Each job with the routes it is sent on: its own route when some call (or
        none in sight) relies on it, and each queue a call names for it."""
        routing = self.project.routing
        units: dict[str, _Unit] = {}
        for f, site, job in self.project.enqueues():
            if is_test_code(f):
                continue
            framework = site.framework_hint or (job.framework if job is not None else None)
            if framework is None or not routing.site_names_queue(f, site, job):
                if job is not None or site.method != "send_task":
                    continue
            key = job.task.qualname if job is not None else f"{framework}:{site.target_text}"
            unit = units.setdefault(key, _Unit(framework, _last(site.target_text)))
            route = routing.site_route(f, site, job)
            if route.known:
                unit.routes.append((route, Place(f.path, site.loc)))
        for job in self.project.jobs:
            if is_test_code(job.file):
                continue
            registered = _last(job.task.registered_name or "")
            unit = units.setdefault(job.task.qualname, _Unit(job.framework, job.task.name))
            unit.name = job.task.name
            unit.other_name = registered if registered != job.task.name else ""
            unit.jumps_queue = semantics(job.framework).jumps_its_queue(self.project, job)
            if not routing.uses_own_route(job):
                continue
            route = routing.job_route(job)
            unseen = routing.rules(job.framework).hides_routes_from_view(route)
            if route.known and not unseen:
                place = Place(job.file.path, job.task.loc)
                if route.where is not None and semantics(job.framework).reports_route_where_named:
                    place = route.where  # the queue_as line, where the queue is chosen
                unit.routes.insert(0, (route, place))
        return list(units.values())


def _last(text: str) -> str:
    return text.rsplit(".", 1)[-1].strip("'\"")
