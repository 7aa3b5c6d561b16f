"""Dramatiq."""

from jobcheck.registry import Plugin

PLUGIN = Plugin(
    name="dramatiq",
    title="Dramatiq",
    recognizers=("jobcheck.frameworks.dramatiq.recognizer:DramatiqRecognizer",),
    schedule_readers=("jobcheck.frameworks.dramatiq.schedules:PeriodiqSchedules",),
    aliases=("periodiq",),
    semantics="jobcheck.frameworks.dramatiq.semantics:SEMANTICS",
)
