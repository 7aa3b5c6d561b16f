"""Celery's semantics: its option chain, routing, retries, dead letters and schedules.

Library facts, each read in Celery's source (5.x):

- no time limit by default: celery/app/defaults.py declares ``task_time_limit`` and
  ``task_soft_time_limit`` with no default;
- a task option left unset is filled from ``app.conf`` (celery/app/task.py), after
  ``task_annotations`` (celery/app/annotations.py);
- ``max_retries`` defaults to 3 and ``default_retry_delay`` to 180 s (celery/app/task.py);
  ``autoretry_for`` backs off only with ``retry_backoff`` (celery/app/autoretry.py), and
  never for ``self.retry()``;
- a task that fails its last attempt is acknowledged (``task_acks_on_failure_or_timeout``
  defaults to True in celery/app/defaults.py): its message is gone unless a queue has a
  dead-letter exchange or a failure handler stores it;
- beat sends an entry's ``options`` to ``apply_async`` (celery/beat.py
  ``Scheduler.apply_async``); a new entry's ``last_run_at`` is "now" and the default
  PersistentScheduler keeps it in a local shelve file (celery/beat.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from jobcheck.facts import SPLAT, TaskDef
from jobcheck.facts.values import Ref, Value, string
from jobcheck.frameworks.celery import checks, contract, options, routes, tasks
from jobcheck.frameworks.celery.foreign import is_foreign
from jobcheck.frameworks.celery.options import option
from jobcheck.frameworks.semantics_base import (
    QueueRules,
    ScheduleTerms,
    Semantics,
    Words,
    fixed_hours,
)
from jobcheck.project.contract import JobContract, describe_dead_letter
from jobcheck.project.schedule_words import expiry_hint

if TYPE_CHECKING:
    from jobcheck.facts import EnqueueSite, Loc, ScheduleEntry, Setting
    from jobcheck.facts.values import CallV
    from jobcheck.project.model import Job, Project
    from jobcheck.project.routing import Place, QueueUse, Route, _Inventory

# Dramatiq's sends, and calls Huey's recognizer records (calling a Huey task enqueues it):
# on a Celery task they run it here, or send nothing.
NOT_CELERY_ENQUEUES = frozenset({"send", "send_with_options", "call", "schedule"})
KOMBU_QUEUES = frozenset({"kombu.Queue", "kombu.entity.Queue"})

_SCHEDULE_KINDS = {
    "beat_schedule": "beat entry",
    "add_periodic_task": "periodic task",
    "periodic_task": "periodic task",
    "periodic_task_row": "django-celery-beat row",
}


class CeleryQueueRules(QueueRules):
    """How Celery routes its jobs and bounds its queues (``QueueRules``)."""

    def config_in_sight(self) -> bool:
        return routes.of(self.routing).config_in_sight()

    def job_route(self, job: Job) -> Route:
        return routes.of(self.routing).job_route(job)

    def call_queue_option(self, site: EnqueueSite) -> Value | None:
        return site.option("queue")

    def call_options_may_hold_queue(self, site: EnqueueSite) -> bool:
        return routes.may_hold_queue(site)

    def unresolved_route(self, site: EnqueueSite) -> Route:
        from jobcheck.project.routing import UNKNOWN_ROUTE

        if site.method == "send_task":
            return routes.of(self.routing).route_by_name(site.target_text)
        return UNKNOWN_ROUTE

    def named_route(self, name: str, place: Place) -> Route:
        return routes.of(self.routing).named(name, place)

    def job_age_bound(self, job: Job) -> str | None:
        resolved = option(self.routing.project, job, "expires")
        value = resolved.value if resolved.is_set else None
        return None if value is None or _is_none(value) else "expires"

    def collect_queues(self, inventory: _Inventory) -> None:
        routes.of(self.routing).collect(inventory)

    def default_queue_place(self, use: QueueUse) -> Place | None:
        celery = routes.of(self.routing)
        return celery.default.where or celery.app_place()

    def hides_routes_from_view(self, route: Route) -> bool:
        celery = routes.of(self.routing)
        from_config = route.where is None or route.where == celery.default.where
        return from_config and not celery.config_in_sight()

    def configured_queues(self) -> frozenset[str] | None:
        """The default queue and the queues ``task_queues`` declares (kombu Queues); None
        when ``task_queues`` is set to something jobcheck cannot read."""
        celery = routes.of(self.routing)
        default = celery.default.queue
        if default is None:
            return None
        declared = {
            name
            for (framework, name), use in self.routing.queues().items()
            if framework == self.semantics.name and use.declarations
        }
        if self.routing.project.settings("task_queues") and not declared:
            return None
        return frozenset({default, *declared}) if not declared else frozenset(declared)

    def unbounded_queue_message(self, use: QueueUse) -> str:
        return checks.unbounded_queue_message(use, contract.broker_scheme(self.routing.project))


class CelerySemantics(Semantics):
    name = "celery"
    queue_rules = CeleryQueueRules
    title = "Celery"
    job_noun = "Celery task"
    decorator_roots = {"celery.shared_task": "celery"}
    app_classes = frozenset({"celery.Celery", "celery.app.Celery", "celery.app.base.Celery"})
    library_roots = frozenset({"celery", "kombu", "builtins"})
    age_bound_key = "expires"
    bounds_configured_centrally = True
    default_queue = routes.CELERY_DEFAULT_QUEUE

    # -- jobs -------------------------------------------------------------------------

    names_by_path = False
    words = Words(
        task_hooks=("before_start", "on_success", "on_retry", "on_failure", "after_return"),
        fan_out_advice=(
            "Enqueue batches of IDs (e.g. a group of chunks, task.chunks(...)), slice or "
            "paginate the query, or throttle (a countdown that grows with the index)"
        ),
        how_to_route="queue= on the task or a task_routes entry",
        # celery/contrib/django/task.py ``DjangoTask.delay_on_commit`` (Celery 5.4+).
        after_commit_advice=(
            "enqueue in transaction.on_commit(...), use delay_on_commit() (Celery 5.4+ "
            "on Django), or write an outbox row"
        ),
        single_run_advice=(
            ", or give the task a single-instance base (celery-once, celery-singleton)"
        ),
        # celery/app/task.py Task.__call__: runs self.run(*args, **kwargs) in the caller.
        enqueue_instead="call {name}.delay(...) or .apply_async(...) instead",
        unknown_schedule_target=(
            "names task '{name}', but no task in the project is registered under that "
            "name (Celery registers a task as its module path plus function name unless "
            "name= is given): beat sends messages no worker accepts and the job never runs"
        ),
    )

    def claim(self, project: Project, task: TaskDef) -> TaskDef | None:
        """``@obj.task`` makes a Celery task only when ``obj`` is a Celery app or unknown:
        made by another library's class (``huey = MyHuey()``, ``broker =
        ListQueueBroker(...)``, in another file), it is that library's job, or none
        jobcheck models."""
        owner = project.factory_framework(task.decorator)
        if owner is not None and owner != self.name:
            return None  # a project factory of another library's decorator makes it
        if task.app_ref is None or task.app_ref in project.every_app:
            return task
        library = _library_class(project, task.app_ref)
        if library is None:
            if task.app_ref in project.foreign_objects or _outside_any_celery(project, task):
                return None
            return task
        from jobcheck.registry import adopt

        return adopt(task, library)

    def accepts_enqueue(self, method: str) -> bool:
        return method not in NOT_CELERY_ENQUEUES

    def hint_is_certain(self, site: EnqueueSite) -> bool:
        return True

    def class_based_jobs(self, project: Project) -> Iterator[Job]:
        from jobcheck.project.model import Job

        for f in project.files:
            for tc in f.task_classes:
                attrs = dict(tc.attrs)
                if not tc.has_run or "abstract" in attrs:
                    continue
                if not tasks.is_task_class(project, tc.qualname):
                    continue
                yield Job(
                    TaskDef(
                        framework="celery",
                        qualname=tc.qualname,
                        name=tc.qualname.rsplit(".", 1)[-1],
                        registered_name=string(attrs.get("name")) or tc.qualname,
                        loc=tc.loc,
                        decorator=None,
                        options=tc.attrs,
                        option_locs=tc.attr_locs,
                        base=tc.bases[0] if tc.bases else None,
                        kind="class",
                        bound=True,
                        function=f"{tc.qualname}.run",
                    ),
                    f,
                )

    def app_task_classes(self, project: Project, job: Job) -> list[str]:
        """The app's ``task_cls``: every task of the app is built on it."""
        if job.task.kind == "class":
            return list(project.classes.get(job.task.qualname, ()))
        classes = []
        for _, app in project.apps:
            if job.task.app_ref in (None, app.qualname):
                value = dict(app.kwargs).get("task_cls")
                if isinstance(value, Ref):
                    classes.append(value.qualname)
                elif string(value):
                    classes.append(string(value).replace(":", "."))  # type: ignore[union-attr]
        return classes

    # -- options ----------------------------------------------------------------------

    def is_config_module(self, module: str) -> bool:
        return "celery" in module.rsplit(".", 1)[-1]

    # -- queues -------------------------------------------------------------------------

    def queue_of_constructor(self, value: CallV) -> object:
        from jobcheck.project.routing import NOT_A_QUEUE

        if value.func in KOMBU_QUEUES:
            return string(value.arg(0, "name"))
        return NOT_A_QUEUE

    def expiry_advice(self, project: Project, entry: ScheduleEntry) -> str | None:
        # celery/app/task.py ``apply_async(expires=)`` (seconds or a datetime); the task's
        # own ``expires`` attribute fills calls that give none (``extract_exec_options``).
        hint, _ = expiry_hint(entry)
        return f"enqueue it with apply_async(expires={hint}), or set expires= on the task"

    def worker_queues(self, words: list[str]) -> tuple[str, ...] | None:
        """``celery -A app worker -Q a,b`` (``--queues``), less ``-X``/``--exclude-queues``;
        without ``-Q`` the queues of ``task_queues``, else the default queue
        (celery/app/amqp.py ``Queues``: the worker consumes ``app.amqp.queues``, which
        holds ``task_default_queue`` when ``task_queues`` is empty)."""
        from jobcheck.commandline import option_values
        from jobcheck.project.workers import CONFIGURED, EXCLUDED

        if "worker" not in words or not any(w.rsplit("/", 1)[-1] == "celery" for w in words):
            return None
        chosen = [q for v in option_values(words, ("-Q", "--queues")) for q in v.split(",") if q]
        excluded = {
            q for v in option_values(words, ("-X", "--exclude-queues")) for q in v.split(",") if q
        }
        if chosen:
            return tuple(q for q in chosen if q not in excluded)
        return (CONFIGURED, *sorted(EXCLUDED + q for q in excluded))

    # -- check hooks --------------------------------------------------------------------

    def process_scheduler(self, project: Project, words: list[str]) -> tuple[str, bool] | None:
        # celery/bin/worker.py ``-B/--beat`` embeds beat in the worker; Celery's docs:
        # there must only be one beat, and -B is meant for development.
        if "celery" not in {w.rsplit("/", 1)[-1] for w in words}:
            return None
        if "worker" in words and ("-B" in words or "--beat" in words):
            return "a Celery worker with an embedded beat (-B)", True
        return ("celery beat", False) if "beat" in words else None

    # -- schedules ------------------------------------------------------------------------

    def interval_reset_reason(self, project: Project, entry: ScheduleEntry) -> str | None:
        if _persistent_beat(project):
            return None
        return (
            "counted from when celery beat starts: a fresh beat (a new container, a lost "
            "celerybeat-schedule file) starts every interval again"
        )

    def schedule_terms(self, entry: ScheduleEntry) -> ScheduleTerms:
        return ScheduleTerms(
            kind=_schedule_kind(entry),
            sends_messages=True,
            names_functions=False,
            # celery/schedules.py ``crontab.__init__(minute='*', hour='*', ...)``.
            minute_default_note="Celery's crontab defaults every field to '*'",
        )

    def minute_hint(self, entry: ScheduleEntry, minute: int) -> str | None:
        return f"minute={minute}" if entry.timing.text.startswith("crontab(") else None

    def cron_hint(self, entry: ScheduleEntry, seconds: float) -> str:
        kind, every_n = fixed_hours(seconds)
        if kind == "daily":
            return "crontab(minute=17, hour=3)"
        return f"crontab(minute=17, hour='*/{every_n}')" if every_n else "crontab(minute=17)"

    def checks_dotless_names(self, project: Project) -> bool:
        # Celery generates dotted names; a dot-less one was set with name=, in the
        # project if anywhere.
        return any(job.framework == self.name for job in project.jobs)

    def dead_letter_destination(self, project: Project) -> tuple[str, frozenset[str]] | None:
        return None  # per queue: the dead-letter exchanges routing finds

    def runs_again(self, project: Project, job: Job) -> bool:
        return contract.runs_again(project, job)

    def named_tasks(self, project: Project) -> Iterator[tuple[str, Loc, str, str]]:
        return routes.named_tasks(project)

    def name_from_module_path(self, job: Job) -> str | None:
        # celery/app/base.py ``Celery._task_from_fun``: ``name or self.gen_task_name(
        # fun.__name__, fun.__module__)``; a class-based task's ``name`` attribute is read
        # as a task option.
        if job.task.has_option("name") or job.task.has_option(SPLAT):
            return None
        return job.task.registered_name or job.task.qualname

    def reads_setting(self, project: Project, setting: Setting) -> bool:
        return options.read_under_namespace(project, setting)

    def job_contract(self, project: Project, job: Job) -> JobContract:
        retries = contract.retries(project, job)
        return JobContract(
            time_limit=contract.time_limit(project, job),
            retries=retries,
            delivery=contract.delivery(project, job),
            backoff="-" if retries.words == "none" else contract.backoff(project, job),
            dead_letter=describe_dead_letter(contract.dead_letter(project, job)),
        )


