"""RQ's semantics (with rq-scheduler's and RQ's own cron schedules).

Library facts, each read in the library's source:

- a job lands on the queue object it is enqueued on: rq/queue.py
  ``Queue.__init__(name='default', ...)``, django_rq/queues.py
  ``get_queue(name='default', ...)``; a bare ``@job`` uses "default"
  (django_rq/decorators.py);
- every job has a timeout, ``Queue.DEFAULT_TIMEOUT = 180`` s (rq/queue.py); -1 means
  none;
- ``ttl`` bounds how long a job may wait (rq/job.py), and applies per call;
- every failed job goes to the ``FailedJobRegistry`` (rq/registry.py);
- rq-scheduler keeps each job's next run time in Redis (rq_scheduler/scheduler.py);
  RQ's cron scheduler (rq/cron.py ``CronJob.should_run``) runs an interval job that
  never ran at once, then every interval from its last run, kept in memory only.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from jobcheck.facts.values import CallV, is_none, string
from jobcheck.frameworks.rq import contract
from jobcheck.frameworks.semantics_base import QueueRules, ScheduleTerms, Semantics, Words
from jobcheck.project.contract import Delivery, JobContract, TimeLimit
from jobcheck.project.schedule_words import expiry_hint
from jobcheck.vocabulary.runbooks import FAILED_ITEMS_TOKEN, RQ_FAILED_TOKEN

if TYPE_CHECKING:
    from jobcheck.facts import EnqueueSite, ScheduleEntry
    from jobcheck.facts.values import Value
    from jobcheck.project.model import Job, Project
    from jobcheck.project.routing import Place, QueueUse, Route

RQ_DEFAULT_QUEUE = "default"
RQ_QUEUES = frozenset(
    {"rq.Queue", "rq.queue.Queue", "django_rq.get_queue", "django_rq.queues.get_queue"}
)
ENQUEUE_METHODS = frozenset({"delay", "enqueue", "enqueue_call", "enqueue_in", "enqueue_at"})
# Words a runbook about RQ's failed jobs uses instead of "dead letter".
FAILED_REGISTRY_WORDS = frozenset({RQ_FAILED_TOKEN, FAILED_ITEMS_TOKEN})

_SCHEDULE_KINDS = {
    ("rq-scheduler", "cron"): "rq-scheduler cron job",
    ("rq-scheduler", "schedule"): "rq-scheduler job",
    ("rq-scheduler", "job-definition"): "rq-scheduler job",
    ("rq-cron", "register"): "RQ cron job",
}


# rq worker's options that take no value (rq/cli/cli.py ``worker``).
# django_rq/management/commands/rqworker.py: ``args`` (nargs='*') are the queues,
# 'default' when none is given; these options take no value.
DJANGO_RQWORKER_FLAGS = frozenset(
    {"--burst", "-b", "--with-scheduler", "--quiet", "--verbose", "-v", "--max-jobs"}
)
RQ_WORKER_FLAGS = frozenset(
    {
        "-b",
        "--burst",
        "--with-scheduler",
        "-q",
        "--quiet",
        "-v",
        "--verbose",
        "--disable-job-desc-logging",
    }
)


class RQQueueRules(QueueRules):
    """How RQ routes its jobs and bounds its queues (``QueueRules``)."""

    def job_route(self, job: Job) -> Route:
        from jobcheck.project.routing import UNKNOWN_ROUTE, Place, Route

        value = job.task.option("queue")
        if value is None:
            return Route(RQ_DEFAULT_QUEUE, True, Place(job.file.path, job.task.loc))
        name = self.routing.queue_name(value)
        if not isinstance(name, str):
            return UNKNOWN_ROUTE
        return Route(name, name == RQ_DEFAULT_QUEUE, Place(job.file.path, job.task.loc))

    def receiver_route(self, site: EnqueueSite, place: Place) -> Route | None:
        from jobcheck.project.routing import UNKNOWN_ROUTE

        if not self.calls_name_own_queue(site):
            return None
        binding = self.routing.binding(site.receiver or "")
        if binding is None or binding.name is None:
            return UNKNOWN_ROUTE
        return self.named_route(binding.name, place)

    def calls_name_own_queue(self, site: EnqueueSite) -> bool:
        return bool(site.receiver) and site.method != "delay"

    def job_age_bound(self, job: Job) -> str | None:
        value = job.task.option("ttl")
        return None if value is None or is_none(value) else "ttl"

    def site_count_bound(self, site: EnqueueSite) -> str | None:
        if site.option(DEDUPLICATED) is None:
            return None
        return f"one job per job_id (looked up before the enqueue at line {site.loc.line})"

    def unbounded_queue_message(self, use: QueueUse) -> str:
        return (
            f"RQ queue '{use.name}' has no backlog bound: no job enqueued on it sets ttl=, "
            "so jobs wait for ever and the queue grows without end while workers are down. "
            "Pass ttl= (seconds a job may wait) to enqueue() or @job, and check len(queue) "
            "before enqueueing more"
        )


class RQSemantics(Semantics):
    name = "rq"
    queue_rules = RQQueueRules
    title = "RQ"
    job_noun = "RQ job"
    decorator_roots = {"rq.job": "rq", "rq.decorators.job": "rq", "django_rq.job": "rq"}
    library_roots = frozenset({"rq", "django_rq", "builtins"})
    age_bound_key = "ttl"
    job_options_apply_to_sends = False
    default_queue = RQ_DEFAULT_QUEUE

    matches_by_tail = False
    enqueues_by_reference = True
    words = Words(
        fan_out_advice=(
            "Enqueue one job per batch of IDs, slice or paginate the query, or stagger them "
            "(queue.enqueue_in(timedelta(seconds=...), ...) growing with the index)"
        ),
        how_to_route="enqueue it on a Queue of its own",
        # rq/worker.py ``handle_job_failure``: a job that raises goes to the
        # FailedJobRegistry (kept failure_ttl, a year by default), retried only with Retry().
        let_it_fail=(
            "let it fail into RQ's failed job registry (and Retry() if it should be retried)"
        ),
        # An RQ job is a plain function (django_rq's @job adds .delay and keeps __call__).
        enqueue_instead="enqueue it with queue.enqueue({name}, ...) instead",
    )

    def accepts_enqueue(self, method: str) -> bool:
        return method in ENQUEUE_METHODS

    def hint_is_certain(self, site: EnqueueSite) -> bool:
        return True

    def is_queue_object(self, project: Project, qualname: str) -> bool:
        # ``job_queue = Queue(connection=redis)`` at module level (``FileFacts.instances``).
        return project.instances.get(qualname) in RQ_QUEUES

    def decorator_queue(self, call_args: tuple[Value, ...]) -> Value | None:
        return call_args[0] if call_args else None

    # -- queues ---------------------------------------------------------------------------

    def queue_of_constructor(self, value: CallV) -> object:
        from jobcheck.project.routing import NOT_A_QUEUE

        if value.func not in RQ_QUEUES:
            return NOT_A_QUEUE
        name = value.arg(0, "name")
        return RQ_DEFAULT_QUEUE if name is None else string(name)

    def expiry_advice(self, project: Project, entry: ScheduleEntry) -> str | None:
        # rq/queue.py ``enqueue_call(ttl=)``: a job waiting longer is discarded.
        hint, _ = expiry_hint(entry)
        return f"enqueue it with ttl={hint} (seconds a job may wait before RQ discards it)"

    def worker_queues(self, words: list[str]) -> tuple[str, ...] | None:
        """``rq worker high low`` (rq/cli/cli.py ``worker``: no names, "default")."""
        from jobcheck.commandline import arguments_after

        if "rqworker" in words:  # django-rq's ``manage.py rqworker high low``
            tail = words[words.index("rqworker") + 1 :]
            return tuple(arguments_after(tail, DJANGO_RQWORKER_FLAGS)) or ("default",)
        if "worker" not in words or not any(w.rsplit("/", 1)[-1] == "rq" for w in words):
            return None
        tail = words[words.index("worker") + 1 :]
        return tuple(arguments_after(tail, RQ_WORKER_FLAGS)) or ("default",)

    def dead_letter_destination(self, project: Project) -> tuple[str, frozenset[str]] | None:
        return "RQ's failed job registry", FAILED_REGISTRY_WORDS

    # -- check hooks ------------------------------------------------------------------------

    # -- schedules ----------------------------------------------------------------------------

    def interval_reset_reason(self, project: Project, entry: ScheduleEntry) -> str | None:
        if entry.framework == "rq-cron":
            return "counted from when RQ's cron scheduler starts (it runs the job at start-up)"
        return None  # rq-scheduler keeps the next run time in Redis

    def schedule_terms(self, entry: ScheduleEntry) -> ScheduleTerms:
        return ScheduleTerms(
            kind=_schedule_kind(entry),
            interval_reset_consequence=_interval_reset_consequence(entry),
        )

    def schedule_time_limit(
        self, project: Project, entry: ScheduleEntry, job: Job | None
    ) -> float | None:
        # rq-scheduler ``schedule(..., timeout=)`` is the job's timeout; without it the
        # job's own, else its queue's default (Queue.DEFAULT_TIMEOUT = 180 s).
        from jobcheck.facts.values import number

        own = number(entry.option("timeout"))
        if own is not None:
            return None if own == contract.RQ_INFINITE else own
        if job is not None:
            return super().schedule_time_limit(project, entry, job)
        queue = entry.option("queue_name")
        default = contract.queue_default_timeout(project, string(queue))
        return TimeLimit(hard=default).bound_seconds

    def schedule_contract(self, project: Project, entry: ScheduleEntry) -> dict[str, str] | None:
        return contract.schedule_contract(project, entry)

    def plain_function_contracts(self, project: Project) -> Iterator[dict[str, object]]:
        return contract.plain_functions(project)

    def job_contract(self, project: Project, job: Job) -> JobContract:
        return JobContract(
            time_limit=contract.time_limit(project, job),
            retries=contract.retries(project, job),
            # Taken off the queue as it starts (rq/queue.py ``dequeue_any``: ``lpop``); a
            # dead worker's job is failed, run again only by a Retry (rq/registry.py).
            delivery=Delivery(contract.DELIVERY, late=False),
            backoff=contract.backoff(project, job),
            dead_letter="failed job registry (RQ)",
        )


def _schedule_kind(entry: ScheduleEntry) -> str:
    return _SCHEDULE_KINDS.get((entry.framework, entry.source), "RQ scheduled job")


def _interval_reset_consequence(entry: ScheduleEntry) -> str:
    if entry.framework == "rq-cron":
        return "runs it at every deploy instead of on its schedule"
    return ScheduleTerms().interval_reset_consequence


DEDUPLICATED = "jobcheck_deduplicated"
"""An enqueue site's option: ``enqueue(..., job_id=X)`` after ``fetch_job(X)`` (or
``Job.fetch(X, ...)``) in the same
function, the idiom that keeps one job per id waiting (clist's parse_statistic)."""

SEMANTICS = RQSemantics()
