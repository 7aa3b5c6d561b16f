"""Celery's part of ``jobcheck jobs``: each task's effective limits, retries and dead letter.

Defaults as the checks cite them: ``Task.max_retries = 3`` and ``default_retry_delay =
180`` (celery/app/task.py), no time limit (celery/app/defaults.py); ``retry_backoff``
shapes only the retries ``autoretry_for`` makes (celery/app/autoretry.py).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from jobcheck.facts import SPLAT, Loc
from jobcheck.facts.values import (
    CallV,
    Const,
    DictV,
    Ref,
    SeqV,
    Value,
    describe,
    env_note,
    is_none,
    number,
    string,
    truthy,
)
from jobcheck.frameworks.celery.options import option
from jobcheck.project.contract import (
    DeadLetter,
    Delivery,
    Origin,
    Retries,
    Seconds,
    TimeLimit,
)

if TYPE_CHECKING:
    from jobcheck.project.model import Job, Project, Resolved

NAME = "celery"


def time_limit(project: Project, job: Job) -> TimeLimit:
    """The task's time limits, as the worker applies them: its own, a base class's,
    ``task_annotations``', the global ``task_time_limit``/``task_soft_time_limit``;
    Celery sets none by default (celery/app/defaults.py declares both with no default)."""
    pool = unenforcing_pool(project)
    return TimeLimit(
        hard=_limit(option(project, job, "time_limit")),
        soft=_limit(option(project, job, "soft_time_limit")),
        per_call=limited_per_call(project, job),
        none_by_default="Celery has no default",
        unenforced=(
            f"the workers run the {pool.pool} pool ({pool.where}), which applies no time limit"
            if pool is not None
            else ""
        ),
        unenforced_at=Origin("worker command", pool.path, pool.loc) if pool else None,
        soft_kind=True,
    )


# celery/concurrency/thread.py and eventlet.py: ``TaskPool.on_apply(..., **_)`` takes the
# limits and drops them; solo.py runs ``apply_target`` inline, with no timer. The prefork
# pool (the default) kills a run at the hard limit and signals the soft one; gevent.py
# wraps the run in ``gevent.Timeout``.
UNENFORCING_POOLS = frozenset({"threads", "solo", "eventlet"})


@dataclass(frozen=True)
class WorkerPool:
    """The pool a Celery worker command in sight runs its tasks in."""

    pool: str
    path: str
    loc: Loc
    where: str
    """``Procfile:3 (worker)``."""


def worker_pools(project: Project) -> list[WorkerPool]:
    """The pool of every Celery worker the project's process definitions start:
    ``-P``/``--pool``, else ``worker_pool`` (CELERY_WORKER_POOL), else prefork."""
    cached = project.__dict__.get("_celery_worker_pools")
    if cached is not None:
        return cached
    from jobcheck.commandline import option_values, programs
    from jobcheck.project.test_code import is_test_code
    from jobcheck.registry import semantics

    setting = project.setting("worker_pool")
    configured = string(project.value(setting[1].value)) if setting is not None else None
    found = []
    for f in project.files:
        if is_test_code(f):
            continue
        for process in f.processes:
            for words in programs(process.command):
                if semantics(NAME).worker_queues(words) is None:
                    continue
                given = option_values(words, ("-P", "--pool"))
                pool = given[-1] if given else configured or "prefork"
                where = f"{f.path}:{process.loc.line} ({process.name})"
                found.append(WorkerPool(pool, f.path, process.loc, where))
    project.__dict__["_celery_worker_pools"] = found
    return found


def unenforcing_pool(project: Project) -> WorkerPool | None:
    """The first worker, when every Celery worker in sight runs a pool that applies no
    time limit (a pool that is not one of Celery's own, or any worker that enforces,
    leaves it unknown: None)."""
    pools = worker_pools(project)
    if pools and all(p.pool in UNENFORCING_POOLS for p in pools):
        return pools[0]
    return None


def _limit(resolved: Resolved) -> Seconds | None:
    if not resolved.is_set or resolved.value is None:
        return None
    where = _WHERE.get(resolved.source, resolved.source)
    return Seconds(resolved.value, Origin(where, resolved.path, resolved.loc))


_WHERE = {
    "task": "task",
    "base": "base class",
    "annotations": "task_annotations",
    "settings": "global setting",
}


_PER_CALL_OPTIONS = frozenset({"time_limit", "soft_time_limit", "options", SPLAT})


def limited_per_call(project: Project, job: Job) -> bool:
    """Tasks some call sends with its own limits (``apply_async(time_limit=...)``, or
    ``signature(..., options=options)`` with limits computed at run time)."""
    sites = project.sites_by_job.get(job.task.qualname, [])
    return any({key for key, _ in site.options} & _PER_CALL_OPTIONS for _, site in sites)


CATCH_ALL = frozenset(
    {"Exception", "BaseException", "builtins.Exception", "builtins.BaseException"}
)
# celery/app/task.py ``Task.default_retry_delay = 3 * 60``; celery/app/autoretry.py
# ``retry_backoff_max`` 600 s by default.
_RETRY_DELAY = 180.0
_BACKOFF_MAX = 600.0


def catch_all(value: Value | None) -> str | None:
    """The catch-all exception an ``autoretry_for`` lists (``Exception``), or None."""
    items = value.items if isinstance(value, SeqV) else (value,) if value is not None else ()
    for item in items:
        if isinstance(item, Ref) and item.qualname in CATCH_ALL:
            return item.qualname.rsplit(".", 1)[-1]
    return None


def _every_error(project: Project, job: Job, cap: float | None) -> tuple[str, float | None]:
    """``autoretry_for=(Exception,)``: every error is retried ``cap`` times (None: no
    cap), each after ``default_retry_delay`` or, with ``retry_backoff``, after
    ``min(2**n * factor, retry_backoff_max)`` (celery/app/autoretry.py, utils/time.py
    ``get_exponential_backoff_interval``)."""
    autoretry = option(project, job, "autoretry_for")
    caught = catch_all(autoretry.value) if autoretry.is_set else None
    if caught is None:
        return "", None
    if cap is None:
        return f"without a cap, autoretry_for={caught} with max_retries=None", math.inf
    backoff = option(project, job, "retry_backoff")
    if backoff.is_set and truthy(backoff.value):
        given = number(backoff.value)
        factor = 1.0 if given is None or isinstance(given, bool) else float(given)
        span = sum(min(2**n * factor, _BACKOFF_MAX) for n in range(int(cap)))
    else:
        delay = option(project, job, "default_retry_delay")
        each = number(delay.value) if delay.is_set else None
        span = cap * (float(each) if each is not None else _RETRY_DELAY)
    return f"{cap:g} times, autoretry_for={caught}", span


def retries(project: Project, job: Job) -> Retries:
    """How the task retries (``autoretry_for``, ``self.retry()``) and its cap:
    ``max_retries`` (3 by default, celery/app/task.py), overridden by ``retry_kwargs``'
    (celery/app/autoretry.py ``task.retry(exc=exc, **retry_kwargs)``) and by a
    ``self.retry(max_retries=N)`` call's own ("If set, overrides the default retry limit
    for this execution", celery/app/task.py ``Task.retry``)."""
    autoretry = option(project, job, "autoretry_for")
    cap = option(project, job, "max_retries")
    limit = (
        "unbounded"
        if cap.is_set and is_none(cap.value)
        else (f"max {_value(cap)}" if cap.is_set else "max 3 (Celery default)")
    )
    unbounded_at = (
        Origin(_source(cap), cap.path or job.file.path, cap.loc or job.task.loc)
        if cap.is_set and is_none(cap.value)
        else None
    )
    written = "max_retries=None"
    kwargs = option(project, job, "retry_kwargs").value
    given = kwargs.get("max_retries") if isinstance(kwargs, DictV) else None
    if given is not None:
        limit = "unbounded" if is_none(given) else f"max {describe(given)} (retry_kwargs)"
        where = Origin("retry_kwargs", job.file.path, job.task.option_loc("retry_kwargs"))
        unbounded_at = where if is_none(given) else None
        written = "retry_kwargs max_retries=None"
    found = project.functions.get(job.task.function or "")
    calls = found[1].retry_calls if found is not None else []
    endless = next((call for call in calls if is_none(call.max_retries)), None)
    if found is not None and endless is not None:  # the call's own None wins
        unbounded_at = Origin("self.retry() call", found[0].path, endless.loc)
        written = "max_retries=None in self.retry()"
    if autoretry.is_set and _listed(autoretry.value):
        words = f"automatic on {_exceptions(autoretry.value)}, {limit}"
    elif calls:
        caps = {_cap(call.max_retries) for call in calls if call.max_retries is not None}
        if any(call.max_retries is None for call in calls):
            caps.add(limit)
        elif endless is None:
            unbounded_at = None  # every call caps its own retries
        words = f"self.retry(), {'; '.join(sorted(caps))}"
    elif unbounded_at is not None:
        words = f"none in sight; unbounded if retried ({written}, {unbounded_at.where})"
    else:
        words = "none"
    cap_value = given if given is not None else (cap.value if cap.is_set else Const(3))
    count = None if unbounded_at is not None else number(cap_value)
    every, span = (
        _every_error(project, job, count)
        if unbounded_at is not None or count is not None
        else ("", None)
    )
    # celery/app/task.py ``Task.max_retries = 3``.
    return Retries(
        words,
        unbounded_at,
        written,
        "Celery's default is 3",
        every_error=every,
        every_error_seconds=span,
    )


