"""SCL-16 Move slow work out of the request (EVT-16).

A request handler that sends email, resizes images, renders an export or calls a
webhook makes the visitor wait for work they do not need in the answer, and fails the
request when a third party is slow or down. Docs: docs/rules/SCL-16.md.
"""

from __future__ import annotations

from collections.abc import Iterator

from jobcheck.checks.base import RuleChecks, SummaryRoots, check
from jobcheck.facts import FileFacts, FunctionFacts
from jobcheck.findings import Finding, Related
from jobcheck.frameworks.web import semantics as web
from jobcheck.project import Project
from jobcheck.project.bodies import JobBody, job_bodies
from jobcheck.project.summaries import Reach, Summary
from jobcheck.registry import semantics

WHAT = {
    "email": "sends email",
    "notification": "sends a notification",
    "image": "resizes an image",
    "export": "renders an export",
}


class SlowWorkOffRequests(RuleChecks):
    rule = "SCL-16"

    @classmethod
    def summary_roots(cls, project: Project) -> SummaryRoots:
        """Request handlers: the jobs they run directly, through their helpers."""
        return SummaryRoots(
            functions=tuple(
                (f, function)
                for f in project.files
                for function in f.functions.values()
                if function.view is not None
            )
        )

    @check("slow-work-in-request")
    def slow_work_in_request(self) -> Iterator[Finding]:
        bodies = {body.function.qualname: body for body in job_bodies(self.project)}
        for f in self.project.files:
            for function in f.functions.values():
                if function.view is None or function.qualname in bodies:
                    continue
                yield from self._jobs_run_here(f, function, bodies)
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

    def _jobs_run_here(
        self, f: FileFacts, view: FunctionFacts, bodies: dict[str, JobBody]
    ) -> Iterator[Finding]:
        """A job the handler calls directly (not ``.delay``), itself or through its
        helpers: the job's body runs in the request, slow work and all."""
        reported: set[str] = set()
        for reach in self.project.summaries.of_function(f, view).functions:
            body = bodies.get(reach.item.qualname)
            if body is None or body.job is None or not reach.chain:
                continue
            if body.function.qualname in reported:
                continue
            work = _slow_work(body.summary(self.project))
            if work is None:
                continue
            reported.add(body.function.qualname)
            yield self._job_finding(f, view, body, reach, work)

    def _job_finding(
        self,
        f: FileFacts,
        view: FunctionFacts,
        body: JobBody,
        reach: Reach[FunctionFacts],
        work: tuple[str, str],
    ) -> Finding:
        what, func = work
        hops = reach.chain
        through = " through " + " -> ".join(hop.label for hop in hops[:-1]) if len(hops) > 1 else ""
        words = semantics(body.framework).words
        related = tuple(Related(hop.path, hop.loc, f"calls {hop.label}") for hop in hops[1:])
        return self.finding(
            "slow-work-in-request",
            f.path,
            reach.loc,
            f"request handler '{view.name}' calls job '{body.name}' directly{through}: the "
            f"job's body runs in the request and {what} ({func}) while the visitor waits, "
            f"and the request fails when it fails; {words.named(words.enqueue_instead, body.name)}",
            related=related,
        )


def _slow_work(summary: Summary) -> tuple[str, str] | None:
    """What slow work a job's summary does, for the message: (what, the call)."""
    for slow in summary.slow_calls:
        return WHAT.get(slow.item.kind, "does slow work"), slow.item.func
    for http in summary.http_calls:
        if not http.item.result_used and not _reads(http.item.func):
            return "calls a webhook", f"{http.item.func}(...)"
    return None


# A discarded call of these methods asks a server something (a reachability probe,
# Gerapy's ``requests.get(scrapyd_url, timeout=3)``); a webhook or notification sends.
READ_METHODS = frozenset({"get", "head", "options"})


def _reads(func: str) -> bool:
    return func.rsplit(".", 1)[-1] in READ_METHODS


def _instead(function: FunctionFacts) -> str:
    return web.offload_advice(function.view)