def _schedule_kind(entry: ScheduleEntry) -> str:
    return _SCHEDULE_KINDS.get(entry.source, "periodic task")


# Celery beat schedulers that keep each entry's last run in a database or Redis
# (django-celery-beat, redbeat...), so intervals survive restarts; the default
# celery.beat:PersistentScheduler keeps it in a local shelve file.
DEFAULT_BEAT_SCHEDULERS = frozenset(
    {"celery.beat:PersistentScheduler", "celery.beat.PersistentScheduler"}
)
# Packages of beat schedulers that keep entries' last run outside the beat process; the
# scheduler is often chosen on the command line (``beat --scheduler ...``), which jobcheck
# does not read, so a project that imports one is assumed to use it.
PERSISTENT_BEAT_PACKAGES = frozenset(
    {"django_celery_beat", "redbeat", "celery_sqlalchemy_scheduler", "sqlalchemy_celery_beat"}
)


def _persistent_beat(project: Project) -> bool:
    if any(f.imports & PERSISTENT_BEAT_PACKAGES for f in project.files):
        return True
    for _, setting in project.settings("beat_scheduler"):
        value = setting.value
        text = getattr(value, "value", None) or getattr(value, "qualname", None)
        if isinstance(text, str) and text not in DEFAULT_BEAT_SCHEDULERS:
            return True
    return False


