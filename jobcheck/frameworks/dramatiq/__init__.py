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
    # flask_dramatiq's ``Dramatiq(app)`` object: its ``@dramatiq.actor`` makes actors
    # (flask_dramatiq.py ``Dramatiq.actor`` wraps ``dramatiq.actor`` with the app's broker).
    object_roots=("flask_dramatiq",),
    semantics="jobcheck.frameworks.dramatiq.semantics:SEMANTICS",
    check_parts="jobcheck.frameworks.dramatiq.checks:PARTS",
    fixes="jobcheck.frameworks.dramatiq.fixes:FIXES",
)
