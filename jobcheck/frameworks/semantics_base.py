"""What the project model and the checks ask of a framework.

Each plugin's ``semantics.py`` subclasses :class:`Semantics`, a normaliser: it turns the
framework's options into values the checks judge and review prints, each once: a
``JobContract`` per job (``project/contract.py``), :class:`ScheduleTerms` per schedule
entry, :class:`QueueRules` for its routes and queue bounds, and its phrases as data
(:class:`Words`). :data:`UNKNOWN` answers for a framework no plugin knows and assumes
nothing of it: a job of an unknown framework is never checked as another framework's.

A framework's own part of a check is not a method here: its ``checks.py`` lists them by
check slug in a :class:`CheckParts`. The defaults here say nothing and find nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from jobcheck.facts import EnqueueSite, FileFacts, Loc, ScheduleEntry, Setting, TaskDef
    from jobcheck.facts.values import CallV, Value
    from jobcheck.findings import Finding, Fix, Related
    from jobcheck.project.contract import JobContract, TimeLimit
    from jobcheck.project.model import Job, Project
    from jobcheck.project.routing import Place, QueueUse, Route, Routing, _Inventory


class Check(Protocol):
    """What a framework's part of a check uses of the rule's check
    (``jobcheck.checks.base.RuleChecks``): the project it judges and how it makes a
    finding. A plugin never imports the checks."""

    project: Project

    def finding(
        self,
        slug: str,
        path: str,
        loc: Loc,
        message: str,
        fix: Fix | None = None,
        related: tuple[Related, ...] = (),
    ) -> Finding: ...


JobPart = Callable[[Check, "Job"], Iterator["Finding"]]
"""A framework's part of a check, judging one of its jobs."""
ProjectPart = Callable[[Check], Iterator["Finding"]]
"""A framework's part of a check, judging the project (its settings, its queues)."""
SchedulePart = Callable[[Check, "FileFacts", "ScheduleEntry", "Job | None"], Iterator["Finding"]]
"""A framework's part of a check, judging one of its schedule entries (with the job it
runs, when the project defines it)."""
LimitPart = Callable[[Check, "Job", "TimeLimit"], Iterator["Finding"]]
"""A framework's part of a check, reporting one of its jobs whose ``TimeLimit`` the
check found wanting, in its own terms and at the place that decides it."""


@dataclass(frozen=True)
class CheckParts:
    """A framework's own part of checks, by check slug: what only its jobs or its
    configuration can have (Celery's soft limit above its hard one, a Dramatiq broker's
    middleware list without Retries). Each plugin's ``checks.py`` makes one
    (``Plugin.check_parts``); a check asks for its slug's parts through the registry
    (``registry.project_parts``, ``registry.job_part``), never a framework module."""

    per_project: Mapping[str, ProjectPart] = field(default_factory=dict)
    per_job: Mapping[str, JobPart] = field(default_factory=dict)
    per_schedule: Mapping[str, SchedulePart] = field(default_factory=dict)
    per_time_limit: Mapping[str, LimitPart] = field(default_factory=dict)


