"""Huey jobs the project model finds across files (light: no libcst)."""

from __future__ import annotations

import dataclasses

from jobcheck.facts import TaskDef
from jobcheck.facts.values import string
from jobcheck.frameworks.huey.semantics import registered_name


def adopt(task: TaskDef) -> TaskDef:
    """A job read by the Celery recognizer from ``@huey.task(...)`` where ``huey`` is made,
    in another file, from a Huey class: the same options (``Huey.task`` takes keywords
    only), Huey's registered name."""
    module = task.qualname.rpartition(".")[0]
    name = string(task.option("name")) or task.name
    return dataclasses.replace(
        task, framework="huey", registered_name=registered_name(module, name), bound=False
    )
