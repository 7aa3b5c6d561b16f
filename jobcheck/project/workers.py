"""Which queues the project's worker processes consume, read from its process definitions
(``ProcessDecl`` facts: Procfile lines, supervisord programs, docker-compose services,
Kubernetes workloads and Helm values, systemd units, Dockerfiles and shell entrypoints),
for ``jobcheck review`` and SCL-20's queue-without-worker. Each framework reads its own
worker command (``Semantics.worker_queues``)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from jobcheck.commandline import programs
from jobcheck.facts import FileFacts
from jobcheck.project.test_code import is_test_code
from jobcheck.registry import plugins, semantics

EVERY_QUEUE = "*"
"""A worker that consumes every queue of its framework (Dramatiq without --queues)."""
CONFIGURED = "@configured"
"""A worker that consumes the queues its configuration declares (Celery without -Q:
``task_queues``, else the default queue): ``Semantics.configured_queues`` names them."""
EXCLUDED = "!"
"""Prefix of a queue a worker leaves out (Celery's ``-X mail``)."""


@dataclass(frozen=True)
class Worker:
    framework: str
    queues: tuple[str, ...]
    """Queue names, or ``("*",)`` for every queue; empty: the configuration's."""
    where: str
    """``Procfile:3 (worker)``."""


class Workers(list[Worker]):
    """The workers of a project, with an index of them by framework and queue, made on
    the first question: a check asks about every queue, and a pull request can define
    thousands of queues and thousands of workers."""

    _index: _Index | None = None

    def index(self) -> _Index:
        if self._index is None or self._index.size != len(self):
            self._index = _Index(self)
        return self._index


class _Index:
    """Positions in the list of the workers of each framework that consume every queue,
    name a queue, take their configuration's queues, or leave a queue out."""

    def __init__(self, found: list[Worker]) -> None:
        self.size = len(found)
        self.every: dict[str, list[int]] = {}
        self.configured: dict[str, list[int]] = {}
        self.named: dict[tuple[str, str], list[int]] = {}
        self.excluded: dict[tuple[str, str], set[int]] = {}
        for position, worker in enumerate(found):
            framework, queues = worker.framework, worker.queues
            if not queues or EVERY_QUEUE in queues:
                self.every.setdefault(framework, []).append(position)
            elif CONFIGURED in queues:
                self.configured.setdefault(framework, []).append(position)
            for queue in queues:
                self.named.setdefault((framework, queue), []).append(position)
                if queue.startswith(EXCLUDED):
                    self.excluded.setdefault((framework, queue[1:]), set()).add(position)

    def consumers(self, framework: str, queue: str, configured: frozenset[str] | None) -> list[int]:
        """What :func:`_consumes` says of each worker, read from the index."""
        found = set(self.every.get(framework, ()))
        found.update(self.named.get((framework, queue), ()))
        if configured is None or queue in configured:
            found.update(self.configured.get(framework, ()))
        found -= self.excluded.get((framework, queue), set())
        return sorted(found)


def workers(files: list[FileFacts]) -> Workers:
    found = Workers()
    for f in files:
        if is_test_code(f):
            continue  # a test suite's compose file starts no production worker
        for process in f.processes:
            where = f"{f.path}:{process.loc.line} ({process.name})"
            for framework, queues in started_workers(process.command):
                found.append(Worker(framework, _known(queues), where))
    return found


def started_workers(command: str) -> Iterator[tuple[str, tuple[str, ...]]]:
    """(framework, queues) of each worker ``command`` starts: every program of it (``sh
    -c``, ``&&``, ``env`` and ``exec`` read through), in its framework's terms."""
    for words in programs(command):
        for plugin in plugins():
            queues = semantics(plugin.name).worker_queues(words)
            if queues is not None:
                yield plugin.name, queues
                break


def _known(queues: tuple[str, ...]) -> tuple[str, ...]:
    """A queue list with a name filled in at run time (``-Q ${CELERY_QUEUES:-celery}``, a
    Helm ``{{ .Values.queues }}``) may name any queue: taken as every queue."""
    if any("$" in queue or "{{" in queue or "%(" in queue for queue in queues):
        return (EVERY_QUEUE,)
    return queues


def consumers(
    found: list[Worker], framework: str, queue: str, configured: frozenset[str] | None = None
) -> list[str]:
    """The worker processes that consume ``queue`` of ``framework``; ``configured``: the
    queues a worker started without a queue list consumes (None: unknown, any)."""
    if isinstance(found, Workers):
        return [found[i].where for i in found.index().consumers(framework, queue, configured)]
    return [w.where for w in found if w.framework == framework and _consumes(w, queue, configured)]


def _consumes(worker: Worker, queue: str, configured: frozenset[str] | None) -> bool:
    if EXCLUDED + queue in worker.queues:
        return False
    if not worker.queues or queue in worker.queues or EVERY_QUEUE in worker.queues:
        return True
    return CONFIGURED in worker.queues and (configured is None or queue in configured)