@dataclass(frozen=True)
class Words:
    """How a framework's findings say what its jobs do, in its own terms: phrases, not
    judgements (a check decides from the contract; these only word it). Each plugin
    gives its ``Semantics.words`` the phrases that differ from these."""

    let_it_fail: str = "let it fail into retries and the dead-letter queue"
    """SCL-34: where a job's error goes when the job lets it through."""

    hung_call_consequence: str = (
        "a silent server holds the worker, and a time limit enforced by a signal or a "
        "thread cannot always interrupt a blocked socket"
    )
    """SCL-18: what a network call that never returns does to this framework's job."""

    task_hooks: tuple[str, ...] = ()
    """Methods of a job's task class that the worker calls around every run (their
    effects are the job's); none by default."""

    cancellation_noun: str | None = None
    """SCL-34: the cancellation its runner sends a coroutine job on a time limit or at
    shutdown, as messages name it; None when it sends none."""

    guards_looked_for: str | None = None
    """SCL-17: the guards a message says were looked for, in its language's terms; None:
    the Python words (``project.bodies.GUARDS_LOOKED_FOR``)."""

    send_record_advice: str = "record the send (a sent_at field) and check it first"
    """SCL-17: how to make a send safe to repeat."""

    charge_key_advice: str = (
        'pass idempotency_key= derived from the business ID (f"charge-{order.id}")'
    )
    """SCL-17: how to pass an idempotency key to a charge."""

    report_advice: str = "log it with logger.exception(...)"
    """SCL-34: how to record an error a job handles."""

    id_advice: str = "pass the ID (e.g. .pk) and load the record in the job"
    """SCL-21: how to pass the record's ID instead."""

    own_lock_examples: str | None = None
    """SCL-38: the locks to suggest for its jobs, when its language has its own (Ruby);
    None: the project's Python lock libraries, a Redis lock, pg_try_advisory_lock."""

    after_commit_advice: str = "enqueue in transaction.on_commit(...), or write an outbox row"
    """JOB-01: how to enqueue after the commit, in its own terms."""

    fan_out_advice: str = (
        "Enqueue one job per batch of IDs, slice or paginate the query, or stagger the "
        "jobs (a start delay that grows with the index)"
    )
    """SCL-19 ``unbounded-fan-out``: how to batch or throttle, in its own terms."""

    how_to_route: str = "give it a queue of its own"
    """SCL-20 advice: how a job gets a queue of its own."""

    single_run_advice: str = ""
    """SCL-38: a framework-specific way to run one copy at a time, or ""."""

    enqueue_instead: str = "enqueue '{name}' instead of calling it"
    """SCL-16: how to put job ``{name}`` on its queue where code calls it directly (which
    runs its body in the caller)."""

    unknown_schedule_target: str = (
        "names '{name}', which the project does not define: every run fails to import it"
    )
    """JOB-02: what is wrong with a schedule entry naming ``{name}``, which is not there."""

    cancellation_swallowed: str = ""
    """SCL-34: what an ``except`` that catches its cancellation (``catches_cancellation``)
    also swallows, as a clause starting with "; " ("" when its runner sends none)."""

    event_loop_limit: str | None = None
    """SCL-18 blocking-call-in-async-job: the limit a blocking call in one of its coroutine
    jobs defeats (``job_timeout``); None when its jobs do not run on an event loop."""

    event_loop_also: str = ""
    """SCL-18: another way out for such a job, as a clause starting with ", "."""

    def named(self, phrase: str, name: str) -> str:
        """``phrase`` (a field with a ``{name}`` placeholder) naming ``name``."""
        return phrase.replace("{name}", name)


@dataclass(frozen=True)
class ScheduleTerms:
    """What a framework says of one of its schedule entries, read from the entry alone
    (``Semantics.schedule_terms``): how messages name it, whether it enqueues or runs
    code itself, what keeps its runs apart, the time zone and spread of its starts, and
    the clauses its SCL-22 and SCL-38 findings add. The defaults say nothing."""

    kind: str = "scheduled job"
    """How messages name the entry ("periodic task", "CronJob")."""

    sends_messages: bool = False
    """Whether the schedule enqueues its job through the queue (Celery beat) rather
    than calling a function itself (APScheduler, ``schedule``)."""

    names_functions: bool = True
    """Whether the entry names a plain function (imported by path) rather than a
    registered task name."""

    runs_one_at_a_time: bool = False
    """Whether its scheduler never starts a run while the last one goes on."""

    enqueued_job_name: str | None = None
    """The registered name of the job an entry's command only enqueues (a CronJob or
    crontab line running ``celery call shop.tasks.x``): that job runs on the
    schedule, in a worker."""

    time_zone: str | None = None
    """SCL-22: the time zone the entry's fields are read in, when it names one; None
    for the scheduler's default (taken as UTC)."""

    start_spread: float | None = None
    """SCL-22: seconds over which each start is spread at random (APScheduler's
    ``jitter=``), when the schedule sets some."""

    overlap_causes: str = "a run outlasts the interval, or a second scheduler starts it"
    """SCL-38: what starts a second copy of an entry's job, as a clause after "when"."""

    overlap_note: str = ""
    """SCL-38: what lets runs of an entry its scheduler runs itself overlap, as a
    clause ("; max_instances=3 lets ..."), or ""."""

    minute_zero_note: str = ""
    """Why an entry that does not say so starts at minute 0, as a clause ("")."""

    minute_default_note: str = "a minute it does not set matches every minute"
    """SCL-22: why a schedule that sets no minute fires every minute, as a clause."""

    interval_reset_consequence: str = "may never run it at all"
    """SCL-22: what a deploy that restarts the interval does to the entry's job."""

    unguarded: str | None = None
    """SCL-38 for an entry that runs no function of the project (a CronJob's or a
    crontab line's command) and does not run one at a time: the message, or None
    when such entries are not judged."""


