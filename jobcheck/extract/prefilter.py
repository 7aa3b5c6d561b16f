"""Deciding from a file's raw bytes whether it can matter to any check, before parsing.

Most files of a large project mention no job system at all (about 95% of saleor's), and
parsing is the dominant cost, so a file is parsed only when its bytes mention something
a recognizer acts on: a job library, an enqueue method, a Celery or Django transaction
setting, a task base class. The patterns are deliberately wider than the recognizers;
the fixture suite runs with and without the prefilter to prove it drops nothing.
"""

from __future__ import annotations

import re

_RELEVANT = re.compile(
    rb"\b(?:celery|dramatiq|rq|django_rq|rq_scheduler|periodiq|kombu)\b"
    rb"|\.(?:delay|apply_async|delay_on_commit|apply_async_on_commit|si?|signature"
    rb"|send_with_options|enqueue|enqueue_call|enqueue_in|enqueue_at|send_task)\s*\("
    rb"|(?m:^[ \t]*(?:CELERY\w*|BROKER_\w+|(?:task|broker|beat|worker|result)_\w+)\s*[:=])"
    rb"|ATOMIC_REQUESTS|\.Task\b"
    # Task definitions, which schedules name (JOB-02): ``@app.task`` on an app imported
    # from a module whose name only contains "celery" (``saleor.celeryconf``).
    rb"|@\w+(?:\.\w+)*\.(?:task|periodic_task)\b|\bshared_task\b"
    # Schedules: Celery beat, APScheduler, the ``schedule`` library.
    rb"|beat_schedule|BEAT_SCHEDULE|add_periodic_task|\bcrontab\b|apscheduler"
    rb"|\.(?:scheduled_job|add_job)\("
    rb"|(?m:^[ \t]*(?:import schedule\b|from schedule import))"
    # Web-app start-up code, where an in-process scheduler must not be started (SCL-38).
    rb"|def (?:ready|create_app|lifespan|post_fork|post_worker_init|when_ready|on_starting)\s*\("
    rb"|\.on_event\(|get_[aw]sgi_application|\bcreate_app\(|\b(?:Flask|FastAPI|Quart)\("
    # Queue configuration: django_rq settings, RabbitMQ queue arguments.
    rb"|\bRQ_QUEUES\b|\bx-(?:dead-letter-exchange|max-length|message-ttl)\b"
)


def may_matter(data: bytes) -> bool:
    return _RELEVANT.search(data) is not None


def sends_to(names: set[str]) -> re.Pattern[bytes] | None:
    """A pattern for ``name.send(`` / ``name.send_with_options(`` of the given actors,
    for the second pass that finds Dramatiq enqueue sites in files the first skipped."""
    if not names:
        return None
    alternatives = b"|".join(re.escape(n.encode()) for n in sorted(names))
    return re.compile(rb"\b(?:" + alternatives + rb")\.send(?:_with_options)?\s*\(")


def decorated_with(names: set[str]) -> re.Pattern[bytes] | None:
    """A pattern for ``@name`` of a project's own job decorators (``job =
    partial(MyRQJob, ...)``), for the second pass."""
    if not names:
        return None
    alternatives = b"|".join(re.escape(n.encode()) for n in sorted(names))
    return re.compile(rb"@(?:\w+\.)*(?:" + alternatives + rb")\b")
