"""SCL-34 Set aside messages that keep failing (EVT-23).

Retries must be bounded, spaced out with backoff and jitter, and reserved for transient
errors; what still fails goes to a dead-letter destination, never retried forever or
silently dropped. Docs: docs/rules/SCL-34.md.
"""

from __future__ import annotations

from collections.abc import Iterator

from jobcheck.checks.base import RuleChecks, check
from jobcheck.facts import ExceptHandler, FailureHandler, FileFacts, RetryCall
from jobcheck.facts.values import CallV, DictV, Ref, SeqV, Value, is_none, number, truthy
from jobcheck.findings import Finding
from jobcheck.project.bodies import job_bodies
from jobcheck.project.model import Job
from jobcheck.project.routing import is_test_code

CATCH_ALL = frozenset(
    {"Exception", "BaseException", "builtins.Exception", "builtins.BaseException"}
)
RQ_RETRY = frozenset({"rq.Retry", "rq.retry.Retry", "rq.job.Retry"})
# Celery: Task.default_retry_delay = 3 * 60 (celery/app/task.py) is the fixed delay
# ``self.retry()`` waits when no countdown is given; autoretry_for only backs off when
# retry_backoff is set (celery/app/autoretry.py reads it with a default of False).
CELERY_DEFAULT_RETRY_DELAY = 180


