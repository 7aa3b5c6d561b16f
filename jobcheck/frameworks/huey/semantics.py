"""Huey's semantics: its verified defaults and rules, and its part of the checks.

Read in the huey 2.6.0 wheel and the 2.5.0 sdist, and in huey 3.3.0's source (never
imported); line numbers are 2.6.0's unless stated. Huey 3.x differences are noted where
they matter. Light module: no libcst.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from jobcheck.facts.values import describe, is_none, number
from jobcheck.frameworks.semantics_base import (
    QueueRules,
    ScheduleTerms,
    Semantics,
    Words,
    fixed_hours,
)
from jobcheck.project.contract import Delivery, JobContract
from jobcheck.project.schedule_words import expiry_hint

if TYPE_CHECKING:
    from jobcheck.facts import FrameworkConfig, ScheduleEntry
    from jobcheck.project.contract import Retries
    from jobcheck.project.model import Job, Project
    from jobcheck.project.routing import QueueUse, Route

DJHUEY_MODULE = "huey.contrib.djhuey"
DJANGO_HUEY_MODULE = "django_huey"
"""django-huey (PyPI ``django-huey``, 1.2): "an extension of huey contrib djhuey package that
allows users to manage multiple queues": djhuey's decorators (``task``, ``db_task``,
``periodic_task``, ``db_periodic_task``, ``lock_task``, ``signal``...) with ``queue=``,
imported from ``django_huey``; its settings are ``DJANGO_HUEY``."""
DJHUEY_MODULES = frozenset({DJHUEY_MODULE, DJANGO_HUEY_MODULE})

# huey/__init__.py exports Huey and its storage subclasses; huey/api.py defines them
# (``class BlackHoleHuey(Huey)``, ``MemoryHuey``, ``SqliteHuey``, ``RedisHuey``,
# ``RedisExpireHuey(RedisHuey)``, ``PriorityRedisHuey(RedisHuey)``,
# ``PriorityRedisExpireHuey(RedisHuey)``, ``FileHuey``: api.py:1207-1229), and the
# contrib storages subclass Huey too (huey/contrib/sql_huey.py ``SqlHuey``,
# contrib/kyototycoon.py ``KyotoTycoonHuey``). contrib/mini.py ``MiniHuey`` is not a
# Huey (``class MiniHuey(object)``): an in-process gevent scheduler, not modelled here.
NOT_HUEY_CLASSES = frozenset({"huey.contrib.mini.MiniHuey"})


def is_huey_class(qualname: str) -> bool:
    """A class of the huey package that makes a Huey instance (``huey.RedisHuey``,
    ``huey.api.Huey``, ``huey.contrib.sql_huey.SqlHuey``)."""
    return (
        qualname.split(".")[0] == "huey"
        and qualname.endswith("Huey")
        and qualname not in NOT_HUEY_CLASSES
    )


# huey/api.py ``def crontab(minute='*', hour='*', day='*', month='*', day_of_week='*',
# strict=False)`` (2.6.0 :1109; 2.5.0 :1072; 3.5.4 :1354), exported as ``huey.crontab``.
CRONTAB_FUNCTIONS = frozenset({"huey.crontab", "huey.api.crontab"})
CRONTAB_FIELDS = ("minute", "hour", "day", "month", "day_of_week")
"""crontab's positional order, which is also cron's."""
CRONTAB_FIELD_DEFAULT = "*"
"""Every field defaults to '*': ``crontab(hour=3)`` fires every minute from 03:00 to 03:59."""
CRONTAB_DAYS_AND = True
"""``validate_date`` requires every field to match (api.py:1183-1193): day of month and day
of week are ANDed, where Vixie cron fires on either when both are restricted."""
CRONTAB_PIECES = r"\*|\d+|\d+-\d+|\*/\d+"
"""The pieces crontab reads (api.py:1142-1175); any other piece is silently ignored
unless ``strict=True``, and ``*/n`` raises ValueError for day_of_week. 0 and 7 are both
Sunday (``piece %= 7``)."""


def is_huey_crontab(func: str | None) -> bool:
    return func in CRONTAB_FUNCTIONS


# huey/api.py ``Huey.task(self, retries=0, retry_delay=0, priority=None, context=False,
# name=None, expires=None, **kwargs)`` (:174; 2.5.0 :166) and ``periodic_task(self,
# validate_datetime, retries=0, ...)`` (:190); ``class Task``: ``default_retries = 0``,
# ``default_retry_delay = 0``, ``default_priority = None``, ``default_expires = None``.
TASK_DEFAULTS = {
    "retries": 0,
    "retry_delay": 0,
    "priority": None,
    "context": False,
    "name": None,
    "expires": None,
}
TIME_LIMIT = None
"""Huey 2.x has no task time limit: no ``timeout`` parameter in 2.5.0 or 2.6.0. Huey 3.x adds
``timeout=None`` (3.5.4 api.py:171-172), enforced with SIGALRM for process workers."""
RETRY_BACKOFF = None
"""2.x retries after a constant ``retry_delay`` (``Huey._requeue_task``); 3.x adds
``retry_backoff=0`` (3.5.4 api.py:581-582)."""
RETRY_TASK_ALWAYS_RETRIES = True
"""``raise RetryTask()`` increments ``task.retries`` before the requeue decrement, so it is
retried even with ``retries=0`` (2.5.0 api.py:390-395 ``Huey._execute``)."""
DEAD_LETTER = None
"""No dead-letter store: after the last failure a task is gone (a signal, a log line, and
an ``Error`` result when ``results=True``; 2.5.0 api.py:410-448)."""
EXPIRED_TASKS_DROPPED = True
"""An expired task is not executed (``SIGNAL_EXPIRED``), not retried (2.5.0 api.py:358-360)."""

# huey/api.py ``TaskWrapper.__call__`` -> ``self.huey.enqueue(self.s(*args, **kwargs))``
# (:895-896): calling a task enqueues it. ``TaskWrapper.s`` (:901-914) pops these out of
# the call's keywords, so they are options, not the payload.
ENQUEUE_CALL_OPTIONS = frozenset({"eta", "delay", "retries", "retry_delay", "priority", "expires"})
# ``TaskWrapper.schedule(self, args=None, kwargs=None, eta=None, delay=None, priority=None,
# retries=None, retry_delay=None, expires=None, id=None)`` (:860-887); without eta= or
# delay= (or a number, timedelta or datetime as ``args``) it raises ValueError.
SCHEDULE_PAYLOAD = frozenset({"args", "kwargs"})
CALL_LOCAL_RUNS_INLINE = True
"""``TaskWrapper.call_local`` runs the function in the caller (:898-899)."""


def registered_name(module: str, name: str) -> str:
    """huey/registry.py ``Registry.task_to_string``: ``'%s.%s' % (task_class.__module__,
    task_class.__name__)``, the class named ``name or func.__name__`` with the function's
    module (api.py ``TaskWrapper.create_task``, :839-849)."""
    return f"{module}.{name}" if module else name


# Locks: huey/api.py ``Huey.lock_task(lock_name)`` -> ``TaskLock`` (:657, :917-952), a
# context manager and a decorator (``__call__`` runs the function ``with self``);
# ``__enter__`` raises TaskLockedException when ``put_if_empty`` fails.
LOCK_KEY = "%s.lock.%s"
"""``'%s.lock.%s' % (huey.name, name)``."""
LOCK_HAS_TTL = False
"""Huey 2: a worker killed while holding the lock leaves it set until ``flush_locks`` or
the consumer's ``-f/--flush-locks``. Huey 3.4+ (3.4.0 api.py:801 ``lock_task(self,
lock_name, ttl=None)``, ``TaskLock.acquire`` passes it to ``put_if_empty``; 3.3.0 has no
``ttl``) takes a ``ttl=``; without one its lock has no expiry either."""
LOCKED_TASK_IS_RETRIED = True
"""TaskLockedException counts as an exception: retried while ``retries`` remain
(2.5.0 api.py:386-389, 446-448)."""

# Periodic tasks: the consumer enqueues them once a minute
# (huey/consumer.py ``periodic_task_seconds = 60``, ``enqueue_periodic_tasks``), in every
# consumer started without ``-n/--no-periodic`` (consumer_options.py ``('periodic',
# True)``): no leader election. Their results (errors included) are never stored.
PERIODIC_SECONDS = 60
PERIODIC_IN_EVERY_CONSUMER = True

# huey/api.py ``Huey.__init__(name='huey', results=True, store_none=False, utc=True,
# immediate=False, serializer=None, compression=False, use_zlib=False,
# immediate_use_memory=True, always_eager=None, storage_class=None, **storage_kwargs)``
# (:89-92); ``always_eager`` is a deprecated alias of ``immediate``. Immediate mode runs
# tasks synchronously in ``enqueue`` and, with ``immediate_use_memory``, swaps the storage
# for MemoryStorage (``create_storage``).
INSTANCE_DEFAULTS = {"name": "huey", "results": True, "utc": True, "immediate": False}

# djhuey (huey/contrib/djhuey/__init__.py): ``settings.HUEY`` as a dict names the class with
# ``huey_class`` (older ``backend_class``, default ``'huey.RedisHuey'``), ``name``
# (default ``default_queue_name()``: the default database's NAME, else 'huey'),
# ``connection`` (merged into the keywords), ``consumer`` (for run_huey); when the dict has
# no ``immediate`` key, ``huey_config['immediate'] = settings.DEBUG``. A Huey instance as
# ``settings.HUEY`` is used as it is; no HUEY setting means ``RedisHuey(default_queue_name())``.
DJHUEY_DEFAULT_CLASS = "huey.RedisHuey"
DJHUEY_IMMEDIATE_DEFAULT = "settings.DEBUG"
DJHUEY_DB_TASKS_CLOSE_CONNECTIONS = True
"""``db_task``/``db_periodic_task`` wrap the function in ``close_db``
(``close_old_connections()`` before and after, except in immediate mode)."""
DJHUEY_ON_COMMIT_TASK_DEFERS = True
"""``on_commit_task`` enqueues through ``transaction.on_commit``."""


ENQUEUE_METHODS = frozenset({"call", "schedule"})
"""How the recognizer names its enqueue sites: calling a task, ``task.schedule(...)``."""


class HueyQueueRules(QueueRules):
    """How Huey routes its jobs and bounds its queues (``QueueRules``)."""

    def job_route(self, job: Job) -> Route:
        """A Huey instance is one queue, named by its ``name`` (INSTANCE_DEFAULTS: "huey";
        djhuey's default is the database's NAME, unknown here)."""
        from jobcheck.project.routing import UNKNOWN_ROUTE, Route

        config = _instance_config(self.routing.project, job.task.app_ref)
        if config is None:
            return UNKNOWN_ROUTE
        value = config.option("name")
        if value is None:
            if config.kind == "settings":
                return UNKNOWN_ROUTE  # djhuey: default_queue_name(), the database NAME
            return Route(INSTANCE_DEFAULTS["name"], True)  # type: ignore[arg-type]
        name = self.routing.queue_name(value)
        return Route(name, False) if isinstance(name, str) else UNKNOWN_ROUTE

    def job_age_bound(self, job: Job) -> str | None:
        value = job.task.option("expires")
        return None if value is None or is_none(value) else "expires"

    def unbounded_queue_message(self, use: QueueUse) -> str:
        return (
            f"Huey queue '{use.name}' has no backlog bound: no task on it sets expires=, so "
            "while the consumer lags every task waits for ever and the queue grows without "
            "end; set expires= (seconds or a timedelta) on its tasks, or on the calls that "
            "enqueue them"
        )


class HueySemantics(Semantics):
    name = "huey"
    queue_rules = HueyQueueRules
    title = "Huey"
    job_noun = "Huey task"
    library_roots = frozenset({"huey"})
    # huey/api.py ``Huey.task``, ``periodic_task``, ``context_task``; djhuey's
    # ``db_task``, ``db_periodic_task``, ``on_commit_task``.
    object_decorators = frozenset(
        {"task", "periodic_task", "context_task", "db_task", "db_periodic_task", "on_commit_task"}
    )

    age_bound_key = "expires"
    job_options_apply_to_sends = True

    matches_by_tail = False
    words = Words(
        fan_out_advice=(
            "Enqueue one task per batch of IDs, slice or paginate the query, or stagger "
            "them (task.schedule(args=..., delay=...) growing with the index)"
        ),
        how_to_route=(
            "give it a Huey instance of its own with its own consumer, or a higher "
            "priority= on a PriorityRedisHuey"
        ),
        after_commit_advice=(
            "enqueue in transaction.on_commit(...), declare the task with djhuey's "
            "@on_commit_task, or write an outbox row"
        ),
        let_it_fail=(
            "let it fail into the task's retries (Huey keeps no dead letters: record the "
            "failure from a @huey.signal(SIGNAL_ERROR) handler)"
        ),
        # LOCK_HAS_TTL, PERIODIC_IN_EVERY_CONSUMER above.
        single_run_advice=(
            ", e.g. Huey's @huey.lock_task('name') under the periodic decorator (give it "
            "ttl= longer than a run on Huey 3.4+, or start the consumer with --flush-locks, so "
            "a killed run does not hold it for ever); every consumer started without "
            "--no-periodic enqueues the task, so run one such consumer"
        ),
    )

    def accepts_enqueue(self, method: str) -> bool:
        return method in ENQUEUE_METHODS

    # -- queues -------------------------------------------------------------------------

    def expiry_advice(self, project: Project, entry: ScheduleEntry) -> str | None:
        # huey/api.py ``Task.__init__(expires=)`` / ``TaskWrapper.schedule(expires=)``:
        # ``Huey.execute`` drops a task past its expiry.
        hint, _ = expiry_hint(entry)
        return f"set expires={hint} on the task, or pass it to .schedule(expires=...)"

    def jumps_its_queue(self, project: Project, job: Job) -> bool:
        """huey/storage.py: the priority storages (``PriorityRedisStorage``, the SQL ones,
        ``MemoryStorage``) dequeue the highest ``priority`` first; ``RedisStorage``
        (``RedisHuey``) has ``priority = False`` and refuses one."""
        priority = number(job.task.option("priority"))
        if not priority or priority <= 0:
            return False
        pending = [project.instances.get(job.task.app_ref or "")]
        seen: set[str] = set()
        while pending and len(seen) < 20:
            cls = pending.pop()
            if not cls or cls in seen:
                continue
            seen.add(cls)
            if cls.rpartition(".")[2] in PRIORITY_HUEY_CLASSES:
                return True
            pending.extend(project.classes.get(cls, ()))
        return False

    def rerun_cause(self, job: Job | None) -> str:
        # api.py: a task runs again only through ``retries`` (0 by default); the consumer
        # acknowledges nothing, so a crash loses a task rather than redelivering it.
        retries = number(job.task.option("retries")) if job is not None else None
        if retries:
            return f"a retried task (retries={retries:g})"
        return "a task enqueued twice (a double submit, a caller that retries)"

    def dead_letter_destination(self, project: Project) -> tuple[str, frozenset[str]] | None:
        return None  # DEAD_LETTER: Huey keeps nothing

    def enqueues_after_commit(self, job: Job) -> bool:
        return (job.task.decorator or "").endswith(".on_commit_task")  # DJHUEY_ON_COMMIT_...

    # -- check hooks --------------------------------------------------------------------

    def process_scheduler(self, project: Project, words: list[str]) -> tuple[str, bool] | None:
        """huey_consumer (or djhuey's ``run_huey``, django-huey's ``djangohuey``) enqueues
        periodic tasks unless started with ``-n/--no-periodic`` (PERIODIC_IN_EVERY_CONSUMER)."""
        names = {w.rsplit("/", 1)[-1] for w in words}
        consumer = names & {"huey_consumer", "huey_consumer.py", "run_huey", "djangohuey"}
        if not consumer or {"-n", "--no-periodic"} & set(words):
            return None
        if not any(e.framework == self.name for _, e in project.schedules()):
            return None  # no periodic tasks: nothing to enqueue twice
        return "a Huey consumer that enqueues periodic tasks (no --no-periodic)", False

    # -- schedules ----------------------------------------------------------------------

    def schedule_terms(self, entry: ScheduleEntry) -> ScheduleTerms:
        return ScheduleTerms(
            kind="Huey periodic task",
            sends_messages=True,  # the consumer enqueues it (PERIODIC_SECONDS)
            names_functions=False,  # the decorated function is the task
            # CRONTAB_FIELD_DEFAULT
            minute_default_note="Huey's crontab() defaults every field to '*'",
        )

    def minute_hint(self, entry: ScheduleEntry, minute: int) -> str | None:
        return f"minute='{minute}'"

    def cron_hint(self, entry: ScheduleEntry, seconds: float) -> str:
        kind, every_n = fixed_hours(seconds)
        if kind == "daily":
            return "crontab(minute='17', hour='3')"
        return f"crontab(minute='17', hour='*/{every_n}')" if every_n else "crontab(minute='17')"

    # -- the contract -------------------------------------------------------------------

    def worker_queues(self, words: list[str]) -> tuple[str, ...] | None:
        """``huey_consumer main.huey`` (huey/bin/huey_consumer.py) or Django's
        ``manage.py run_huey`` (huey/contrib/djhuey/management/commands/run_huey.py), and
        django-huey's ``djangohuey --queue name``: a consumer runs one Huey instance's
        queue, taken here as every queue of the project's Huey."""
        from jobcheck.commandline import option_values

        names = [w.rsplit("/", 1)[-1] for w in words]
        if "djangohuey" in names:
            return tuple(option_values(words, ("--queue",))) or ("*",)
        if any(n in ("huey_consumer", "huey_consumer.py", "run_huey") for n in names):
            return ("*",)
        return None

    def job_contract(self, project: Project, job: Job) -> JobContract:
        from jobcheck.frameworks.huey import checks

        return JobContract(
            time_limit=checks.time_limit(project, job),
            retries=_retries(project, job),
            # huey/storage.py ``RedisStorage.dequeue``: ``brpop``/``rpop`` take the message
            # off the queue before the task runs; nothing puts it back.
            delivery=Delivery(
                "early: the consumer takes the task off the queue before running it; a "
                "consumer killed mid-run loses it",
                late=False,
            ),
            backoff=_backoff(project, job),
            dead_letter="none (Huey keeps no failed tasks)",
        )


