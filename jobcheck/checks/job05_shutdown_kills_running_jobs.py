"""JOB-05 A deploy lets running jobs finish: shutdown-kills-running-jobs.

At a deploy the platform sends the worker its stop signal and kills it when the grace
period ends: 30 s in Kubernetes unless ``terminationGracePeriodSeconds`` says more, 30 s
on Heroku (a Procfile's processes), ``stopwaitsecs`` (10 s by default) for supervisord.
A worker whose jobs may run longer than that (their time limit says so) loses the runs
still going at every deploy: a late-acknowledged job runs again from the start, an early
one is lost. Docs: docs/rules/JOB-05.md.

Judged from the time limits the project sets (the job contracts ``jobcheck jobs``
prints): a job without one is not known to run long, and a framework without job time
limits (Sidekiq) is not judged here.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator

from jobcheck.checks.base import RuleChecks, check
from jobcheck.checks.job05_worker_signals_not_forwarded import worker_of
from jobcheck.facts import FileFacts, ProcessDecl
from jobcheck.facts.values import number, string
from jobcheck.findings import Finding
from jobcheck.project.model import Job
from jobcheck.project.test_code import is_test_code
from jobcheck.project.workers import Workers, consumers, workers
from jobcheck.registry import semantics

# Grace periods when nothing sets one: Kubernetes' PodSpec terminationGracePeriodSeconds
# (30), Heroku's dyno shutdown (SIGTERM, then SIGKILL 30 s later), supervisord's
# stopwaitsecs (10).
_GRACE = {
    "workload": (30.0, "terminationGracePeriodSeconds", "Kubernetes' default"),
    "procfile": (30.0, "", "Heroku stops a dyno's processes 30 s after SIGTERM"),
    "supervisord": (10.0, "stopwaitsecs", "supervisord's default stopwaitsecs"),
}
_REMEDY = {
    "workload": "set terminationGracePeriodSeconds in the worker's pod spec above the "
    "longest limit",
    "procfile": "Heroku's 30 s cannot be raised: split long jobs into short steps that "
    "resume where the last one stopped",
    "supervisord": "set stopwaitsecs above the longest limit",
}


class ShutdownKillsRunningJobs(RuleChecks):
    rule = "JOB-05"

    @functools.cached_property
    def _workers(self) -> Workers:
        return workers(self.project.files)

    @check("shutdown-kills-running-jobs")
    def shutdown_kills_running_jobs(self) -> Iterator[Finding]:
        for f in self.project.files:
            if is_test_code(f):
                continue
            for process in f.processes:
                grace = _grace(process)
                framework = worker_of(process.command) if grace is not None else None
                if grace is None or framework is None:
                    continue
                where = f"{f.path}:{process.loc.line} ({process.name})"
                longer = self._longer_than(framework, grace[0], where)
                if longer:
                    yield self._finding(f, process, framework, grace, longer)

    def _longer_than(self, framework: str, grace: float, where: str) -> list[tuple[Job, float]]:
        """The jobs the worker at ``where`` consumes whose time limit lets them run past
        ``grace``, longest first."""
        found = []
        routing = self.project.routing
        configured = routing.rules(framework).configured_queues()
        for job in self.project.jobs:
            if job.framework != framework or is_test_code(job.file):
                continue
            queue = routing.job_route(job).queue
            if queue is not None and where not in consumers(
                self._workers, framework, queue, configured
            ):
                continue  # another worker runs it
            limit = self.project.contract(job).time_limit
            seconds = limit.bound_seconds if limit is not None else None
            if seconds is not None and seconds > grace:
                found.append((job, seconds))
        return sorted(found, key=lambda pair: -pair[1])

    def _finding(
        self,
        f: FileFacts,
        process: ProcessDecl,
        framework: str,
        grace: tuple[float, str],
        longer: list[tuple[Job, float]],
    ) -> Finding:
        seconds, source = grace
        job, longest = longer[0]
        more = f" and {len(longer) - 1} more" if len(longer) > 1 else ""
        delivery = self.project.contract(job).delivery
        late = delivery.late if delivery is not None else None
        after = (
            "run again from the start (acknowledged late)"
            if late
            else "are lost (acknowledged before they ran)"
            if late is False
            else "run again from the start or are lost"
        )
        return self.finding(
            "shutdown-kills-running-jobs",
            f.path,
            process.loc,
            f"{semantics(framework).title} worker '{process.name}' gets {seconds:g} s to "
            f"stop at a deploy ({source}) but its jobs may run longer ('{job.task.name}' "
            f"up to {longest:g} s{more}): the jobs still running when the grace period "
            f"ends are killed and {after}; {_REMEDY[process.source]}",
        )


def _grace(process: ProcessDecl) -> tuple[float, str] | None:
    """The grace period the platform gives ``process``, and where it comes from."""
    known = _GRACE.get(process.source)
    if known is None:
        return None
    default, key, default_source = known
    value = process.option(key) if key else None
    given = number(value)
    if given is None and (string(value) or "").strip().isdigit():
        given = int(string(value) or "0")  # supervisord's options are text
    if given is not None:
        return float(given), f"{key}: {given:g}"
    return default, default_source
