"""SCL-38 Run each scheduled job once at a time (EVT-22): scheduler-in-every-instance.

An in-process scheduler started from web-app start-up code, or a scheduler in a process
that runs in several copies, runs every job once per process and replica.
Docs: docs/rules/SCL-38.md.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import product

from jobcheck.checks.base import RuleChecks, check
from jobcheck.checks.scl38_locks import (
    LOCK_GUARDS,
)
from jobcheck.commandline import programs
from jobcheck.facts import (
    FileFacts,
    Loc,
    ProcessDecl,
    SchedulerStart,
    StartupHook,
)
from jobcheck.facts.values import number, string
from jobcheck.findings import Finding
from jobcheck.project.model import Project
from jobcheck.project.test_code import is_test_code
from jobcheck.registry import plugins, semantics


class SchedulerInEveryInstance(RuleChecks):
    rule = "SCL-38"

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


def _process_scheduler(project: Project, process: ProcessDecl) -> str | None:
    """Why ``process`` runs a scheduler in each of its copies, or None: each framework
    says which of its commands schedule (``Semantics.process_scheduler``)."""
    copies = _copies(process)
    where = _process_name(process)
    for words, plugin in product(programs(process.command), plugins()):
        found = semantics(plugin.name).process_scheduler(project, words)
        if found is None:
            continue
        what, in_every_worker = found
        if in_every_worker and (copies > 1 or process.source in SCALED_OUT):
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


# Process definitions whose copies are scaled outside the file (``heroku ps:scale``,
# ``fly scale count``): a scheduler there runs once per copy as soon as it is scaled.
SCALED_OUT = frozenset({"procfile", "fly"})

PROCESS_KINDS = {
    "procfile": "Procfile process",
    "supervisord": "supervisord program",
    "compose": "docker-compose service",
    "systemd": "systemd unit",
    "dockerfile": "Dockerfile",
    "script": "script",
    "values": "Helm values",
    "fly": "fly.io process group",
}


def _process_name(process: ProcessDecl) -> str:
    """``Procfile process 'worker'``; a Kubernetes workload names its own kind."""
    if process.source == "workload":
        return process.name
    return f"{PROCESS_KINDS.get(process.source, process.source)} '{process.name}'"


def _copies(process: ProcessDecl) -> float:
    """supervisord's ``numprocs`` (an ini string) or a workload's ``replicas``, 1 when
    absent or unreadable."""
    value = process.option("numprocs") or process.option("replicas")
    text = string(value) if value is not None else None
    if text is not None and text.strip().isdigit():
        return float(text)
    return number(value) or 1
