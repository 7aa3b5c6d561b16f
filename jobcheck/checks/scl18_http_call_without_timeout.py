"""SCL-18 Give every job a time limit (EVT-17): http-call-without-timeout.

An HTTP call without a timeout in a job waits as long as the server lets it: the job
hangs, and holds its worker, on a slow or silent third party.
Docs: docs/rules/SCL-18.md.
"""

from __future__ import annotations

from collections.abc import Iterator

from jobcheck.checks.base import RuleChecks, check
from jobcheck.findings import Finding
from jobcheck.project.bodies import job_bodies
from jobcheck.registry import semantics


class HttpCallWithoutTimeout(RuleChecks):
    rule = "SCL-18"
    judges_job_bodies = True

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
                    *reach.place(body.file.path),
                    f"{call.func}(...){reach.through()} in job '{body.name}' has no timeout "
                    f"({reason}): {framework.words.hung_call_consequence}; {hint}",
                    related=reach.related(f"{call.func}(...) without a timeout"),
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
