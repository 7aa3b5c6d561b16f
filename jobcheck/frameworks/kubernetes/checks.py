"""Kubernetes's own part of SCL-18 (runs with no time limit) and SCL-19 (runs started
however late)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from jobcheck.facts.values import number, string
from jobcheck.frameworks.crontab.semantics import enqueued_task
from jobcheck.frameworks.kubernetes.semantics import SEMANTICS, _known
from jobcheck.frameworks.semantics_base import Check, CheckParts

if TYPE_CHECKING:
    from jobcheck.facts import FileFacts, ScheduleEntry
    from jobcheck.findings import Finding
    from jobcheck.project.model import Job

NAME = SEMANTICS.name


def time_limits_elsewhere(check: Check) -> Iterator[Finding]:
    """A CronJob's Job has no time limit unless ``activeDeadlineSeconds`` sets one
    (``JOB_DEFAULTS``): a hung run holds its pod, and under Forbid every later run
    is skipped while it hangs."""
    for f, entry in check.project.schedules():
        if entry.framework != NAME:
            continue
        limit = entry.option("activeDeadlineSeconds")
        if _known(limit) or _known(entry.option("pod.activeDeadlineSeconds")):
            continue
        if enqueued_task(entry.command) is not None:
            continue  # the task it enqueues has its own limit
        if number(limit) == 0:
            continue
        yield check.finding(
            "missing-time-limit",
            f.path,
            entry.loc,
            f"CronJob '{entry.label}' has no time limit (Kubernetes sets no "
            f"activeDeadlineSeconds by default): a hung run holds its pod forever, and "
            f"{_while_it_hangs(entry)}; set jobTemplate.spec.activeDeadlineSeconds",
        )


def _while_it_hangs(entry: ScheduleEntry) -> str:
    """What a hung run does to the next ones, by the CronJob's concurrencyPolicy."""
    policy = string(entry.option("concurrencyPolicy")) or "Allow"
    if policy == "Forbid":
        return "with concurrencyPolicy: Forbid every later run is skipped while it hangs"
    if policy == "Replace":
        return "only the next run (concurrencyPolicy: Replace) ends it"
    return "with concurrencyPolicy Allow the next runs start beside it and may hang too"


def cronjob_without_deadline(
    check: Check, f: FileFacts, entry: ScheduleEntry, job: Job | None
) -> Iterator[Finding]:
    if _known(entry.option("startingDeadlineSeconds")):
        return
    yield check.finding(
        "schedule-without-expiry",
        f.path,
        entry.loc,
        f"CronJob '{entry.label}' has no startingDeadlineSeconds: a run the controller "
        "missed (the controller down, the cluster out of room) still starts when it "
        "catches up, however late; set startingDeadlineSeconds to how late a run may "
        "still be useful (e.g. 300)",
    )


PARTS = CheckParts(
    per_project={
        "missing-time-limit": time_limits_elsewhere,
    },
    per_schedule={
        "schedule-without-expiry": cronjob_without_deadline,
    },
)
"""Its own part of checks (``semantics_base.CheckParts``), by check slug."""
