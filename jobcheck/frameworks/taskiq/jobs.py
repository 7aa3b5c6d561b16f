"""taskiq jobs the project model finds across files (light: no libcst)."""

from __future__ import annotations

import dataclasses

from jobcheck.facts import TaskDef
from jobcheck.frameworks.taskiq.semantics import registered_name


def adopt(task: TaskDef) -> TaskDef:
    """A job read by the Celery recognizer from ``@broker.task(...)`` where ``broker`` is
    made, in another file, from a taskiq broker class: its keywords are labels, its name
    ``task_name=`` (a keyword: Celery's reading keeps keywords only) or taskiq's default
    ``module:function`` (taskiq/abc/broker.py ``AsyncBroker.task``)."""
    module = task.qualname.rpartition(".")[0]
    name = task.option("task_name")
    labels = tuple((k, v) for k, v in task.options if k != "task_name")
    given = getattr(name, "value", None)
    return dataclasses.replace(
        task,
        framework="taskiq",
        registered_name=given if isinstance(given, str) else registered_name(module, task.name),
        options=labels,
        option_locs=tuple((k, loc) for k, loc in task.option_locs if k != "task_name"),
        bound=False,
    )
