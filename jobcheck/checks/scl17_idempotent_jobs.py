"""SCL-17 Make every job safe to run twice.

Queues deliver at least once, retries re-run the body, and a worker can crash after the
work but before the job is marked done: a job that charges, counts or sends with nothing
that makes a second run harmless charges, counts or sends twice. Heuristic: the guards
looked for are listed in ``jobcheck.project.bodies.GUARDS_LOOKED_FOR`` and in every
message. Docs: docs/rules/SCL-17.md.
"""

from __future__ import annotations

from collections.abc import Iterator

from jobcheck.checks.base import RuleChecks, check
from jobcheck.facts import SideEffect
from jobcheck.findings import Finding
from jobcheck.project.bodies import GUARDS_LOOKED_FOR, job_bodies, unguarded_side_effects

NON_IDEMPOTENT_KINDS = ("charge", "counter", "send")


class IdempotentJobs(RuleChecks):
    rule = "SCL-17"

    @check("non-idempotent-side-effect")
    def non_idempotent_side_effect(self) -> Iterator[Finding]:
        for body in job_bodies(self.project):
            for effect in unguarded_side_effects(body.function, NON_IDEMPOTENT_KINDS):
                yield self.finding(
                    "non-idempotent-side-effect",
                    body.file.path,
                    effect.loc,
                    _message(body.name, effect),
                )


def _message(job: str, effect: SideEffect) -> str:
    if effect.kind == "charge":
        if "braintree" in effect.func:
            remedy = "Braintree has no idempotency keys: record the charge and check it first"
        else:
            remedy = 'pass idempotency_key= derived from the business ID (f"charge-{order.id}")'
        return (
            f"job '{job}' charges with {effect.func} without an idempotency key or a guard "
            f"before it: a retried or redelivered job charges again; {remedy} "
            f"(looked for: {GUARDS_LOOKED_FOR})"
        )
    if effect.kind == "counter":
        return (
            f"job '{job}' increments a counter ({effect.func}) with no guard before it: a "
            "retried or redelivered job counts twice; recompute the value, or record the "
            f"increment and check it first (looked for: {GUARDS_LOOKED_FOR})"
        )
    return (
        f"job '{job}' sends a message ({effect.func}) with no guard before it: a retried or "
        "redelivered job sends it again; record the send (a sent_at field) and check it "
        f"first (looked for: {GUARDS_LOOKED_FOR})"
    )
