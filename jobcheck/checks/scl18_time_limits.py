"""SCL-18 Give every job a time limit (EVT-17).

A job with no time limit can pin a worker forever; a limit longer than the broker's
visibility timeout lets a second worker start the job while the first still runs.
Docs: docs/rules/SCL-18.md.
"""

from __future__ import annotations

from collections.abc import Iterator

from jobcheck.checks.base import RuleChecks, check
from jobcheck.findings import Finding
from jobcheck.project.bodies import job_bodies
from jobcheck.registry import plugins, semantics


class JobTimeLimits(RuleChecks):
    rule = "SCL-18"

    @check("missing-time-limit")
    def missing_time_limit(self) -> Iterator[Finding]:
        """Each framework says what "no limit" means for it (``semantics.py``)."""
        for job in self.project.jobs:
            function = self.project.function(job.task.function)
            if function is not None and function.not_implemented:
                continue  # declared here, run elsewhere: its limit is the other side's
            yield from semantics(job.framework).missing_time_limit(self, job)
        for plugin in plugins():
            yield from semantics(plugin.name).time_limits_elsewhere(self)

    @check("time-limit-exceeds-visibility")
    def time_limit_exceeds_visibility(self) -> Iterator[Finding]:
        """Brokers that redeliver an unacknowledged message after a visibility timeout
        (Celery on Redis or SQS)."""
        for plugin in plugins():
            yield from semantics(plugin.name).time_limit_exceeds_visibility(self)

    @check("countdown-exceeds-visibility")
    def countdown_exceeds_visibility(self) -> Iterator[Finding]:
        for plugin in plugins():
            yield from semantics(plugin.name).countdown_exceeds_visibility(self)

    @check("soft-limit-not-below-hard")
    def soft_limit_not_below_hard(self) -> Iterator[Finding]:
        for plugin in plugins():
            yield from semantics(plugin.name).soft_limit_not_below_hard(self)

    @check("http-call-without-timeout")
    def http_call_without_timeout(self) -> Iterator[Finding]:
        """Calls made by the job's helpers are reported at the job's call of the helper,
        with the chain (the same helper may serve callers that set a limit)."""
        for body in job_bodies(self.project):
            for reach in body.summary(self.project).http_calls:
                call = reach.item
                if call.has_timeout:
                    continue
                framework = semantics(body.framework)
                reason, hint = framework.http_timeout_words(call.func) or (
                    _no_timeout_reason(call.func),
                    f"pass {_timeout_hint(call.func)}",
                )
                yield self.finding(
                    "http-call-without-timeout",
                    body.file.path,
                    reach.loc,
                    f"{call.func}(...){reach.through()} in job '{body.name}' has no timeout "
                    f"({reason}): {framework.hung_call_consequence()}; {hint}",
                    related=reach.related(f"{call.func}(...) without a timeout"),
                )

    @check("blocking-call-in-async-job")
    def blocking_call_in_async_job(self) -> Iterator[Finding]:
        """A job that is a coroutine (arq, taskiq) making a call that blocks the thread,
        itself or through the helpers it calls; each framework words why its limit does
        not hold (``Semantics.blocking_call``)."""
        for body in job_bodies(self.project):
            if body.job is None or not body.function.is_async:
                continue
            framework = semantics(body.job.framework)
            for reach in body.summary(self.project).blocking_calls:
                label = f"{reach.item.func}(...){reach.through()}"
                message = framework.blocking_call(body.job, label)
                if message is None:
                    break
                yield self.finding(
                    "blocking-call-in-async-job",
                    body.file.path,
                    reach.loc,
                    message,
                    related=reach.related(f"{reach.item.func}(...) blocks the event loop"),
                )


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


def _timeout_hint(func: str) -> str:
    """``urlopen`` and urllib3 take one number of seconds; requests and httpx a pair."""
    if func.split(".")[0] in ("urllib", "urllib3"):
        return "timeout=30 (seconds)"
    return "timeout=(connect, read) seconds"
