"""arq's part of the checks, in arq's terms: a worker with no job timeout (SCL-18), no
dead letter (SCL-34), ``enqueue_job`` names no worker registers (JOB-02).

Read in arq 0.28.0 and 0.26.1 (``arq/worker.py``, ``arq/cron.py``,
``arq/connections.py``); the facts are in ``semantics.py``. Light module: no libcst.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from typing import TYPE_CHECKING

from jobcheck.facts.values import Const, is_none, number, string, truthy
from jobcheck.frameworks.arq.defaults import DEFAULT_JOB_TIMEOUT, WORKER_DEFAULTS
from jobcheck.frameworks.semantics_base import Check, CheckParts
from jobcheck.project.contract import DeadLetter, Origin, Seconds, TimeLimit
from jobcheck.project.schedule_words import short
from jobcheck.project.test_code import is_test_code

if TYPE_CHECKING:
    from jobcheck.facts import EnqueueSite, FrameworkConfig
    from jobcheck.findings import Finding
    from jobcheck.project.model import Job, Project

NAME = "arq"
UNREAD_JOBS = "jobcheck_unread_jobs"
"""A worker option the recognizer adds when a settings class registers jobs it cannot read
(``functions = load_jobs()``, a ``*spread``): their names are unknown."""


def workers(project: Project) -> list[tuple[str, FrameworkConfig]]:
    """Every ``WorkerSettings`` class of the project, with its file's path."""
    return [(f.path, config) for f, config in project.configs(NAME, "worker")]


def worker_of(project: Project, job: Job) -> FrameworkConfig | None:
    for _, config in workers(project):
        if config.qualname == job.task.app_ref:
            return config
    return None


def time_limit(project: Project, job: Job) -> TimeLimit:
    """``func(f, timeout=None)`` falls back to the worker's ``job_timeout`` (worker.py
    ``timeout_s = self.job_timeout_s if function.timeout_s is None else ...``), 300 s by
    default; ``job_timeout=None`` makes ``asyncio.wait_for(task, None)``: no limit."""
    own = job.task.option("timeout")
    if own is not None and not is_none(own):
        origin = Origin("func timeout=", job.file.path, job.task.option_loc("timeout"))
        return TimeLimit(hard=Seconds(project.value(own), origin, unlimited=False))
    path, worker = next(
        ((path, c) for path, c in workers(project) if c.qualname == job.task.app_ref),
        (None, None),
    )
    given = worker.option("job_timeout") if worker is not None else None
    if worker is not None and given is not None:
        name = worker.qualname.rpartition(".")[2]
        origin = Origin(f"{name}.job_timeout", path, worker.loc)
        written = f"{name}.job_timeout=None" if is_none(given) else ""
        value = project.value(given)
        return TimeLimit(hard=Seconds(value, origin, unlimited=is_none(value), written=written))
    default = Const(DEFAULT_JOB_TIMEOUT)
    return TimeLimit(hard=Seconds(default, Origin("arq's default")))


def missing_time_limit(check: Check, job: Job, limit: TimeLimit) -> Iterator[Finding]:
    """A job whose worker's ``job_timeout=None`` leaves it unlimited (:func:`time_limit`)."""
    worker = worker_of(check.project, job)
    name = worker.qualname.rpartition(".")[2] if worker is not None else "its worker"
    yield check.finding(
        "missing-time-limit",
        job.file.path,
        job.task.loc,
        f"arq job '{job.task.name}' has no time limit: {name} "
        "sets job_timeout=None, so arq awaits it with no timeout and a call that hangs "
        "holds one of the worker's max_jobs slots for good; give the worker a job_timeout "
        "(seconds; arq's default is 300) or the job func(..., timeout=)",
    )


