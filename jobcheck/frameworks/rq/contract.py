"""RQ's part of ``jobcheck jobs``: the default timeout is ``Queue.DEFAULT_TIMEOUT = 180``
s (rq/queue.py); failed jobs go to the ``FailedJobRegistry`` (rq/registry.py)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from jobcheck.facts import (
    MANAGEMENT_COMMAND,
    SPLAT,
    EnqueueSite,
    FileFacts,
    QueueDecl,
    ScheduleEntry,
)
from jobcheck.facts.values import CallV, Const, DictV, Ref, SeqV, Value, describe, number, string
from jobcheck.project.contract import Origin, Retries, Seconds, TimeLimit, describe_time_limit
from jobcheck.project.model import DJANGO_SETTINGS

if TYPE_CHECKING:
    from jobcheck.project.model import Job, Project

# rq/queue.py ``Queue.DEFAULT_TIMEOUT = 180``: a job's timeout when neither it nor its
# queue sets one; a timeout of -1 is "no timeout" (the worker treats ``job.timeout ==
# -1`` as infinite; rq/timeouts.py ``TimerDeathPenalty`` starts no timer for ``<= 0``).
RQ_DEFAULT_SECONDS = 180
RQ_INFINITE = -1
TIMEOUT_KEYS = ("job_timeout", "timeout")


def time_limit(project: Project, job: Job) -> TimeLimit:
    """The job's timeout: its own ``@job(timeout=)``, else what every call that sends it
    gives, else its queue's default."""
    for key in TIMEOUT_KEYS:
        if job.task.has_option(key):
            origin = Origin("job", job.file.path, job.task.option_loc(key))
            return TimeLimit(hard=_seconds(project.value(job.task.option(key)), origin, key))
    route = project.routing.job_route(job)
    queue = route.queue if route.known else None
    return calls_time_limit(project, project.sites_by_job.get(job.task.qualname, []), queue)


def calls_time_limit(
    project: Project, sites: list[tuple[FileFacts, EnqueueSite]], queue: object
) -> TimeLimit:
    """The timeout of a job these calls send: the one they all give
    (``job_timeout=600``), "set by the calls" when they give different or unreadable
    ones (``job_timeout=time_limit``, ``**enqueue_kwargs``) or only some give one, else
    the queue's default (``queue`` is where the calls send it, when known)."""
    given = [call_time_limit(project, f, site) for f, site in sites]
    if all(limit is None for limit in given):
        return TimeLimit(hard=queue_default_timeout(project, queue))
    hards = [limit.hard for limit in given if limit is not None]
    readable = [h for h in hards if h is not None and number(h.value) is not None]
    if len(readable) == len(given) and len({number(h.value) for h in readable}) == 1:
        return TimeLimit(hard=readable[0])
    if all(limit is None or limit.unknown for limit in given):
        spread = next(limit for limit in given if limit is not None)
        return TimeLimit(hard=None, unknown=spread.unknown)
    return TimeLimit(hard=None, per_call=True)


def call_time_limit(project: Project, f: FileFacts, site: EnqueueSite) -> TimeLimit | None:
    """The timeout one call gives the job it enqueues (``job_timeout=``/``timeout=``,
    also inside ``**options`` when they are readable); unknown when it spreads options
    jobcheck cannot read; None when it gives none (the queue's default applies)."""
    origin = Origin("enqueue call", f.path, site.loc)
    for key in TIMEOUT_KEYS:
        value = site.option(key)
        if value is not None:
            return TimeLimit(hard=_seconds(project.value(value), origin, key))
    spread = site.option(SPLAT)
    if spread is None:
        return None
    options = project.value(spread)
    if isinstance(options, DictV):
        for key in TIMEOUT_KEYS:
            value = options.get(key)
            if value is not None:
                return TimeLimit(hard=_seconds(project.value(value), origin, key))
        if all(isinstance(k, Const) for k, _ in options.items):
            return None
    unknown = f"**{describe(spread)} may set job_timeout; if not, the queue's default"
    return TimeLimit(hard=None, unknown=unknown)


def _seconds(value: Value | None, origin: Origin, key: str) -> Seconds:
    infinite = number(value) == RQ_INFINITE  # 0 is refused at enqueue (ValueError)
    return Seconds(value, origin, unlimited=infinite, written=f"{key}=-1" if infinite else "")


def queue_default_timeout(project: Project, queue: object) -> Seconds:
    """The queue's ``Queue(name, default_timeout=)`` (rq/queue.py ``_default_timeout``)
    or django-rq's ``RQ_QUEUES[name]["DEFAULT_TIMEOUT"]`` (django_rq/queues.py
    ``get_queue``: the queue's ``default_timeout``), placed at the queue's declaration;
    else RQ's 180 s."""
    declared = _declared_timeout(project, queue)
    queues = project.value(Ref(f"{DJANGO_SETTINGS}RQ_QUEUES"))
    entry = queues.get(str(queue)) if isinstance(queues, DictV) and queue else None
    value = project.value(entry.get("DEFAULT_TIMEOUT")) if isinstance(entry, DictV) else None
    path, loc = (declared[0], declared[1].loc) if declared else (None, None)
    if value is not None and number(value) is not None:
        where = f"RQ_QUEUES['{queue}']['DEFAULT_TIMEOUT']"
        return _seconds(value, Origin(where, path, loc), "DEFAULT_TIMEOUT")
    if declared is not None:
        given = declared[1].option("default_timeout")
        assert given is not None
        origin = Origin(f"queue '{queue}'", path, loc)
        return _seconds(project.value(given), origin, "default_timeout")
    return Seconds(Const(RQ_DEFAULT_SECONDS), Origin("RQ default"))


