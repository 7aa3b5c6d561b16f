"""arq's semantics: its verified defaults and rules, and its part of the checks.

Read in the arq 0.28.0 wheel and the 0.26.1 source (never imported): ``arq/worker.py``,
``arq/cron.py``, ``arq/connections.py``, ``arq/constants.py``. Light module: no libcst.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from jobcheck.facts.values import describe, number, truthy
from jobcheck.frameworks.arq.defaults import DEFAULT_JOB_TIMEOUT, WORKER_DEFAULTS
from jobcheck.frameworks.semantics_base import (
    QueueRules,
    ScheduleTerms,
    Semantics,
    Words,
    fixed_hours,
)
from jobcheck.project.contract import Delivery, JobContract, describe_dead_letter

if TYPE_CHECKING:
    from jobcheck.facts import EnqueueSite, ScheduleEntry
    from jobcheck.project.contract import Retries
    from jobcheck.project.model import Job, Project
    from jobcheck.project.routing import Route

FUNC = frozenset({"arq.func", "arq.worker.func"})
CRON = frozenset({"arq.cron", "arq.cron.cron"})

# arq/worker.py ``get_kwargs(settings_cls)``: ``d = settings_cls if isinstance(settings_cls,
# dict) else settings_cls.__dict__`` and only keys that are ``Worker.__init__`` parameters
# are kept (:887-890). So a settings class is read through its OWN ``__dict__``:
# attributes it inherits from a base settings class are ignored, and unknown names are
# ignored silently.
SETTINGS_READ_FROM_OWN_DICT = True

WORKER_PARAMETERS = frozenset(WORKER_DEFAULTS)
"""The names ``get_kwargs`` keeps from a settings class."""
NO_JOBS_ERROR = "at least one function or cron_job must be registered"
"""``Worker.__init__`` raises RuntimeError with this when it has neither."""

# arq/worker.py ``func(coroutine, *, name=None, keep_result=None, timeout=None,
# keep_result_forever=None, max_tries=None)`` (:61-94): the name is ``name or
# coroutine.__qualname__`` (a string path is imported and the string is the name); a
# function that is not a coroutine function raises RuntimeError; a None option falls back
# to the Worker's (timeout :574, max_tries :549, keep_result :642-645).
FUNC_OPTIONS = ("name", "keep_result", "timeout", "keep_result_forever", "max_tries")
SYNC_FUNCTIONS_REJECTED = True

# arq/cron.py ``cron(coroutine, *, name=None, month=None, day=None, weekday=None,
# hour=None, minute=None, second=0, microsecond=123_456, run_at_startup=False,
# unique=True, job_id=None, timeout=None, keep_result=0, keep_result_forever=False,
# max_tries=1)`` (:128-199). None means "any value" (``_get_next_dt`` skips None
# fields), so ``cron(f, hour=3)`` runs every minute from 03:00 to 03:59 at second 0.
CRON_TIME_FIELDS = ("month", "day", "weekday", "hour", "minute", "second", "microsecond")
CRON_DEFAULTS: dict[str, object] = {
    "name": None,
    "month": None,
    "day": None,
    "weekday": None,
    "hour": None,
    "minute": None,
    "second": 0,
    "microsecond": 123_456,
    "run_at_startup": False,
    "unique": True,
    "job_id": None,
    "timeout": None,
    "keep_result": 0,
    "keep_result_forever": False,
    "max_tries": 1,
}
CRON_NAME_PREFIX = "cron:"
"""The default name is ``'cron:' + coroutine.__qualname__`` (or ``'cron:' + path``)."""
CRON_WEEKDAY_MONDAY_IS_0 = True
"""``weekday`` is 0-6 with 0 = Monday (``datetime.weekday()``), or one name (cron.py
``_get_next_dt``: ``WEEKDAYS.index(weekday.lower())``)."""
CRON_WEEKDAY_NAMES = ("mon", "tues", "wed", "thurs", "fri", "sat", "sun")
"""arq/typing.py:21 ``WEEKDAYS``: 'tue' or 'thu' raise ValueError."""
CRON_UNIQUE_PER_SLOT = True
"""With ``unique``, the job id is ``f'{name}:{to_unix_ms(next_run)}'``: several workers
enqueue one job per slot, but successive slots can overlap (worker.py ``run_cron``)."""

# arq/connections.py ``ArqRedis.enqueue_job(function: str, *args, _job_id=None,
# _queue_name=None, _defer_until=None, _defer_by=None, _expires=None, _job_try=None,
# **kwargs)`` (:119-181): the function is named by a string, checked only by the worker
# ("function %r not found", worker.py:532-535); returns None when a job or result with
# that id exists; ``_defer_until`` with ``_defer_by`` raises RuntimeError; the job key
# expires ``_expires or defer + expires_extra_ms`` after enqueueing.
ENQUEUE_OPTIONS = frozenset(
    {"_job_id", "_queue_name", "_defer_until", "_defer_by", "_expires", "_job_try"}
)
UNKNOWN_FUNCTION_FAILS_AT_RUN = True

# arq/worker.py ``Worker.run_job`` (:478-668): the job runs under ``asyncio.wait_for(task,
# timeout_s)``. A timeout raises TimeoutError, an Exception, so the job fails and is not
# retried. ``Retry`` is retried (when ``retry_jobs``); a CancelledError of an aborted job
# finishes it as aborted; a CancelledError from shutdown (``handle_sig`` cancels the
# tasks) or RetryJob is "cancelled, will be run again". Any other exception fails the job,
# without a retry.
TIMEOUT_IS_RETRIED = False
PLAIN_EXCEPTIONS_ARE_RETRIED = False
# A job whose ``except BaseException`` (or bare ``except``, or ``except CancelledError``)
# does not re-raise swallows the CancelledError ``wait_for`` injects on timeout and the
# one shutdown sends: the run then returns normally and arq records a success, and a job
# interrupted by shutdown is not run again (Python asyncio semantics, worker.py above;
# ``semantics_base.CANCELLATION``).


class ArqQueueRules(QueueRules):
    """How Arq routes its jobs and bounds its queues (``QueueRules``)."""

    def job_route(self, job: Job) -> Route:
        """A worker reads one queue, its settings' ``queue_name`` ("arq:queue" by default:
        arq/constants.py ``default_queue_name``)."""
        from jobcheck.frameworks.arq import checks
        from jobcheck.project.routing import UNKNOWN_ROUTE, Route

        worker = checks.worker_of(self.routing.project, job)
        if worker is None:
            return UNKNOWN_ROUTE
        value = worker.option("queue_name")
        if value is None:
            return Route(str(WORKER_DEFAULTS["queue_name"]), True)
        name = self.routing.queue_name(value)
        return Route(name, False) if isinstance(name, str) else UNKNOWN_ROUTE

    def job_age_bound(self, job: Job) -> str | None:
        # connections.py ``enqueue_job``: every job key expires ``_expires or defer +
        # expires_extra_ms`` (one day) after it is enqueued.
        return "arq's job expiry (a day after enqueueing by default)"


class ArqSemantics(Semantics):
    name = "arq"
    queue_rules = ArqQueueRules
    title = "arq"
    job_noun = "arq job"
    library_roots = frozenset({"arq"})

    age_bound_key = "_expires"
    job_options_apply_to_sends = False

    matches_by_tail = False
    names_by_path = False
    words = Words(
        fan_out_advice=(
            "Enqueue one job per batch of IDs, slice or paginate the query, or stagger "
            "them (enqueue_job(..., _defer_by=...) growing with the index)"
        ),
        how_to_route="give it a WorkerSettings of its own with its own queue_name and workers",
        let_it_fail="let it fail, so arq records the job as failed (raise Retry to run it again)",
        # worker.py ``run_job``: ``asyncio.wait_for(..., timeout_s)``, and shutdown
        # cancels the running tasks.
        cancellation_noun="the CancelledError arq sends on job_timeout and at shutdown",
        single_run_advice=(
            ", or give the cron job a fixed job_id= (arq skips enqueueing a job whose id "
            "is still queued or running) or a timeout= shorter than the time between runs"
        ),
        unknown_schedule_target="runs '{name}', which the project does not define",
        cancellation_swallowed=(
            "; it also catches the CancelledError arq sends on job_timeout and on shutdown, "
            "so a job that timed out is recorded as a success and one interrupted by a "
            "deploy is not run again"
        ),
        # arq runs every job of a worker on one event loop (``max_jobs`` at once) under
        # ``asyncio.wait_for``, which cannot cancel a coroutine that never yields.
        event_loop_limit="job_timeout",
    )

    def accepts_enqueue(self, method: str) -> bool:
        return method == "enqueue_job"

    # -- queues -------------------------------------------------------------------------

    def hint_is_certain(self, site: EnqueueSite) -> bool:
        return site.method == "enqueue_job"

    def enqueues_by_name(self, site: EnqueueSite) -> bool:
        return site.method == "enqueue_job"

    # -- check hooks ------------------------------------------------------------------

    # -- schedules ----------------------------------------------------------------------

    def schedule_terms(self, entry: ScheduleEntry) -> ScheduleTerms:
        return ScheduleTerms(
            kind="arq cron job",
            sends_messages=True,  # worker.py ``run_cron`` enqueues it
            names_functions=True,
            runs_one_at_a_time=_runs_one_at_a_time(entry),
            # CRON_DEFAULTS
            minute_default_note="arq's cron() matches any minute when minute= is not given",
        )

    def minute_hint(self, entry: ScheduleEntry, minute: int) -> str | None:
        return f"minute={minute}"

    def cron_hint(self, entry: ScheduleEntry, seconds: float) -> str:
        kind, every_n = fixed_hours(seconds)
        if kind == "daily":
            return "cron(f, hour=3, minute=17)"
        if every_n:
            return f"cron(f, hour=set(range(0, 24, {every_n})), minute=17)"
        return "cron(f, minute=17)"

    # -- the contract -------------------------------------------------------------------

    def worker_queues(self, words: list[str]) -> tuple[str, ...] | None:
        """``arq app.worker.WorkerSettings`` (arq/cli.py): a worker of the settings class
        it names, on that class's ``queue_name``; taken here as every arq queue
        (``--check`` only reports a health check)."""
        if not any(w.rsplit("/", 1)[-1] == "arq" for w in words[:3]) or "--check" in words:
            return None
        return ("*",)

    def job_contract(self, project: Project, job: Job) -> JobContract:
        from jobcheck.frameworks.arq import checks

        return JobContract(
            time_limit=checks.time_limit(project, job),
            retries=_retries(project, job),
            # arq/worker.py: the job stays in the queue while it runs, marked by an
            # in-progress key of ``max(job timeouts) + 10`` s (``in_progress_timeout_s``).
            delivery=Delivery(
                "late: the job stays queued while it runs; if its worker dies another runs "
                "it again once the in-progress key expires (the longest job timeout + 10 s)",
                late=True,
            ),
            backoff="Retry(defer=...) as raised",
            dead_letter=describe_dead_letter(checks.dead_letter(project, job)),
        )


def _retries(project: Project, job: Job) -> Retries:
    from jobcheck.frameworks.arq import checks
    from jobcheck.project.contract import Retries

    worker = checks.worker_of(project, job)
    default_tries = CRON_DEFAULTS["max_tries"] if job.task.kind == "cron" else None
    tries = job.task.option("max_tries")
    if tries is None and default_tries is None and worker is not None:
        tries = worker.option("max_tries")
    tries_text = (
        describe(tries)
        if tries is not None
        else str(default_tries or WORKER_DEFAULTS["max_tries"]) + " (arq's default)"
    )
    return Retries(f"max_tries {tries_text}, only on Retry and cancellation")


def _runs_one_at_a_time(entry: ScheduleEntry) -> bool:
    """worker.py ``run_cron``: a fixed ``job_id`` is enqueued only when no job with that
    id is queued, running or has a result (``keep_result=0`` for cron jobs); with
    ``unique=True`` (the default) each slot is enqueued once whatever the number of
    workers, so two runs overlap only when one outlasts the time between slots, which
    the job's timeout (the cron's ``timeout``, else the worker's ``job_timeout``, 300 s
    by default) forbids when it is shorter."""
    if entry.option("job_id") is not None:
        return True
    if entry.option("unique") is not None and truthy(entry.option("unique")) is False:
        return False
    timeout = number(entry.option("timeout"))
    if timeout is None and entry.option("timeout") is None:
        worker = entry.option("job_timeout")
        timeout = DEFAULT_JOB_TIMEOUT if worker is None else number(worker)
    gap = entry.timing.gap
    return timeout is not None and gap is not None and timeout < gap


SEMANTICS = ArqSemantics()
