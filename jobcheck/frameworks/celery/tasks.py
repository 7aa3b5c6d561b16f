"""Which classes are Celery ``Task`` classes (celery/app/task.py ``Task``; ``app.Task`` is
the app's own subclass, celery/app/base.py ``Celery.Task``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from jobcheck.project.model import Project


def is_task_class(project: Project, qualname: str, depth: int = 0) -> bool:
    """Whether ``qualname`` is a Celery ``Task`` class (through the project's bases, and
    ``app.Task`` of an app of the project)."""
    if qualname.startswith("celery.") and qualname.endswith(".Task"):
        return True
    if depth > 20:
        return False
    bases = project.classes.get(qualname, ())
    if any(b.startswith("celery") and b.endswith("Task") for b in bases):
        return True
    apps = _app_names(project)
    if any(b.endswith(".Task") and b[: -len(".Task")] in apps for b in bases):
        return True
    return any(is_task_class(project, b, depth + 1) for b in bases if b in project.classes)


def _app_names(project: Project) -> frozenset[str]:
    names = {app.qualname for _, app in project.apps}
    if project.celery_app:
        names.add(project.celery_app)
    return frozenset(names)
