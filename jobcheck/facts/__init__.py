"""Facts: what per-file extraction learns about one file, as plain picklable data.

Extraction (``jobcheck.extract``) produces one :class:`FileFacts` per file; the project
model (``jobcheck.project``) combines them; checks read only facts, never syntax trees.
Keeping facts plain lets files be extracted in parallel processes and cached.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from jobcheck.facts.values import Value
from jobcheck.location import Loc as Loc  # re-exported: facts carry locations

NOWHERE = Loc(1, 1, 1, 1)

UNCLOSED_SUPPRESSION = "[unclosed"
"""The code recorded for ``# jobcheck: ignore[SCL-18`` without its ``]``: it suppresses
nothing (a bare ``ignore`` would suppress everything on the line) and is warned."""

SPLAT = "**"
"""The option key of ``**options`` passed to an enqueue call: any option may be there."""


@dataclass(frozen=True, slots=True)
class Param:
    name: str
    annotation: str | None = None
    loc: Loc = NOWHERE
    injected: bool = False
    """Filled in by the framework when the job runs, not sent in the payload: a taskiq
    ``TaskiqDepends()`` default or ``Annotated[..., TaskiqDepends(...)]`` annotation."""
    has_default: bool = False
    """The parameter has a default value: callers (and messages already queued) may leave
    it out."""
    keyword_only: bool = False
    """After ``*`` or ``*args``: passed by name only, so its position does not matter."""


@dataclass(frozen=True, slots=True)
class Decorator:
    qualname: str | None
    call: Value | None
    loc: Loc


@dataclass(frozen=True, slots=True)
class RetryCall:
    """A Celery ``self.retry(...)`` / ``task.retry(...)`` call inside a task body."""

    loc: Loc
    countdown: Value | None
    max_retries: Value | None
    in_handler_of: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ExceptHandler:
    """An ``except`` clause: what it catches and what its body does with the error."""

    loc: Loc
    catches: tuple[str, ...]
    catches_all: bool
    reraises: bool
    retries: bool
    records: bool
    exits: bool
    inert: bool = True
    """Its body does nothing with the error (``pass``, ``print``...); False for a
    catch-all that logs it (or does other work) and lets the job end as a success."""


@dataclass(frozen=True, slots=True)
class HttpCall:
    loc: Loc
    func: str
    has_timeout: bool
    result_used: bool


@dataclass(frozen=True, slots=True)
class SideEffect:
    """A call that changes the world outside the database row: a charge, a send, a delete."""

    kind: str
    loc: Loc
    func: str
    order: int
    has_key: bool
    guard: str | None = None
    """A guard the call sits under (an ``if`` on the record's state), when there is one."""


IN_PROCESS_LOCK = "in-process-lock"
"""Guard kind of a ``threading``/``multiprocessing``/``asyncio`` lock the module makes: it
holds within one process, so it is neither a single-runner lock nor an idempotency guard."""


@dataclass(frozen=True, slots=True)
class Guard:
    """Something that makes a repeated run harmless or exclusive: a state check, a lock."""

    kind: str
    order: int
    loc: Loc


@dataclass(frozen=True, slots=True)
class Lookup:
    """A lookup that raises when its row is gone (``Order.objects.get(pk=order_id)``,
    ``get_object_or_404``, ActiveRecord ``find``) and whose "not found" nothing around it
    catches: when the record is deleted before the job runs, every attempt fails."""

    loc: Loc
    text: str
    """The lookup as the message names it (``Order.objects.get()``, ``Report.find``)."""
    missing: str
    """The exception a missing row raises, as the remedy names it (``Order.DoesNotExist``,
    ``ActiveRecord::RecordNotFound``)."""
    model: str | None = None
    """The model's class name when the project's deletions of it are recorded (Ruby);
    None when they are not (every lookup may miss its row)."""


@dataclass(frozen=True, slots=True)
class SlowCall:
    """Slow work done directly in a function (email, image resize, export, webhook)."""

    kind: str
    loc: Loc
    func: str


MANAGEMENT_COMMAND = "django-command:"
"""The callee of a call site for ``call_command("name")``: the management command
``name``, whose ``Command.handle`` the project model finds."""


@dataclass(frozen=True, slots=True)
class CallSite:
    """A call of a function the project may define, for call summaries: what a job,
    a view or a transaction reaches through its helpers (``jobcheck/project/summaries.py``)."""

    callee: str
    """Dotted path of the called function (``self.x`` methods resolved to their class)."""
    loc: Loc
    order: int
    atomic: str | None = None
    """"block" or "decorator" when the call runs inside ``transaction.atomic``."""
    contexts: tuple[str, ...] = ()
    """Project context managers and decorators around the call (``with atomic_block():``,
    ``@atomic_with_metrics()``): the project model tells which open a transaction."""
    arguments: tuple[Argument, ...] = ()
    spreads: bool = False
    """Passes ``*args``/``**kwargs`` on (an enqueue wrapper's own parameters)."""
    deferred: bool = False
    """Inside a ``transaction.on_commit`` callback: runs after the commit."""
    discarded: bool = False
    """A statement of its own (``emit_metric(...)``): the caller uses no result of it."""
    in_handler: bool = False
    """Inside an ``except`` clause: what it sends reports the failure (an alert to the
    team's Slack), not the job's work."""
    claimed: bool = False
    """Inside a loop over the rows still to do (a query filtered on a state field) that
    the function marks done: a second run sends nothing for them."""
    on_new_record: bool = False
    """A method of a row this function just made (``job = Job.objects.create(...)``,
    ``Job(...)``): the counters it moves are that new row's, which a second run makes
    afresh."""
    on_self: bool = False
    """A method of the object or class the calling method is called on (``self.run()``,
    ``cls().run()``): for a subclass's object, the subclass's override runs."""


@dataclass(slots=True)
class FunctionFacts:
    """A function or method, with what its body does that job checks care about."""

    qualname: str
    name: str
    loc: Loc
    params: tuple[Param, ...] = ()
    decorators: tuple[Decorator, ...] = ()
    class_qualname: str | None = None
    class_bases: tuple[str, ...] = ()
    is_async: bool = False
    returns: str | None = None
    returned: tuple[str, str] | None = None
    """What its first ``return`` that says anything gives, classified as enqueue
    arguments are (kind, reason): ``("record", "a row from .get()")``,
    ``("returned-by:shop.models.Order", "")`` for ``return Order(...)``; a caller
    passing the result to a job passes that (SCL-21)."""
    not_implemented: bool = False
    """Its body only raises NotImplementedError (after a docstring): a declaration whose
    work runs elsewhere (another service consumes the queue), nothing to judge here."""
    retry_calls: list[RetryCall] = field(default_factory=list)
    lookups: list[Lookup] = field(default_factory=list)
    """Lookups that raise when the row is gone, their "not found" not caught here."""
    handlers: list[ExceptHandler] = field(default_factory=list)
    retry_loops: list[Loc] = field(default_factory=list)
    http_calls: list[HttpCall] = field(default_factory=list)
    side_effects: list[SideEffect] = field(default_factory=list)
    guards: list[Guard] = field(default_factory=list)
    slow_calls: list[SlowCall] = field(default_factory=list)
    blocking_calls: list[SlowCall] = field(default_factory=list)
    """Calls that block the thread they run on (a synchronous HTTP request, ``time.sleep``):
    in a coroutine, or in a helper it calls, they stall its event loop."""
    commit_orders: list[int] = field(default_factory=list)
    view: str | None = None
    """The web framework when this function handles requests ("django", "flask", ...)."""
    atomic: bool = False
    non_atomic_requests: bool = False
    calls: list[str] = field(default_factory=list)
    """Dotted names this function calls (for following helpers across files)."""
    session_writes: list[int] = field(default_factory=list)
    """Walk order of SQLAlchemy session writes (add, merge, flush, delete, execute...)
    and of assignments to an attribute of a local object (``document.status = ...``),
    which a session's next commit writes."""
    call_sites: list[CallSite] = field(default_factory=list)
    """Calls of functions the project may define (not of libraries)."""
    opens_transaction: str | None = None
    """"context-manager" (yields inside ``transaction.atomic``) or "decorator" (runs the
    function it wraps inside one): a project's own transaction wrapper."""
    signal: str | None = None
    """The signal or ORM event this function handles, when it runs inside the
    transaction that saves ("post_save", "m2m_changed", "after_insert", "before_commit")."""
    enqueued_params: tuple[str, ...] = ()
    """Parameters this function enqueues as the job (an enqueue wrapper:
    ``def enqueue(fn, *args): return queue.enqueue(fn, *args)``)."""
    cancel_handlers: list[Loc] = field(default_factory=list)
    """In an ``async def``: ``except`` clauses that catch the cancellation a job runner
    sends on timeout or shutdown (a bare ``except:``, ``BaseException``,
    ``asyncio.CancelledError``) and do not re-raise it."""
    enqueues_only: tuple[str, ...] = ()
    """When the body does nothing but enqueue jobs (``send_report.delay()``): what each
    call enqueues, as written (a dotted path, or the job name an ``enqueue_job("name")``
    gives). A scheduled function of this shape schedules those jobs."""
    wraps_in: tuple[str, ...] = ()
    """For a decorator (or a decorator factory, its inner decorator): what it wraps the
    decorated function in, as dotted paths (``f = locked_task(f)``, ``return
    single_run(f)``): a job it decorates runs under those wrappers."""


@dataclass(frozen=True, slots=True)
class TaskDef:
    """A job definition: a Celery task, an RQ ``@job`` function, a Dramatiq actor, a Huey
    or taskiq task, a function an arq worker's settings list."""

    framework: str
    qualname: str
    name: str
    registered_name: str | None
    loc: Loc
    decorator: str | None = None
    app_ref: str | None = None
    options: tuple[tuple[str, Value], ...] = ()
    option_locs: tuple[tuple[str, Loc], ...] = ()
    base: str | None = None
    kind: str = "function"
    """"function", "class" (a class-based Celery task, a GenericActor) or "cron" (an arq
    cron job)."""
    bound: bool = False
    function: str | None = None
    """Qualname of the function holding the body (``run`` for class-based tasks)."""

    def option(self, key: str) -> Value | None:
        for k, v in self.options:
            if k == key:
                return v
        return None

    def has_option(self, key: str) -> bool:
        return any(k == key for k, _ in self.options)

    def option_loc(self, key: str) -> Loc:
        for k, loc in self.option_locs:
            if k == key:
                return loc
        return self.loc


@dataclass(frozen=True, slots=True)
class TaskClass:
    """A Celery ``Task`` subclass (a base for other tasks, or a task itself)."""

    qualname: str
    bases: tuple[str, ...]
    attrs: tuple[tuple[str, Value], ...]
    attr_locs: tuple[tuple[str, Loc], ...]
    loc: Loc
    has_run: bool


@dataclass(frozen=True, slots=True)
class Argument:
    """One argument of an enqueue call, classified by what it carries."""

    kind: str
    """"id", "scalar", "record", "queryset", "request", "copy", "file", "dataframe",
    "unknown" (nothing to say), "annotated:<class>" (a name annotated with a class the
    project model may know as a model), "returned-by:<callable>" (what a call of a
    project function or class gives: the project model reads what it returns)."""
    reason: str
    text: str
    loc: Loc
    keyword: str | None = None
    ref: str | None = None
    """The dotted path a name or attribute argument stands for (of a call site: the job
    an enqueue wrapper is handed)."""


@dataclass(frozen=True, slots=True)
class EnqueueSite:
    """A call that puts a job on a queue (or builds a signature for one)."""

    method: str
    target: str | None
    """Dotted path of the job object (or function) being enqueued, when known."""
    target_text: str
    loc: Loc
    order: int
    function: str | None
    arguments: tuple[Argument, ...] = ()
    options: tuple[tuple[str, Value], ...] = ()
    receiver: str | None = None
    """Dotted path of the queue / broker object the call is made on (RQ, send_task)."""
    framework_hint: str | None = None
    atomic: str | None = None
    """"block" or "decorator" when inside ``transaction.atomic``; None otherwise."""
    deferred: bool = False
    """Inside a ``transaction.on_commit`` callback: runs after commit."""
    in_loop: str | None = None
    """The source of the nearest enclosing loop's iterable, when inside a loop."""
    is_signature: bool = False
    contexts: tuple[str, ...] = ()
    """Project context managers and decorators around the call (see :class:`CallSite`)."""
    target_param: str | None = None
    """The parameter of the enclosing function the call enqueues (an enqueue wrapper)."""
    spreads: bool = False
    """Passes ``*args``/``**kwargs`` of the enclosing function on as the payload."""
    forwards: bool = False
    """Spreads the enclosing function's own ``*args``/``**kwargs`` parameter into the
    payload: what its callers pass is what the job carries (``def send_later(cls,
    **kwargs): queue.enqueue(send, **kwargs)``; ``jobcheck/project/wrappers.py``)."""
    bound_to: str | None = None
    """The job is a method of the class the enclosing method runs for ("class":
    ``queue.enqueue(cls.handle)`` in a classmethod of ``BaseJob``, ``target`` is
    ``pkg.BaseJob.handle``) or of its object ("object": ``queue.enqueue(self.sync)``):
    a subclass calling it enqueues its own class's (``Project.bound_sites``)."""
    receiver_elsewhere: bool = False
    """Called on an object of another module (``queue_store.job_queue.enqueue(f)``) in a
    file that does not show it is a queue: an enqueue once the project model finds the
    object is one (``Semantics.is_queue_object``)."""

    def option(self, key: str) -> Value | None:
        for k, v in self.options:
            if k == key:
                return v
        return None


@dataclass(frozen=True, slots=True)
class Setting:
    """A Celery/Django/RQ configuration value (``task_time_limit``, ``CELERY_...``)."""

    key: str
    """Normalized: Celery's lower-case name (``task_time_limit``) or the Django name."""
    raw_key: str
    value: Value
    loc: Loc
    origin: str
    """"module" (a module-level assignment), "conf" (``app.conf``) or "ctor" (``Celery(...)``)."""
    app: str | None = None
    development: str | None = None
    """The enclosing condition that holds only outside production (``if TESTING``)."""


@dataclass(frozen=True, slots=True)
class SecretURL:
    """A broker or result-backend URL with a password, written in source (JOB-03)."""

    loc: Loc
    masked: str
    """The URL up to its host with the password masked: the secret is never kept."""
    local: bool
    placeholder: bool
    templated: bool


@dataclass(frozen=True, slots=True)
class CeleryApp:
    qualname: str
    loc: Loc
    main: str | None
    kwargs: tuple[tuple[str, Value], ...] = ()
    made_by: str | None = None
    """A project class the app is an instance of (``IndicoCelery("indico")``): an app
    once the project model finds the class subclasses the library's app class."""


@dataclass(frozen=True, slots=True)
class ConfigSource:
    """``app.config_from_object(target, namespace=...)``: where an app reads its settings."""

    app: str | None
    target: Value
    namespace: str | None
    loc: Loc


@dataclass(frozen=True, slots=True)
class QueueDecl:
    """A queue the code declares: a kombu ``Queue``, an RQ ``Queue``, a Dramatiq queue name."""

    framework: str
    name: str | None
    loc: Loc
    options: tuple[tuple[str, Value], ...] = ()
    variable: str | None = None
    named_by: Value | None = None
    """The name's value when it is not a literal (another module's constant, a join of
    constants): the project model reads the name from it."""

    def option(self, key: str) -> Value | None:
        for k, v in self.options:
            if k == key:
                return v
        return None


@dataclass(frozen=True, slots=True)
class ModelClass:
    qualname: str
    bases: tuple[str, ...]
    loc: Loc


@dataclass(slots=True)
class FileFacts:
    path: str
    module: str
    tasks: list[TaskDef] = field(default_factory=list)
    task_classes: list[TaskClass] = field(default_factory=list)
    functions: dict[str, FunctionFacts] = field(default_factory=dict)
    enqueues: list[EnqueueSite] = field(default_factory=list)
    settings: list[Setting] = field(default_factory=list)
    apps: list[CeleryApp] = field(default_factory=list)
    config_sources: list[ConfigSource] = field(default_factory=list)
    models: list[ModelClass] = field(default_factory=list)
    deleted_models: list[str] = field(default_factory=list)
    """Models whose rows this file deletes (ActiveRecord ``destroy``/``delete_all`` on
    the model or a record of it, ``has_many ..., dependent: :destroy``), by name: a job's
    lookup of a model nothing deletes cannot miss its row (SCL-34)."""
    queues: list[QueueDecl] = field(default_factory=list)
    classes: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Every class defined here, with its bases' dotted paths."""
    foreign_objects: list[str] = field(default_factory=list)
    """Module-level objects made by other job libraries (``huey = RedisHuey()``), whose
    ``.task`` decorators are not Celery's."""
    imports: frozenset[str] = frozenset()
    """Top-level modules this file imports (``celery``, ``rq``, ``django``...)."""
    suppressions: dict[int, frozenset[str] | None] = field(default_factory=dict)
    error: str | None = None
    parsed: bool = True
    aliases: dict[str, Value] = field(default_factory=dict)
    """Module-level names bound to another name or a ``functools.partial`` of one
    (``job = partial(MyJobDecorator, connection=redis)``), to follow custom decorators."""
    schedules: list[ScheduleEntry] = field(default_factory=list)
    signal_receivers: list[tuple[str, str]] = field(default_factory=list)
    """(handler qualname, model signal) of ``<signal>.connect(handler)`` calls here, and
    (handler qualname, ``sqlalchemy.<event>``) of SQLAlchemy ``event.listen`` calls."""
    beat_refs: list[str] = field(default_factory=list)
    """Dicts of beat entries defined elsewhere that a beat setting here is composed of
    (``CELERY_BEAT_SCHEDULE = {**NIGHTLY, **HOURLY}``)."""
    scheduler_starts: list[SchedulerStart] = field(default_factory=list)
    scheduler_objects: list[str] = field(default_factory=list)
    """Module-level in-process scheduler objects (``scheduler = BackgroundScheduler()``)."""
    startup_hooks: list[StartupHook] = field(default_factory=list)
    defined_functions: frozenset[str] = frozenset()
    """Every function and method defined here; ``functions`` keeps facts only for some."""
    queue_bindings: list[QueueBinding] = field(default_factory=list)
    site_queues: list[SiteQueue] = field(default_factory=list)
    loop_enqueues: list[LoopEnqueue] = field(default_factory=list)
    failure_handlers: list[FailureHandler] = field(default_factory=list)
    middleware: list[MiddlewareDecl] = field(default_factory=list)
    constants: list[Constant] = field(default_factory=list)
    instances: dict[str, str] = field(default_factory=dict)
    """Module-level objects made by calling a class, with the dotted path of the class
    (``huey = MyHuey()``; for ``Broker(...).with_middlewares(...)``, the broker class), so
    the project model can tell whose ``.task`` decorator ``huey.task`` is."""
    configs: list[FrameworkConfig] = field(default_factory=list)
    """Job-system configuration in the framework's own terms (Huey instances, arq
    ``WorkerSettings``, taskiq brokers and schedulers, ``DRAMATIQ_BROKER``...)."""
    processes: list[ProcessDecl] = field(default_factory=list)
    """Processes a deployment file runs (a Procfile's ``clock:``, supervisord programs)."""
    script_commands: list[str] = field(default_factory=list)
    """For a shell script: the command lines it runs that start Python or a job system
    (a crontab line or CronJob that runs the script runs them)."""
    credential_urls: list[SecretURL] = field(default_factory=list)
    """Broker and result-backend URLs with a password in this file's text."""
    star_imports: list[str] = field(default_factory=list)
    """Modules this one imports everything from at module level (``from .base import *``:
    a settings module built on another)."""


@dataclass(frozen=True, slots=True)
class Timing:
    """When a schedule fires, in one shape for every framework (``jobcheck.timing``)."""

    kind: str
    """"cron" (fires at set minutes), "interval" (every N seconds from when the
    scheduler started) or "other" (solar events, one-off dates, anything unreadable)."""
    text: str
    """The schedule as the source wrote it, shortened, for messages."""
    fields: tuple[str | None, ...] | None = None
    """For "cron": the five crontab(5) fields (minute, hour, day of month, month, day
    of week) in cron syntax; None for a field that cannot be read statically."""
    minute_defaulted: bool = False
    """A Celery or Huey ``crontab()`` (or an arq ``cron()``) that restricts a coarser field
    but leaves ``minute`` at its default (``"*"``, arq's None), so it fires every minute
    of that period."""
    seconds: float | None = None
    """For "interval": the length of the interval."""
    anchored: bool = False
    """For "interval": the first run is pinned to a fixed time (APScheduler
    ``start_date``), so restarts do not move the clock."""
    expanded: tuple[frozenset[int] | None, ...] | None = None
    """For "cron": each field expanded by croniter at extraction (``jobcheck.timing.
    expanded``), so that checks on cached facts never need croniter."""
    gap: float | None = None
    """For "cron": seconds between the two closest runs, computed at extraction."""
    days_and: bool = False
    """For "cron": a day must match both the day-of-month and the day-of-week field
    (Huey's ``crontab``); cron itself fires on either when both are restricted."""


@dataclass(frozen=True, slots=True)
class ScheduleEntry:
    """A periodic job: a Celery beat entry, ``add_periodic_task``, ``@periodic_task``, an
    rq-scheduler or RQ cron job, a periodiq actor, an APScheduler or ``schedule`` job."""

    framework: str
    """"celery", "rq-scheduler", "rq-cron", "periodiq", "apscheduler", "schedule",
    "huey", "arq", "taskiq", "dramatiq-crontab", "kubernetes" or "crontab"."""
    source: str
    """How it was declared: "beat_schedule", "add_periodic_task", "periodic_task",
    "cron", "schedule", "job-definition", "register", "periodic", "add_job",
    "scheduled_job", "every", "interval" (dramatiq-crontab), "schedule-label",
    "schedule_by_cron", "schedule_by_interval" (taskiq), "cronjob" (Kubernetes) or
    "crontab" (a crontab line)."""
    name: str | None
    """The entry's own name: a beat entry's key, ``name=`` or ``id=``."""
    task_name: str | None
    """The job named by a string (a Celery task name, ``"module.function"``)."""
    target: str | None
    """The job named by reference, as a dotted path."""
    target_text: str
    timing: Timing
    loc: Loc
    """The entry as a whole: a beat entry's key, else the call or decorator."""
    task_loc: Loc
    timing_loc: Loc
    options: tuple[tuple[str, Value], ...] = ()
    """Options the schedule sends its job with (a beat entry's ``options``, the keyword
    arguments of ``add_periodic_task``, rq-scheduler's ``ttl``/``timeout``...), and for
    schedules outside Python (Kubernetes, crontab) their settings (``concurrencyPolicy``,
    ``lock``, ``timeout``...)."""
    holder: str | None = None
    """The module constant holding the entry when it is a dict of beat entries kept
    apart (``NIGHTLY = {...}``): the entry counts once a beat setting names the dict
    (``FileFacts.beat_refs``)."""
    command: str | None = None
    """For a schedule that runs a command (a Kubernetes CronJob's container, a crontab
    line): the command line, for mapping ``python manage.py x`` or ``celery call x`` to
    the job's code."""
    scheduler: str | None = None
    """The scheduler object that runs it, as a dotted path, when the schedule is made on
    one (APScheduler's ``scheduler.add_job``/``@scheduler.scheduled_job``): its defaults
    fill the options the entry leaves out (``Semantics.with_scheduler_defaults``)."""
    enqueues: tuple[str, ...] = ()
    """When the scheduled function (in the same file) does nothing but enqueue jobs of a
    job system (``send_report.delay()``): what it enqueues. Those are the jobs that run
    on this schedule; across files, ``FunctionFacts.enqueues_only`` says the same."""

    def option(self, key: str) -> Value | None:
        for k, v in self.options:
            if k == key:
                return v
        return None

    @property
    def label(self) -> str:
        """How messages name the entry."""
        if self.name or self.task_name:
            return self.name or self.task_name  # type: ignore[return-value]
        return self.target.rpartition(".")[2] if self.target else self.target_text


@dataclass(frozen=True, slots=True)
class SchedulerStart:
    """An in-process scheduler being started: APScheduler's ``scheduler.start()`` or a
    ``schedule.run_pending()`` loop."""

    kind: str
    """"apscheduler" or "schedule"."""
    function: str | None
    """The enclosing function's qualname; None at module level."""
    loc: Loc
    text: str
    receiver: str | None = None
    """For a ``start()`` on an object imported from another module: its dotted path,
    confirmed against the project's scheduler objects."""
    main_only: bool = False
    """Under ``if __name__ == "__main__":``: runs when the file is run as a program (a
    clock process), not when a web server imports it."""


@dataclass(frozen=True, slots=True)
class StartupHook:
    """Web-app start-up code, which runs in every web process of every replica: Django
    ``AppConfig.ready``, ``wsgi.py``/``asgi.py``, Flask ``create_app``, FastAPI startup
    handlers and lifespans, gunicorn server hooks."""

    kind: str
    function: str | None
    """The hook function's qualname; None for module-level code."""
    loc: Loc
    calls: tuple[tuple[str, Loc], ...] = ()
    """Dotted paths of what the hook calls, starts as a thread or imports, with where."""


# -- queues, routing, dead letters (SCL-19, SCL-20, SCL-34 no-dead-letter, EVT-24) -----
# Defined after FileFacts: FileFacts refers to them only through string annotations.


@dataclass(frozen=True, slots=True)
class QueueBinding:
    """A name bound to a queue object: ``high = Queue("high", connection=r)``,
    ``emails = django_rq.get_queue("emails")``, ``EMAILS = kombu.Queue("emails")``."""

    variable: str
    """Dotted path for module-level names; ``function qualname:name`` for locals."""
    framework: str
    name: str | None
    loc: Loc
    named_by: str | None = None
    """When the name is a class attribute of the object or class the enclosing method
    is called on (``get_queue(cls.queue_name)`` in ``BaseJob``): ``pkg.BaseJob.queue_name``,
    which each subclass may set."""


@dataclass(frozen=True, slots=True)
class SiteQueue:
    """The queue an enqueue site names by its own code, beyond its keyword options: the
    RQ queue object it is called on, or a Celery signature's ``.set(queue=...)``."""

    order: int
    """The :attr:`EnqueueSite.order` of the site in the same file."""
    queue: Value
    """``Const(name)``, or an :class:`Opaque` when the name cannot be known."""


@dataclass(frozen=True, slots=True)
class LoopEnqueue:
    """An enqueue inside a loop over a source whose size nothing bounds: a whole-table
    query, a query read with ``.iterator()``, or a paginated API (``while next_url:``)."""

    order: int
    """The :attr:`EnqueueSite.order` of the site in the same file."""
    loop_loc: Loc
    source: str
    """"query" or "pagination"."""
    source_text: str
    throttled: bool
    """The loop sleeps or rate-limits, or the enqueue staggers its start (countdown=i*n)."""
    batched: bool
    """The enqueue is guarded by a batch-size test or sends a group/chunks canvas."""


@dataclass(frozen=True, slots=True)
class FailureHandler:
    """Code a job system runs when a job fails: a Celery ``Task.on_failure`` override, a
    ``task_failure`` signal receiver, or an ``on_failure=`` task option; a Huey
    ``@huey.signal(SIGNAL_ERROR)`` handler."""

    kind: str
    """"on_failure" (a method), "signal" (task_failure receiver) or "option"."""
    owner: str | None
    """The class of an ``on_failure`` method, or the handler function's dotted path."""
    loc: Loc
    persists: bool | None
    """Whether the body writes the failure somewhere durable; None when unreadable here."""
    framework: str = "celery"


@dataclass(frozen=True, slots=True)
class MiddlewareDecl:
    """A job-library middleware set up in code: Dramatiq ``AgeLimit(max_age=...)``."""

    framework: str
    name: str
    options: tuple[tuple[str, Value], ...]
    loc: Loc

    def option(self, key: str) -> Value | None:
        for k, v in self.options:
            if k == key:
                return v
        return None


@dataclass(frozen=True, slots=True)
class FrameworkConfig:
    """A job system configured in code or settings, in the framework's own terms: a Huey
    instance or djhuey's ``HUEY`` setting, an arq ``WorkerSettings`` class, a taskiq broker
    or ``TaskiqScheduler``, an APScheduler scheduler's job defaults, django_dramatiq's
    ``DRAMATIQ_BROKER``."""

    framework: str
    kind: str
    """"instance" (``RedisHuey(...)``), "settings" (a settings dict: ``HUEY``,
    ``DRAMATIQ_BROKER``), "worker" (arq ``WorkerSettings``), "broker" (taskiq), "scheduler"
    (``TaskiqScheduler``, an APScheduler scheduler)."""
    qualname: str
    """The object, class or setting (``app.huey``, ``app.worker.WorkerSettings``)."""
    cls: str | None
    """What it is made from (``huey.RedisHuey``, ``taskiq_redis.ListQueueBroker``)."""
    options: tuple[tuple[str, Value], ...]
    """Its settings as written: constructor keywords, class attributes, dict items."""
    loc: Loc
    parts: tuple[str, ...] = ()
    """What it is built from, as dotted paths or texts: a taskiq broker's middlewares,
    a scheduler's schedule sources, ``DRAMATIQ_BROKER["MIDDLEWARE"]``."""
    development: str | None = None
    """The enclosing condition that holds only outside production (``if TESTING``)."""
    condition: str | None = None
    """The enclosing ``if`` conditions as written (``not (REDIS_URL)`` for an ``else``)."""

    def option(self, key: str) -> Value | None:
        for k, v in self.options:
            if k == key:
                return v
        return None


@dataclass(frozen=True, slots=True)
class ProcessDecl:
    """A process a deployment file runs: a Procfile line (``clock: python clock.py``), a
    supervisord ``[program:x]``. Which job system it starts is read from the command."""

    source: str
    """"procfile", "supervisord", "compose", "workload" (Kubernetes), "values" (Helm), "systemd",
    "dockerfile" or "script"."""
    name: str
    """The process type or program name (``clock``, ``celerybeat``)."""
    command: str
    loc: Loc
    options: tuple[tuple[str, Value], ...] = ()
    """Settings beside the command (supervisord's ``numprocs``, ``autorestart``...)."""

    def option(self, key: str) -> Value | None:
        for k, v in self.options:
            if k == key:
                return v
        return None


@dataclass(frozen=True, slots=True)
class Constant:
    """A module-level upper-case name whose value may name a queue (``EMAIL_QUEUE =
    "emails"``), so ``queue=settings.EMAIL_QUEUE`` can be resolved project-wide."""

    qualname: str
    value: Value
    loc: Loc


@dataclass(frozen=True, slots=True)
class DocFile:
    """A Markdown or reST file under the runbook folders, reduced to what EVT-24 asks:
    does it speak of dead letters, and does it say how to inspect and replay them."""

    path: str
    dead_letter: bool
    """Names dead letters ("dead letter", "DLQ", "DLX") within a few lines of both an
    inspect step and a replay step."""
    inspect: bool
    replay: bool
    words: frozenset[str] = frozenset()
    """Lower-cased tokens (queue names) of the lines near both an inspect and a replay
    step, plus markers for framework-specific names (``<rq-failed-job-registry>``)."""
