"""RQ's part of ``jobcheck jobs``: the default timeout is ``Queue.DEFAULT_TIMEOUT = 180``
s (rq/queue.py); failed jobs go to the ``FailedJobRegistry`` (rq/registry.py)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from jobcheck.facts import MANAGEMENT_COMMAND, EnqueueSite, FileFacts
from jobcheck.facts.values import CallV, DictV, Ref, SeqV, Value, describe, number
from jobcheck.project.model import DJANGO_SETTINGS

if TYPE_CHECKING:
    from jobcheck.project.model import Job, Project

RQ_DEFAULT_TIMEOUT = "180 s (RQ default)"


def time_limit(project: Project, job: Job) -> str:
    for key in ("timeout", "job_timeout"):
        if job.task.has_option(key):
            value = job.task.option(key)
            return "none (-1)" if number(value) == -1 else f"{describe(value)} s"
    route = project.routing.job_route(job)
    return queue_default_timeout(project, route.queue if route.known else None)


def queue_default_timeout(project: Project, queue: object) -> str:
    """django-rq's ``RQ_QUEUES[name]["DEFAULT_TIMEOUT"]`` (django_rq/queues.py
    ``get_queue``: the queue's ``default_timeout``), else RQ's 180 s."""
    queues = project.value(Ref(f"{DJANGO_SETTINGS}RQ_QUEUES"))
    entry = queues.get(str(queue)) if isinstance(queues, DictV) and queue else None
    seconds = (
        number(project.value(entry.get("DEFAULT_TIMEOUT"))) if isinstance(entry, DictV) else None
    )
    if seconds is not None:
        return f"{seconds:g} s (RQ_QUEUES['{queue}']['DEFAULT_TIMEOUT'])"
    return RQ_DEFAULT_TIMEOUT


def retries(project: Project, job: Job) -> str:
    retry = job.task.option("retry")
    if isinstance(retry, CallV):
        return f"max {describe(retry.arg(0, 'max'))}"
    return "none (failed jobs go to the failed job registry)"


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
    the enqueue call (the first call seen for each function)."""
    from jobcheck.project.test_code import is_test_code

    seen: set[str] = set()
    for f, written, job in project.enqueues():
        if job is not None or written.framework_hint != "rq" or is_test_code(f):
            continue
        for site in project.bound_sites(written):
            if site.target and site.target not in seen:
                seen.add(site.target)
                yield _contract(project, f, site)


def _contract(project: Project, f: FileFacts, site: EnqueueSite) -> dict[str, object]:
    """One job's contract, read from the call that enqueues it."""
    assert site.target is not None
    timeout = site.option("job_timeout") or site.option("timeout")
    retry = site.option("retry")
    route = project.routing.site_route(f, site, None)
    return {
        "job": _shown(site.target),
        "framework": "rq",
        "path": f.path,
        "line": site.loc.line,
        "queue": str(route.queue) if route.known else "unknown (computed at run time)",
        "time_limit": (
            "none (-1)"
            if number(timeout) == -1
            else f"{describe(timeout)} s"
            if timeout is not None
            else queue_default_timeout(project, route.queue if route.known else None)
        ),
        "retries": f"max {describe(retry.arg(0, 'max'))}" if isinstance(retry, CallV) else "none",
        "backoff": intervals(retry),
        "dead_letter": "failed job registry (RQ)",
        "delivery": DELIVERY,
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
