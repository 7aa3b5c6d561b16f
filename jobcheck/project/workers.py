"""Which queues the project's worker processes consume, read from its process definitions
(Procfile lines and supervisord programs: ``ProcessDecl`` facts), for ``jobcheck review``.

Read from each command line (``jobcheck.commandline`` splits it):

- Celery: ``celery -A app worker -Q a,b`` (also ``--queues a,b``, ``--queues=a,b``);
  ``-X a,b`` / ``--exclude-queues`` take queues away; without ``-Q`` a worker consumes
  the default queue ("celery", celery/app/defaults.py ``task_default_queue``).
- RQ: ``rq worker a b`` (no names: "default"; rq/cli/cli.py ``worker``).
- Dramatiq: ``dramatiq app --queues a b`` (also ``-Q``); no option: every queue.
- Sidekiq: ``sidekiq -q a -q b`` (``-q a,3`` carries a weight); ``-C config.yml`` or
  nothing: the queues of config/sidekiq.yml.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from jobcheck.facts import FileFacts

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
            worker = _read(words)
            if worker is not None:
                framework, queues = worker
                where = f"{f.path}:{process.loc.line} ({process.name})"
                found.append(Worker(framework, queues, where))
    return found


def _read(words: list[str]) -> tuple[str, tuple[str, ...]] | None:
    names = [w.rsplit("/", 1)[-1] for w in words]
    if "celery" in names and "worker" in words:
        return "celery", _celery_queues(words)
    if "rq" in names and "worker" in words:
        return "rq", _rq_queues(words[words.index("worker") + 1 :]) or ("default",)
    if "dramatiq" in names:
        queues = _values(words, ("-Q", "--queues"), several=True)
        return "dramatiq", tuple(queues) or (EVERY_QUEUE,)
    if "sidekiq" in names or "sidekiqswarm" in names:
        queues = [q.split(",")[0] for q in _values(words, ("-q", "--queue"))]
        return "sidekiq", tuple(queues)
    return None


# rq worker's options that take no value (rq/cli/cli.py); every other option takes one.
RQ_FLAGS = frozenset(
    {
        "-b",
        "--burst",
        "--with-scheduler",
        "-q",
        "--quiet",
        "-v",
        "--verbose",
        "--disable-job-desc-logging",
    }
)


def _rq_queues(after: list[str]) -> tuple[str, ...]:
    queues: list[str] = []
    skip = False
    for word in after:
        if skip:
            skip = False
        elif word.startswith("-"):
            skip = "=" not in word and word not in RQ_FLAGS
        else:
            queues.append(word)
    return tuple(queues)


def _celery_queues(words: list[str]) -> tuple[str, ...]:
    chosen = [q for value in _values(words, ("-Q", "--queues")) for q in value.split(",") if q]
    excluded = {
        q for value in _values(words, ("-X", "--exclude-queues")) for q in value.split(",") if q
    }
    queues = chosen or ["celery"]
    return tuple(q for q in queues if q not in excluded)


def _values(words: list[str], flags: tuple[str, ...], several: bool = False) -> list[str]:
    """Every value given to ``flags``: ``-Q a``, ``-Qa``, ``--queues=a``, and with
    ``several`` the words up to the next option (``dramatiq app --queues a b``)."""
    values: list[str] = []
    for index, word in enumerate(words):
        if word in flags:
            for value in words[index + 1 :]:
                if value.startswith("-"):
                    break
                values.append(value)
                if not several:
                    break
            continue
        for flag in flags:
            if flag.startswith("--") and word.startswith(flag + "="):
                values.append(word.split("=", 1)[1])
            elif not flag.startswith("--") and word.startswith(flag) and len(word) > len(flag):
                values.append(word[len(flag) :])
    return values


def consumers(found: list[Worker], framework: str, queue: str) -> list[str]:
    """The worker processes that consume ``queue`` of ``framework``."""
    return [
        w.where
        for w in found
        if w.framework == framework
        and (queue in w.queues or EVERY_QUEUE in w.queues or not w.queues)
    ]
