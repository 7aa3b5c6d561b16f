"""Huey (2.x) and djhuey."""

from jobcheck.registry import Plugin

PLUGIN = Plugin(
    name="huey",
    title="Huey",
    recognizers=("jobcheck.frameworks.huey.recognizer:HueyRecognizer",),
    semantics="jobcheck.frameworks.huey.semantics:SEMANTICS",
    check_parts="jobcheck.frameworks.huey.checks:PARTS",
    schedule_readers=("jobcheck.frameworks.huey.schedules:HueySchedules",),
    object_roots=("huey",),
    enqueued_by_call=True,
    adopt="jobcheck.frameworks.huey.jobs:adopt",
)
