"""SCL-38 Run each scheduled job once at a time (EVT-22).

A scheduled job whose run overlaps the next, or that a second scheduler also starts,
runs twice at once unless it takes a lock first; an in-process scheduler started from
web-app start-up code runs every job once per web process and replica.
Docs: docs/rules/SCL-38.md.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator
from itertools import product

from jobcheck.checks.base import RuleChecks, check
from jobcheck.facts import (
    IN_PROCESS_LOCK,
    Decorator,
    FileFacts,
    FunctionFacts,
    Loc,
    ProcessDecl,
    ScheduleEntry,
    SchedulerStart,
    StartupHook,
)
from jobcheck.facts.values import number, string
from jobcheck.findings import Finding
from jobcheck.project.model import Job, Project
from jobcheck.project.schedule_words import describe, job_label
from jobcheck.project.test_code import is_test_code
from jobcheck.project.workers import commands
from jobcheck.registry import plugins, semantics
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


class SingleJobRuns(RuleChecks):
    rule = "SCL-38"

    # -- scheduled-job-without-lock ----------------------------------------------------

    @check("schedule-overlaps-time-limit")
    def schedule_overlaps_time_limit(self) -> Iterator[Finding]:
        """A job whose time limit is longer than the time between two of its starts, and
        that takes no lock: its runs overlap by design (one finding per job)."""
        for f, entry, job, limit, gap in self._overlapping():
            framework = semantics(job.framework if job else entry.framework)
            examples = framework.own_lock_examples() or self._lock_examples
            shown = framework.display_name(job) if job else job_label(entry)
            yield self.finding(
                "schedule-overlaps-time-limit",
                f.path,
                entry.loc,
                f"'{shown}' may run for {_duration(limit)} but "
                f"starts every {describe_seconds(gap)} and takes no lock: a run still going "
                f"at the next start overlaps it, by design ({describe(entry)}, its time "
                f"limit {_duration(limit)}); take a lock at the top ({examples}) and skip the "
                "run when it is held, or keep the limit below the time between runs",
            )

    def _overlapping(
        self,
    ) -> list[tuple[FileFacts, ScheduleEntry, Job | None, float, float]]:
        """(file, entry, job, limit, gap) of each job scheduled more often than its time
        limit allows, without a lock; memoized (the lock check skips these jobs)."""
        if hasattr(self, "_overlap_memo"):
            return self._overlap_memo  # type: ignore[no-any-return]
        found = []
        seen: set[str] = set()
        for f, entry, job in self.project.scheduled_jobs():
            function = self.project.scheduled_function(entry, job)
            if function is None or is_test_code(f) or function in seen:
                continue
            enqueued = job is not None and job.task.function != entry.target
            if semantics(entry.framework).runs_one_at_a_time(entry) and not enqueued:
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
        self._overlap_memo = found
        return found

    @check("scheduled-job-without-lock")
    def scheduled_job_without_lock(self) -> Iterator[Finding]:
        """One finding per job, at the first schedule entry that runs it (a job the
        overlap check reports is left to it)."""
        seen: set[str] = set()
        if "schedule-overlaps-time-limit" in self.enabled:
            seen |= {
                self.project.scheduled_function(entry, job) or ""
                for _, entry, job, _, _ in self._overlapping()
            }
        for f, entry, job in self.project.scheduled_jobs():
            enqueued = job is not None and job.task.function != entry.target
            if semantics(entry.framework).runs_one_at_a_time(entry) and not enqueued:
                continue  # its scheduler runs it in-process, one at a time
            function = self.project.scheduled_function(entry, job)
            if function is None:
                yield from self._unguarded_command(f, entry, seen)
                continue
            if function in seen:
                continue
            seen.add(function)
            if self._guarded(function, job) or self._not_implemented(function):
                continue
            framework = semantics(job.framework if job else entry.framework)
            examples = framework.own_lock_examples() or self._lock_examples
            shown = framework.display_name(job) if enqueued and job else job_label(entry)
            yield self.finding(
                "scheduled-job-without-lock",
                f.path,
                entry.loc,
                f"'{shown}' runs on a "
                f"schedule ({describe(entry)}{_enqueued_note(entry) if enqueued else ''}"
                f"{'' if enqueued else semantics(entry.framework).overlap_note(entry)}) but "
                f"takes no lock{self._in_process_note(function)}: when "
                f"{semantics(entry.framework).overlap_causes(entry)}, two "
                f"copies run at once; take a lock at the top ({examples}) and "
                f"skip the run when it is held{framework.single_run_advice()}. "
                "Looked for "
                "lock calls in its body and in the functions it calls, lock decorators and "
                "single-instance base classes",
            )

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

    def _unguarded_command(
        self, f: FileFacts, entry: ScheduleEntry, seen: set[str]
    ) -> Iterator[Finding]:
        """An entry that runs a command (a CronJob, a crontab line), judged by its own
        settings (``concurrencyPolicy``, a ``flock`` wrapper)."""
        message = semantics(entry.framework).unguarded_schedule(entry)
        key = f"{f.path}\0{entry.loc.line}"
        if message is None or key in seen:
            return
        if any(self._guarded(code, None) for code in self.project.command_functions(entry)):
            return  # the code it runs takes a lock (``handle`` under a cache lock)
        if "lock" in self.project.script_wrappers(entry):
            return  # the script it runs takes one (``flock -n 200`` in run-manage.bash)
        seen.add(key)
        yield self.finding("scheduled-job-without-lock", f.path, entry.loc, message)

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
            for d in _under_the_job_decorator(reach.item, job)
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

    # -- scheduler-in-every-instance ---------------------------------------------------

    @check("scheduler-in-every-instance")
    def scheduler_in_every_instance(self) -> Iterator[Finding]:
        starts = self._confirmed_starts()
        by_function: dict[str, list[tuple[FileFacts, SchedulerStart]]] = {}
        by_module: dict[str, list[tuple[FileFacts, SchedulerStart]]] = {}
        for f, start in starts:
            if start.function is None:
                by_module.setdefault(f.module, []).append((f, start))
            else:
                by_function.setdefault(start.function, []).append((f, start))
        reported: set[tuple[str, Loc]] = set()
        for f in self.project.files:
            for hook in f.startup_hooks:
                if self._hook_is_locked(hook):
                    continue
                for loc, start, where in self._starts_from(f, hook, starts, by_function, by_module):
                    if (f.path, loc) in reported:
                        continue
                    reported.add((f.path, loc))
                    yield self.finding(
                        "scheduler-in-every-instance",
                        f.path,
                        loc,
                        _every_instance_message(hook, start, where),
                    )
        yield from self._every_process()

    def _every_process(self) -> Iterator[Finding]:
        """A process definition that runs a scheduler in every copy of a process: a
        Celery worker with an embedded beat (``-B``) in a Procfile (whose process types
        scale out), or a scheduler under supervisord with ``numprocs`` above 1."""
        for f in self.project.files:
            for process in f.processes:
                message = _process_scheduler(self.project, process)
                if message is not None:
                    yield self.finding("scheduler-in-every-instance", f.path, process.loc, message)

    def _confirmed_starts(self) -> list[tuple[FileFacts, SchedulerStart]]:
        objects = {o for f in self.project.files for o in f.scheduler_objects}
        return [
            (f, start)
            for f in self.project.files
            if not is_test_code(f)
            for start in f.scheduler_starts
            if not start.main_only  # a web server imports the module: that code never runs
            and (start.receiver is None or _lookup(start.receiver, objects) is not None)
        ]

    def _starts_from(
        self,
        f: FileFacts,
        hook: StartupHook,
        starts: list[tuple[FileFacts, SchedulerStart]],
        by_function: dict[str, list[tuple[FileFacts, SchedulerStart]]],
        by_module: dict[str, list[tuple[FileFacts, SchedulerStart]]],
    ) -> Iterator[tuple[Loc, SchedulerStart, str | None]]:
        """Scheduler starts inside the hook (reported there), then those it reaches by
        one call, thread target or import (reported at that call, naming the start)."""
        for start_file, start in starts:
            if start_file is f and _inside(start.function, hook.function):
                if not self._function_is_locked(start.function):
                    yield start.loc, start, None
        for name, loc in hook.calls:
            function = _lookup(name, by_function.keys())
            module = _lookup(name, by_module.keys())
            reached = by_function.get(function or "", []) + by_module.get(module or "", [])
            for start_file, start in reached:
                if not self._function_is_locked(start.function):
                    yield loc, start, f"{start_file.path}:{start.loc.line}"

    def _hook_is_locked(self, hook: StartupHook) -> bool:
        return self._function_is_locked(hook.function)

    def _function_is_locked(self, qualname: str | None) -> bool:
        """A lock (leader election, a lock file) decides which instance starts it."""
        facts = self.project.function(qualname)
        return facts is not None and any(g.kind in LOCK_GUARDS for g in facts.guards)


def _lookup(name: str, known: Iterable[str]) -> str | None:
    """``name`` itself, or the one known dotted path equal to it up to leading packages
    (a folder without ``__init__.py`` gives its modules shorter names)."""
    candidates = [k for k in known if k == name]
    if not candidates:
        candidates = [k for k in known if k.endswith("." + name) or name.endswith("." + k)]
    return candidates[0] if len(candidates) == 1 else None


def _inside(function: str | None, hook_function: str | None) -> bool:
    if hook_function is None:
        return function is None
    return function is not None and (
        function == hook_function or function.startswith(hook_function + ".")
    )


def _under_the_job_decorator(function: FunctionFacts, job: Job | None) -> list[Decorator]:
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


def _every_instance_message(hook: StartupHook, start: SchedulerStart, where: str | None) -> str:
    what = semantics(start.kind).scheduler_noun
    if where is not None:
        what += f" ({where})"
    return (
        f"{what} is started from {hook.kind}, which runs in every web process of every "
        "replica, so each of them runs every scheduled job: run the scheduler in one "
        "dedicated process (a management command, its own container), or have it take a "
        "lock so a single instance schedules"
    )


def _enqueued_note(entry: ScheduleEntry) -> str:
    """The scheduled function only enqueues the job: the job runs in a worker, where the
    scheduler's own one-at-a-time rule (APScheduler's ``max_instances``) does not reach."""
    note = ", which only enqueues it"
    if semantics(entry.framework).enqueued_job_name(entry):
        guard = semantics(entry.framework).schedule_guard_noun
        return f"{note}: the job runs in a worker, which {guard} does not guard"
    if semantics(entry.framework).runs_one_at_a_time(entry):
        note += f": {semantics(entry.framework).title}'s one-run-at-a-time covers the enqueue"
        note += ", not the job's run in a worker"
    return note


def _process_scheduler(project: Project, process: ProcessDecl) -> str | None:
    """Why ``process`` runs a scheduler in each of its copies, or None: each framework
    says which of its commands schedule (``Semantics.process_scheduler``)."""
    copies = _copies(process)
    where = _process_name(process)
    for words, plugin in product(commands(process.command), plugins()):
        found = semantics(plugin.name).process_scheduler(project, words)
        if found is None:
            continue
        what, in_every_worker = found
        if in_every_worker and (copies > 1 or process.source == "procfile"):
            scale = (
                f"each of its {copies:g} copies" if copies > 1 else "once it is scaled, each copy"
            )
            return (
                f"{where} runs {what}: {scale} sends every schedule, so every periodic job "
                "runs once per copy; run the scheduler as a process of its own, with one "
                "instance"
            )
        if copies > 1:
            return (
                f"{where} starts {copies:g} copies of {what}: each sends every schedule, so "
                "every scheduled job runs once per copy; set numprocs=1 for the scheduler "
                "(and start the other copies without it)"
            )
    return None


PROCESS_KINDS = {
    "procfile": "Procfile process",
    "supervisord": "supervisord program",
    "compose": "docker-compose service",
    "systemd": "systemd unit",
    "dockerfile": "Dockerfile",
    "script": "script",
    "values": "Helm values",
}


def _process_name(process: ProcessDecl) -> str:
    """``Procfile process 'worker'``; a Kubernetes workload names its own kind."""
    if process.source == "workload":
        return process.name
    return f"{PROCESS_KINDS.get(process.source, process.source)} '{process.name}'"


def _duration(seconds: float) -> str:
    """``10 min``, ``1 minute`` (describe_seconds says "minute" for "every minute")."""
    text = describe_seconds(seconds)
    return text if text[:1].isdigit() else f"1 {text}"


def _copies(process: ProcessDecl) -> float:
    """supervisord's ``numprocs`` (an ini string) or a workload's ``replicas``, 1 when
    absent or unreadable."""
    value = process.option("numprocs") or process.option("replicas")
    text = string(value) if value is not None else None
    if text is not None and text.strip().isdigit():
        return float(text)
    return number(value) or 1