def _listed(value: Value | None) -> bool:
    """``autoretry_for`` naming exceptions (an empty tuple retries nothing)."""
    if isinstance(value, SeqV):
        return bool(value.items)
    return value is not None and not is_none(value)


# celery/app/autoretry.py: ``retry_backoff_max = int(getattr(task, 'retry_backoff_max',
# 600))``; each wait is ``min(retry_backoff_max, factor * 2 ** retries)`` with
# ``factor = int(max(1.0, retry_backoff))`` (celery/utils/time.py
# ``get_exponential_backoff_interval``), then random 0..wait with full jitter.
RETRY_BACKOFF_MAX_DEFAULT = 600


@dataclass(frozen=True)
class CappedBackoff:
    """``retry_backoff`` whose first wait already reaches ``retry_backoff_max``: every
    autoretry waits the cap, and the backoff never grows."""

    factor: int
    cap: int
    cap_is_default: bool
    path: str | None
    loc: Loc | None

    def words(self) -> str:
        cap = f"retry_backoff_max={self.cap}" + (
            " (Celery's default)" if self.cap_is_default else ""
        )
        return f"retry_backoff={self.factor} already reaches {cap} at the first retry"


def capped_backoff(project: Project, job: Job) -> CappedBackoff | None:
    """The task's autoretry backoff when it cannot grow; None when it can, or when
    either number is not readable."""
    shaped = option(project, job, "retry_backoff")
    value = project.value(shaped.value)
    factor = number(value)
    if not shaped.is_set or factor is None or truthy(value) is not True:
        return None
    cap_option = option(project, job, "retry_backoff_max")
    cap = number(project.value(cap_option.value)) if cap_option.is_set else None
    cap = RETRY_BACKOFF_MAX_DEFAULT if not cap_option.is_set else cap
    if cap is None or int(max(1.0, factor)) < int(cap):
        return None
    return CappedBackoff(
        int(max(1.0, factor)), int(cap), not cap_option.is_set, shaped.path, shaped.loc
    )