class QueueRules:
    """How a framework routes its jobs to queues and bounds them, for one project's
    routing (``project/routing.py`` makes one per framework, from
    ``Semantics.queue_rules``). The defaults: no queue named, nothing bounded."""

    def __init__(self, routing: Routing, semantics: Semantics) -> None:
        self.routing = routing
        self.semantics = semantics

    one_finding_per_project = False
    """SCL-19: its queues have no bound to set (Sidekiq), so its unbounded queues are one
    finding that lists them, not one per line of config or per job file."""

    def config_in_sight(self) -> bool:
        """Whether the configuration where its queues are bounded was analysed."""
        return True

    def job_route(self, job: Job) -> Route:
        from jobcheck.project.routing import UNKNOWN_ROUTE

        return UNKNOWN_ROUTE

    def call_queue_option(self, site: EnqueueSite) -> Value | None:
        """The queue a call names in its own options (``apply_async(queue=...)``)."""
        return None

    def call_options_may_hold_queue(self, site: EnqueueSite) -> bool:
        return False

    def receiver_route(self, site: EnqueueSite, place: Place) -> Route | None:
        """The queue the object a call is made on stands for (an RQ ``Queue``)."""
        return None

    def calls_name_own_queue(self, site: EnqueueSite) -> bool:
        """Whether the call itself picks its queue through its receiver."""
        return False

    def unresolved_route(self, site: EnqueueSite) -> Route:
        """The queue of a call whose job is not in the project (``send_task("x")``)."""
        from jobcheck.project.routing import UNKNOWN_ROUTE

        return UNKNOWN_ROUTE

    def named_route(self, name: str, place: Place) -> Route:
        from jobcheck.project.routing import Route

        return Route(name, name == self.semantics.default_queue, place)

    def job_age_bound(self, job: Job) -> str | None:
        """What bounds how long the job's messages may wait (an option name), if set."""
        return None

    def site_count_bound(self, site: EnqueueSite) -> str | None:
        """SCL-19: what bounds the number of the site's jobs waiting (a deduplicating
        ``job_id``), in words, or None."""
        return None

    def collect_queues(self, inventory: _Inventory) -> None:
        """Queues and bounds its configuration declares (routes, global middleware)."""

    def default_queue_place(self, use: QueueUse) -> Place | None:
        """Where a bound of its implicit default queue would be configured."""
        return None

    def hides_routes_from_view(self, route: Route) -> bool:
        """SCL-20: whether a job's route came from configuration that was not analysed."""
        return False

    def configured_queues(self) -> frozenset[str] | None:
        """The queues a worker of this framework started without a queue list consumes
        (``worker_queues`` gave ``CONFIGURED``); None when unknown."""
        return None

    def unbounded_queue_message(self, use: QueueUse) -> str:
        return f"queue '{use.name}' has no backlog bound"


