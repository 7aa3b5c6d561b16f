"""taskiq and its broker packages (taskiq-redis, taskiq-aio-pika, taskiq-nats...)."""

from jobcheck.registry import Plugin

PLUGIN = Plugin(
    name="taskiq",
    title="taskiq",
    recognizers=("jobcheck.frameworks.taskiq.recognizer:TaskiqRecognizer",),
    semantics="jobcheck.frameworks.taskiq.semantics:SEMANTICS",
    check_parts="jobcheck.frameworks.taskiq.checks:PARTS",
    schedule_readers=("jobcheck.frameworks.taskiq.schedules:TaskiqSchedules",),
    object_roots=("taskiq", "taskiq_"),
    adopt="jobcheck.frameworks.taskiq.jobs:adopt",
)
