"""Job bodies: the functions that run as jobs, and what in them is unsafe to repeat.

A job body is the function a worker runs: a Celery task function (or a ``Task``
subclass's ``run``), an RQ ``@job`` function, a Dramatiq actor (or ``GenericActor.perform``),
a plain function an RQ queue enqueues by reference (``queue.enqueue(func, ...)``), a
function an in-process scheduler runs (APScheduler, ``schedule``) and the code a
CronJob's or crontab line's command runs.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from jobcheck.facts import MANAGEMENT_COMMAND, EnqueueSite, FileFacts, FunctionFacts, SideEffect
from jobcheck.project.model import Job, Project
from jobcheck.project.summaries import EXCLUSION_ONLY, Summary
from jobcheck.registry import semantics

# What ``unguarded_side_effects`` looks for, for messages (details in docs/rules/SCL-17.md).
GUARDS_LOOKED_FOR = (
    "an early return on a state check, get_or_create, select_for_update, a "
    "conflict-handling insert, an idempotency/dedupe key, cache.add"
)


@dataclass(frozen=True)
class JobBody:
    file: FileFacts
    function: FunctionFacts
    name: str
    job: Job | None
    """None for a plain function that an RQ queue enqueues by reference, or the code a
    scheduled command runs."""
    framework: str | None = None
    """Whose terms its findings speak: the job's framework, or the enqueue's or the
    schedule's (``kubernetes``, ``crontab``) when there is no job."""
    receiver: str | None = None
    """The class the body runs for when it is a method a subclass inherits
    (``queue.enqueue(cls.handle)`` in ``BaseJob``, run as ``CleanupJob.handle``)."""

    def summary(self, project: Project) -> Summary:
        """What the body does, directly or through the functions it calls, and what the
        hooks of its task base class do (they run with it)."""
        return body_summary(project, self.file, self.function, self.job, self.receiver)


def body_summary(
    project: Project,
    f: FileFacts,
    function: FunctionFacts,
    job: Job | None,
    receiver: str | None = None,
) -> Summary:
    """What a job's body does, with its task classes' hooks: what the checks judge and
    what ``review`` shows, one computation (memoized per body)."""
    return project.summaries.of_job(
        f, function, lambda: hook_functions(project, job) if job is not None else [], receiver
    )


def hook_functions(project: Project, job: Job) -> list[tuple[FileFacts, FunctionFacts]]:
    """The project functions that run as the hooks of ``job``'s task classes (nearest
    class first, each hook once): a base class overriding them runs their code with
    each job built on it."""
    found = []
    for hook in semantics(job.framework).words.task_hooks:
        for base in project.task_bases(job):
            entry = project.summaries.function(f"{base}.{hook}")
            if entry is not None:
                found.append(entry)
                break
    return found


def job_bodies(project: Project) -> list[JobBody]:
    """Every function that runs as a job, once each, in a stable order."""
    found: dict[str, JobBody] = {}
    for job in project.jobs:
        entry = project.functions.get(job.task.function or "")
        if entry is not None and entry[1].qualname not in found:
            found[entry[1].qualname] = JobBody(
                entry[0], entry[1], job.task.name, job, job.framework
            )
    for _, written, job in project.enqueues():
        framework = semantics(job.framework if job is not None else written.framework_hint)
        if job is not None or not framework.enqueues_by_reference:
            continue
        for site in project.bound_sites(written):
            _add_enqueued_body(project, site, found)
    for _, entry, job in project.scheduled_jobs():
        # A function an in-process scheduler runs itself (APScheduler, schedule).
        function = project.scheduled_function(entry, None) if job is None else None
        found_entry = project.functions.get(function or "")
        if found_entry is not None and found_entry[1].qualname not in found:
            found[found_entry[1].qualname] = JobBody(
                found_entry[0], found_entry[1], entry.label, None, entry.framework
            )
    for _, schedule in project.schedules():
        for qualname in project.command_functions(schedule):
            entry = project.functions.get(qualname)
            if entry is not None and entry[1].qualname not in found:
                name = schedule.label
                found[entry[1].qualname] = JobBody(
                    entry[0], entry[1], name, None, schedule.framework
                )
    return sorted(found.values(), key=lambda body: (body.file.path, body.function.loc.line))


def _add_enqueued_body(project: Project, site: EnqueueSite, found: dict[str, JobBody]) -> None:
    """The function an enqueue by reference runs (RQ), once."""
    if not site.target:
        return
    if project.per_class(site):
        # ``queue.enqueue(cls.handle)`` for ``CleanupJob``: ``BaseJob.handle`` if it is
        # not overridden, run for ``CleanupJob`` (its ``cls().run()`` is ``CleanupJob.run``).
        owner, _, method = site.target.rpartition(".")
        entry = project.functions.get(project.method_of(owner, method) or "")
        key = site.target
        name, receiver = f"{owner.rpartition('.')[2]}.{method}", owner
    else:
        # ``enqueue(call_command, "x")``: the command's body (``resolve_function``).
        entry = project.functions.get(project.resolve_function(site.target) or site.target)
        key = entry[1].qualname if entry is not None else site.target
        name = site.target.removeprefix(MANAGEMENT_COMMAND).rpartition(".")[2]
        receiver = None
    if entry is not None and key not in found:
        found[key] = JobBody(entry[0], entry[1], name, None, site.framework_hint, receiver)


def unguarded_side_effects(function: FunctionFacts, kinds: Collection[str]) -> list[SideEffect]:
    """Side effects of the given kinds ("charge", "send", "counter", "delete") that run
    with nothing making a second run harmless: no idempotency key on the call, no
    state check around it, and no guard earlier in the function."""
    unguarded = []
    for effect in function.side_effects:
        if effect.kind not in kinds or effect.has_key or effect.guard is not None:
            continue
        if any(
            guard.order < effect.order and guard.kind not in EXCLUSION_ONLY
            for guard in function.guards
        ):
            continue
        unguarded.append(effect)
    return unguarded
