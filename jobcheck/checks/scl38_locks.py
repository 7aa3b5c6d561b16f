"""SCL-38 Run each scheduled job once at a time (EVT-22): how jobcheck reads a lock (in the
job, in the functions it calls, a lock decorator, a single-instance base class) and which
scheduled jobs overlap by design. Shared by SCL-38's checks and ``jobcheck review``.
Docs: docs/rules/SCL-38.md.
"""

from __future__ import annotations

import functools

from jobcheck.config import Options
from jobcheck.facts import (
    IN_PROCESS_LOCK,
    Decorator,
    FileFacts,
    FunctionFacts,
    ScheduleEntry,
)
from jobcheck.project.model import Job, Project
from jobcheck.project.test_code import is_test_code
from jobcheck.registry import plugins, schedule_terms, semantics
from jobcheck.timing import describe_seconds, gap_seconds
from jobcheck.vocabulary.lock_names import decorates_with_lock, name_words

LOCK_GUARDS = frozenset({"lock", "row-lock", "advisory-lock"})
# Single-instance task bases: celery-once (celery_once/tasks.py ``QueueOnce``) and
# celery-singleton (celery_singleton/singleton.py ``Singleton``).
KNOWN_LOCK_BASES = frozenset(
    {
        "celery_once.QueueOnce",
        "celery_once.tasks.QueueOnce",
        "celery_singleton.Singleton",
        "celery_singleton.singleton.Singleton",
    }
)
# Decorators: huey's ``@huey.lock_task("name")`` (huey/api.py ``Huey.lock_task``), and
# any decorator whose name says it keeps one instance (heuristic; configurable).
KNOWN_LOCK_DECORATOR_SUFFIXES = (".lock_task",)
SINGLE_INSTANCE_WORDS = frozenset(
    {"single", "singleton", "once", "exclusive", "unique", "mutex", "concurrent", "running"}
)


