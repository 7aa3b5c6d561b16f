"""Celery."""

from jobcheck.registry import Plugin

PLUGIN = Plugin(
    name="celery",
    title="Celery",
    recognizers=(
        "jobcheck.frameworks.celery.recognizer:CeleryRecognizer",
        "jobcheck.frameworks.celery.failures:CeleryFailureHandlers",
    ),
    queue_constructors=(("kombu.Queue", None), ("kombu.entity.Queue", None)),
    schedule_readers=("jobcheck.frameworks.celery.schedules:CelerySchedules",),
    semantics="jobcheck.frameworks.celery.semantics:SEMANTICS",
    check_parts="jobcheck.frameworks.celery.checks:PARTS",
    fixes="jobcheck.frameworks.celery.fixes:FIXES",
)
