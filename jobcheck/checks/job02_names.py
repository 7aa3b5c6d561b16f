"""JOB-02 Every schedule names a job that exists: what its checks share (which names are
known, which point into the project, the messages). Docs: docs/rules/JOB-02.md."""

from __future__ import annotations

import difflib

from jobcheck.facts import ScheduleEntry
from jobcheck.facts.values import string
from jobcheck.project.model import Project
from jobcheck.project.schedule_words import describe, short
from jobcheck.registry import semantics


def registered_names(project: Project) -> set[str]:
    return {j.task.registered_name for j in project.jobs if j.task.registered_name}


def functions_with_unreadable_names(project: Project) -> set[str]:
    """Tasks whose ``name=`` is computed (``name=f"{PREFIX}.sync"``): their registered
    name is unknown, so a schedule ending in their function's name may be right."""
    return {
        job.task.name
        for job in project.jobs
        if job.task.has_option("name") and string(job.task.option("name")) is None
    }


def is_known(project: Project, name: str, registered: set[str]) -> bool:
    """Registered, or defined where a custom decorator or ``app.task(f)`` may register
    it, or equal up to leading packages (the worker may import the module under a
    shorter or longer path than the file layout suggests)."""
    if name in registered or name in project.classes:
        return True
    if project.resolve_function(name) is not None:
        return True
    return any(r.endswith("." + name) or name.endswith("." + r) for r in registered)


def looks_like_project(project: Project, entry: ScheduleEntry, name: str) -> bool:
    """Only names that point into the project's own packages are checked: a task a
    library registers ("celery.backend_cleanup") is not defined in the project."""
    name = name.replace("::", ".")  # a Ruby constant path
    root = name.split(".")[0]
    if "." in name:
        return root in project.root_packages or (
            semantics(entry.framework).checks_dotless_names(project)
            and any(job.task.qualname.startswith(root + ".") for job in project.jobs)
        )
    # Celery generates dotted names; a dot-less name was set with name=, in the
    # project if anywhere, so it is checked when the project defines Celery tasks.
    return semantics(entry.framework).checks_dotless_names(project)


def schedule_message(
    entry: ScheduleEntry, name: str, registered: set[str], renamed: str | None
) -> str:
    words = semantics(entry.framework).words
    problem = f"{describe(entry)} " + words.named(words.unknown_schedule_target, short(name))
    if renamed is not None:
        return problem + f"; that function is registered as '{renamed}'"
    close = difflib.get_close_matches(name, sorted(registered), n=1, cutoff=0.75)
    return problem + (f"; did you mean '{close[0]}'?" if close else "")


def unknown_route_message(what: str, names: list[str], registered: set[str]) -> str:
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