def backoff(project: Project, job: Job) -> str:
    delay = option(project, job, "default_retry_delay")
    default = f"fixed {_value(delay)} s" if delay.is_set else "fixed 180 s (Celery default)"
    if option(project, job, "autoretry_for").is_set:
        shaped = option(project, job, "retry_backoff")
        if shaped.is_set and truthy(shaped.value):
            jitter = option(project, job, "retry_jitter")
            off = jitter.is_set and truthy(jitter.value) is False
            capped = capped_backoff(project, job)
            if capped is not None:
                wait = f"{capped.cap} s" if off else f"a random 0-{capped.cap} s (jitter)"
                return f"none: every wait is {wait}; {capped.words()}"
            return "exponential" + (", no jitter" if off else " with jitter")
        return default
    return _manual_backoff(project, job, default)


def dead_letter(project: Project, job: Job) -> DeadLetter:
    """Where a task that fails for good ends. Celery acknowledges its message after the
    last attempt (``task_acks_on_failure_or_timeout=True``, celery/app/defaults.py), so
    it is kept only by its queue's ``x-dead-letter-exchange`` (RabbitMQ) or a failure
    handler that stores it; a handler or queue arguments jobcheck cannot read are given
    the benefit of the doubt."""
    queues = [use for use in project.routing.queues().values() if use.framework == NAME]
    route = project.routing.job_route(job)
    if route.known:
        use = project.routing.queues().get((NAME, str(route.queue)))
        if use is not None and use.dead_letter:
            exchange = use.dead_letter[0][1]
            kept = f"x-dead-letter-exchange {exchange}" if exchange else "x-dead-letter-exchange"
            return DeadLetter(kept_in=kept)
        if use is not None and use.unreadable_arguments:
            return DeadLetter(kept_in=f"queue '{route.queue}' (arguments not read)")
    elif any(use.dead_letter or use.unreadable_arguments for use in queues):
        return DeadLetter(
            kept_in="a dead-letter exchange, if its queue (chosen at run time) has one"
        )
    handler = _failure_handler(project, job)
    return DeadLetter(recorded_by=handler) if handler else DeadLetter()


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


