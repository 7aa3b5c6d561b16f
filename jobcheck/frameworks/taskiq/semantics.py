"""taskiq's semantics: its verified defaults and rules, and its part of the checks.

Read in the wheels of taskiq 0.13.0, taskiq-redis 1.2.4, taskiq-aio-pika 0.6.1,
taskiq-nats 0.7.0 and pycron 3.3.0, and in taskiq's source of 2026-07 (never imported).
Light module: no libcst.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from jobcheck.facts.values import describe, number
from jobcheck.frameworks.semantics_base import (
    QueueRules,
    ScheduleTerms,
    Semantics,
    Words,
    fixed_minute_expression,
)
from jobcheck.project.contract import Delivery, JobContract, Retries

if TYPE_CHECKING:
    from jobcheck.facts import FrameworkConfig, ScheduleEntry
    from jobcheck.project.contract import Retries
    from jobcheck.project.model import Job, Project
    from jobcheck.project.routing import Route


def is_taskiq(qualname: str | None) -> bool:
    """Of taskiq or one of its broker packages, which are separate distributions with
    roots named ``taskiq_*`` (taskiq_redis, taskiq_aio_pika, taskiq_nats...)."""
    root = (qualname or "").split(".")[0]
    return root == "taskiq" or root.startswith("taskiq_")


def is_broker_class(qualname: str | None) -> bool:
    """A broker class of a taskiq package: every one subclasses ``AsyncBroker`` and is
    named ``...Broker`` (taskiq/brokers: ``InMemoryBroker``, ``ZeroMQBroker``,
    ``AsyncSharedBroker``; taskiq_redis ``ListQueueBroker``, ``PubSubBroker``,
    ``RedisStreamBroker`` and their Cluster/Sentinel forms; taskiq_aio_pika
    ``AioPikaBroker``; taskiq_nats ``NatsBroker``, ``PushBasedJetStreamBroker``,
    ``PullBasedJetStreamBroker``)."""
    return is_taskiq(qualname) and (qualname or "").endswith("Broker")


def is_middleware_class(qualname: str | None) -> bool:
    return is_taskiq(qualname) and (qualname or "").endswith("Middleware")


# taskiq/abc/broker.py: ``with_result_backend``, ``with_id_generator``,
# ``with_middlewares``, ``with_event_handlers``, ``with_serializer``, ``with_formatter``
# each set something and ``return self`` (:425-514), so a chain still makes the broker.
BROKER_CHAIN_METHODS = frozenset(
    {
        "with_result_backend",
        "with_id_generator",
        "with_middlewares",
        "with_event_handlers",
        "with_serializer",
        "with_formatter",
    }
)

# ``AsyncBroker.task(task_name=None, **labels)`` (abc/broker.py:277-360): every other
# keyword is a label; the default name is ``f"{func.__module__}:{func.__name__}"``;
# ``@broker.task`` without parentheses works; ``register_task(func, task_name=None,
# **labels)`` is the same (:363-383).
TASK_NAME_SEPARATOR = ":"


def registered_name(module: str, name: str) -> str:
    return f"{module}{TASK_NAME_SEPARATOR}{name}" if module else name


CALL_RUNS_INLINE = True
"""``AsyncTaskiqDecoratedTask.__call__`` returns ``self.original_func(*args, **kwargs)``
(taskiq/decor.py:93-98): calling a task runs it here, unlike Huey."""
ENQUEUE_METHODS = frozenset({"kiq"})
"""``.kiq(*args, **kwargs)`` (decor.py:101-137) -> ``self.kicker().kiq(...)``."""
KICKER_METHODS = frozenset(
    {"kicker", "with_labels", "with_task_id", "with_schedule_id", "with_broker"}
)
"""``AsyncKicker.with_labels(**labels)``, ``with_task_id``, ``with_schedule_id`` and
``with_broker`` (kicker.py:55-110) return the kicker."""
DYNAMIC_SCHEDULES = frozenset({"schedule_by_cron", "schedule_by_interval", "schedule_by_time"})
"""``schedule_by_cron(source, cron, *args, **kwargs)``, ``schedule_by_interval(source,
interval, ...)``, ``schedule_by_time(source, time, ...)`` (kicker.py:180-283): a schedule
added to a source each time the call runs."""

# Labels taskiq reads (others are carried, never read: ``time_limit`` is not a limit).
TIMEOUT_LABEL = "timeout"
"""taskiq/receiver/receiver.py ``Receiver.run_task`` (:351-356): ``anyio.fail_after(
float(timeout))`` when the label is set; no default; sync tasks only get a warning."""
TIME_LIMIT = None
RETRY_LABELS = ("retry_on_error", "max_retries")
READ_LABELS = frozenset(
    {
        "timeout",
        "retry_on_error",
        "max_retries",
        "delay",
        "schedule",
        "ack_type",
        "queue_name",
        "priority",
    }
)
NO_RETRY_WITHOUT_MIDDLEWARE = True
"""Retries exist only in the retry middlewares (receiver.py:373-409 calls ``on_error``)."""
ACK_DEFAULT = "when_saved"
"""``self.ack_time = ack_type or AcknowledgeType.WHEN_SAVED`` (receiver.py:110): a failed
task is acknowledged too."""
UNKNOWN_TASK_DROPPED = True
"""'task "%s" is not found. Maybe you forgot to import it?', then acked (receiver.py:176-184)."""

# taskiq/middlewares/simple_retry_middleware.py ``SimpleRetryMiddleware.__init__(
# default_retry_count=3, default_retry_label=False, no_result_on_retry=True,
# types_of_exceptions=None)`` (:17-27): retries only when the ``retry_on_error`` label
# (or ``default_retry_label``) is true, at once; ``retries < max_retries`` so
# ``max_retries`` counts every run (:81-108).
SIMPLE_RETRY_DEFAULTS = {
    "default_retry_count": 3,
    "default_retry_label": False,
    "no_result_on_retry": True,
    "types_of_exceptions": None,
}
# smart_retry_middleware.py ``SmartRetryMiddleware.__init__(default_retry_count=3,
# default_retry_label=False, no_result_on_retry=True, default_delay=5, use_jitter=False,
# use_delay_exponent=False, max_delay_exponent=60, schedule_source=None,
# types_of_exceptions=None)`` (:29-60); the "exponent" is ``min(delay * retries,
# max_delay_exponent)``: linear, capped at 60 s (:109-121). Without ``schedule_source`` the
# delay is the ``delay`` label, which only taskiq-aio-pika honours.
SMART_RETRY_DEFAULTS = {
    "default_retry_count": 3,
    "default_retry_label": False,
    "no_result_on_retry": True,
    "default_delay": 5,
    "use_jitter": False,
    "use_delay_exponent": False,
    "max_delay_exponent": 60,
    "schedule_source": None,
    "types_of_exceptions": None,
}
DELAY_LABEL_HONOURED_BY = frozenset({"taskiq_aio_pika"})
"""No "delay" anywhere in taskiq_redis; taskiq_aio_pika/broker.py:361-405 uses it and raises
IncorrectRoutingKeyError without a delay queue or the delayed-message plugin."""

# Schedules: taskiq/schedule_sources/label_based.py ``LabelScheduleSource.startup``
# (:18-63) reads each task's ``schedule`` label, a list of dicts with one of ``cron``,
# ``interval``, ``time`` (others are skipped) and optional ``args``, ``kwargs``,
# ``labels``, ``schedule_id`` (a new uuid each start-up), ``cron_offset``.
SCHEDULE_KINDS = ("cron", "interval", "time")
SCHEDULE_OPTIONS = ("cron_offset", "args", "kwargs", "labels", "schedule_id")
CRON_IN_UTC = True
"""cli/scheduler/run.py: ``now = datetime.now(tz=timezone.utc)``; ``is_cron_task_now``
(:79-113) applies ``cron_offset`` (a zone name or a timedelta) before ``pycron.is_now``."""
CRON_EXACT_FIVE_FIELDS = True
"""pycron/__init__.py ``is_now``: ``minute, hour, dom, month, dow = [x.strip() for x in
s.split(" ")]``: exactly five fields separated by single spaces, no ``@hourly``;
otherwise CronValueError, logged 'Cannot parse cron' and the task never sent (run.py:292)."""
CRON_DAYS_OR = True
"""pycron: when neither day field is '*', either may match (cron's rule)."""
AT_MOST_ONCE_A_MINUTE = True
"""``is_cron_task_now`` skips a run less than a minute after the last (``last_run``)."""
SCHEDULER_LOCK = None
"""No lock or leader election in the scheduler (taskiq/scheduler/scheduler.py,
cli/scheduler): two ``taskiq scheduler`` processes send every schedule twice."""

# Dependency injection: taskiq/__init__.py ``from taskiq_dependencies import Depends as
# TaskiqDepends``; the receiver resolves the graph (``dep_ctx.resolve_kwargs()``) and
# overlays the message kwargs (receiver.py:296-321): such parameters are not payload.
DEPENDS = frozenset(
    {"taskiq.TaskiqDepends", "taskiq_dependencies.Depends", "taskiq_dependencies.TaskiqDepends"}
)

# Brokers (taskiq-redis 1.2.4 redis_broker.py): ``ListQueueBroker`` LPUSH/BRPOP without
# acks (a crashed worker loses its message, :104-138); ``PubSubBroker`` delivers to every
# subscriber and keeps nothing (:70-101); ``RedisStreamBroker`` acks with XACK and
# reclaims with XAUTOCLAIM after ``idle_timeout=600000`` ms (:141-330). ``queue_name``
# defaults to "taskiq" (:36).
UNACKED_BROKERS = frozenset({"taskiq_redis.ListQueueBroker", "taskiq_redis.PubSubBroker"})
REDIS_STREAM_IDLE_TIMEOUT_MS = 600_000
DEFAULT_QUEUE = "taskiq"
# taskiq-aio-pika 0.6.1 broker.py: the dead-letter queue ``taskiq.dead_letter`` is declared
# by default, but nothing rejects or nacks a failed task, so it only gets what RabbitMQ
# dead-letters itself (:95, :198-250).
AIO_PIKA_DLQ_GETS_FAILED_TASKS = False


# anyio's ``fail_after`` raises TimeoutError on leaving the scope only when the
# cancellation it sent reached it (``cancelled_caught``): a task that swallows the
# CancelledError (``semantics_base.CANCELLATION``) returns normally, and the receiver
# saves a success.


class TaskiqQueueRules(QueueRules):
    """How Taskiq routes its jobs and bounds its queues (``QueueRules``)."""

    def config_in_sight(self) -> bool:
        return False  # its queues are bounded, if at all, in Redis or RabbitMQ themselves

    def job_route(self, job: Job) -> Route:
        """A broker's ``queue_name`` ("taskiq" by default in taskiq-redis and
        taskiq-aio-pika: DEFAULT_QUEUE); other brokers' queues are not modelled."""
        from jobcheck.project.routing import UNKNOWN_ROUTE, Route

        broker = _broker_config(self.routing.project, job.task.app_ref)
        if broker is None or not (broker.cls or "").startswith(QUEUE_NAMED_BROKERS):
            return UNKNOWN_ROUTE
        value = broker.option("queue_name")
        if value is None:
            return Route(DEFAULT_QUEUE, True)
        name = self.routing.queue_name(value)
        return Route(name, False) if isinstance(name, str) else UNKNOWN_ROUTE


class TaskiqSemantics(Semantics):
    name = "taskiq"
    queue_rules = TaskiqQueueRules
    title = "taskiq"
    job_noun = "taskiq task"
    library_roots = frozenset({"taskiq"})
    object_decorators = frozenset({"task"})  # ``AsyncBroker.task`` (abc/broker.py)
    default_queue = None

    matches_by_tail = False
    names_by_path = False
    words = Words(
        fan_out_advice=(
            "Kick one task per batch of IDs, slice or paginate the query, or stagger "
            "them (task.kicker().with_labels(delay=...) growing with the index)"
        ),
        how_to_route="give it a broker of its own (queue_name=) with its own workers",
        let_it_fail="let it fail into the retry middleware",
        cancellation_noun="the cancellation taskiq's timeout label sends (anyio.fail_after)",
        # SCHEDULER_LOCK: no lock or leader election in taskiq's scheduler.
        single_run_advice=(
            "; taskiq's scheduler has no leader election either: run exactly one "
            "'taskiq scheduler' process, or two send every schedule twice"
        ),
        # taskiq/decor.py AsyncTaskiqDecoratedTask.__call__: runs the original function.
        enqueue_instead="call await {name}.kiq(...) instead",
        cancellation_swallowed=(
            "; it also catches the cancellation taskiq's timeout label sends "
            "(anyio.fail_after), so a task that timed out is saved as a success"
        ),
        event_loop_limit="its timeout label",
        event_loop_also=", or make the task a plain def (taskiq runs those in its thread pool)",
    )

    def accepts_enqueue(self, method: str) -> bool:
        return method in ENQUEUE_METHODS

    # -- queues -------------------------------------------------------------------------

    # -- check hooks ------------------------------------------------------------------

    def process_scheduler(self, project: Project, words: list[str]) -> tuple[str, bool] | None:
        programs = {w.rsplit("/", 1)[-1] for w in words}
        if "taskiq" in programs and "scheduler" in words:
            return "a taskiq scheduler (no leader election)", False
        return None

    # -- schedules ----------------------------------------------------------------------

    def schedule_terms(self, entry: ScheduleEntry) -> ScheduleTerms:
        return ScheduleTerms(
            kind="taskiq schedule",
            sends_messages=True,  # the scheduler process kicks the task
            names_functions=False,
        )

    def cron_hint(self, entry: ScheduleEntry, seconds: float) -> str:
        return f'{{"cron": "{fixed_minute_expression(seconds)}"}}'

    def job_contract(self, project: Project, job: Job) -> JobContract:
        from jobcheck.frameworks.taskiq import checks

        retries, backoff = _retrying(project, job)
        return JobContract(
            time_limit=checks.time_limit(project, job),
            retries=Retries(retries),
            delivery=taskiq_delivery(project, job),
            backoff=backoff,
            dead_letter="none (taskiq keeps no failed tasks)",
        )


def _retrying(project: Project, job: Job) -> tuple[str, str]:
    """The task's retries and backoff in words: retries only through a retry
    middleware and ``retry_on_error``."""
    from jobcheck.frameworks.taskiq import checks

    middlewares = checks.retry_middlewares(project, job)
    retries = "none (no retry middleware)"
    backoff = "-"
    if middlewares and job.task.option("retry_on_error") is not None:
        # ``retries < max_retries`` after counting this run: max_retries counts runs.
        count = number(job.task.option("max_retries"))
        if count is None and job.task.option("max_retries") is not None:
            retries = describe(job.task.option("max_retries"))
        else:
            runs = count if count is not None else 3
            default = "" if count is not None else ", the middleware's default"
            retries = f"{max(runs - 1, 0):g} (max_retries={runs:g} counts the first run{default})"
        simple = middlewares[0].name.endswith(checks.SIMPLE_RETRY)
        backoff = "none: sent again at once" if simple else "SmartRetryMiddleware delay"
    return retries, backoff

    # -- the contract -------------------------------------------------------------------


# taskiq/acks.py ``AcknowledgeType``; receiver.py and cli/worker/args.py default to
# ``WHEN_SAVED`` (after the result is stored), a task's ``ack_type`` label overriding it.
# taskiq-redis redis_broker.py: ``ListQueueBroker`` pops with ``brpop`` (a message taken
# is gone); ``RedisStreamBroker`` reclaims unacked messages idle for ``idle_timeout``
# (600000 ms) with ``xautoclaim``.
_BROKER_REDELIVERY = {
    "ListQueueBroker": "ListQueueBroker pops the message, so a worker lost mid-run loses it",
    "RedisStreamBroker": "RedisStreamBroker reclaims an unacked message after 10 min idle",
    "AioPikaBroker": "RabbitMQ redelivers a lost worker's unacked message",
}


def taskiq_delivery(project: Project, job: Job) -> Delivery:
    label = job.task.option("ack_type")
    when = describe(label) if label is not None else "when_saved (taskiq's default)"
    config = _broker_config(project, job.task.app_ref)
    broker = ((config.cls if config else None) or "").rsplit(".", 1)[-1]
    after = _BROKER_REDELIVERY.get(broker, "what happens to it after a crash depends on the broker")
    # Whether a lost worker's message comes back is the broker's (ListQueueBroker pops it).
    late = {"ListQueueBroker": False, "RedisStreamBroker": True, "AioPikaBroker": True}.get(broker)
    if "when_received" in when.lower():
        late = False
    return Delivery(f"acked {when}; {after}", late=late)


QUEUE_NAMED_BROKERS = ("taskiq_redis.",)
"""Packages whose brokers take ``queue_name=`` with "taskiq" as its default
(taskiq-redis 1.2.4 redis_broker.py:36)."""


def _broker_config(project: Project, app_ref: str | None) -> FrameworkConfig | None:
    for f in project.files:
        for config in f.configs:
            if config.framework == "taskiq" and config.kind == "broker":
                if config.qualname == app_ref:
                    return config
    return None


SEMANTICS = TaskiqSemantics()
