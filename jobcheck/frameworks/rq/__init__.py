"""RQ."""

from jobcheck.frameworks.base import Plugin

PLUGIN = Plugin(
    name="rq",
    title="RQ",
    recognizers=("jobcheck.frameworks.rq.recognizer:RQRecognizer",),
    schedule_readers=("jobcheck.frameworks.rq.schedules:RQSchedules",),
    aliases=("rq-scheduler", "rq-cron"),
    semantics="jobcheck.frameworks.rq.semantics:SEMANTICS",
)
