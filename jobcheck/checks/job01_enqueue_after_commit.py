"""JOB-01 Enqueue only after the transaction commits.

A job enqueued inside a transaction can start before the commit (and miss the row) or
outlive a rollback (and act on a row that never existed). Docs: docs/rules/JOB-01.md.
"""

from __future__ import annotations

from collections.abc import Iterator

from jobcheck.checks.base import RuleChecks, check
from jobcheck.facts import EnqueueSite, FileFacts
from jobcheck.findings import Finding
from jobcheck.frameworks.web import semantics as web
from jobcheck.project.model import Job

AFTER_COMMIT_METHODS = frozenset({"delay_on_commit", "apply_async_on_commit"})


class EnqueueAfterCommit(RuleChecks):
    rule = "JOB-01"

    @check("enqueue-before-commit")
    def enqueue_before_commit(self) -> Iterator[Finding]:
        atomic_requests = self.project.setting("ATOMIC_REQUESTS") is not None
        for f, site, job in self.project.enqueues():
            if site.deferred or site.is_signature or site.method in AFTER_COMMIT_METHODS:
                continue
            reason = self._reason(f, site, atomic_requests)
            if reason is None:
                continue
            yield self.finding(
                "enqueue-before-commit",
                f.path,
                site.loc,
                f"{_name(site, job)} is enqueued {reason}: if the transaction rolls back, "
                "the job runs for data that was never committed (and it may start before "
                "the commit); enqueue in transaction.on_commit(...), use delay_on_commit(), "
                "or write an outbox row",
            )

    def _reason(self, f: FileFacts, site: EnqueueSite, atomic_requests: bool) -> str | None:
        if site.atomic == "block":
            return "inside a transaction.atomic() block"
        if site.atomic == "decorator":
            return "inside a function decorated with @transaction.atomic"
        function = self.project.function(site.function)
        if function is None:
            return None
        in_transaction = web.runs_in_request_transaction(function.view, atomic_requests)
        if in_transaction and not function.non_atomic_requests:
            return "in a Django view while ATOMIC_REQUESTS wraps every request in a transaction"
        if _uncommitted_session_work(function.commit_orders, function.session_writes, site.order):
            return "before session.commit() in the same function"
        return None


def _uncommitted_session_work(commits: list[int], writes: list[int], enqueue: int) -> bool:
    """A commit follows the enqueue, and the session may hold uncommitted work when the
    job is enqueued: nothing was committed before it, or something was written since."""
    if not any(order > enqueue for order in commits):
        return False
    earlier = [order for order in commits if order < enqueue]
    if not earlier:
        return True
    return any(max(earlier) < order < enqueue for order in writes)


def _name(site: EnqueueSite, job: Job | None) -> str:
    return f"'{job.task.name}'" if job else f"'{site.target_text}'"
