"""SCL-17 Make every job safe to run twice: what its two checks share (the side effects
that matter, the functions schedules run, the messages). Docs: docs/rules/SCL-17.md."""

from __future__ import annotations

from jobcheck.facts import SideEffect
from jobcheck.frameworks.semantics_base import UNKNOWN, Semantics
from jobcheck.project.bodies import GUARDS_LOOKED_FOR, JobBody
from jobcheck.project.model import Project
from jobcheck.project.schedule_words import describe, job_label
from jobcheck.registry import semantics

NON_IDEMPOTENT_KINDS = ("charge", "counter", "send")
# What the playbook names for scheduled jobs: "Jobs that charge, send or delete must also
# be safe to run twice" (SCL-38). Deletes are not reported: on real projects they are
# clean-ups of rows selected by a condition (older than N days, marked as removed), which a
# second run finds already gone, so they are safe to repeat by construction (see the docs).
SCHEDULED_KINDS = ("charge", "send")


def scheduled_functions(project: Project) -> dict[str, tuple[str, str, str]]:
    """Functions that schedules run -> (how messages name the job, its schedule, the
    framework that words it)."""
    found: dict[str, tuple[str, str, str]] = {}
    for _, entry, job in project.scheduled_jobs():
        function = project.scheduled_function(entry, job)
        if function and function not in found:
            framework = job.framework if job is not None else entry.framework
            found[function] = (job_label(entry), describe(entry), framework)
        for command in project.command_functions(entry) if job is None else ():
            # The code a CronJob's or crontab line's command runs (``handle``).
            found.setdefault(command, (entry.label, describe(entry), entry.framework))
    return found


def verb(effect: SideEffect) -> str:
    if effect.kind == "charge":
        return f"charges ({effect.func})"
    return f"sends a message ({effect.func})"


def framework_of(body: JobBody) -> Semantics:
    return semantics(body.job.framework if body.job else body.framework)


def rerun(body: JobBody) -> str:
    """What runs the job's body a second time, in its framework's terms."""
    return framework_of(body).rerun_cause(body.job)


def message(
    job: str,
    effect: SideEffect,
    through: str = "",
    rerun: str = "a retried or redelivered job",
    framework: Semantics = UNKNOWN,
) -> str:
    looked_for = framework.words.guards_looked_for or GUARDS_LOOKED_FOR
    if effect.kind == "charge":
        if "braintree" in effect.func:
            remedy = "Braintree has no idempotency keys: record the charge and check it first"
        else:
            remedy = framework.words.charge_key_advice
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
        f"{rerun} sends it again; {framework.words.send_record_advice} "
        f"(looked for: {looked_for})"
    )