class Semantics:
    """The neutral answers: nothing known, nothing found."""

    name = "unknown"
    title = "an unknown framework"
    job_noun = "job"
    """How messages name one of its jobs: "Celery task", "RQ job", "Dramatiq actor"."""
    scheduler_noun = "an in-process scheduler"
    """How messages name one of its in-process schedulers (SCL-38)."""

    words = Words()
    """Its phrases (:class:`Words`)."""
    queue_rules: type[QueueRules] = QueueRules
    """How it routes and bounds its queues (:class:`QueueRules`)."""

    matches_by_tail: bool = True
    """Whether an enqueue target that is not found by its full dotted path may be
    matched by its last two parts (a re-exported task)."""

    names_by_path: bool = True
    """Whether a schedule or a string reference names a job by its dotted path (RQ,
    Dramatiq) rather than only by its registered name (Celery)."""

    reports_route_where_named: bool = False
    """SCL-20: whether a job's finding goes where its queue is named (Ruby's
    ``queue_as :bulk`` line) rather than at the job."""

    sends_by_actor_name: bool = False
    """Whether its jobs are sent as ``name.send(...)`` from files that may mention no
    job library (Dramatiq): those files are read in the second pass."""

    enqueues_by_reference: bool = False
    """Whether calls enqueue a function by reference (RQ): the module defining it
    is read in the second pass."""

    # -- jobs and enqueues ------------------------------------------------------------

    app_classes: frozenset[str] = frozenset()
    """Its application classes (``celery.Celery``): a project subclass's instances are
    apps too (``CeleryApp.made_by``)."""
    decorator_roots: dict[str, str] = {}
    """Library decorators a project may wrap (``job = partial(rq.job, ...)``), mapped to
    the framework name the jobs they make carry."""
    object_decorators: frozenset[str] = frozenset()
    """Methods of its objects (``Plugin.object_roots``) that make jobs (Huey's
    ``huey.task``): a project factory that hands a function to one makes its jobs."""
    library_roots: frozenset[str] = frozenset()
    """Top-level packages of the framework itself (a base class from there sets no
    options the checks do not know)."""

    def claim(self, project: Project, task: TaskDef) -> TaskDef | None:
        """The job a task its recognizer read really is (itself by default): a framework
        may hand it to another, or drop it."""
        return task

    def accepts_enqueue(self, method: str) -> bool:
        """Whether ``job.method(...)`` enqueues one of its jobs."""
        return False

    def enqueues_by_name(self, site: EnqueueSite) -> bool:
        """Whether the call names its job by the name it is registered under, as its
        ``function`` option (arq's ``enqueue_job("name")``)."""
        return False

    reruns_failures = True
    """Whether a run that fails is run again (a queue's retries, a Job's backoffLimit):
    SCL-17 speaks of retried runs only where one is (an in-process scheduler's function
    is not: its next run is the next scheduled one)."""

    def runs_again(self, project: Project, job: Job) -> bool:
        """Whether anything runs the job's body a second time for one message: a
        retry, or a redelivery of a message not yet acknowledged. Yes unless its plugin
        knows better (a Celery task acked early, with no retries, runs once or is lost)."""
        return True

    def rerun_cause(self, job: Job | None) -> str:
        """SCL-17: what runs a job's body a second time, as the subject of a clause."""
        return "a retried or redelivered job"

    def defers_enqueue(self, project: Project, site: EnqueueSite, job: Job | None) -> bool:
        """JOB-01: whether the project's configuration makes this call wait for the commit
        (Sidekiq's ``transactional_push!``, ActiveJob's enqueue after commit)."""
        return False

    def transaction_reason(self, atomic: str | None, contexts: tuple[str, ...]) -> str | None:
        """JOB-01: where a call marked ``atomic`` runs inside a transaction, in the
        framework's terms ("inside a `transaction do` block"); None: the Python words."""
        return None

    def http_timeout_words(self, func: str) -> tuple[str, str] | None:
        """SCL-18: (why ``func`` has no timeout, how to give it one) for its HTTP
        libraries; None: the Python libraries' words."""
        return None

    def handler_text(self, catches: tuple[str, ...], catches_all: bool) -> str | None:
        """SCL-34: how a message shows an error handler (``'rescue Faraday::Error'``);
        None: Python's ``except``."""
        return None

    def display_name(self, job: Job) -> str:
        """How messages name a job by its code (its qualname; Ruby's ``A::B``)."""
        return job.task.qualname

    def runs_one_copy(self, project: Project, job: Job) -> bool:
        """SCL-38: whether the job's own options keep a second copy from running while
        one runs (a unique-job lock)."""
        return False

    def enqueues_after_commit(self, job: Job) -> bool:
        """JOB-01: whether every call of the job enqueues it once the transaction commits
        (djhuey's ``on_commit_task``)."""
        return False

    def after_commit_advice_for(self, kind: str | None, contexts: tuple[str, ...]) -> str:
        """JOB-01: the advice for a job of ``kind`` (a framework name) enqueued inside
        ``contexts`` (the callback or block around it), when that changes it."""
        return self.words.after_commit_advice

    def is_queue_object(self, project: Project, qualname: str) -> bool:
        """Whether the module-level object ``qualname`` is one of its queues (an enqueue
        site called on it in a file that does not show it: ``receiver_elsewhere``)."""
        return False

    def hint_is_certain(self, site: EnqueueSite) -> bool:
        """Whether a call the recognizer attributed to this framework enqueues, even when
        its job is not found (an RQ ``queue.enqueue(f)`` of a function elsewhere)."""
        return False

    def class_based_jobs(self, project: Project) -> Iterator[Job]:
        """Jobs written as classes (Celery ``Task`` subclasses with ``run``)."""
        return iter(())

    def app_task_classes(self, project: Project, job: Job) -> list[str]:
        """Classes every task of the job's app is built on (Celery's ``task_cls``)."""
        return []

    def decorator_queue(self, call_args: tuple[Value, ...]) -> Value | None:
        """The queue a wrapped decorator's first positional argument names, if any."""
        return None

    # -- options ---------------------------------------------------------------------

    def is_config_module(self, module: str) -> bool:
        """Whether lower-case module-level names of ``module`` are this framework's
        settings (Celery's ``celeryconfig.py``)."""
        return False

    # -- queues ------------------------------------------------------------------------

    age_bound_key = ""
    """The option of a job or call that bounds how long it may wait (``expires``)."""
    job_options_apply_to_sends = True
    """Whether the job's own options apply to every call that sends it."""

    def queue_of_constructor(self, value: CallV) -> object:
        """The queue name a call making one of its queue objects names (None: it names
        one, but not readably); ``NOT_A_QUEUE`` when the call makes none."""
        from jobcheck.project.routing import NOT_A_QUEUE

        return NOT_A_QUEUE

    default_queue: str | None = None

    def expiry_advice(self, project: Project, entry: ScheduleEntry) -> str | None:
        """SCL-19: how to bound how long this framework's job, enqueued on ``entry``'s
        schedule by an in-process scheduler, may wait in its queue (in its own terms, with
        the entry's interval as the value); None when its queues are not judged."""
        return None

    bounds_configured_centrally = False
    """Whether an implicit queue's bound lives in central configuration (Celery's app or
    settings), rather than on the jobs and calls that use it."""

    # -- retries and dead letters -------------------------------------------------------

    def dead_letter_destination(self, project: Project) -> tuple[str, frozenset[str]] | None:
        """Where jobs that failed for good go, in words, with the words a runbook about
        it would use: for EVT-24. None when the framework keeps nothing."""
        return None

    # -- check hooks ---------------------------------------------------------------------

    def jumps_its_queue(self, project: Project, job: Job) -> bool:
        """SCL-20: whether the job is taken before the other jobs of its queue (a priority
        its queue honours), so bulk work on the same queue does not delay it."""
        return False

    # -- schedules ------------------------------------------------------------------------

    def schedule_terms(self, entry: ScheduleEntry) -> ScheduleTerms:
        """What the framework says of one of its schedule entries (:class:`ScheduleTerms`)."""
        return ScheduleTerms()

    def interval_reset_reason(self, project: Project, entry: ScheduleEntry) -> str | None:
        """SCL-22: why an interval restarts with the scheduler, or None when it does not."""
        return None

    def with_scheduler_defaults(
        self, project: Project, entry: ScheduleEntry
    ) -> ScheduleEntry | None:
        """The entry with the options its scheduler fills in where it leaves them out
        (APScheduler's ``job_defaults``); None when the project shows it is no schedule
        (a call on an object that turns out not to be a scheduler)."""
        return entry

    def schedule_contract(self, project: Project, entry: ScheduleEntry) -> dict[str, str] | None:
        """``jobcheck jobs`` for an entry that runs its own code rather than a queued job
        (an APScheduler function, a CronJob's or a crontab line's command): ``queue``,
        ``time_limit``, ``retries``, ``backoff``, ``dead_letter`` and ``lock`` in the
        scheduler's terms; None when the framework's entries always run queued jobs."""
        return None

    schedule_guard_noun = "the scheduler's own one-run-at-a-time"
    """SCL-38: what keeps the scheduler's own runs apart, as messages name it."""

    def lock_examples(self, project: Project) -> tuple[str, ...]:
        """SCL-38: locks of this library to suggest, when the project uses it."""
        return ()

    def worker_queues(self, words: list[str]) -> tuple[str, ...] | None:
        """The queues a process command line (``words``) starts a worker of this
        framework on: names, ``("*",)`` for every queue, ``()`` for the configuration's;
        None when it starts no worker of this framework."""
        return None

    def process_scheduler(self, project: Project, words: list[str]) -> tuple[str, bool] | None:
        """SCL-38: the scheduler of this framework a process command line (``words``, a
        Procfile or supervisord ``command``) starts, in words, and whether it is embedded
        in a worker (so it runs in every copy of a scaled process type); None when the
        command starts none."""
        return None

    def minute_hint(self, entry: ScheduleEntry, minute: int) -> str | None:
        """How to write the entry with ``minute`` (None: the generic forms)."""
        return None

    def cron_hint(self, entry: ScheduleEntry, seconds: float) -> str:
        """A fixed-minute schedule for an interval of ``seconds``, in its own terms."""
        return f"cron='{fixed_minute_expression(seconds)}'"

    def checks_dotless_names(self, project: Project) -> bool:
        """JOB-02: whether a name without dots can be checked (Celery ``name=``)."""
        return False

    # -- the contract (``jobcheck jobs``) ---------------------------------------------------

    def named_tasks(self, project: Project) -> Iterator[tuple[str, Loc, str, str]]:
        """JOB-02 route-names-unknown-task: (path, loc, task name, what names it) for the
        task names this framework's routes, annotations and by-name sends write."""
        return iter(())

    def name_from_module_path(self, job: Job) -> str | None:
        """JOB-04: the name a job is registered under when that name is made from its
        module path (a move renames it); None when its name is written down."""
        return None

    def reads_setting(self, project: Project, setting: Setting) -> bool:
        """Whether the framework reads ``setting`` as written, given how the project loads
        its settings (False: a spelling it ignores there)."""
        return True

    def job_contract(self, project: Project, job: Job) -> JobContract:
        """What the job promises (``project/contract.py``): its time limit, retries,
        delivery, backoff and dead letter. Asked once per job, through
        ``Project.contract``; the checks judge it and ``jobs`` prints it."""
        from jobcheck.project.contract import JobContract

        return JobContract()

    def schedule_time_limit(
        self, project: Project, entry: ScheduleEntry, job: Job | None
    ) -> float | None:
        """SCL-38 schedule-overlaps-time-limit: how long a run the entry starts may last,
        in seconds (the entry's own limit, else the job's); None when unknown or none."""
        limit = project.contract(job).time_limit if job is not None else None
        return limit.bound_seconds if limit is not None else None

    def plain_function_contracts(self, project: Project) -> Iterator[dict[str, object]]:
        """Contracts of jobs that are plain functions enqueued by reference (RQ)."""
        return iter(())

    # -- the second pass -------------------------------------------------------------------


