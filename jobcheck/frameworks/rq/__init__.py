"""RQ."""

from jobcheck.registry import Plugin

PLUGIN = Plugin(
    name="rq",
    title="RQ",
    recognizers=(
        "jobcheck.frameworks.rq.recognizer:RQRecognizer",
        "jobcheck.frameworks.rq.queues:RQQueues",
    ),
    schedule_readers=("jobcheck.frameworks.rq.schedules:RQSchedules",),
    aliases=("rq-scheduler", "rq-cron"),
    # rq/queue.py ``Queue(name='default')``; django_rq/queues.py ``get_queue(name='default')``.
    queue_constructors=tuple(
        (func, "default")
        for func in (
            "rq.Queue",
            "rq.queue.Queue",
            "django_rq.get_queue",
            "django_rq.queues.get_queue",
        )
    ),
    receiver_queue="jobcheck.frameworks.rq.queues:receiver_queue",
    semantics="jobcheck.frameworks.rq.semantics:SEMANTICS",
    check_parts="jobcheck.frameworks.rq.checks:PARTS",
    fixes="jobcheck.frameworks.rq.fixes:FIXES",
)
