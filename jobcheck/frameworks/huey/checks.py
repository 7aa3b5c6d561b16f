"""Huey's part of the checks, in Huey's terms: time limits (SCL-18), immediate retries
and the missing dead letter (SCL-34), periodic tasks without ``expires`` (SCL-19).

Read in huey 3.3.0 (``huey/api.py``, ``huey/consumer.py``, ``huey/utils.py``) and the
2.x sources cited in ``semantics.py``. Light module: no libcst.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from jobcheck.facts.values import describe as describe_value
from jobcheck.facts.values import is_none, number, truthy
from jobcheck.frameworks.semantics_base import Check, CheckParts
from jobcheck.project import production
from jobcheck.project.contract import Origin, Seconds, TimeLimit
from jobcheck.project.schedule_words import describe, expiry_hint

if TYPE_CHECKING:
    from jobcheck.facts import FileFacts, FrameworkConfig, Loc, ScheduleEntry
    from jobcheck.findings import Finding
    from jobcheck.project.model import Job, Project

NAME = "huey"
IMMEDIATE_ALIASES = ("immediate", "always_eager")
"""huey/api.py ``Huey.__init__``: ``always_eager`` is a deprecated alias of ``immediate``."""
TASK_BASE = "task_base"
"""huey/api.py ``TaskWrapper.__init__(..., task_base=None, **settings)``: the task class is
built on it (``create_task``), so its ``default_timeout``, ``retry_delay``... apply."""

TIMEOUT_NOTE = (
    "Huey 2 has no task time limit; Huey 3 takes timeout= in seconds, enforced in "
    "process and greenlet workers and, in the default thread workers, only where the "
    "task calls task.check_timeout()"
)
"""huey/api.py 3.3.0 ``Huey.task(..., timeout=None)`` (:172) and ``_timeout_context``
(:410-415); huey/utils.py ``thread_timeout`` only yields (:173-174), ``process_timeout``
sets SIGALRM (:160-170), ``greenlet_timeout`` a gevent Timeout (:177-188);
huey/consumer_options.py ``('worker_type', WORKER_THREAD)``."""


def time_limit(project: Project, job: Job) -> TimeLimit:
    """A Huey task's ``timeout=``; none, ``None`` or ``0`` (or less) is no limit
    (``_timeout_context``: ``task.timeout is None or task.timeout <= 0`` runs it as is).
    With a ``task_base`` class of the project's own, its ``default_timeout`` may set one."""
    if job.task.has_option(TASK_BASE):
        return TimeLimit(hard=None, unknown="its task_base class may set default_timeout")
    if not job.task.has_option("timeout"):
        return TimeLimit(hard=None, none_by_default="Huey sets none")
    value = project.value(job.task.option("timeout"))
    seconds = number(value)
    unlimited = is_none(value) or (seconds is not None and seconds <= 0)
    written = f"timeout={'None' if is_none(value) else describe_value(value)}"
    origin = Origin("task", job.file.path, job.task.option_loc("timeout"))
    return TimeLimit(
        hard=Seconds(value, origin, unlimited=unlimited, written=written),
        none_by_default="Huey sets none",
    )


def missing_time_limit(check: Check, job: Job, limit: TimeLimit) -> Iterator[Finding]:
    """The words for a task :func:`time_limit` finds unlimited."""
    written = limit.hard.written if limit.hard is not None else ""
    what = f"sets {written}" if written else "has no timeout="
    yield check.finding(
        "missing-time-limit",
        job.file.path,
        limit.hard.origin.loc or job.task.loc if limit.hard is not None else job.task.loc,
        f"Huey task '{job.task.name}' {what}: Huey runs it until it returns, so a call "
        f"that hangs holds a consumer worker for good ({TIMEOUT_NOTE}); on Huey 3 set "
        "timeout=, and on either version give each network call a timeout of its own",
    )


def immediate_retries(check: Check, job: Job) -> Iterator[Finding]:
    """``retries=N`` with no ``retry_delay``: huey/api.py ``Huey._requeue_task`` enqueues
    the task again at once when ``task.retry_delay`` is 0 (its default, ``Task.
    default_retry_delay = 0``)."""
    retries = number(job.task.option("retries"))
    if retries is None or retries <= 0 or job.task.has_option(TASK_BASE):
        return  # with a Task class of the project's own, it may compute its delays
    delay = job.task.option("retry_delay")
    if delay is not None and number(delay) != 0:
        return  # a delay, or one jobcheck cannot read
    yield check.finding(
        "retry-without-backoff",
        job.file.path,
        job.task.option_loc("retry_delay" if delay is not None else "retries"),
        f"Huey task '{job.task.name}' retries {retries:g} times with no retry_delay: Huey "
        "puts a failed task back on the queue at once, so every retry hits the failing "
        "dependency within moments of the last; set retry_delay= (seconds; Huey 3 also "
        "takes retry_backoff= to grow it)",
    )


