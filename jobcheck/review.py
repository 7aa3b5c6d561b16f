"""``jobcheck jobs``: every job with its effective contract.

For each Celery task, RQ job and Dramatiq actor: the queue it lands on, its time limit,
retries and backoff, where its failures go, the schedules that run it and whether a run
takes a lock, each with where the value comes from (the job itself, a base class, a
global setting or the framework's default, as verified in the framework's source).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

from jobcheck.checks.schedule_support import describe as describe_schedule
from jobcheck.checks.scl38_single_job_runs import SingleJobRuns
from jobcheck.config import Options
from jobcheck.facts.values import CallV, SeqV, Value, describe, is_none, number, truthy
from jobcheck.project import Project
from jobcheck.project.model import Job, Resolved
from jobcheck.project.test_code import is_test_code

if TYPE_CHECKING:
    from rich.text import Text

# Framework defaults, as the checks cite them: RQ Queue.DEFAULT_TIMEOUT (rq/queue.py);
# Dramatiq TimeLimit(time_limit=600000) and Retries(max_retries=20) with exponential
# backoff and jitter (dramatiq/middleware/); Celery Task.max_retries = 3 and
# default_retry_delay = 180 (celery/app/task.py), no time limit (celery/app/defaults.py).
RQ_DEFAULT_TIMEOUT = "180 s (RQ default)"
DRAMATIQ_DEFAULT_LIMIT = "600 s (Dramatiq default)"


@dataclass(frozen=True)
class Contract:
    job: str
    framework: str
    path: str
    line: int
    queue: str
    time_limit: str
    retries: str
    backoff: str
    dead_letter: str
    schedule: str
    lock: str

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


def contracts(project: Project, options: Options) -> list[Contract]:
    locks = SingleJobRuns(project, options)
    schedules = _schedules_by_function(project)
    result = [
        Contract(
            job=job.task.registered_name or job.task.qualname,
            framework=job.framework,
            path=job.file.path,
            line=job.task.loc.line,
            queue=_queue(project, job),
            time_limit=_time_limit(project, job),
            retries=(retries := _retries(project, job)),
            backoff="-" if retries == "none" else _backoff(project, job),
            dead_letter=_dead_letter(project, job),
            schedule="; ".join(schedules.get(job.task.function or "", [])) or "-",
            lock=_lock(locks, job),
        )
        for job in project.jobs
        if not is_test_code(job.file)  # jobs of the test suite run nowhere in production
    ]
    result.extend(_enqueued_functions(project))
    result.sort(key=lambda c: (c.path, c.line))
    return result


def _enqueued_functions(project: Project) -> Iterator[Contract]:
    """RQ jobs that are plain functions, enqueued by reference: their contract is in
    the enqueue call (the first call seen for each function)."""
    seen: set[str] = set()
    for f, site, job in project.enqueues():
        if job is not None or site.framework_hint != "rq" or not site.target:
            continue
        if is_test_code(f):
            continue
        if site.target in seen:
            continue
        seen.add(site.target)
        timeout = site.option("job_timeout") or site.option("timeout")
        retry = site.option("retry")
        route = project.routing.site_route(f, site, None)
        yield Contract(
            job=site.target,
            framework="rq",
            path=f.path,
            line=site.loc.line,
            queue=str(route.queue) if route.known else "unknown (computed at run time)",
            time_limit=(
                "none (-1)"
                if number(timeout) == -1
                else f"{describe(timeout)} s"
                if timeout is not None
                else RQ_DEFAULT_TIMEOUT
            ),
            retries=f"max {describe(retry.arg(0, 'max'))}" if isinstance(retry, CallV) else "none",
            backoff=_rq_intervals(retry),
            dead_letter="failed job registry (RQ)",
            schedule="-",
            lock="-",
        )


def _queue(project: Project, job: Job) -> str:
    route = project.routing.job_route(job)
    if not route.known:
        return "unknown (computed at run time)"
    return f"{route.queue} (default)" if route.default else str(route.queue)


def _time_limit(project: Project, job: Job) -> str:
    if job.framework == "celery":
        hard = project.option(job, "time_limit")
        soft = project.option(job, "soft_time_limit")
        parts = [
            f"{name} {_value(r)} s ({_source(r)})"
            for name, r in (("hard", hard), ("soft", soft))
            if r.is_set and not is_none(r.value)
        ]
        return ", ".join(parts) or "none (Celery has no default)"
    if job.framework == "rq":
        for key in ("timeout", "job_timeout"):
            if job.task.has_option(key):
                value = job.task.option(key)
                return "none (-1)" if number(value) == -1 else f"{describe(value)} s"
        return RQ_DEFAULT_TIMEOUT
    if job.task.has_option("time_limit"):
        value = job.task.option("time_limit")
        milliseconds = number(value)
        return f"{milliseconds / 1000:g} s" if milliseconds is not None else describe(value)
    return DRAMATIQ_DEFAULT_LIMIT


def _retries(project: Project, job: Job) -> str:
    if job.framework == "celery":
        autoretry = project.option(job, "autoretry_for")
        cap = project.option(job, "max_retries")
        limit = (
            "unbounded"
            if cap.is_set and is_none(cap.value)
            else (f"max {_value(cap)}" if cap.is_set else "max 3 (Celery default)")
        )
        if autoretry.is_set:
            return f"automatic on {_exceptions(autoretry.value)}, {limit}"
        function = project.function(job.task.function)
        if function is not None and function.retry_calls:
            caps = {_cap(call.max_retries) for call in function.retry_calls if call.max_retries}
            return f"self.retry(), {'; '.join(sorted(caps)) if caps else limit}"
        return "none"
    if job.framework == "rq":
        retry = job.task.option("retry")
        if isinstance(retry, CallV):
            return f"max {describe(retry.arg(0, 'max'))}"
        return "none (failed jobs go to the failed job registry)"
    if job.task.has_option("max_retries"):
        value = job.task.option("max_retries")
        return "unbounded" if is_none(value) else f"max {describe(value)}"
    return "max 20 (Dramatiq default)"


def _cap(value: Value) -> str:
    """A ``max_retries=`` given to ``self.retry(...)``."""
    if is_none(value):
        return "unbounded"
    return f"max {describe(value)}" if number(value) is not None else "set per call"


def _backoff(project: Project, job: Job) -> str:
    if job.framework == "celery":
        delay = project.option(job, "default_retry_delay")
        default = f"fixed {_value(delay)} s" if delay.is_set else "fixed 180 s (Celery default)"
        if project.option(job, "autoretry_for").is_set:
            # retry_backoff shapes only the retries autoretry_for makes (celery/app/autoretry.py).
            backoff = project.option(job, "retry_backoff")
            if backoff.is_set and truthy(backoff.value):
                jitter = project.option(job, "retry_jitter")
                off = jitter.is_set and truthy(jitter.value) is False
                return "exponential" + (", no jitter" if off else " with jitter")
            return default
        return _manual_backoff(project, job, default)
    if job.framework == "rq":
        return _rq_intervals(job.task.option("retry"))
    return "exponential with jitter (Dramatiq)"


def _manual_backoff(project: Project, job: Job, default: str) -> str:
    """How the task's own ``self.retry(...)`` calls space the attempts."""
    function = project.function(job.task.function)
    calls = function.retry_calls if function is not None else []
    kinds = set()
    for call in calls:
        if call.countdown is None:
            kinds.add(default)
        elif number(call.countdown) is not None:
            kinds.add(f"fixed {describe(call.countdown)} s (countdown)")
        else:
            kinds.add("countdown computed per attempt")
    return "; ".join(sorted(kinds)) if kinds else "-"


