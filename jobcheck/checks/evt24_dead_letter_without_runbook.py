"""EVT-24 Replay dead letters with a written procedure.

Every dead-letter queue needs one written procedure: how to read the failures, fix the
cause, replay the messages at a capped rate, and record what was replayed or dropped.
Docs: docs/rules/EVT-24.md. Source: the Agent Wranglers integration and events playbook,
https://agentwranglers.se/playbook/events/background-jobs-and-queues (CC BY 4.0).

Dead-letter destinations: a Celery queue with ``x-dead-letter-exchange``; RQ's failed
job registry (rq/registry.py ``FailedJobRegistry``: every failed RQ job lands there);
Dramatiq's dead-letter queue (the Retries middleware, on by default, dead-letters a
message after its last retry: dramatiq/middleware/retries.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from jobcheck.checks.base import RuleChecks, check
from jobcheck.facts import DocFile
from jobcheck.findings import Finding
from jobcheck.project.routing import Place
from jobcheck.registry import owner, plugins, semantics


@dataclass(frozen=True)
class _Destination:
    label: str
    names: frozenset[str]
    """Lower-cased names a runbook may use for it instead of "dead letter"."""
    place: Place


class DeadLetterRunbook(RuleChecks):
    rule = "EVT-24"

    @check("dead-letter-without-runbook")
    def dead_letter_without_runbook(self) -> Iterator[Finding]:
        docs = self.project.docs
        if docs is None:
            return  # single files checked: the project's docs are out of sight
        runbooks = [doc for doc in docs if doc.words]
        missing = [d for d in self._destinations() if not _covered(d, runbooks)]
        if not missing:
            return
        first = min(missing, key=lambda d: (d.place.path, d.place.loc.line))
        labels = ", ".join(d.label for d in missing)
        if len(missing) > 2:  # the list goes to the note, the headline stays short
            labels = f"{len(missing)} dead-letter destinations ({labels})"
        folders = ", ".join(self.options.runbook_dirs)
        yield self.finding(
            "dead-letter-without-runbook",
            first.place.path,
            first.place.loc,
            f"Failed jobs end up in {labels}, but no document under the runbook folders "
            f"({folders}) names {'them' if len(missing) > 1 else 'it'} (or 'dead letter') and "
            "says how to inspect and replay "
            "what is there. Write the procedure: how to read the failures, fix the cause, "
            "replay at a capped rate, and record what was replayed or dropped",
        )

    def _destinations(self) -> list[_Destination]:
        found: list[_Destination] = []
        for use in self.project.routing.queues().values():
            for place, exchange in use.dead_letter:
                names = {use.name.lower()} | ({exchange.lower()} if exchange else set())
                found.append(
                    _Destination(
                        f"the dead-letter exchange of Celery queue '{use.name}'",
                        frozenset(names),
                        place,
                    )
                )
        for plugin in plugins():
            destination = semantics(plugin.name).dead_letter_destination(self.project)
            if destination is None:
                continue
            first = self._first_place(plugin.name)
            if first is not None:
                found.append(_Destination(destination[0], destination[1], first))
        return found

    def _first_place(self, framework: str) -> Place | None:
        """The first queue declared for ``framework``, else its first job or enqueue."""
        places = [
            Place(f.path, decl.loc)
            for f in self.project.files
            for decl in f.queues
            if owner(decl.framework) == framework
        ]
        if not places:
            places = [
                Place(job.file.path, job.task.loc)
                for job in self.project.jobs
                if owner(job.framework) == framework
            ]
        if not places:
            places = [
                Place(f.path, site.loc)
                for f, site, job in self.project.enqueues()
                if owner(job.framework if job else site.framework_hint) == framework
            ]
        return min(places, key=lambda p: (p.path, p.loc.line)) if places else None


def _covered(destination: _Destination, runbooks: list[DocFile]) -> bool:
    return any(doc.dead_letter or destination.names & doc.words for doc in runbooks)
