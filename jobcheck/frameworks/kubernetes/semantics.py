"""Kubernetes CronJob and Job defaults and rules, as documented constants (not wired to
checks yet).

Kubernetes was read through the code index (the repository is too large to fetch); the
files and commits are those of /work/notes/frameworks-verified.md §6. Light module.
"""

from __future__ import annotations

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