UNKNOWN = Semantics()


def fixed_hours(seconds: float) -> tuple[str, int | None]:
    """The fixed times that replace an interval of ``seconds``: ("daily", None) at 03:17,
    ("every", N) every N hours at :17, or ("hourly", None) at :17."""
    hours = seconds / 3600
    if hours >= 24:
        return "daily", None
    if hours.is_integer() and 1 < hours < 24:
        return "every", int(hours)
    return "hourly", None


def started_scheduler_module(project: Project, words: list[str], kind: str) -> str | None:
    """The module a process command runs (``python clock.py``, ``python -m app.clock``)
    when it starts an in-process scheduler of ``kind`` (``SchedulerStart.kind``): the
    process is a scheduler, and each of its copies runs every job."""
    from shlex import join

    from jobcheck.project.commands import command_modules

    for module in command_modules(join(words), project.modules):
        for f in project.files:
            if f.module == module and any(s.kind == kind for s in f.scheduler_starts):
                return f.path
    return None


def fixed_minute_expression(seconds: float) -> str:
    """A cron expression at a free minute for an interval of ``seconds``: daily at 03:17,
    every N hours at :17, else hourly at :17."""
    kind, every_n = fixed_hours(seconds)
    return {"daily": "17 3 * * *", "every": f"17 */{every_n} * * *"}.get(kind, "17 * * * *")