def dead_letter(project: Project, job: Job) -> DeadLetter:
    """arq/worker.py ``run_job``: a job that raises (other than ``Retry`` or a
    cancellation) fails at once, and its result, error included, is kept for
    ``keep_result`` seconds (3600 by default) and then expires: nothing keeps it, unless
    a worker keeps results forever (``keep_result_forever=True``) or runs an
    ``after_job_end`` hook of the project, which may record them. A cron job takes no
    arguments: its next run is its replay."""
    if job.task.kind == "cron":
        return DeadLetter(kept_in="its next scheduled run (a cron job takes no arguments)")
    for _, config in workers(project):
        if truthy(config.option("keep_result_forever")):
            name = config.qualname.rpartition(".")[2]
            return DeadLetter(
                kept_in=f"its failed result, kept forever ({name}.keep_result_forever)"
            )
    for _, config in workers(project):
        if config.option("after_job_end") is not None:
            name = config.qualname.rpartition(".")[2]
            return DeadLetter(recorded_by=f"{name}.after_job_end, which may record it")
    return DeadLetter(lost="failed results expire after keep_result (1 h by default)")


def no_dead_letter(check: Check) -> Iterator[Finding]:
    """Judged on each job's dead letter as ``jobcheck jobs`` shows it
    (:func:`dead_letter`): one finding for the project, at its first worker settings."""
    found = workers(check.project)
    jobs = [
        job
        for job in check.project.jobs
        if job.framework == NAME and not dead_letter(check.project, job).kept
    ]
    if not found or not jobs:
        return
    path, config = found[0]
    count = f"{len(jobs)} arq job" + ("s" if len(jobs) != 1 else "")
    yield check.finding(
        "no-dead-letter",
        path,
        config.loc,
        f"This project has {count} and nowhere for one that failed to go: arq does not "
        "retry a job that raises (only Retry and cancellations are run again) and keeps its "
        "failed result only keep_result seconds (1 h by default), so the job cannot be "
        "inspected or replayed after that; store failures from the job (an except that "
        "records the arguments and re-raises) or set keep_result_forever=True and watch "
        "the results",
    )


def unknown_enqueue_names(check: Check) -> Iterator[Finding]:
    """``enqueue_job("name")`` names a function by the name a worker registers (worker.py
    ``func``: ``name or coroutine.__qualname__``); an unknown one is only found by the
    worker, which fails it with "function 'x' not found" (worker.py ``run_job``)."""
    found = workers(check.project)
    if not found or any(config.option(UNREAD_JOBS) is not None for _, config in found):
        return  # no worker here (the jobs may be another service's), or one not read
    registered = {
        job.task.registered_name or "" for job in check.project.all_jobs if job.framework == NAME
    }
    for f, site, job in check.project.enqueues():
        if job is not None and site.framework_hint == NAME and site.method == "enqueue_job":
            yield from _enqueued_where_no_worker_runs_it(check, f.path, site)
            continue
        if job is not None or site.framework_hint != NAME or site.method != "enqueue_job":
            continue
        name = string(site.option("function"))
        if name is None or name in registered:
            continue
        yield check.finding(
            "enqueue-names-unknown-task",
            f.path,
            site.loc,
            f"enqueue_job('{short(name)}') names a job no arq WorkerSettings of the project "
            "registers (arq names a job by func(name=...) or its function's name): the "
            'job waits in the queue until a worker fails it with "function not found"'
            + _hint(check.project, name, registered),
        )


def _enqueued_where_no_worker_runs_it(
    check: Check, path: str, site: EnqueueSite
) -> Iterator[Finding]:
    """``enqueue_job("x")`` lands on ``_queue_name`` (or the pool's default queue,
    "arq:queue" unless ``default_queue_name`` says otherwise); a worker reads one queue
    (its ``queue_name``) and runs only the functions it registers, failing the others
    with "function 'x' not found" (worker.py ``run_job``)."""
    name = string(site.option("function"))
    given = site.option("_queue_name")
    if name is None or (given is not None and string(given) is None):
        return  # a queue computed at run time
    if given is None and check.project.configs(NAME, "pool"):
        return  # a pool sets its own default queue: which one this call uses is unknown
    queue = string(given) or str(WORKER_DEFAULTS["queue_name"])
    runners = _queues_registering(check.project, name)
    if runners is None or not runners or queue in runners:
        return
    others = ", ".join(f"'{q}'" for q in sorted(runners))
    read = {_queue_of(config) for _, config in workers(check.project)}
    outcome = (
        "whose workers do not register it: the worker that takes it fails it with "
        '"function not found"'
        if queue in read
        else "which no worker of the project reads: it waits there for ever"
    )
    yield check.finding(
        "enqueue-names-unknown-task",
        path,
        site.loc,
        f"enqueue_job('{short(name)}') puts the job on queue '{queue}', {outcome} (the "
        f"workers that register it read {others}); pass _queue_name={sorted(runners)[0]!r}",
    )


