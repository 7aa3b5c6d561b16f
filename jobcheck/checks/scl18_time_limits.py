"""SCL-18 Give every job a time limit (EVT-17).

A job with no time limit can pin a worker forever; a limit longer than the broker's
visibility timeout lets a second worker start the job while the first still runs.
Docs: docs/rules/SCL-18.md.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator

from jobcheck.checks.base import RuleChecks, check
from jobcheck.facts import SPLAT
from jobcheck.facts.values import (
    CallV,
    DictV,
    is_infinite,
    is_none,
    number,
    truthy,
)
from jobcheck.findings import Finding
from jobcheck.project.bodies import job_bodies
from jobcheck.project.model import Job, Resolved

# kombu/transport/redis.py: ``Channel.visibility_timeout = 3600  # 1 hour``.
# kombu/transport/SQS/__init__.py: ``Channel.default_visibility_timeout = 1800  # 30 minutes``.
DEFAULT_VISIBILITY_TIMEOUT = {"redis": 3600.0, "sqs": 1800.0}

# RQ: a job timeout of -1 means "no timeout" (rq/worker/worker_classes.py treats
# ``job.timeout == -1`` as infinite). Its default is ``Queue.DEFAULT_TIMEOUT = 180`` s.
RQ_INFINITE = -1.0
RQ_TIMEOUT_KEYS = ("job_timeout", "timeout")


class JobTimeLimits(RuleChecks):
    rule = "SCL-18"

    @check("missing-time-limit")
    def missing_time_limit(self) -> Iterator[Finding]:
        for job in self.project.jobs:
            if job.framework == "celery":
                yield from self._celery_missing(job)
            elif job.framework == "dramatiq":
                yield from self._dramatiq_broken(job)
            elif job.framework == "rq":
                yield from self._rq_infinite_job(job)
        yield from self._rq_infinite_sites()
        yield from self._rq_infinite_queues()

    def _celery_missing(self, job: Job) -> Iterator[Finding]:
        # Celery has no time limit by default: celery/app/defaults.py declares
        # ``task_time_limit`` and ``task_soft_time_limit`` with no default (None).
        hard = self.project.option(job, "time_limit")
        soft = self.project.option(job, "soft_time_limit")
        for resolved, name in ((hard, "time_limit"), (soft, "soft_time_limit")):
            if resolved.is_set and is_infinite(resolved.value):
                yield self.finding(
                    "missing-time-limit",
                    resolved.path or job.file.path,
                    resolved.loc or job.task.loc,
                    f"Celery task '{job.task.name}' sets {name} to infinity: it can run forever "
                    "and pin a worker; set a finite limit",
                )
                return
        if _has_limit(hard) or _has_limit(soft) or self._limited_per_call(job):
            return
        if hard.source == "task" and is_none(hard.value):
            yield self.finding(
                "missing-time-limit",
                job.file.path,
                hard.loc or job.task.loc,
                f"Celery task '{job.task.name}' sets time_limit=None, which means no limit: "
                "a stuck call pins the worker forever; set time_limit= (seconds)",
            )
            return
        yield self.finding(
            "missing-time-limit",
            job.file.path,
            job.task.loc,
            f"Celery task '{job.task.name}' has no time limit (Celery sets none by default, "
            "and no task_time_limit/CELERY_TASK_TIME_LIMIT was found): set time_limit= "
            "and soft_time_limit= on the task, or a global task_time_limit",
        )

    def _limited_per_call(self, job: Job) -> bool:
        """Some projects set limits per call (``apply_async(time_limit=...)``, or
        ``signature(..., options=options)`` with limits computed at run time)."""
        return job.task.qualname in self._jobs_limited_per_call

    @functools.cached_property
    def _jobs_limited_per_call(self) -> frozenset[str]:
        found = set()
        for _, site, target in self.project.enqueues():
            if target is None:
                continue
            keys = {key for key, _ in site.options}
            if keys & {"time_limit", "soft_time_limit", "options", SPLAT}:
                found.add(target.task.qualname)
        return frozenset(found)

    def _dramatiq_broken(self, job: Job) -> Iterator[Finding]:
        # dramatiq/middleware/time_limit.py: the TimeLimit middleware defaults to
        # 600000 ms; it reads ``actor.options.get("time_limit", self.time_limit)`` and
        # computes ``ttl / 1000``, so an explicit None fails at run time and infinity
        # never fires.
        if not job.task.has_option("time_limit"):
            return
        value = job.task.option("time_limit")
        loc = job.task.option_loc("time_limit")
        if is_infinite(value):
            yield self.finding(
                "missing-time-limit",
                job.file.path,
                loc,
                f"Dramatiq actor '{job.task.name}' sets time_limit to infinity: it can run "
                "forever; keep a finite limit in milliseconds (the default is 600000)",
            )
        elif is_none(value):
            yield self.finding(
                "missing-time-limit",
                job.file.path,
                loc,
                f"Dramatiq actor '{job.task.name}' sets time_limit=None: Dramatiq's TimeLimit "
                "middleware computes None / 1000 and fails; this is not 'no limit'. Set a "
                "limit in milliseconds or leave the option out (default 600000 ms)",
            )

    def _rq_infinite_job(self, job: Job) -> Iterator[Finding]:
        for key in RQ_TIMEOUT_KEYS:
            if _rq_is_infinite(job.task.option(key)):
                yield self.finding(
                    "missing-time-limit",
                    job.file.path,
                    job.task.loc,
                    f"RQ job '{job.task.name}' sets {key}=-1, which disables RQ's timeout "
                    "(default 180 s): the job can run forever",
                )

    def _rq_infinite_sites(self) -> Iterator[Finding]:
        for f, site, job in self.project.enqueues():
            framework = job.framework if job else site.framework_hint
            if framework != "rq":
                continue
            for key in RQ_TIMEOUT_KEYS:
                if _rq_is_infinite(site.option(key)):
                    yield self.finding(
                        "missing-time-limit",
                        f.path,
                        site.loc,
                        f"'{site.target_text}' is enqueued with {key}=-1, which disables RQ's "
                        "timeout (default 180 s): the job can run forever",
                    )

    def _rq_infinite_queues(self) -> Iterator[Finding]:
        for f in self.project.files:
            for queue in f.queues:
                if queue.framework == "rq" and _rq_is_infinite(queue.option("default_timeout")):
                    yield self.finding(
                        "missing-time-limit",
                        f.path,
                        queue.loc,
                        f"RQ queue '{queue.name}' sets default_timeout=-1: every job on it "
                        "runs without a time limit",
                    )

    @check("time-limit-exceeds-visibility")
    def time_limit_exceeds_visibility(self) -> Iterator[Finding]:
        visibility = self._visibility()
        if visibility is None:
            return
        seconds, origin = visibility
        reported_settings = False
        for job in self.project.jobs:
            if job.framework != "celery":
                continue
            acks_late = self.project.option(job, "acks_late")
            if not truthy(acks_late.value):
                # With early acknowledgement (Celery's default) the message is acked
                # when the task starts, so a long run is never redelivered.
                continue
            hard = self.project.option(job, "time_limit")
            limit = number(hard.value)
            if limit is None or limit < seconds:
                continue
            message = (
                f"time limit {limit:g} s is at or above the broker's visibility timeout "
                f"{seconds:g} s ({origin}): with acks_late a second worker can start "
                "the job while it still runs; keep the limit below the visibility timeout"
            )
            if hard.source == "settings":
                if not reported_settings:
                    reported_settings = True
                    yield self.finding(
                        "time-limit-exceeds-visibility",
                        hard.path or job.file.path,
                        hard.loc or job.task.loc,
                        "the global " + message,
                    )
                continue
            yield self.finding(
                "time-limit-exceeds-visibility",
                hard.path or job.file.path,
                hard.loc or job.task.loc,
                f"Celery task '{job.task.name}': {message}",
            )

    @check("countdown-exceeds-visibility")
    def countdown_exceeds_visibility(self) -> Iterator[Finding]:
        visibility = self._visibility()
        if visibility is None:
            return
        seconds, origin = visibility
        for f, site, job in self.project.enqueues():
            if job is not None and job.framework != "celery":
                continue
            countdown = number(site.option("countdown"))
            if countdown is None or countdown < seconds:
                continue
            yield self.finding(
                "countdown-exceeds-visibility",
                f.path,
                site.loc,
                f"countdown {countdown:g} s is at or above the broker's visibility timeout "
                f"{seconds:g} s ({origin}): the waiting message is redelivered and the job "
                "runs more than once; schedule long delays with a periodic job or raise "
                "visibility_timeout",
            )

    def _visibility(self) -> tuple[float, str] | None:
        """The broker's visibility timeout in seconds and where it comes from."""
        configured = []
        for _, setting in self.project.settings("broker_transport_options"):
            if isinstance(setting.value, DictV):
                value = number(setting.value.get("visibility_timeout"))
                if value is not None:
                    configured.append(value)
        if configured:
            # Several settings modules may disagree: only flag what exceeds them all.
            return max(configured), "broker_transport_options"
        scheme = self.project.broker_scheme()
        if scheme in DEFAULT_VISIBILITY_TIMEOUT:
            return DEFAULT_VISIBILITY_TIMEOUT[scheme], f"the {scheme} transport's default"
        return None

    @check("soft-limit-not-below-hard")
    def soft_limit_not_below_hard(self) -> Iterator[Finding]:
        seen: set[tuple] = set()
        for job in self.project.jobs:
            if job.framework != "celery":
                continue
            soft = self.project.option(job, "soft_time_limit")
            hard = self.project.option(job, "time_limit")
            soft_value, hard_value = number(soft.value), number(hard.value)
            if soft_value is None or hard_value is None or soft_value < hard_value:
                continue
            # Point at the more specific of the two settings: a task's own option
            # before a base class, before a global setting.
            culprit = min((soft, hard), key=lambda r: _SPECIFICITY.get(r.source, 9))
            where = (culprit.path or job.file.path, culprit.loc or job.task.loc)
            if where in seen:
                continue
            seen.add(where)
            subject = (
                "the global time limits"
                if soft.source == hard.source == "settings"
                else f"Celery task '{job.task.name}'"
            )
            yield self.finding(
                "soft-limit-not-below-hard",
                where[0],
                where[1],
                f"{subject}: soft_time_limit {soft_value:g} s ({_origin(soft)}) is not below "
                f"time_limit {hard_value:g} s ({_origin(hard)}): the task is killed before "
                "SoftTimeLimitExceeded can let it clean up; set the soft limit a little "
                "below the hard one",
            )

    @check("http-call-without-timeout")
    def http_call_without_timeout(self) -> Iterator[Finding]:
        for body in job_bodies(self.project):
            for call in body.function.http_calls:
                if call.has_timeout:
                    continue
                yield self.finding(
                    "http-call-without-timeout",
                    body.file.path,
                    call.loc,
                    f"{call.func}(...) in job '{body.name}' has no timeout "
                    f"({_no_timeout_reason(call.func)}): a silent server holds the worker, "
                    "and a time limit enforced by a signal or a thread cannot always "
                    "interrupt a blocked socket; pass timeout=(connect, read) seconds",
                )


_SPECIFICITY = {"task": 0, "base": 1, "annotations": 2, "settings": 3}


def _origin(resolved: Resolved) -> str:
    return {
        "task": "set on the task",
        "base": "from its base class",
        "annotations": "from task_annotations",
        "settings": "global setting",
    }.get(resolved.source, resolved.source)


def _has_limit(resolved: Resolved) -> bool:
    """A limit is present unless unset or explicitly None (an unknown value counts)."""
    return resolved.is_set and not is_none(resolved.value)


def _rq_is_infinite(value: object) -> bool:
    if isinstance(value, CallV):
        return False
    return number(value) == RQ_INFINITE  # type: ignore[arg-type]


# Why a call without ``timeout=`` has none, by library (the defaults, read from each
# library's source, are cited in jobcheck/extract/libraries.py).
_NO_TIMEOUT_REASON = {
    "requests": "requests waits forever unless given a timeout",
    "httpx": "timeout=None turns off httpx's 5 s default",
    "urllib": "urlopen uses the socket default, which is no timeout",
    "urllib3": "urllib3 pools use the socket default, which is no timeout",
}


def _no_timeout_reason(func: str) -> str:
    return _NO_TIMEOUT_REASON.get(func.split(".")[0], "the call has no timeout")
