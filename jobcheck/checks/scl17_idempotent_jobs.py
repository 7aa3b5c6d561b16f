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
from jobcheck.frameworks.semantics_base import UNKNOWN, Semantics
from jobcheck.project.bodies import JobBody, job_bodies
from jobcheck.project.schedule_words import describe, job_label
from jobcheck.registry import semantics

NON_IDEMPOTENT_KINDS = ("charge", "counter", "send")
# What the playbook names for scheduled jobs: "Jobs that charge, send or delete must also
# be safe to run twice" (SCL-38). Deletes are not reported: on real projects they are
# clean-ups of rows selected by a condition (older than N days, marked as removed), which a
# second run finds already gone, so they are safe to repeat by construction (see the docs).
SCHEDULED_KINDS = ("charge", "send")


class IdempotentJobs(RuleChecks):
    rule = "SCL-17"

    @check("non-idempotent-side-effect")
    def non_idempotent_side_effect(self) -> Iterator[Finding]:
        scheduled = self._scheduled_functions()
        for body in job_bodies(self.project):
            for reach in body.summary(self.project).side_effects:
                effect = reach.item
                if effect.kind not in NON_IDEMPOTENT_KINDS:
                    continue
                if body.function.qualname in scheduled and effect.kind in SCHEDULED_KINDS:
                    continue  # reported by scheduled-job-not-idempotent
                if body.job is None and not semantics(body.framework).reruns_failures:
                    continue  # no retry or redelivery runs it again
                yield self.finding(
                    "non-idempotent-side-effect",
                    body.file.path,
                    reach.loc,
                    _message(body.name, effect, reach.through(), _rerun(body), _framework(body)),
                    related=reach.related(effect.func),
                )

    @check("scheduled-job-not-idempotent")
    def scheduled_job_not_idempotent(self) -> Iterator[Finding]:
        """A scheduled job that charges or sends with no guard. Schedulers fire twice (an
        overlapping run, two scheduler instances, a missed tick caught up), so these
        effects need a guard even when a single delivery would be fine."""
        for qualname, (entry_label, schedule, framework) in self._scheduled_functions().items():
            entry = self.project.functions.get(qualname)
            if entry is None:
                continue
            f, function = entry
            for reach in self.project.summaries.of_function(f, function).side_effects:
                effect = reach.item
                if effect.kind not in SCHEDULED_KINDS:
                    continue
                yield self.finding(
                    "scheduled-job-not-idempotent",
                    f.path,
                    reach.loc,
                    f"scheduled job '{entry_label}' ({schedule}) {_verb(effect)}"
                    f"{reach.through()} with no guard "
                    "before it: a second scheduler, an overlapping run or a caught-up tick "
                    "repeats it; key the run on its period (a processed-runs row or a "
                    "sent_at/deleted-before watermark) and skip what is done "
                    f"(looked for: {semantics(framework).guards_looked_for()})",
                )

    def _scheduled_functions(self) -> dict[str, tuple[str, str, str]]:
        """Functions that schedules run -> (how messages name the job, its schedule, the
        framework that words it)."""
        found: dict[str, tuple[str, str, str]] = {}
        for _, entry, job in self.project.scheduled_jobs():
            function = self.project.scheduled_function(entry, job)
            if function and function not in found:
                framework = job.framework if job is not None else entry.framework
                found[function] = (job_label(entry), describe(entry), framework)
            for command in self.project.command_functions(entry) if job is None else ():
                # The code a CronJob's or crontab line's command runs (``handle``).
                found.setdefault(command, (entry.label, describe(entry), entry.framework))
        return found


def _verb(effect: SideEffect) -> str:
    if effect.kind == "charge":
        return f"charges ({effect.func})"
    return f"sends a message ({effect.func})"


def _framework(body: JobBody) -> Semantics:
    return semantics(body.job.framework if body.job else body.framework)


def _rerun(body: JobBody) -> str:
    """What runs the job's body a second time, in its framework's terms."""
    return _framework(body).rerun_cause(body.job)


def _message(
    job: str,
    effect: SideEffect,
    through: str = "",
    rerun: str = "a retried or redelivered job",
    framework: Semantics = UNKNOWN,
) -> str:
    looked_for = framework.guards_looked_for()
    if effect.kind == "charge":
        if "braintree" in effect.func:
            remedy = "Braintree has no idempotency keys: record the charge and check it first"
        else:
            remedy = framework.charge_key_advice()
        return (
            f"job '{job}' charges with {effect.func}{through} without an idempotency key or a "
            f"guard before it: {rerun} charges again; {remedy} "
            f"(looked for: {looked_for})"
        )
    if effect.kind == "counter":
        return (
            f"job '{job}' adds to or subtracts from a counter ({effect.func}){through} with no "
            f"guard before it: {rerun} applies the change twice; recompute the "
            f"value, or record the change and check it first (looked for: {looked_for})"
        )
    return (
        f"job '{job}' sends a message ({effect.func}){through} with no guard before it: "
        f"{rerun} sends it again; {framework.send_record_advice()} "
        f"(looked for: {looked_for})"
    )