class DeadLetterQueue(RuleChecks):
    rule = "SCL-34"

    # -- unbounded-retries ---------------------------------------------------------

    @check("unbounded-retries")
    def unbounded_retries(self) -> Iterator[Finding]:
        for job in self.project.jobs:
            yield from self._unbounded_option(job)
            function = self.project.function(job.task.function)
            if function is None:
                continue
            for call in function.retry_calls:
                if call.max_retries is not None and is_none(call.max_retries):
                    yield self.finding(
                        "unbounded-retries",
                        job.file.path,
                        call.loc,
                        f"'{job.task.name}' retries with max_retries=None: a message that "
                        "always fails is retried forever; cap the retries and dead-letter "
                        "what is left",
                    )
            for loc in function.retry_loops:
                yield self.finding(
                    "unbounded-retries",
                    job.file.path,
                    loc,
                    f"'{job.task.name}' retries in a 'while True' loop whose exception "
                    "handler never gives up: a permanent failure spins forever; count the "
                    "attempts and re-raise after a limit",
                )

    def _unbounded_option(self, job: Job) -> Iterator[Finding]:
        if job.framework == "celery":
            resolved = self.project.option(job, "max_retries")
            if resolved.is_set and is_none(resolved.value):
                yield self.finding(
                    "unbounded-retries",
                    resolved.path or job.file.path,
                    resolved.loc or job.task.loc,
                    f"Celery task '{job.task.name}' sets max_retries=None: a message that "
                    "always fails is retried forever (Celery's default is 3); set a cap",
                )
                return
            retry_kwargs = self.project.option(job, "retry_kwargs").value
            if isinstance(retry_kwargs, DictV) and is_none(retry_kwargs.get("max_retries")):
                yield self.finding(
                    "unbounded-retries",
                    job.file.path,
                    job.task.option_loc("retry_kwargs"),
                    f"Celery task '{job.task.name}' sets retry_kwargs max_retries=None: it "
                    "is retried forever; set a cap",
                )
        elif job.framework == "dramatiq":
            # dramatiq/middleware/retries.py: with max_retries None and no retry_when,
            # ``retries >= max_retries`` is never tested, so the message never fails.
            if (
                job.task.has_option("max_retries")
                and is_none(job.task.option("max_retries"))
                and not job.task.has_option("retry_when")
            ):
                yield self.finding(
                    "unbounded-retries",
                    job.file.path,
                    job.task.option_loc("max_retries"),
                    f"Dramatiq actor '{job.task.name}' sets max_retries=None: it is retried "
                    "forever and never reaches the dead-letter queue; set a cap (default 20)",
                )

    # -- retry-without-backoff -----------------------------------------------------

    @check("retry-without-backoff")
    def retry_without_backoff(self) -> Iterator[Finding]:
        for job in self.project.jobs:
            if job.framework == "celery":
                yield from self._celery_autoretry_backoff(job)
                yield from self._celery_manual_retry_backoff(job)
            elif job.framework == "rq":
                retry = job.task.option("retry")
                if _rq_retry_is_flat(retry):
                    yield self.finding(
                        "retry-without-backoff",
                        job.file.path,
                        job.task.loc,
                        _rq_message(job.task.name),
                    )
        for f, site, job in self.project.enqueues():
            if (job.framework if job else site.framework_hint) != "rq":
                continue
            if _rq_retry_is_flat(site.option("retry")):
                yield self.finding(
                    "retry-without-backoff",
                    f.path,
                    site.loc,
                    _rq_message(site.target_text),
                )

    def _celery_autoretry_backoff(self, job: Job) -> Iterator[Finding]:
        autoretry = self.project.option(job, "autoretry_for")
        if not autoretry.is_set or not _non_empty(autoretry.value):
            return
        backoff = self.project.option(job, "retry_backoff")
        where = (autoretry.path or job.file.path, autoretry.loc or job.task.loc)
        if not backoff.is_set or truthy(backoff.value) is False:
            yield self.finding(
                "retry-without-backoff",
                *where,
                f"Celery task '{job.task.name}' uses autoretry_for without retry_backoff: "
                f"every retry waits the same {self._retry_delay(job)}, so a struggling "
                "dependency is hit at a steady rate; set retry_backoff=True (jitter is on "
                "by default)",
            )
            return
        jitter = self.project.option(job, "retry_jitter")
        if jitter.is_set and truthy(jitter.value) is False:
            yield self.finding(
                "retry-without-backoff",
                jitter.path or job.file.path,
                jitter.loc or job.task.loc,
                f"Celery task '{job.task.name}' turns retry_jitter off: tasks that failed "
                "together retry together, in bursts; keep jitter on",
            )

    def _celery_manual_retry_backoff(self, job: Job) -> Iterator[Finding]:
        function = self.project.function(job.task.function)
        if function is None:
            return
        for call in function.retry_calls:
            delay = self._fixed_delay(job, call)
            if delay is None:
                continue
            yield self.finding(
                "retry-without-backoff",
                job.file.path,
                call.loc,
                f"'{job.task.name}' retries after a fixed {delay}: each retry waits the "
                "same time, with no backoff or jitter"
                + self._backoff_not_applied(job)
                + "; grow the countdown with the attempt "
                "(e.g. countdown=2 ** self.request.retries * 30 + random jitter)",
            )

    def _backoff_not_applied(self, job: Job) -> str:
        """A note for tasks that set retry_backoff and retry by hand: Celery applies it
        only to the retries autoretry_for makes (celery/app/autoretry.py)."""
        backoff = self.project.option(job, "retry_backoff")
        if backoff.is_set and truthy(backoff.value):
            return " (retry_backoff applies only to autoretry_for retries, not to self.retry())"
        return ""

    def _retry_delay(self, job: Job) -> str:
        """How long each retry waits when no countdown is given."""
        delay = self.project.option(job, "default_retry_delay")
        if not delay.is_set:
            return f"{CELERY_DEFAULT_RETRY_DELAY} s (Celery's default_retry_delay)"
        seconds = number(delay.value)
        return (
            f"{seconds:g} s (default_retry_delay)"
            if seconds is not None
            else ("default_retry_delay")
        )

    def _fixed_delay(self, job: Job, call: RetryCall) -> str | None:
        if call.countdown is None:
            return self._retry_delay(job)
        value = number(call.countdown)
        return f"{value:g} s (countdown)" if value is not None else None

    # -- retry-on-all-exceptions ---------------------------------------------------

    @check("retry-on-all-exceptions")
    def retry_on_all_exceptions(self) -> Iterator[Finding]:
        for job in self.project.jobs:
            if job.framework != "celery":
                continue
            autoretry = self.project.option(job, "autoretry_for")
            caught = _catch_all(autoretry.value)
            if autoretry.is_set and caught:
                yield self.finding(
                    "retry-on-all-exceptions",
                    autoretry.path or job.file.path,
                    autoretry.loc or job.task.loc,
                    f"Celery task '{job.task.name}' retries on {caught}: deterministic "
                    "errors (bad input, a missing record, a bug) are retried like "
                    "transient ones; list the transient exceptions (timeouts, connection "
                    "errors) instead",
                )
            function = self.project.function(job.task.function)
            if function is None:
                continue
            for call in function.retry_calls:
                broad = [name for name in call.in_handler_of if name in CATCH_ALL]
                if broad:
                    label = "a bare except" if broad[0] == "BaseException" else broad[0]
                    yield self.finding(
                        "retry-on-all-exceptions",
                        job.file.path,
                        call.loc,
                        f"'{job.task.name}' calls retry() from {label} handler: every error, "
                        "deterministic ones included, is retried; catch the transient "
                        "exceptions only and let the rest fail",
                    )

    # -- no-dead-letter -----------------------------------------------------------------
    # -- swallowed-exception -----------------------------------------------------------

    @check("swallowed-exception")
    def swallowed_exception(self) -> Iterator[Finding]:
        # Handlers that re-raise, retry or record the failure are not recorded, nor are
        # those catching only expected outcomes (a deleted record, a duplicate insert,
        # lookup/parse fallbacks): see jobcheck/extract/handlers.py.
        for body in job_bodies(self.project):
            for handler in body.function.handlers:
                yield self.finding(
                    "swallowed-exception",
                    body.file.path,
                    handler.loc,
                    f"{_except_text(handler)} in job '{body.name}' swallows the error (no "
                    "raise, retry, log at info or above, error tracker or saved failure): "
                    "the job is marked successful and the work is silently lost; log it "
                    "with logger.exception(...) or let it fail into retries and the "
                    "dead-letter queue",
                )

    @check("no-dead-letter")
    def no_dead_letter(self) -> Iterator[Finding]:
        """A Celery project with nowhere for a task that failed for good to go.

        Celery acknowledges a task that fails its last attempt (``task_acks_on_failure_or
        _timeout`` defaults to True in celery/app/defaults.py), so its message is gone
        unless a queue has a dead-letter exchange or a failure handler stores it."""
        tasks = [
            job
            for job in self.project.jobs
            if job.framework == "celery" and not is_test_code(job.file)
        ]
        routing = self.project.routing
        app = routing.app_place()
        if not tasks or app is None:
            return  # no Celery app in sight: its configuration cannot be judged
        queues = [use for use in routing.queues().values() if use.framework == "celery"]
        if any(use.dead_letter or use.unreadable_arguments for use in queues):
            return
        if any(
            self._stores_failures(f, handler)
            for f in self.project.files
            for handler in f.failure_handlers
        ):
            return
        count = f"{len(tasks)} Celery task" + ("s" if len(tasks) != 1 else "")
        yield self.finding(
            "no-dead-letter",
            app.path,
            app.loc,
            f"This project has {count} and no dead-letter destination: no queue declares "
            "x-dead-letter-exchange and no Task.on_failure override or task_failure handler "
            "stores the failed task. Celery acknowledges a task that fails its last attempt, "
            "so its message is gone and cannot be inspected or replayed. Give the queues a "
            "dead-letter exchange (RabbitMQ) or store failures from a task_failure handler",
        )

    def _stores_failures(self, f: FileFacts, handler: FailureHandler) -> bool:
        """A handler that writes somewhere, or one jobcheck cannot read (benefit of the
        doubt); an ``on_failure`` method counts only on a Celery task class."""
        if handler.persists is False:
            return False
        if handler.kind != "on_failure":
            return True
        owner = handler.owner or ""
        return owner in self.project.task_classes or self.project.is_celery_task_class(owner)