def no_dead_letter(check: Check) -> Iterator[Finding]:
    """A project whose Huey tasks fail for good with nothing keeping them: Huey has no
    dead-letter store (huey/api.py ``Huey._execute``: after the last retry the task is
    gone, with a log line and ``SIGNAL_ERROR``), so only a signal handler that writes the
    failure somewhere keeps it."""
    jobs = [job for job in check.project.jobs if job.framework == NAME]
    if not jobs:
        return
    handlers = [
        handler
        for f in check.project.files
        for handler in f.failure_handlers
        if handler.framework == NAME
    ]
    if any(handler.persists is not False for handler in handlers):
        return
    path, loc = _instance_place(check) or (jobs[0].file.path, jobs[0].task.loc)
    count = f"{len(jobs)} Huey task" + ("s" if len(jobs) != 1 else "")
    handled = (
        "its SIGNAL_ERROR handler only logs"
        if handlers
        else "no @huey.signal(SIGNAL_ERROR) handler stores the failure"
    )
    yield check.finding(
        "no-dead-letter",
        path,
        loc,
        f"This project has {count} and nowhere for one that failed for good to go: Huey "
        f"keeps no dead letters, and {handled}. After its last retry a task is gone and "
        "cannot be inspected or replayed; store its id, name, arguments and error from a "
        "@huey.signal(SIGNAL_ERROR) handler (it also fires before each retry)",
    )


# djhuey's and django-huey's modules: their tasks run on the HUEY setting's instance.
_DJHUEY = frozenset({"huey.contrib.djhuey", "django_huey"})


def _instance_place(check: Check) -> tuple[str, Loc] | None:
    """Where the project's Huey is configured: the instance its tasks are made on (djhuey's
    ``HUEY`` setting for djhuey tasks), else the first one (trilli's unused second
    instance was reported instead of its ``settings.HUEY``)."""
    configs = check.project.configs(NAME)
    used = {job.task.app_ref for job in check.project.jobs if job.framework == NAME}
    for f, config in configs:
        if config.qualname in used or (
            config.qualname.endswith(".HUEY") and any(ref in _DJHUEY for ref in used)
        ):
            return f.path, config.loc
    return (configs[0][0].path, configs[0][1].loc) if configs else None


def pickle_serializer(check: Check) -> Iterator[Finding]:
    """JOB-03: a Huey instance (or djhuey's ``HUEY`` setting) without ``serializer=``
    pickles its tasks: huey/api.py ``Huey.__init__`` makes ``Serializer(compression,
    use_zlib)`` when ``serializer`` is None, and huey/serializer.py ``Serializer`` is
    ``pickle.dumps``/``pickle.loads`` (huey 358bdc5). One finding per instance. Left
    alone: test and development modules, ``immediate=True`` and ``MemoryHuey`` (no
    storage another process writes to)."""
    for f, config in check.project.configs(NAME):
        if config.kind not in ("instance", "settings") or not production.is_production(f):
            continue
        if config.option("serializer") is not None or _in_memory(config):
            continue
        shown = config.qualname.rsplit(".", 1)[-1]
        yield check.finding(
            "pickle-serializer",
            f.path,
            config.loc,
            f"Huey instance '{shown}' keeps Huey's default serializer, pickle (no "
            "serializer= given): the consumer unpickles every task it takes, so whoever "
            "can write to its storage (a Redis reachable without a password, a leaked "
            "one) runs code on the consumers; give it a serializer that writes JSON (a "
            "huey.serializer.Serializer subclass with json in _serialize and "
            "_deserialize) and pass IDs and plain values",
        )


def _in_memory(config: FrameworkConfig) -> bool:
    return truthy(config.option("immediate")) is True or (config.cls or "").endswith("MemoryHuey")


def periodic_without_expiry(
    check: Check, f: FileFacts, entry: ScheduleEntry, job: Job | None
) -> Iterator[Finding]:
    """huey/consumer.py ``Scheduler.enqueue_periodic_tasks`` enqueues every periodic task
    whose crontab matches, once a minute, whether or not the workers keep up (one worker
    by default: consumer_options.py ``('workers', 1)``); ``Huey.execute`` drops a task
    past ``expires_resolved``. ``expires=`` of ``periodic_task`` is the task's own."""
    if job is None or job.task.option("expires") is not None:
        return
    hint, within = expiry_hint(entry)
    yield check.finding(
        "schedule-without-expiry",
        f.path,
        entry.loc,
        f"{describe(entry)} has no expires=: the consumer enqueues it "
        "each time its crontab matches, also while the workers are busy, and the runs "
        f"that waited all run back to back when a worker is free; set expires={hint} on "
        f"the decorator, no longer than the time between two runs{within}",
    )


def jobs_run_eagerly(check: Check) -> Iterator[Finding]:
    """huey/api.py ``Huey(..., immediate=False, always_eager=None)``: in immediate mode
    ``enqueue`` runs the task at once, in the caller (``always_eager`` is its deprecated
    alias); djhuey passes a ``HUEY`` dict's ``immediate`` key (``settings.DEBUG`` when the
    key is absent)."""
    for f, config in check.project.configs(NAME):
        if config.kind not in ("instance", "settings") or not production.is_production(f):
            continue
        for key in IMMEDIATE_ALIASES:
            value = config.option(key)
            if value is None or not truthy(value):
                continue
            made = (
                "HUEY setting"
                if config.kind == "settings"
                else f"Huey instance '{config.qualname}'"
            )
            yield check.finding(
                "jobs-run-eagerly",
                f.path,
                config.loc,
                f"{made} has {key}=True in {production.settings_module(f)}: every task runs "
                "at once in the process that enqueues it, inside the request, as if there "
                "were no consumer; keep immediate mode for tests and development",
            )
            break


PARTS = CheckParts(
    per_project={
        "pickle-serializer": pickle_serializer,
        "no-dead-letter": no_dead_letter,
        "jobs-run-eagerly": jobs_run_eagerly,
    },
    per_job={
        "retry-without-backoff": immediate_retries,
    },
    per_time_limit={
        "missing-time-limit": missing_time_limit,
    },
    per_schedule={
        "schedule-without-expiry": periodic_without_expiry,
    },
)
"""Its own part of checks (``semantics_base.CheckParts``), by check slug."""
