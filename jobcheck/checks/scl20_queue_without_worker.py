"""SCL-20 queue-without-worker: jobs routed to a queue no worker consumes.

The process definitions of the repository (Procfile, docker-compose, Kubernetes
workloads and Helm values, supervisord, systemd, Dockerfiles, shell entrypoints:
``jobcheck/project/workers.py``) say which queues the workers read. A queue that jobs
are routed to and that none of them reads fills up while the job silently never runs.
Silent for a framework when no worker command of it is found at all (the workers are
started somewhere jobcheck cannot see). Docs: docs/rules/SCL-20.md.
"""

from __future__ import annotations

from collections.abc import Iterator

from jobcheck.checks.base import RuleChecks, check
from jobcheck.findings import Finding
from jobcheck.project.workers import consumers, workers
from jobcheck.registry import semantics


class QueueWorkers(RuleChecks):
    rule = "SCL-20"

    @check("queue-without-worker")
    def queue_without_worker(self) -> Iterator[Finding]:
        found = workers(self.project.files)
        started = {w.framework for w in found}
        routing = self.project.routing
        configured: dict[str, frozenset[str] | None] = {}
        listings: dict[str, str] = {}
        for (framework, name), use in sorted(routing.queues().items()):
            if framework not in started or not (use.jobs or use.sites):
                continue
            if framework not in configured:  # once per framework, not per queue
                configured[framework] = routing.rules(framework).configured_queues()
            if consumers(found, framework, name, configured[framework]):
                continue
            if use.namings:
                path, loc = use.namings[0].path, use.namings[0].loc
            elif use.declarations:
                path, loc = use.declarations[0][0].path, use.declarations[0][0].loc
            elif use.jobs:
                path, loc = use.jobs[0].file.path, use.jobs[0].task.loc
            else:
                path, loc = use.sites[0][0].path, use.sites[0][1].loc
            sent = sorted(
                {j.task.name for j in use.jobs}
                | {(site.target or site.target_text).rsplit(".", 1)[-1] for _, site in use.sites}
            )
            names = ", ".join(sent[:3]) + (f" and {len(sent) - 3} more" if len(sent) > 3 else "")
            listed = listings.get(framework)
            if listed is None:
                where = sorted({w.where for w in found if w.framework == framework})
                listed = listings[framework] = "; ".join(where[:3])
            yield self.finding(
                "queue-without-worker",
                path,
                loc,
                f"queue '{name}' receives {names}, but none of the "
                f"{semantics(framework).title} workers the process definitions start "
                f"consumes it ({listed}): its jobs wait forever; add it to a worker's "
                "queues or route the jobs to a queue a worker reads",
            )