def _non_empty(value: Value | None) -> bool:
    if isinstance(value, SeqV):
        return bool(value.items)
    return value is not None and not is_none(value)


def _catch_all(value: Value | None) -> str | None:
    items = value.items if isinstance(value, SeqV) else (value,) if value is not None else ()
    for item in items:
        if isinstance(item, Ref) and item.qualname in CATCH_ALL:
            return item.qualname.rsplit(".", 1)[-1]
    return None


def _rq_retry_is_flat(value: Value | None) -> bool:
    """``Retry(max=3)`` or ``Retry(max=3, interval=60)``: the same wait every time
    (rq/job.py ``Retry.__init__``: interval defaults to 0; a list grows per attempt)."""
    if not isinstance(value, CallV) or value.func not in RQ_RETRY:
        return False
    interval = value.arg(1, "interval")
    if interval is None:
        return True
    if isinstance(interval, SeqV):
        numbers = [number(v) for v in interval.items]
        if any(n is None for n in numbers):
            return False
        return all(a >= b for a, b in zip(numbers, numbers[1:]))  # type: ignore[operator]
    return number(interval) is not None


def _rq_message(name: str) -> str:
    return (
        f"'{name}' uses RQ Retry without growing intervals: every retry waits the same "
        "time; pass interval=[10, 30, 120, ...] so waits grow"
    )


def _except_text(handler: ExceptHandler) -> str:
    if handler.catches == ("BaseException",) and handler.catches_all:
        return "a bare 'except:'"
    names = ", ".join(name if "(" in name else name.rsplit(".", 1)[-1] for name in handler.catches)
    return f"'except ({names})'" if len(handler.catches) > 1 else f"'except {names}'"