# What catches the CancelledError an asyncio job runner sends to stop a coroutine on its
# time limit or at shutdown (arq's ``asyncio.wait_for``, taskiq's ``anyio.fail_after``):
# ``except BaseException`` (and a bare ``except``) or the CancelledError itself;
# ``except Exception`` does not (Python 3.8+).
CANCELLATION = frozenset(
    {
        "BaseException",
        "builtins.BaseException",
        "asyncio.CancelledError",
        "asyncio.exceptions.CancelledError",
        "concurrent.futures.CancelledError",
    }
)


def catches_cancellation(catches: tuple[str, ...]) -> bool:
    return any(name in CANCELLATION for name in catches)


def blocking_call_message(job: str, label: str, limit: str, also: str = "") -> str:
    """SCL-18 for a coroutine job (arq, taskiq) that calls ``label``, which blocks: its
    runner cancels it only when it awaits, so ``limit`` cannot fire."""
    return (
        f"{job} calls {label}, which does not await: it blocks the worker's event loop, "
        f"so {limit} cannot fire (a job is cancelled only when it awaits) and every other "
        "job of the worker stalls while it runs; use an async client (httpx.AsyncClient, "
        f"aiohttp) or asyncio.sleep, or run the call with await asyncio.to_thread(...){also}"
    )


def with_minute(entry: ScheduleEntry, minute: int) -> str | None:
    """The entry's five cron fields with ``minute`` as the first, or None when a field
    cannot be read."""
    fields = entry.timing.fields
    if not fields or any(f is None for f in fields):
        return None
    return " ".join([spaced_minutes(entry, minute), *fields[1:]])  # type: ignore[list-item]


def spaced_minutes(entry: ScheduleEntry, minute: int) -> str:
    """The minute field that starts at ``minute`` and keeps the entry's runs per hour:
    ``*/15`` moved to 7 is ``7-59/15``, ``0,30`` is ``7,37``; one minute stays one, and
    so does ``*`` (every minute of an hour is the mistake a minute fixes)."""
    expanded = entry.timing.expanded
    minutes = sorted(expanded[0]) if expanded and expanded[0] else []
    if len(minutes) <= 1 or len(minutes) == 60:
        return str(minute)
    steps = {b - a for a, b in zip(minutes, minutes[1:])}
    if len(steps) == 1 and 60 % (step := steps.pop()) == 0 and len(minutes) == 60 // step:
        return f"{minute % step}-59/{step}"
    shift = minute - minutes[0]
    return ",".join(str(m) for m in sorted((m + shift) % 60 for m in minutes))
