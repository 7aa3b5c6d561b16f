"""Kubernetes CronJob and Job defaults and rules, and what the checks make of them.

Kubernetes was read through the code index (the repository is too large to fetch); the
files and commits are those of /work/notes/frameworks-verified.md §6. Light module.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from jobcheck.facts.values import Const, Opaque, string
from jobcheck.frameworks.crontab.semantics import enqueued_task
from jobcheck.frameworks.semantics_base import (
    ScheduleTerms,
    Semantics,
    Words,
    fixed_minute_expression,
    with_minute,
)

if TYPE_CHECKING:
    from jobcheck.facts import ScheduleEntry
    from jobcheck.project.model import Job, Project

# pkg/apis/batch/v1/defaults.go ``SetDefaults_CronJob`` (kubernetes@045bbb192caa).
CRONJOB_DEFAULTS: dict[str, object] = {
    "concurrencyPolicy": "Allow",  # batchv1.AllowConcurrent: runs may overlap
    "suspend": False,
    "successfulJobsHistoryLimit": 3,
    "failedJobsHistoryLimit": 1,
    "startingDeadlineSeconds": None,  # not defaulted
    "timeZone": None,  # "the time zone of the kube-controller-manager process" (types.go)
}
# Same file, ``SetDefaults_Job``: ``backoffLimit`` 6 (math.MaxInt32 in newer code when
# ``backoffLimitPerIndex`` is set); completions and parallelism 1; ``activeDeadlineSeconds``
# is not defaulted, so a Job has no time limit unless it sets one.
JOB_DEFAULTS: dict[str, object] = {
    "backoffLimit": 6,
    "completions": 1,
    "parallelism": 1,
    "activeDeadlineSeconds": None,
}
TIME_LIMIT_FIELDS = ("activeDeadlineSeconds",)
"""``jobTemplate.spec.activeDeadlineSeconds`` (the Job's); the pod spec has one too."""
CONCURRENCY_POLICIES = ("Allow", "Forbid", "Replace")
"""pkg/apis/batch/validation/validation.go ``validateCronJobSpec``. Controller
(pkg/controller/cronjob/cronjob_controllerv2.go ``syncCronJob``, @003e86297d18):
Forbid with an active job skips the run (``JobAlreadyActive``), Replace deletes the active
jobs first, Allow starts another regardless; a run later than startingDeadlineSeconds is
skipped (``MissSchedule``); a suspended CronJob starts nothing; Job names are
``<cronjob>-<minutes since epoch>``, so one slot makes one Job."""
SCHEDULE_TZ_REJECTED = True
"""validation.go ``validateScheduleFormat``: a schedule containing ``TZ``/``CRON_TZ`` is
rejected on create ("cannot use TZ or CRON_TZ in schedule, use timeZone field instead")."""
SCHEDULE_DESCRIPTORS = (
    "@yearly",
    "@annually",
    "@monthly",
    "@weekly",
    "@daily",
    "@midnight",
    "@hourly",
    "@every",
)
"""``cron.ParseStandard`` (robfig/cron v3 parser.go ``standardParser``, ``parseDescriptor``):
five fields or a descriptor, ``@every <Go duration>`` included."""
DAYS_OR = True
"""robfig/cron spec.go ``dayMatches``: when both day fields are restricted, either matches."""
TOO_MANY_MISSED = 100
"""v2 controller (utils.go ``nextScheduleTime``): over 100 missed times is a
``TooManyMissedTimes`` warning event, and the most recent missed time still runs."""
TIMEZONE_GA = "1.27"
"""``timeZone`` (feature gate CronJobTimeZone): alpha 1.24, beta 1.25, GA 1.27."""


GUARDING_POLICIES = frozenset({"Forbid", "Replace"})
"""Policies under which two runs never overlap: Forbid skips a run while one is active,
Replace deletes the active one first (its work is cut short)."""


def _shown_value(value: object) -> str:
    if isinstance(value, Const):
        return str(value.value)
    return "{{...}}" if isinstance(value, Opaque) else "?"


def _known(value: object) -> bool:
    """Set to something, a template (``{{ .Values.x }}``) included: a templated value is
    the chart's to choose, not missing."""
    return value is not None and not (isinstance(value, Const) and value.value is None)


class KubernetesSemantics(Semantics):
    name = "kubernetes"
    title = "Kubernetes"
    job_noun = "CronJob"
    scheduler_noun = "the CronJob controller"

    words = Words(
        hung_call_consequence=(
            "a silent server holds the pod until activeDeadlineSeconds, if the CronJob sets one"
        ),
        let_it_fail=(
            "let it fail, so the Job's pod fails, backoffLimit retries it and the failure "
            "stays in the Job's status"
        ),
        single_run_advice="; or set concurrencyPolicy: Forbid on the CronJob",
    )

    def schedule_terms(self, entry: ScheduleEntry) -> ScheduleTerms:
        return ScheduleTerms(
            kind="CronJob",
            runs_one_at_a_time=_runs_one_at_a_time(entry),
            enqueued_job_name=_enqueued_job_name(entry),
            time_zone=_time_zone(entry),
            minute_zero_note=_minute_zero_note(entry),
            unguarded=_unguarded_schedule(entry),
        )

    def schedule_contract(self, project: Project, entry: ScheduleEntry) -> dict[str, str] | None:
        """defaults.go: no activeDeadlineSeconds, backoffLimit 6; the Job controller
        recreates failed pods with an exponential back-off delay (10 s, 20 s, 40 s...
        capped at six minutes: the Job documentation, "Pod backoff failure policy");
        failedJobsHistoryLimit 1 keeps the last failed Job."""
        limit = entry.option("activeDeadlineSeconds") or entry.option("pod.activeDeadlineSeconds")
        retries = entry.option("backoffLimit")
        policy = entry.option("concurrencyPolicy")
        return {
            "queue": "none: a Job (pod) per run",
            "time_limit": f"{_shown_value(limit)} s (activeDeadlineSeconds)"
            if _known(limit)
            else "none (no activeDeadlineSeconds)",
            "retries": f"max {_shown_value(retries)} pods (backoffLimit)"
            if _known(retries)
            else "max 6 pods (backoffLimit, Kubernetes default)",
            "backoff": (
                # restartPolicy OnFailure: the kubelet reruns the container in the same pod
                # (its crash back-off: 10 s doubling, capped at five minutes); Never: the
                # Job controller makes a new pod (10 s doubling, capped at six minutes).
                "the container restarted in its pod, from 10 s, capped at 5 min (kubelet)"
                if string(entry.option("restartPolicy")) == "OnFailure"
                else "a new pod, from 10 s, capped at 6 min (Job controller)"
            ),
            "dead_letter": "the failed Job, kept by failedJobsHistoryLimit (1 by default)",
            "lock": f"concurrencyPolicy: {_shown_value(policy)}"
            if _known(policy)
            else "no: concurrencyPolicy Allow (the default)",
        }

    schedule_guard_noun = "the CronJob's concurrencyPolicy"

    def rerun_cause(self, job: Job | None) -> str:
        return "a pod that backoffLimit runs again after a failure"

    def minute_hint(self, entry: ScheduleEntry, minute: int) -> str | None:
        expression = with_minute(entry, minute)
        return f'schedule: "{expression}"' if expression else None

    def cron_hint(self, entry: ScheduleEntry, seconds: float) -> str:
        return f'schedule: "{fixed_minute_expression(seconds)}"'


def _time_zone(entry: ScheduleEntry) -> str | None:
    # types.go ``timeZone``: without it, the kube-controller-manager's own zone.
    return string(entry.option("timeZone"))


def _enqueued_job_name(entry: ScheduleEntry) -> str | None:
    return enqueued_task(entry.command)


def _runs_one_at_a_time(entry: ScheduleEntry) -> bool:
    policy = entry.option("concurrencyPolicy")
    if enqueued_task(entry.command) is not None:
        return True  # its pod only enqueues a task and exits
    return isinstance(policy, Opaque) or string(policy) in GUARDING_POLICIES


def _unguarded_schedule(entry: ScheduleEntry) -> str | None:
    policy = string(entry.option("concurrencyPolicy")) or "Allow"
    default = " (the default)" if entry.option("concurrencyPolicy") is None else ""
    return (
        f"CronJob '{entry.label}' runs with concurrencyPolicy {policy}{default}: a run "
        "that outlasts its interval, or a late start, overlaps the next and both do the "
        "work; set concurrencyPolicy: Forbid (Replace cuts the running one short)"
    )


def _minute_zero_note(entry: ScheduleEntry) -> str:
    text = entry.timing.text.strip()
    if text.startswith("@"):
        return f"; {text} is '{' '.join(f or '*' for f in entry.timing.fields or ())}'"
    return ""


SEMANTICS = KubernetesSemantics()
