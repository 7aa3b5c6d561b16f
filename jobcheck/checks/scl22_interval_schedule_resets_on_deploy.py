"""SCL-22 Spread scheduled work across the hour (EVT-21): interval-schedule-resets-on-deploy.

A long interval counted from when the scheduler starts restarts its clock at every deploy:
a project that deploys more often than the interval may never run the job.
Docs: docs/rules/SCL-22.md.
"""

from __future__ import annotations

from collections.abc import Iterator

from jobcheck.checks.base import RuleChecks, check
from jobcheck.checks.scl22_minutes import LONG_INTERVAL
from jobcheck.findings import Finding
from jobcheck.project.schedule_words import describe
from jobcheck.registry import schedule_terms, semantics
from jobcheck.timing import describe_seconds


class IntervalScheduleResetsOnDeploy(RuleChecks):
    rule = "SCL-22"

    @check("interval-schedule-resets-on-deploy")
    def interval_schedule_resets_on_deploy(self) -> Iterator[Finding]:
        for f, entry in self.project.schedules():
            when = entry.timing
            if when.kind != "interval" or when.seconds is None or when.anchored:
                continue
            if when.seconds < LONG_INTERVAL:
                continue
            framework = semantics(entry.framework)
            why = framework.interval_reset_reason(self.project, entry)
            if why is None:
                continue
            period = describe_seconds(when.seconds)
            yield self.finding(
                "interval-schedule-resets-on-deploy",
                f.path,
                entry.timing_loc,
                f"{describe(entry)} runs every {period} ({when.text}), {why}; a project "
                f"that deploys more often than every {period} "
                f"{schedule_terms(entry).interval_reset_consequence}: pin it to fixed times "
                f"instead, e.g. {framework.cron_hint(entry, when.seconds)}",
            )