def _failure_handler(project: Project, job: Job) -> str | None:
    """A handler that stores this job's failures: a ``task_failure`` receiver (every
    task), ``on_failure`` on its class or a base class, or its ``on_failure=`` option."""
    classes = set(project.task_bases(job)) | {job.task.qualname}
    for f in project.files:
        for handler in f.failure_handlers:
            if handler.persists is False or handler.framework != "celery":
                continue
            stores = "which persists" if handler.persists else "not read: taken to store it"
            if handler.kind == "signal":
                name = f" {handler.owner}" if handler.owner else ""
                return f"task_failure handler{name}, {stores}"
            if handler.kind == "on_failure" and handler.owner in classes:
                return f"{handler.owner}.on_failure, {stores}"
    if job.task.has_option("on_failure"):
        return "on_failure= option"
    return None


def _cap(value: Value) -> str:
    """A ``max_retries=`` given to ``self.retry(...)``."""
    if is_none(value):
        return "unbounded"
    return f"max {describe(value)}" if number(value) is not None else "set per call"


def _value(resolved: Resolved) -> str:
    seconds = number(resolved.value)
    return f"{seconds:g}" if seconds is not None else describe(resolved.value)


def _source(resolved: Resolved) -> str:
    return _WHERE.get(resolved.source, resolved.source) + env_note(resolved.value)


def _exceptions(value: Value | None) -> str:
    items = value.items if isinstance(value, SeqV) else (value,) if value is not None else ()
    names = [describe(item).rsplit(".", 1)[-1] for item in items]
    return ", ".join(names) or "nothing"


# kombu/transport/redis.py: ``Channel.visibility_timeout = 3600  # 1 hour``.
# kombu/transport/SQS/__init__.py: ``Channel.default_visibility_timeout = 1800  # 30 minutes``.
DEFAULT_VISIBILITY_TIMEOUT = {"redis": 3600.0, "sqs": 1800.0}


