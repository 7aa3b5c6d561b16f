"""Where jobs that fail for good go (SCL-34 no-dead-letter, EVT-24).

Mistake (SCL-34 no-dead-letter, reported at the Celery app in shop/celery.py): Celery
acknowledges a task that fails its last retry, and nothing in this project stores it:
no queue has a dead-letter exchange (the broker is Redis, which has none) and no
task_failure receiver or Task.on_failure keeps the failed task. The work is lost and
cannot be replayed.

Correct twin: the receiver below stores each failed task where it can be inspected and
replayed. It is left unconnected here so that the finding shows; a real project
connects it with ``task_failure.connect(store_failed_task)``.

Mistake (EVT-24 dead-letter-without-runbook, reported at the first Dramatiq actor in
search/actors.py): Dramatiq moves a message that fails its last retry to a dead-letter
queue, but no document says how to inspect and replay it. Its correct twin is RQ's
procedure, docs/runbooks/reports-failed-jobs.md, which covers the reports queue's
failed job registry.
"""

from django.core.cache import cache


def store_failed_task(sender=None, task_id=None, args=None, kwargs=None, exception=None, **_):
    cache.set(f"failed-task:{task_id}", (sender.name, args, kwargs, repr(exception)), None)
