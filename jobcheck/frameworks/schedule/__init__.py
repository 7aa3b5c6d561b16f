"""the schedule library."""

from jobcheck.registry import Plugin

PLUGIN = Plugin(
    name="schedule",
    title="the schedule library",
    recognizers=("jobcheck.frameworks.schedule.starts:ScheduleLibraryStarts",),
    schedule_readers=("jobcheck.frameworks.schedule.schedules:ScheduleLibrarySchedules",),
    semantics="jobcheck.frameworks.schedule.semantics:SEMANTICS",
    fixes="jobcheck.frameworks.schedule.fixes:FIXES",
)
