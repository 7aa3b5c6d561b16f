"""dramatiq-crontab: cron and interval schedules on Dramatiq actors."""

from jobcheck.registry import Plugin

PLUGIN = Plugin(
    name="dramatiq-crontab",
    title="dramatiq-crontab",
    schedule_readers=("jobcheck.frameworks.dramatiq_crontab.schedules:DramatiqCrontabSchedules",),
    semantics="jobcheck.frameworks.dramatiq_crontab.semantics:SEMANTICS",
    check_parts="jobcheck.frameworks.dramatiq_crontab.checks:PARTS",
)