def _rq_intervals(retry: Value | None) -> str:
    if not isinstance(retry, CallV):
        return "-"
    interval = retry.arg(1, "interval")
    if isinstance(interval, SeqV):
        return "intervals " + ", ".join(f"{describe(v)} s" for v in interval.items)
    return f"fixed {describe(interval)} s" if interval is not None else "none (0 s)"


def _dead_letter(project: Project, job: Job) -> str:
    if job.framework == "rq":
        return "failed job registry (RQ)"
    if job.framework == "dramatiq":
        return "dead-letter queue (Dramatiq, kept 7 days)"
    route = project.routing.job_route(job)
    if route.known:
        use = project.routing.queues().get(("celery", str(route.queue)))
        if use is not None and use.dead_letter:
            exchange = use.dead_letter[0][1]
            return f"x-dead-letter-exchange {exchange}" if exchange else "x-dead-letter-exchange"
    return _failure_handler(project, job) or "none found"


def _failure_handler(project: Project, job: Job) -> str | None:
    """A handler that stores this job's failures: a ``task_failure`` receiver (every
    task), ``on_failure`` on its class or a base class, or its ``on_failure=`` option."""
    classes = set(project.task_bases(job))
    for f in project.files:
        for handler in f.failure_handlers:
            if not handler.persists:
                continue
            if handler.kind == "signal":
                name = f" {handler.owner}" if handler.owner else ""
                return f"task_failure handler{name}, which persists"
            if handler.kind == "on_failure" and handler.owner in classes:
                return f"{handler.owner}.on_failure, which persists"
    if job.task.has_option("on_failure"):
        return "on_failure= option"
    return None


def _lock(locks: SingleJobRuns, job: Job) -> str:
    function = job.task.function or job.task.qualname
    return "yes" if locks._guarded(function, job) else "no"


def _schedules_by_function(project: Project) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for _, entry, job in project.scheduled_jobs():
        function = project.scheduled_function(entry, job)
        if function:
            found.setdefault(function, []).append(describe_schedule(entry))
    return found


def _value(resolved: Resolved) -> str:
    seconds = number(resolved.value)
    return f"{seconds:g}" if seconds is not None else describe(resolved.value)


def _source(resolved: Resolved) -> str:
    return {
        "task": "task",
        "base": "base class",
        "annotations": "task_annotations",
        "settings": "global setting",
    }.get(resolved.source, resolved.source)


def _exceptions(value: Value | None) -> str:
    items = value.items if isinstance(value, SeqV) else (value,) if value is not None else ()
    names = [describe(item).rsplit(".", 1)[-1] for item in items]
    return ", ".join(names) or "nothing"


FIELDS = (
    ("queue", "queue"),
    ("time_limit", "time limit"),
    ("retries", "retries"),
    ("backoff", "backoff"),
    ("dead_letter", "dead letter"),
    ("schedule", "schedule"),
    ("lock", "lock"),
)


def cards(items: list[Contract]) -> Iterator[Text]:
    """One block per job, readable at any terminal width."""
    from rich.text import Text

    for c in items:
        card = Text()
        card.append(c.job, style="bold")
        card.append(f"  {c.framework}  ", style="magenta")
        card.append(f"{c.path}:{c.line}\n", style="dim")
        for attribute, label in FIELDS:
            card.append(f"  {label:<13}{getattr(c, attribute)}\n")
        yield card