class LockReading:
    """What SCL-38's checks know about locks; mixed into their ``RuleChecks`` classes
    (``self.project`` is theirs)."""

    project: Project
    options: Options

    def _overlapping(
        self,
    ) -> list[tuple[FileFacts, ScheduleEntry, Job | None, float, float]]:
        """(file, entry, job, limit, gap) of each job scheduled more often than its time
        limit allows, without a lock: schedule-overlaps-time-limit reports them, and
        scheduled-job-without-lock leaves them to it."""
        found = []
        seen: set[str] = set()
        for f, entry, job in self.project.scheduled_jobs():
            function = self.project.scheduled_function(entry, job)
            if function is None or is_test_code(f) or function in seen:
                continue
            enqueued = job is not None and job.task.function != entry.target
            if schedule_terms(entry).runs_one_at_a_time and not enqueued:
                continue
            gap = gap_seconds(entry.timing)
            framework = semantics(job.framework if job else entry.framework)
            limit = framework.schedule_time_limit(self.project, entry, job)
            if gap is None or limit is None or limit <= gap:
                continue
            if self._guarded(function, job) or self._not_implemented(function):
                continue
            seen.add(function)
            found.append((f, entry, job, limit, gap))
        return found

    def _in_process_note(self, function: str) -> str:
        """Name the threading/asyncio lock a job holds, so "no lock" does not read as
        wrong (brightsky's ``with update_stations._lock:``)."""
        summary = self.project.summaries.of(function)
        held = next((r for r in summary.guards if r.item.kind == IN_PROCESS_LOCK), None)
        if held is None:
            return ""
        return (
            f" another process sees (the lock it holds at line {held.item.loc.line} is made "
            "with threading, multiprocessing or asyncio and holds within one process only)"
        )

    @functools.cached_property
    def _lock_examples(self) -> str:
        """Locks to suggest: the libraries' own the project uses (Django's cache.add),
        then a Redis lock and a PostgreSQL advisory lock."""
        own = [ex for p in plugins() for ex in semantics(p.name).lock_examples(self.project)]
        return ", ".join([*own, "a Redis lock", "pg_try_advisory_lock"])

    def _not_implemented(self, function: str) -> bool:
        """A job declared to be run elsewhere (its body raises NotImplementedError)."""
        facts = self.project.function(function)
        return facts is not None and facts.not_implemented

    def _guarded(self, function: str, job: Job | None) -> bool:
        """A lock in the job or in the functions it calls (taiga's send_bulk_email task
        calls services.send_bulk_email, which runs under advisory_lock(..., wait=False)),
        a lock decorator on either, or a single-instance base class."""
        if job is not None and (
            self._lock_base(job) or semantics(job.framework).runs_one_copy(self.project, job)
        ):
            return True
        summary = self.project.summaries.of(function)
        if any(reach.item.kind in LOCK_GUARDS for reach in summary.guards):
            return True
        return any(
            self._lock_decorator(d.qualname) or self._wraps_in_lock(d.qualname)
            for reach in summary.functions
            for d in under_the_job_decorator(reach.item, job)
        )

    def _wraps_in_lock(self, qualname: str | None) -> bool:
        """A project decorator that wraps the job in a lock decorator (indico's
        ``@celery.periodic_task(...)``, a method of its app class, does ``f =
        locked_task(f)``): the decorator's own function, or the method of the class of
        the object it is read from."""
        if not qualname:
            return False
        owner, _, method = qualname.rpartition(".")
        candidates = [qualname]
        made_by = self.project.instances.get(owner) if owner else None
        if made_by:
            candidates.append(f"{made_by}.{method}")
        for candidate in candidates:
            function = self.project.function(candidate)
            if function is not None and any(self._lock_decorator(w) for w in function.wraps_in):
                return True
        return False

    def _lock_decorator(self, qualname: str | None) -> bool:
        if not qualname:
            return False
        last = qualname.rpartition(".")[2]
        configured = self.options.lock_decorators
        if qualname in configured or last in configured:
            return True
        if qualname.endswith(KNOWN_LOCK_DECORATOR_SUFFIXES):
            return True
        return decorates_with_lock(last) or bool(set(name_words(last)) & SINGLE_INSTANCE_WORDS)

    def _lock_base(self, job: Job) -> bool:
        configured = set(self.options.lock_base_classes)
        pending = [
            b for b in (job.task.base, *self.project.classes.get(job.task.qualname, ())) if b
        ]
        seen: set[str] = set()
        while pending:
            base = pending.pop()
            if base in seen:
                continue
            seen.add(base)
            if base in KNOWN_LOCK_BASES or base in configured:
                return True
            if base.rpartition(".")[2] in configured:
                return True
            pending.extend(self.project.classes.get(base, ()))
        return False


def under_the_job_decorator(function: FunctionFacts, job: Job | None) -> list[Decorator]:
    """The decorators that wrap the code the worker runs: for the job's own function, its
    job decorator and those below it. One above it wraps the job object, i.e. the enqueue (Huey's
    ``@huey.lock_task`` over ``@huey.periodic_task``: api.py ``create_task`` keeps the
    plain function, which the consumer runs)."""
    decorators = list(function.decorators)
    if job is None or function.qualname != job.task.function:
        return decorators
    for index, decorator in enumerate(decorators):
        if decorator.loc == job.task.loc:
            return decorators[index:]  # the job decorator itself may wrap in a lock
    return decorators


def enqueued_note(entry: ScheduleEntry) -> str:
    """The scheduled function only enqueues the job: the job runs in a worker, where the
    scheduler's own one-at-a-time rule (APScheduler's ``max_instances``) does not reach."""
    note = ", which only enqueues it"
    if schedule_terms(entry).enqueued_job_name:
        guard = semantics(entry.framework).schedule_guard_noun
        return f"{note}: the job runs in a worker, which {guard} does not guard"
    if schedule_terms(entry).runs_one_at_a_time:
        note += f": {semantics(entry.framework).title}'s one-run-at-a-time covers the enqueue"
        note += ", not the job's run in a worker"
    return note


def duration(seconds: float) -> str:
    """``10 min``, ``1 minute`` (describe_seconds says "minute" for "every minute")."""
    text = describe_seconds(seconds)
    return text if text[:1].isdigit() else f"1 {text}"
