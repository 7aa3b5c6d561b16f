"""Celery's part of SCL-20 prefetch-holds-short-jobs: late-acknowledged tasks that may
run long, on workers that prefetch several messages per process.

A Celery worker reserves ``concurrency * worker_prefetch_multiplier`` messages
(celery/app/defaults.py ``prefetch_multiplier=Option(4, type='int')``; the worker's
``--prefetch-multiplier`` overrides it, celery/bin/worker.py). With late acknowledgement
a reserved message stays with the worker until a process is free to run it, so while
its processes are busy with long tasks the messages it holds wait there, short tasks
among them, though other workers are idle. ``worker_prefetch_multiplier = 1`` (or
``worker_disable_prefetch`` / ``--disable-prefetch``) keeps each worker to what it can
start. ``-O fair`` is no remedy in current Celery: it is already the default scheduling
between a worker's processes (celery/concurrency/asynpool.py ``SCHED_STRATEGIES``:
``'default': SCHED_STRATEGY_FAIR``), and it does not change what the worker reserves.
Verified against celery 5dc781f.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from jobcheck.commandline import option_values, programs
from jobcheck.facts import FileFacts, Loc, ProcessDecl, Setting
from jobcheck.facts.values import number, truthy
from jobcheck.findings import Fix, TextEdit
from jobcheck.frameworks.semantics_base import Check
from jobcheck.project.test_code import is_test_code
from jobcheck.registry import semantics

if TYPE_CHECKING:
    from jobcheck.findings import Finding
    from jobcheck.project.model import Job

NAME = "celery"
DEFAULT_MULTIPLIER = 4.0
LONG_SECONDS = 300.0
"""A task that may run longer than this holds the messages behind it for minutes."""


def prefetch_holds_short_jobs(check: Check) -> Iterator[Finding]:
    project = check.project
    long_jobs = [job for job in project.jobs if _late_and_long(check, job)]
    if not long_jobs:
        return
    if _disabled(check):
        return
    workers = list(_celery_workers(project.files))
    setting = project.setting("worker_prefetch_multiplier")
    multiplier = number(setting[1].value) if setting is not None else DEFAULT_MULTIPLIER
    prefetching = [w for w in workers if _worker_multiplier(w[2], multiplier) != 1]
    if workers and not prefetching:
        return  # every worker in sight starts with --prefetch-multiplier 1
    if not workers and multiplier == 1:
        return
    path, loc, source = _place(check, setting, prefetching, long_jobs[0])
    shown = multiplier if multiplier is not None else "?"
    fix = _to_one(check, path, setting[1]) if setting is not None else None
    yield check.finding(
        "prefetch-holds-short-jobs",
        path,
        loc,
        f"Celery workers prefetch {_count(shown)} messages per process and acknowledge late "
        f"{_jobs(long_jobs)}, which may run {_how_long(check, long_jobs)}: a worker busy with "
        "long tasks keeps the messages it reserved, so the tasks behind them, short ones "
        "among them, wait while other workers sit idle; set worker_prefetch_multiplier = 1, "
        f"or start the workers with --prefetch-multiplier 1 (the multiplier: {source})",
        fix=fix,
    )


def _to_one(check: Check, path: str, setting: Setting) -> Fix | None:
    """The setting's literal number made 1 (``CELERY_WORKER_PREFETCH_MULTIPLIER = 4``,
    ``"worker_prefetch_multiplier": 4``). Unsafe: each worker then holds fewer messages,
    which costs throughput on a broker far away when the tasks are all short."""
    text = check.project.source_of(path)
    lines = text.splitlines() if text is not None else []
    if setting.loc.line > len(lines):
        return None
    line = lines[setting.loc.line - 1]
    found = re.search(re.escape(setting.raw_key) + r"""['"]?\s*[=:]\s*(\d+)\b""", line)
    if found is None:
        return None
    start, end = found.start(1) + 1, found.end(1) + 1
    at = Loc(setting.loc.line, start, setting.loc.line, end)
    return Fix("Set worker_prefetch_multiplier to 1", (TextEdit(at, "1"),), "unsafe")


def _late_and_long(check: Check, job: Job) -> bool:
    if job.framework != NAME or is_test_code(job.file):
        return False
    promised = check.project.contract(job)
    if promised.delivery.late is not True:
        return False
    limit = promised.time_limit
    if limit is None or limit.unknown:
        return False
    bound = limit.bound_seconds
    return not limit.present or (bound is not None and bound > LONG_SECONDS)


def _disabled(check: Check) -> bool:
    found = check.project.setting("worker_disable_prefetch")
    return found is not None and truthy(found[1].value) is True


def _celery_workers(files: list[FileFacts]) -> Iterator[tuple[FileFacts, ProcessDecl, list[str]]]:
    """Every process that starts a Celery worker, with the worker's words."""
    worker_of = semantics(NAME).worker_queues
    for f in files:
        if is_test_code(f):
            continue
        for process in f.processes:
            for words in programs(process.command):
                if worker_of(words) is not None:
                    yield f, process, words
                    break


def _worker_multiplier(words: list[str], configured: float | None) -> float | None:
    if "--disable-prefetch" in words:
        return 1.0
    given = option_values(words, ("--prefetch-multiplier",))
    return _number_text(given[-1]) if given else configured


def _number_text(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def _place(
    check: Check,
    setting: tuple[FileFacts, Setting] | None,
    prefetching: list[tuple[FileFacts, ProcessDecl, list[str]]],
    job: Job,
) -> tuple[str, Loc, str]:
    """Where the finding goes: the multiplier setting, else a worker command, else the
    Celery app (where the setting would be written), else the first long task."""
    if setting is not None:
        f, found = setting
        return f.path, found.loc, f"worker_prefetch_multiplier, {found.raw_key}"
    if prefetching:
        f, process, _ = prefetching[0]
        return f.path, process.loc, f"Celery's default of 4: '{process.name}' sets none"
    if check.project.apps:
        f, app = check.project.apps[0]
        return f.path, app.loc, "Celery's default of 4"
    return job.file.path, job.task.loc, "Celery's default of 4"


def _count(multiplier: object) -> str:
    return f"{multiplier:g}" if isinstance(multiplier, float) else str(multiplier)


def _jobs(jobs: list[Job]) -> str:
    names = [f"'{job.task.name}'" for job in jobs[:3]]
    more = f" and {len(jobs) - 3} more" if len(jobs) > 3 else ""
    return ("task " if len(jobs) == 1 else "tasks ") + ", ".join(names) + more


def _how_long(check: Check, jobs: list[Job]) -> str:
    bounds = [check.project.contract(job).time_limit for job in jobs]
    if any(limit is not None and not limit.present for limit in bounds):
        return "without a time limit"
    longest = max(limit.bound_seconds or 0 for limit in bounds if limit is not None)
    return f"up to {longest:g} s"
