"""SCL-16 Move slow work out of the request (EVT-16).

A request handler that sends email, resizes images, renders an export or calls a
webhook makes the visitor wait for work they do not need in the answer, and fails the
request when a third party is slow or down. Docs: docs/rules/SCL-16.md.
"""

from __future__ import annotations

from collections.abc import Iterator

from jobcheck.checks.base import RuleChecks, check
from jobcheck.facts import FunctionFacts
from jobcheck.findings import Finding
from jobcheck.frameworks.web import semantics as web
from jobcheck.project.bodies import job_bodies

WHAT = {
    "email": "sends email",
    "notification": "sends a notification",
    "image": "resizes an image",
    "export": "renders an export",
}


class SlowWorkOffRequests(RuleChecks):
    rule = "SCL-16"

    @check("slow-work-in-request")
    def slow_work_in_request(self) -> Iterator[Finding]:
        jobs = {body.function.qualname for body in job_bodies(self.project)}
        for f in self.project.files:
            for function in f.functions.values():
                if function.view is None or function.qualname in jobs:
                    continue
                for call in function.slow_calls:
                    what = WHAT.get(call.kind, "does slow work")
                    yield self.finding(
                        "slow-work-in-request",
                        f.path,
                        call.loc,
                        f"request handler '{function.name}' {what} ({call.func}) while the "
                        "visitor waits: the request is as slow as that work, and fails when it "
                        f"fails; {_instead(function)}",
                    )
                for http in function.http_calls:
                    if http.result_used or _reads(http.func):
                        continue
                    yield self.finding(
                        "slow-work-in-request",
                        f.path,
                        http.loc,
                        f"request handler '{function.name}' calls {http.func}(...) and "
                        "discards the answer (a webhook or notification): the visitor waits "
                        "for a third party the response does not need, and the request "
                        f"fails when it is down; {_instead(function)}",
                    )


# A discarded call of these methods asks a server something (a reachability probe,
# Gerapy's ``requests.get(scrapyd_url, timeout=3)``); a webhook or notification sends.
READ_METHODS = frozenset({"get", "head", "options"})


def _reads(func: str) -> bool:
    return func.rsplit(".", 1)[-1] in READ_METHODS


def _instead(function: FunctionFacts) -> str:
    return web.offload_advice(function.view)