def _retries(project: Project, job: Job) -> Retries:
    # api.py ``Huey.task(retries=0, ...)``: none unless the task says.
    from jobcheck.project.contract import Retries

    retries = number(job.task.option("retries"))
    if job.task.has_option("retries") and retries is None:
        return Retries(describe(job.task.option("retries")))
    if not retries:
        return Retries("none (Huey's default)")
    every, span = _every_error(job, retries)
    return Retries(f"{retries:g}", every_error=every, every_error_seconds=span)


def _every_error(job: Job, retries: float) -> tuple[str, float | None]:
    """api.py ``_requeue_task``: any exception the task raises is retried, each after
    ``retry_delay`` seconds (0 by default), multiplied by ``retry_backoff`` after each
    retry when it is set."""
    delay = number(job.task.option("retry_delay")) if job.task.has_option("retry_delay") else 0
    factor = number(job.task.option("retry_backoff")) if job.task.has_option("retry_backoff") else 0
    if delay is None or factor is None:
        return "", None
    growth = float(factor) if factor else 1.0
    span = sum(float(delay) * growth**n for n in range(int(retries)))
    return f"{retries:g} times, retries={retries:g}", span


def _backoff(project: Project, job: Job) -> str:
    retries = number(job.task.option("retries"))
    delay = job.task.option("retry_delay")
    backoff = job.task.option("retry_backoff")
    if not retries:
        backoff_text = "-"
    elif backoff is not None:
        backoff_text = f"retry_delay={describe(delay)}, x{describe(backoff)} each retry"
    elif delay is not None:
        backoff_text = f"fixed retry_delay={describe(delay)} s"
    else:
        backoff_text = "none: retried at once"
    return backoff_text


def _instance_config(project: Project, app_ref: str | None) -> FrameworkConfig | None:
    """The Huey instance (or djhuey ``HUEY`` setting) a task's decorator belongs to."""
    djhuey = app_ref in DJHUEY_MODULES or (app_ref or "").endswith(".HUEY")
    for f in project.files:
        for config in f.configs:
            if config.framework != "huey":
                continue
            if config.qualname == app_ref or (djhuey and config.qualname.endswith(".HUEY")):
                return config
    return None


PRIORITY_HUEY_CLASSES = frozenset(
    {
        "PriorityRedisHuey",
        "PriorityRedisExpireHuey",
        "SqliteHuey",
        "CySqliteHuey",
        "PostgresHuey",
        "MemoryHuey",
    }
)
"""huey/api.py: the Huey classes whose storage honours ``priority=`` (storage.py
``priority = True``)."""

SEMANTICS = HueySemantics()
