"""SCL-19 Bound the backlog and push back on producers (EVT-18), REQUIRED:
unbounded-fan-out.

One run that enqueues a job per row of a query nothing bounds, or per item of every page of
a paginated API, puts as many jobs on the queue as there are rows: the backlog has no bound
however the queue is configured. Docs: docs/rules/SCL-19.md.
"""

from __future__ import annotations

from collections.abc import Iterator

from jobcheck.checks.base import RuleChecks, check
from jobcheck.findings import Finding
from jobcheck.project.routing import is_test_code
from jobcheck.registry import semantics


class UnboundedFanOut(RuleChecks):
    rule = "SCL-19"

    @check("unbounded-fan-out")
    def unbounded_fan_out(self) -> Iterator[Finding]:
        loops = self.project.routing.loop_enqueues
        for f, site, job in self.project.enqueues():
            if is_test_code(f):
                continue
            loop = loops.get((f.path, site.order))
            if loop is None or loop.throttled or loop.batched:
                continue
            name = job.task.name if job is not None else site.target_text
            if loop.source == "query":
                what = (
                    f"once per row of '{loop.source_text}' (line {loop.loop_loc.line}), a query "
                    "nothing bounds: one run puts as many jobs on the queue as the table has rows"
                )
            else:
                what = (
                    f"inside the paginated loop 'while {loop.source_text}' (line "
                    f"{loop.loop_loc.line}): one run enqueues a job for every item of every page"
                )
            yield self.finding(
                "unbounded-fan-out",
                f.path,
                site.loc,
                f"'{name}' is enqueued {what}, with no batching or throttling. "
                + semantics(job.framework if job else site.framework_hint).words.fan_out_advice,
            )
