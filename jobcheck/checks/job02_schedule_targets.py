"""JOB-02 Every schedule names a job that exists.

A beat entry (or another schedule) that names a task by string runs only if some task
is registered under exactly that name; otherwise the scheduler sends messages no worker
accepts and the job silently never runs. The same holds for a call that enqueues a job
by name (arq's ``enqueue_job("x")``). Docs: docs/rules/JOB-02.md.
"""

from __future__ import annotations

import difflib
import fnmatch
from collections.abc import Iterator

from jobcheck.checks.base import RuleChecks, check
from jobcheck.facts import Loc, ScheduleEntry
from jobcheck.facts.values import string
from jobcheck.findings import Finding
from jobcheck.project.schedule_words import describe, short
from jobcheck.registry import plugins, semantics


class ScheduleTargets(RuleChecks):
    rule = "JOB-02"

    @check("schedule-names-unknown-task")
    def schedule_names_unknown_task(self) -> Iterator[Finding]:
        registered = {j.task.registered_name for j in self.project.jobs if j.task.registered_name}
        renamed = {
            j.task.qualname: j.task.registered_name
            for j in self.project.jobs
            if j.task.registered_name and j.task.registered_name != j.task.qualname
        }
        unreadable = self._functions_with_unreadable_names()
        for f, entry, job in self.project.scheduled_jobs():
            name = entry.task_name
            if job is not None or name is None or not self._looks_like_project(entry, name):
                continue
            if name not in renamed and self._is_known(name, registered):
                continue
            if name.rpartition(".")[2] in unreadable:
                continue
            yield self.finding(
                "schedule-names-unknown-task",
                f.path,
                entry.task_loc,
                _message(entry, name, registered, renamed.get(name)),
            )

    @check("enqueue-names-unknown-task")
    def enqueue_names_unknown_task(self) -> Iterator[Finding]:
        """Calls that enqueue a job by its registered name (arq's ``enqueue_job("x")``):
        each framework knows which names its workers register."""
        for plugin in plugins():
            yield from semantics(plugin.name).unknown_enqueue_names(self)

    @check("route-names-unknown-task")
    def route_names_unknown_task(self) -> Iterator[Finding]:
        """A ``task_routes``/``task_annotations`` key or a ``send_task`` name that points
        into the project's own packages and names no task: the route or the call does
        nothing. A name of another service (``billing.tasks.charge`` with no ``billing``
        package here) is left alone."""
        registered = {j.task.registered_name for j in self.project.jobs if j.task.registered_name}
        if not registered:
            return
        unreadable = self._functions_with_unreadable_names()
        # One finding per place: a route setting names many tasks at one place.
        unknown: dict[tuple[str, Loc], tuple[str, list[str]]] = {}
        for plugin in plugins():
            framework = semantics(plugin.name)
            for path, loc, name, what in framework.named_tasks(self.project):
                root = name.split(".")[0]
                if "." not in name or root not in self.project.root_packages:
                    continue
                if name.rpartition(".")[2] in unreadable:
                    continue
                if "*" in name:
                    if any(fnmatch.fnmatchcase(r, name) for r in registered):
                        continue
                elif self._is_known(name, registered):
                    continue
                unknown.setdefault((path, loc), (what, []))[1].append(name)
        for (path, loc), (what, names) in unknown.items():
            yield self.finding(
                "route-names-unknown-task",
                path,
                loc,
                _unknown_route_message(what, names, registered),
            )

    def _functions_with_unreadable_names(self) -> set[str]:
        """Tasks whose ``name=`` is computed (``name=f"{PREFIX}.sync"``): their registered
        name is unknown, so a schedule ending in their function's name may be right."""
        return {
            job.task.name
            for job in self.project.jobs
            if job.task.has_option("name") and string(job.task.option("name")) is None
        }

    def _is_known(self, name: str, registered: set[str]) -> bool:
        """Registered, or defined where a custom decorator or ``app.task(f)`` may register
        it, or equal up to leading packages (the worker may import the module under a
        shorter or longer path than the file layout suggests)."""
        if name in registered or name in self.project.classes:
            return True
        if self.project.resolve_function(name) is not None:
            return True
        return any(r.endswith("." + name) or name.endswith("." + r) for r in registered)

    def _looks_like_project(self, entry: ScheduleEntry, name: str) -> bool:
        """Only names that point into the project's own packages are checked: a task a
        library registers ("celery.backend_cleanup") is not defined in the project."""
        name = name.replace("::", ".")  # a Ruby constant path
        root = name.split(".")[0]
        if "." in name:
            return root in self.project.root_packages or (
                semantics(entry.framework).checks_dotless_names(self.project)
                and any(job.task.qualname.startswith(root + ".") for job in self.project.jobs)
            )
        # Celery generates dotted names; a dot-less name was set with name=, in the
        # project if anywhere, so it is checked when the project defines Celery tasks.
        return semantics(entry.framework).checks_dotless_names(self.project)


def _message(entry: ScheduleEntry, name: str, registered: set[str], renamed: str | None) -> str:
    problem = f"{describe(entry)} " + semantics(entry.framework).unknown_schedule_target(
        entry, short(name)
    )
    if renamed is not None:
        return problem + f"; that function is registered as '{renamed}'"
    close = difflib.get_close_matches(name, sorted(registered), n=1, cutoff=0.75)
    return problem + (f"; did you mean '{close[0]}'?" if close else "")


def _unknown_route_message(what: str, names: list[str], registered: set[str]) -> str:
    shown = ", ".join(f"'{n}'" for n in names[:4]) + (
        f" and {len(names) - 4} more" if len(names) > 4 else ""
    )
    close = _close_name(names[0], registered)
    subject = f"the {what}" if len(names) == 1 else f"{len(names)} {what.split()[0]} names"
    return (
        f"{subject} {shown} {'names' if len(names) == 1 else 'name'} no task the project "
        "registers: the route or call silently does nothing (a task's name is its module "
        "path and function name unless name= says otherwise)"
        + (f"; did you mean '{close}'?" if close and len(names) == 1 else "")
    )


def _close_name(name: str, registered: set[str]) -> str | None:
    """A registered name of the same module whose function name is close to ``name``'s
    (the shared module path would make any two names look alike)."""
    module, _, function = name.rpartition(".")
    same_module = {r.rpartition(".")[2]: r for r in registered if r.rpartition(".")[0] == module}
    close = difflib.get_close_matches(function, sorted(same_module), n=1, cutoff=0.75)
    return same_module[close[0]] if close else None