def _queue_of(config: FrameworkConfig) -> str | None:
    value = config.option("queue_name")
    return str(WORKER_DEFAULTS["queue_name"]) if value is None else string(value)


def _queues_registering(project: Project, name: str) -> set[str] | None:
    """The queues whose workers register ``name``; None when a worker's queue cannot be
    read."""
    queues: set[str] = set()
    for _, config in workers(project):
        if config.option(UNREAD_JOBS) is not None:
            return None
        jobs = [
            job
            for job in project.all_jobs
            if job.framework == NAME
            and job.task.app_ref == config.qualname
            and job.task.registered_name == name
        ]
        if not jobs:
            continue
        queue = _queue_of(config)
        if queue is None:
            return None
        queues.add(queue)
    return queues


def _hint(project: Project, name: str, registered: set[str]) -> str:
    renamed = sorted(
        job.task.registered_name or ""
        for job in project.all_jobs
        if job.framework == NAME and job.task.name == name and job.task.kind != "cron"
    )
    if renamed:
        return f"; the function {name} is registered as '{renamed[0]}'"
    close = difflib.get_close_matches(name, sorted(registered), n=1, cutoff=0.75)
    return f"; did you mean '{close[0]}'?" if close else ""


def pickle_serializer(check: Check) -> Iterator[Finding]:
    """JOB-03: an arq ``WorkerSettings`` without ``job_deserializer`` unpickles every job:
    arq/worker.py ``Worker(job_deserializer=None)`` and arq/jobs.py ``deserialize_job``
    fall back to ``pickle.loads`` (``serialize_job`` to ``pickle.dumps``; arq 3914e48).
    One finding per settings class."""
    for f, config in check.project.configs(NAME, "worker"):
        if config.option("job_deserializer") is not None or is_test_code(f):
            continue
        yield check.finding(
            "pickle-serializer",
            f.path,
            config.loc,
            f"arq worker '{short(config.qualname)}' sets no job_deserializer, so arq "
            "unpickles every job it takes (pickle.loads by default): whoever can write to "
            "its Redis (reachable without a password, a leaked one) runs code on the "
            "workers; set job_serializer and job_deserializer to JSON (or msgpack) "
            "functions here and in create_pool, and pass IDs and plain values",
        )


def constant_retry_delay(check: Check, job: Job) -> Iterator[Finding]:
    """``raise Retry(defer=5)`` with a constant: every retry of a failing job comes the
    same few seconds after the last; arq passes the attempt number in ``ctx["job_try"]``
    (worker.py ``run_job``) to grow it with."""
    found = check.project.functions.get(job.task.function or "")
    if found is None:
        return
    defined_in, function = found
    for call in function.retry_calls:
        delay = number(check.project.value(call.countdown))
        if delay is None:
            continue
        yield check.finding(
            "retry-without-backoff",
            defined_in.path,
            call.loc,
            f"arq job '{job.task.name}' raises Retry(defer={delay:g}): every retry comes "
            f"{delay:g} s after the last, so a failing dependency is hit again at a fixed "
            "pace until max_tries runs out; grow the delay with the attempt "
            '(Retry(defer=ctx["job_try"] * 10), plus some random jitter)',
        )


PARTS = CheckParts(
    per_project={
        "pickle-serializer": pickle_serializer,
        "no-dead-letter": no_dead_letter,
        "enqueue-names-unknown-task": unknown_enqueue_names,
    },
    per_job={
        "retry-without-backoff": constant_retry_delay,
    },
    per_time_limit={
        "missing-time-limit": missing_time_limit,
    },
)
"""Its own part of checks (``semantics_base.CheckParts``), by check slug."""