def _declared_timeout(project: Project, queue: object) -> tuple[str, QueueDecl] | None:
    """The project's declaration of ``queue`` that sets its default timeout."""
    for f in project.files if queue else ():
        for declared in f.queues:
            if (
                declared.framework == "rq"
                and declared.name == queue
                and declared.option("default_timeout") is not None
            ):
                return f.path, declared
    return None


def retries(project: Project, job: Job) -> Retries:
    """``@job(retry=Retry(max=N))`` (rq/job.py ``Retry``): none without one."""
    retry = job.task.option("retry")
    if isinstance(retry, CallV):
        return Retries(f"max {describe(retry.arg(0, 'max'))}")
    return Retries("none (failed jobs go to the failed job registry)")


def backoff(project: Project, job: Job) -> str:
    return intervals(job.task.option("retry"))


# rq/registry.py ``StartedJobRegistry.cleanup``: a job whose work-horse died expires from
# the started registry and is failed with AbandonedJobError, or retried while its Retry
# has attempts left.
DELIVERY = (
    "the job waits in the started registry while it runs; if its worker dies it is "
    "failed as abandoned (AbandonedJobError) or retried if Retry attempts are left, "
    "once that entry expires"
)


def plain_functions(project: Project) -> Iterator[dict[str, object]]:
    """RQ jobs that are plain functions, enqueued by reference: their contract is in
    the calls that enqueue them (the first call seen for each function places it and
    names its queue; the time limit is what every call gives)."""
    from jobcheck.project.test_code import is_test_code

    calls: dict[str, list[tuple[FileFacts, EnqueueSite]]] = {}
    for f, written, job in project.enqueues():
        if job is not None or written.framework_hint != "rq" or is_test_code(f):
            continue
        for site in project.bound_sites(written):
            if site.target:
                calls.setdefault(site.target, []).append((f, site))
    for sites in calls.values():
        yield _contract(project, sites)


def _contract(project: Project, sites: list[tuple[FileFacts, EnqueueSite]]) -> dict[str, object]:
    """One job's contract, read from the calls that enqueue it."""
    f, site = sites[0]
    assert site.target is not None
    retry = site.option("retry")
    route = project.routing.site_route(f, site, None)
    limit = calls_time_limit(project, sites, route.queue if route.known else None)
    return {
        "job": _shown(site.target),
        "framework": "rq",
        "path": f.path,
        "line": site.loc.line,
        "queue": str(route.queue) if route.known else "unknown (computed at run time)",
        "time_limit": describe_time_limit(limit),
        "retries": f"max {describe(retry.arg(0, 'max'))}" if isinstance(retry, CallV) else "none",
        "backoff": intervals(retry),
        "dead_letter": "failed job registry (RQ)",
        "delivery": DELIVERY,
    }


def schedule_contract(project: Project, entry: ScheduleEntry) -> dict[str, str]:
    """An rq-scheduler or RQ cron entry that enqueues a plain function: it runs as an RQ
    job on the entry's queue (``queue_name=``, else its scheduler's; rq_scheduler
    ``_create_job``: ``queue_name or self.queue_name``, 'default' unless the
    ``Scheduler`` names one), with the entry's ``timeout=``/``job_timeout=``, else the
    queue's default."""
    queue = string(project.value(entry.option("queue_name"))) or (
        "default" if entry.framework == "rq-scheduler" else None
    )
    limit = TimeLimit(hard=queue_default_timeout(project, queue))
    for key in ("timeout", "job_timeout"):
        value = entry.option(key)
        if value is not None:
            limit = TimeLimit(hard=_seconds(project.value(value), Origin("schedule entry"), key))
    return {
        "queue": queue or "unknown (computed at run time)",
        "time_limit": describe_time_limit(limit),
        "retries": "none",
        "backoff": "-",
        "dead_letter": "failed job registry (RQ)",
        "delivery": DELIVERY,
        "lock": "no",
    }


def intervals(retry: Value | None) -> str:
    if not isinstance(retry, CallV):
        return "-"
    interval = retry.arg(1, "interval")
    if isinstance(interval, SeqV):
        return "intervals " + ", ".join(f"{describe(v)} s" for v in interval.items)
    return f"fixed {describe(interval)} s" if interval is not None else "none (0 s)"


def _shown(target: str) -> str:
    """``call_command('x')`` for the management command a queue runs by name."""
    if target.startswith(MANAGEMENT_COMMAND):
        return f"call_command('{target.removeprefix(MANAGEMENT_COMMAND)}')"
    return target
