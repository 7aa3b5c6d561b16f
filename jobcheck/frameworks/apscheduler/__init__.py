"""APScheduler."""

from jobcheck.registry import Plugin

PLUGIN = Plugin(
    name="apscheduler",
    title="APScheduler",
    recognizers=("jobcheck.frameworks.apscheduler.starts:APSchedulerStarts",),
    schedule_readers=("jobcheck.frameworks.apscheduler.schedules:APSchedulerSchedules",),
    semantics="jobcheck.frameworks.apscheduler.semantics:SEMANTICS",
    fixes="jobcheck.frameworks.apscheduler.fixes:FIXES",
)