def broker_scheme(project: Project) -> str | None:
    """The Celery broker's transport (``redis``, ``sqs``, ``amqp``...), if known."""
    candidates: list[Value | None] = [s.value for _, s in project.settings("broker_url")]
    candidates += [s.value for _, s in project.settings("broker_transport")]
    for _, app in project.apps:
        kwargs = dict(app.kwargs)
        candidates += [kwargs.get("broker"), kwargs.get("broker_url")]
    for value in candidates:
        url = _url_hint(value)
        if url:
            scheme = url.split("://", 1)[0].split("+", 1)[0].lower()
            return {"rediss": "redis", "sentinel": "redis"}.get(scheme, scheme)
    return None


def _url_hint(value: Value | None) -> str | None:
    """A broker URL, or the default of ``os.environ.get("X", "redis://...")``."""
    text = string(value)
    if text and "://" in text:
        return text
    if isinstance(value, CallV):
        for candidate in (*value.args, *(v for _, v in value.kwargs)):
            hint = _url_hint(candidate)
            if hint:
                return hint
    return None


def visibility_timeout(project: Project) -> tuple[float, str] | None:
    """The broker's visibility timeout in seconds and where it comes from."""
    configured = []
    for _, setting in project.settings("broker_transport_options"):
        if isinstance(setting.value, DictV):
            value = number(setting.value.get("visibility_timeout"))
            if value is not None:
                configured.append(value)
    if configured:
        # Several settings modules may disagree: only flag what exceeds them all.
        return max(configured), "broker_transport_options"
    scheme = broker_scheme(project)
    if scheme in DEFAULT_VISIBILITY_TIMEOUT:
        return DEFAULT_VISIBILITY_TIMEOUT[scheme], f"the {scheme} transport's default"
    return None


def runs_again(project: Project, job: Job) -> bool:
    """Whether a second run of one message can happen: retries (``autoretry_for``,
    ``self.retry()``) or a late ack (a lost worker's message is redelivered). Acked
    early (the default) with no retries, a started task is never run again: the message
    is acked as the pool accepts it (celery/worker/request.py ``Request.on_accepted``
    and ``execute``: ``if not self.task.acks_late: self.acknowledge()``), so a lost run
    is lost, not repeated. An ``acks_late`` jobcheck cannot read may be true."""
    if option(project, job, "autoretry_for").is_set:
        return True
    function = project.function(job.task.function)
    if function is None or function.retry_calls:
        return True
    return delivery(project, job).late is not False


def delivery(project: Project, job: Job) -> Delivery:
    """When the task's message is acknowledged, and what a lost worker does to it.

    ``acks_late=Option(False)`` (celery/app/defaults.py): acked as the task starts. With
    acks_late a run whose child process is killed is still acked unless
    ``reject_on_worker_lost`` (celery/worker/request.py ``on_failure``); a worker that
    loses its broker connection leaves the message to be redelivered, on Redis and SQS
    once the visibility timeout has passed.
    """
    late = option(project, job, "acks_late")
    if not late.is_set:
        return Delivery(
            "early (Celery's default): acked as it starts; a worker lost mid-run loses the job",
            late=False,
        )
    acked_late = truthy(late.value)
    if acked_late is None:
        return Delivery(
            f"unknown (acks_late={describe(late.value)}, {_source(late)}): acked as it "
            "starts if false, after it ends (a lost worker's job redelivered) if true",
            late=None,
        )
    if not acked_late:
        return Delivery(
            f"early (acks_late=False, {_source(late)}): acked as it starts; a worker lost "
            "mid-run loses the job",
            late=False,
        )
    text = f"late (acks_late, {_source(late)}): a lost worker's job is redelivered"
    visibility = visibility_timeout(project)
    if visibility is not None:
        text += f" after the visibility timeout, {visibility[0]:g} s ({visibility[1]})"
    lost = option(project, job, "reject_on_worker_lost")
    if lost.is_set and truthy(lost.value):
        return Delivery(
            text + "; a killed child process's run is requeued (reject_on_worker_lost)",
            late=True,
        )
    return Delivery(text + "; a killed child process's run is acked, not retried", late=True)