# Packages whose classes make Celery apps: Celery itself and Flask's Celery extensions
# (Flask-Celery-Helper's ``flask_celery.Celery``, Flask-CeleryExt).
CELERY_APP_ROOTS = frozenset({"celery", "flask_celery", "flask_celeryext"})


def _library_class(project: Project, obj: str) -> str | None:
    """The class of another job library that made the module-level object ``obj``: its
    own class, or the nearest such base of a project class."""
    pending = [project.instances.get(obj)]
    seen: set[str] = set()
    while pending and len(seen) < 50:
        cls = pending.pop(0)
        if cls is None or cls in seen:
            continue
        seen.add(cls)
        if is_foreign(cls) or _outside_celery(project, cls):
            return cls
        pending.extend(project.classes.get(cls, ()))
    return None


def _outside_any_celery(project: Project, task: TaskDef) -> bool:
    """``@worker.task`` on an object imported from a package outside the project, in a
    project that makes no Celery app and imports Celery nowhere: another library's job
    (``from myplatform import worker``), not a Celery task."""
    root = (task.app_ref or "").split(".")[0]
    if not root or root in project.root_packages or root in CELERY_APP_ROOTS:
        return False
    if "celery" in (task.app_ref or "").lower():
        return False  # ``from proj.celery import app``: a Celery app module not analysed
    return not project.every_app and not any("celery" in f.imports for f in project.files)


def _outside_celery(project: Project, cls: str) -> bool:
    """A class of a library that is not Celery's (``procrastinate.App``, ``saq.Queue``):
    not defined in the project and not from a package that makes Celery apps. Its
    ``.task`` decorator makes that library's jobs, which jobcheck may not model."""
    if cls in project.classes or cls in project.defined_functions:
        return False
    root = cls.split(".")[0]
    return root not in CELERY_APP_ROOTS and root not in project.root_packages


def _is_none(value: Value) -> bool:
    from jobcheck.facts.values import is_none

    return is_none(value)


SEMANTICS = CelerySemantics()
