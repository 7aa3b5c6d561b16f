"""Dramatiq, periodiq, django_dramatiq and flask_dramatiq."""

from jobcheck.registry import Plugin

PLUGIN = Plugin(
    name="dramatiq",
    title="Dramatiq",
    recognizers=(
        "jobcheck.frameworks.dramatiq.recognizer:DramatiqRecognizer",
        "jobcheck.frameworks.dramatiq.settings:DramatiqSettingsRecognizer",
    ),
    schedule_readers=("jobcheck.frameworks.dramatiq.schedules:PeriodiqSchedules",),
    aliases=("periodiq",),
    semantics="jobcheck.frameworks.dramatiq.semantics:SEMANTICS",
    fixes="jobcheck.frameworks.dramatiq.fixes:FIXES",
)
