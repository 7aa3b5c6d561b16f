"""Which queues the project's worker processes consume, read from its process definitions
(Procfile lines and supervisord programs: ``ProcessDecl`` facts), for ``jobcheck review``.
Each framework reads its own worker command (``Semantics.worker_queues``)."""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from jobcheck.facts import FileFacts
from jobcheck.registry import plugins, semantics

EVERY_QUEUE = "*"
"""A worker that consumes every queue of its framework (Dramatiq without --queues)."""


@dataclass(frozen=True)
class Worker:
    framework: str
    queues: tuple[str, ...]
    """Queue names, or ``("*",)`` for every queue; empty: the configuration's."""
    where: str
    """``Procfile:3 (worker)``."""


def workers(files: list[FileFacts]) -> list[Worker]:
    found = []
    for f in files:
        for process in f.processes:
            try:
                words = shlex.split(process.command)
            except ValueError:
                continue
            for plugin in plugins():
                queues = semantics(plugin.name).worker_queues(words)
                if queues is not None:
                    where = f"{f.path}:{process.loc.line} ({process.name})"
                    found.append(Worker(plugin.name, queues, where))
                    break
    return found


def consumers(found: list[Worker], framework: str, queue: str) -> list[str]:
    """The worker processes that consume ``queue`` of ``framework``."""
    return [
        w.where
        for w in found
        if w.framework == framework
        and (not w.queues or queue in w.queues or EVERY_QUEUE in w.queues)
    ]
