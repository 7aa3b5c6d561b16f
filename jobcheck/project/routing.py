"""Which queue each job and each enqueue lands on, and what bounds each queue.

Celery decides a message's queue in ``celery/app/routes.py`` ``Router.route``: the
options of the call and of the task (``Task.queue``, set by the decorator's ``queue=``,
a base class or ``task_annotations``) win over ``task_routes``, whose routers are tried
in order (a dict or list of ``name -> "queue" | {"queue": ...}`` maps, exact names
before glob or regex patterns; a router function or class cannot be read), and when
nothing names a queue the message goes to ``task_default_queue``, ``"celery"`` unless
configured (``celery/app/defaults.py``: ``default_queue=Option('celery')``). RQ puts a
job on the queue object it is enqueued on (``Queue(name='default')``, django_rq's
``get_queue(name='default')``); Dramatiq on the actor's ``queue_name`` (default
``"default"``, ``dramatiq/actor.py``).

Where the code does not say, the answer is "unknown", never a guess.
"""

from __future__ import annotations

import fnmatch
import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from jobcheck.facts import EnqueueSite, FileFacts, Loc, LoopEnqueue, QueueBinding, ScheduleEntry
from jobcheck.facts.values import CallV, Const, DictV, Ref, SeqV, Value, is_none, string
from jobcheck.frameworks.celery.settings import SETTING_NAMES
from jobcheck.project.test_code import is_test_code

if TYPE_CHECKING:
    from jobcheck.project.model import Job, Project

CELERY_DEFAULT_QUEUE = "celery"  # celery/app/defaults.py: default_queue=Option('celery')
RQ_DEFAULT_QUEUE = "default"  # rq/queue.py: Queue.__init__(name='default', ...)
DRAMATIQ_DEFAULT_QUEUE = "default"  # dramatiq/actor.py: actor(..., queue_name="default")
KOMBU_QUEUES = frozenset({"kombu.Queue", "kombu.entity.Queue"})
RQ_QUEUES = frozenset(
    {"rq.Queue", "rq.queue.Queue", "django_rq.get_queue", "django_rq.queues.get_queue"}
)
ENV_READERS = frozenset(
    {"os.environ.get", "os.getenv", "environ.get", "env", "env.str", "config", "decouple.config"}
)
# RabbitMQ queue arguments that bound a queue (kombu/transport/base.py maps kombu's
# ``max_length``, ``max_length_bytes`` and ``message_ttl`` Queue options onto them).
COUNT_BOUNDS = ("x-max-length", "x-max-length-bytes")
AGE_BOUNDS = ("x-message-ttl",)
KOMBU_BOUND_OPTIONS = {
    "max_length": "x-max-length",
    "max_length_bytes": "x-max-length-bytes",
    "message_ttl": "x-message-ttl",
}
DEAD_LETTER_ARGUMENT = "x-dead-letter-exchange"


class _Unknown:
    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN = _Unknown()
"""A queue name the code does not state (an environment variable, a router function)."""
NO_MATCH = object()


@dataclass(frozen=True)
class Place:
    path: str
    loc: Loc


@dataclass(frozen=True)
class Route:
    """Where a job or an enqueue lands."""

    queue: str | None
    """The queue's name; None when unknown."""
    default: bool = False
    """The framework's default queue: every job nothing routes elsewhere lands there."""
    where: Place | None = None
    """Where the code names this queue for the job (None: nowhere, the default)."""
    age_bound: bool = False
    """The route itself sets an age bound (``task_routes`` entry with ``expires``)."""

    @property
    def known(self) -> bool:
        return self.queue is not None


UNKNOWN_ROUTE = Route(None)


@dataclass
class QueueUse:
    """Everything the project says about one queue."""

    framework: str
    name: str
    declarations: list[tuple[Place, tuple[tuple[str, Value], ...]]] = field(default_factory=list)
    namings: list[Place] = field(default_factory=list)
    """Places that name the queue: a decorator's queue=, a route, a call's queue=..."""
    jobs: list[Job] = field(default_factory=list)
    sites: list[tuple[FileFacts, EnqueueSite]] = field(default_factory=list)
    bounds: list[str] = field(default_factory=list)
    """How the queue is bounded, in words ("x-max-length", "expires on 'send'")."""
    maybe_bounded: bool = False
    """A bound may hide in code jobcheck cannot read (queue_arguments=ARGS, **options)."""
    dead_letter: list[tuple[Place, str | None]] = field(default_factory=list)
    """Declarations that give the queue a dead-letter exchange, with the exchange's name."""
    unreadable_arguments: bool = False
    """A declaration's queue arguments cannot be read (``queue_arguments=ARGS``)."""

    @property
    def explicit(self) -> bool:
        return bool(self.declarations or self.namings)


class Routing:
    def __init__(self, project: Project) -> None:
        self.project = project
        self._bindings: dict[str, QueueBinding] = {
            b.variable: b for f in project.files for b in f.queue_bindings
        }
        self._constants: dict[str, Value] = {
            c.qualname: c.value for f in project.files for c in f.constants
        }
        self._site_queues: dict[tuple[str, int], Value] = {
            (f.path, sq.order): sq.queue for f in project.files for sq in f.site_queues
        }
        self.loop_enqueues: dict[tuple[str, int], LoopEnqueue] = {
            (f.path, le.order): le for f in project.files for le in f.loop_enqueues
        }
        self._job_routes: dict[str, Route] = {}
        self._queues: dict[tuple[str, str], QueueUse] | None = None
        self.celery_default = self._celery_default()

    # -- the Celery app -----------------------------------------------------------------

    def celery_config_in_sight(self) -> bool:
        """Whether the Celery app or its settings were analysed: bounds and routes of
        Celery queues are configured there, so without them nothing is said."""
        if self.app_place() is not None:
            return True
        return any(
            s.key in SETTING_NAMES and self.project._honoured(f, s)
            for f in self.project.files
            if not is_test_code(f)
            for s in f.settings
        )

    def app_place(self) -> Place | None:
        """Where the project's Celery app is made (the configured ``celery-app`` first;
        an app of the test suite does not count)."""
        apps = sorted(
            (entry for entry in self.project.apps if not is_test_code(entry[0])),
            key=lambda entry: (entry[0].path, entry[1].loc.line),
        )
        return Place(apps[0][0].path, apps[0][1].loc) if apps else None

    # -- names ----------------------------------------------------------------------

    def queue_name(self, value: Value | None, depth: int = 0) -> str | _Unknown | None:
        """The queue a value names; None when it names none (``queue=None``)."""
        if value is None or is_none(value):
            return None
        if depth > 5:
            return UNKNOWN
        if isinstance(value, Const):
            return value.value or None if isinstance(value.value, str) else UNKNOWN
        if isinstance(value, CallV) and value.func in KOMBU_QUEUES:
            return string(value.arg(0, "name")) or UNKNOWN
        if isinstance(value, CallV) and value.func in RQ_QUEUES:
            name = value.arg(0, "name")
            return RQ_DEFAULT_QUEUE if name is None else string(name) or UNKNOWN
        if isinstance(value, Ref):
            return self._named_by(value.qualname, depth)
        return UNKNOWN

    def _named_by(self, qualname: str, depth: int) -> str | _Unknown | None:
        binding = self._bindings.get(qualname)
        if binding is not None:
            return binding.name or UNKNOWN
        if qualname in self._constants:
            return self.queue_name(self._constants[qualname], depth + 1)
        prefix = "django.conf.settings."
        if qualname.startswith(prefix):
            return self._django_setting(qualname[len(prefix) :], depth)
        return UNKNOWN

    def _django_setting(self, name: str, depth: int) -> str | _Unknown | None:
        """``settings.EMAIL_QUEUE``: the value every settings module agrees on."""
        found = {
            self.queue_name(value, depth + 1)
            for qualname, value in self._constants.items()
            if qualname.rsplit(".", 1)[-1] == name and _is_settings_module(qualname, self.project)
        }
        if len(found) == 1:
            return found.pop()
        return UNKNOWN

    # -- Celery ---------------------------------------------------------------------

    def _celery_default(self) -> Route:
        entries = self.project.settings("task_default_queue")
        if not entries:
            return Route(CELERY_DEFAULT_QUEUE, default=True)
        names = set()
        for _, setting in entries:
            name = self.queue_name(setting.value)
            if name is UNKNOWN:
                # os.environ.get("CELERY_TASK_DEFAULT_QUEUE", "celery"): the fallback.
                name = _env_fallback(setting.value) or UNKNOWN
            names.add(name or CELERY_DEFAULT_QUEUE)
        f, setting = entries[0]
        name = names.pop() if len(names) == 1 else UNKNOWN
        queue = name if isinstance(name, str) else None
        return Route(queue, default=True, where=Place(f.path, setting.loc))

    def job_route(self, job: Job) -> Route:
        """The queue a job's ``.delay()`` (or RQ ``@job`` ``.delay()``) lands on."""
        key = f"{job.file.path}:{job.task.qualname}"
        if key not in self._job_routes:
            if job.framework == "celery":
                route = self._celery_job_route(job)
            elif job.framework == "rq":
                route = self._rq_job_route(job)
            else:
                route = self._dramatiq_job_route(job)
            self._job_routes[key] = route
        return self._job_routes[key]

    def _celery_job_route(self, job: Job) -> Route:
        resolved = self.project.option(job, "queue")
        if resolved.source in ("task", "base", "annotations"):
            name = self.queue_name(resolved.value)
            if name is UNKNOWN:
                return UNKNOWN_ROUTE
            if isinstance(name, str):
                where = Place(resolved.path or job.file.path, resolved.loc or job.task.loc)
                return self._celery_named(name, where)
        return self.celery_route_by_name(job.task.registered_name)

    def _celery_named(self, name: str, where: Place | None, age_bound: bool = False) -> Route:
        return Route(name, self.celery_default.queue == name, where, age_bound)

    def celery_route_by_name(self, name: str | None) -> Route:
        """The queue ``task_routes`` (or the default) gives a task registered as ``name``."""
        results = []
        for f, setting in self.project.settings("task_routes"):
            result = self._routes(setting.value, name, Place(f.path, setting.loc))
            results.append(result)
        matched = [r for r in results if r is not NO_MATCH]
        if not matched:
            return self.celery_default
        if (
            any(r is UNKNOWN for r in matched)
            or len(set(matched)) > 1
            or len(matched) < len(results)
        ):
            return UNKNOWN_ROUTE
        return matched[0]  # type: ignore[return-value]

    def _routes(self, value: Value, name: str | None, where: Place) -> object:
        routers = value.items if isinstance(value, SeqV) else (value,)
        for router in routers:
            result = self._map_route(router, name, where)
            if result is not NO_MATCH:
                return result
        return NO_MATCH

    def _map_route(self, router: Value, name: str | None, where: Place) -> object:
        """celery/app/routes.py ``MapRoute``: exact names first, then patterns in order."""
        pairs = _route_pairs(router)
        if pairs is None or name is None:
            return UNKNOWN  # a router function or class: it cannot be read
        unreadable = False
        for key, target in pairs:
            if isinstance(key, Const) and isinstance(key.value, str) and "*" not in key.value:
                if key.value == name:
                    return self._route_target(target, where)
            elif key is None or not _is_pattern(key):
                unreadable = True
        for key, target in pairs:
            pattern = _pattern(key)
            if pattern is not None and pattern.match(name):
                return self._route_target(target, where)
        return UNKNOWN if unreadable else NO_MATCH

    def _route_target(self, target: Value, where: Place) -> object:
        if isinstance(target, DictV):
            queue = target.get("queue")
            expires = target.get("expires")
            age_bound = expires is not None and not is_none(expires)
            if queue is None:
                return UNKNOWN  # exchange/routing_key only: the broker decides
            name = self.queue_name(queue)
            return self._celery_named(name, where, age_bound) if isinstance(name, str) else UNKNOWN
        name = self.queue_name(target)
        return self._celery_named(name, where) if isinstance(name, str) else UNKNOWN

    def route_targets(self) -> Iterator[tuple[str, Place, bool]]:
        """Every queue ``task_routes`` names, whether or not a job here matches it."""
        for f, setting in self.project.settings("task_routes"):
            routers = setting.value.items if isinstance(setting.value, SeqV) else (setting.value,)
            for router in routers:
                for _, target in _route_pairs(router) or ():
                    queue = target.get("queue") if isinstance(target, DictV) else target
                    expires = target.get("expires") if isinstance(target, DictV) else None
                    name = self.queue_name(queue)
                    if isinstance(name, str):
                        bounded = expires is not None and not is_none(expires)
                        yield name, Place(f.path, setting.loc), bounded

    # -- RQ and Dramatiq --------------------------------------------------------------

    def _rq_job_route(self, job: Job) -> Route:
        value = job.task.option("queue")
        if value is None:
            # django_rq/decorators.py: a bare ``@job`` uses the "default" queue.
            return Route(RQ_DEFAULT_QUEUE, True, Place(job.file.path, job.task.loc))
        name = self.queue_name(value)
        if not isinstance(name, str):
            return UNKNOWN_ROUTE
        return Route(name, name == RQ_DEFAULT_QUEUE, Place(job.file.path, job.task.loc))

    def _dramatiq_job_route(self, job: Job) -> Route:
        value = job.task.option("queue_name")
        if value is None:
            return Route(DRAMATIQ_DEFAULT_QUEUE, True)
        name = self.queue_name(value)
        if not isinstance(name, str):
            return UNKNOWN_ROUTE
        where = Place(job.file.path, job.task.option_loc("queue_name"))
        return Route(name, name == DRAMATIQ_DEFAULT_QUEUE, where)

    # -- enqueue sites ----------------------------------------------------------------

    def site_route(self, f: FileFacts, site: EnqueueSite, job: Job | None) -> Route:
        """The queue one enqueue call lands on."""
        framework = site.framework_hint or (job.framework if job is not None else None)
        place = Place(f.path, site.loc)
        named = self._site_queues.get((f.path, site.order))
        if named is None and framework == "celery":
            named = site.option("queue")
            if named is None and _may_hold_queue(site):
                return UNKNOWN_ROUTE  # apply_async(**options), signature(options=...)
        if named is not None:
            name = self.queue_name(named)
            if name is UNKNOWN:
                return UNKNOWN_ROUTE
            if isinstance(name, str):
                return self._site_named(framework, name, place)
        if framework == "rq" and site.receiver and site.method != "delay":
            binding = self._bindings.get(site.receiver)
            if binding is None or binding.name is None:
                return UNKNOWN_ROUTE
            return self._site_named("rq", binding.name, place)
        if job is not None:
            return self.job_route(job)
        if framework == "celery" and site.method == "send_task":
            return self.celery_route_by_name(site.target_text)
        return UNKNOWN_ROUTE

    def site_names_queue(self, f: FileFacts, site: EnqueueSite, job: Job | None) -> bool:
        """Whether the call picks its queue itself (``queue=``, ``.set(queue=)``, the RQ
        queue it is made on), known or not, rather than relying on the job's route."""
        framework = site.framework_hint or (job.framework if job is not None else None)
        if (f.path, site.order) in self._site_queues:
            return True
        if framework == "celery":
            queue = site.option("queue")
            return (queue is not None and not is_none(queue)) or _may_hold_queue(site)
        return framework == "rq" and bool(site.receiver) and site.method != "delay"

    def uses_own_route(self, job: Job) -> bool:
        """Whether the job's own route is used: some call or beat entry in sight relies
        on it, or nothing in sight sends the job at all (its callers are elsewhere)."""
        relies, sent = self._reliance
        key = f"{job.file.path}:{job.task.qualname}"
        return key in relies or key not in sent

    @functools.cached_property
    def _reliance(self) -> tuple[set[str], set[str]]:
        relies: set[str] = set()
        sent: set[str] = set()
        for f, site, job in self.project.enqueues():
            if job is None or is_test_code(f):
                continue
            key = f"{job.file.path}:{job.task.qualname}"
            sent.add(key)
            if not self.site_names_queue(f, site, job):
                relies.add(key)
        for f, entry, job in self._celery_schedules():
            if job is None or is_test_code(f):
                continue
            key = f"{job.file.path}:{job.task.qualname}"
            sent.add(key)
            queue = dict(entry.options).get("queue")
            if queue is None or is_none(queue):
                relies.add(key)
        return relies, sent

    def _celery_schedules(self) -> list[tuple[FileFacts, ScheduleEntry, Job | None]]:
        """Celery periodic jobs (beat entries, ``add_periodic_task``, ``@periodic_task``)."""
        return [
            (f, entry, job)
            for f, entry, job in self.project.scheduled_jobs()
            if entry.framework == "celery"
        ]

    def _site_named(self, framework: str | None, name: str, place: Place) -> Route:
        if framework == "celery":
            return self._celery_named(name, place)
        return Route(name, name == RQ_DEFAULT_QUEUE, place)

    # -- the queue inventory ------------------------------------------------------------

    def queues(self) -> dict[tuple[str, str], QueueUse]:
        """Every queue the project declares, names or sends to, with its bounds
        (computed once: three checks and the review read it)."""
        if self._queues is None:
            self._queues = self._inventory()
        return self._queues

    def _inventory(self) -> dict[tuple[str, str], QueueUse]:
        inventory = _Inventory()
        self._collect_declarations(inventory)
        self._collect_jobs(inventory)
        self._collect_sites(inventory)
        self._collect_celery_config(inventory)
        self._collect_global_bounds(inventory)
        return inventory.uses

    def _collect_declarations(self, inventory: _Inventory) -> None:
        for f in self.project.files:
            for decl in f.queues:
                if decl.name is None or is_test_code(f):
                    continue
                use = inventory.use(decl.framework, decl.name)
                use.declarations.append((Place(f.path, decl.loc), decl.options))
                _queue_arguments(use, decl.options, Place(f.path, decl.loc))
        for f, setting in self.project.settings("task_queues"):
            if not isinstance(setting.value, DictV):
                continue
            for key, options in setting.value.items:
                name = string(key)
                if name is None:
                    continue
                use = inventory.use("celery", name)
                place = Place(f.path, setting.loc)
                items = options.items if isinstance(options, DictV) else ()
                flat = tuple((k.value, v) for k, v in items if isinstance(k, Const))
                use.declarations.append((place, flat))
                _queue_arguments(use, flat, place)

    def _collect_jobs(self, inventory: _Inventory) -> None:
        for job in self.project.jobs:
            if is_test_code(job.file):
                continue
            route = self.job_route(job)
            used = self.uses_own_route(job)  # else every call names its own queue
            bound = self._job_age_bound(job)
            if not route.known:
                if bound and used:
                    inventory.unsure_bounds.add(job.framework)
                continue
            use = inventory.use(job.framework, route.queue)  # type: ignore[arg-type]
            if route.where is not None and route.where != self.celery_default.where:
                use.namings.append(route.where)  # queue= on the task, @job("name")...
            if not used:
                continue
            use.jobs.append(job)
            if bound:
                use.bounds.append(f"{bound} on '{job.task.name}'")
            if route.age_bound:
                use.bounds.append("expires on its task_routes entry")

    def _job_age_bound(self, job: Job) -> str | None:
        if job.framework == "dramatiq" and job.task.option("periodic") is not None:
            # periodiq/__init__.py: PeriodiqMiddleware (required for ``periodic=``) skips
            # a periodic message older than ``skip_delay`` (30 s).
            return "periodic= (periodiq's skip_delay)"
        key = {"celery": "expires", "rq": "ttl", "dramatiq": "max_age"}[job.framework]
        if job.framework == "celery":
            resolved = self.project.option(job, key)
            value = resolved.value if resolved.is_set else None
        else:
            value = job.task.option(key)
        if value is None or is_none(value):
            return None
        return key

    def _collect_sites(self, inventory: _Inventory) -> None:
        for f, site, job in self.project.enqueues():
            framework = site.framework_hint or (job.framework if job is not None else None)
            if framework is None or is_test_code(f):
                continue
            route = self.site_route(f, site, job)
            key = {"celery": "expires", "rq": "ttl", "dramatiq": "max_age"}.get(framework, "")
            value = site.option(key)
            bound = value is not None and not is_none(value)
            if not bound and job is not None and framework != "rq":
                # Celery's task options and Dramatiq's actor options apply to every send.
                bound = self._job_age_bound(job) is not None
            if not route.known:
                if bound:
                    inventory.unsure_bounds.add(framework)
                continue
            use = inventory.use(framework, route.queue)  # type: ignore[arg-type]
            use.sites.append((f, site))
            if route.where is not None and route.where.loc == site.loc:
                use.namings.append(route.where)
            if bound:
                use.bounds.append(f"{key} on the call at line {site.loc.line}")

    def _collect_celery_config(self, inventory: _Inventory) -> None:
        for name, place, bounded in self.route_targets():
            use = inventory.use("celery", name)
            use.namings.append(place)
            if bounded:
                use.bounds.append("expires on its task_routes entry")
        for f, entry, job in self._celery_schedules():
            if is_test_code(f):
                continue
            options = dict(entry.options)
            expires = options.get("expires")
            bounded = expires is not None and not is_none(expires)
            name = self.queue_name(options.get("queue"))
            if name is None:
                route = self.job_route(job) if job is not None else self.celery_default
                name = route.queue if route.known else UNKNOWN
            if not isinstance(name, str):
                if bounded:
                    inventory.unsure_bounds.add("celery")
                continue
            use = inventory.use("celery", name)
            if options.get("queue") is not None:
                use.namings.append(Place(f.path, entry.loc))
            if bounded:
                use.bounds.append("expires on a periodic job")

    def _collect_global_bounds(self, inventory: _Inventory) -> None:
        # A beat schedule or annotations built by code (``parse_beat_schedule()``) may
        # set expires on what they send: their bound cannot be read, nor ruled out.
        for key in ("beat_schedule", "task_annotations"):
            for _, setting in self.project.settings(key):
                if not isinstance(setting.value, (DictV, SeqV)):
                    inventory.unsure_bounds.add("celery")
        ages = [
            (f, m)
            for f in self.project.files
            for m in f.middleware
            if m.name == "AgeLimit" and m.option("max_age") is not None
        ]
        for f, middleware in ages:
            if not is_none(middleware.option("max_age")):
                for use in inventory.uses.values():
                    if use.framework == "dramatiq":
                        use.bounds.append(f"AgeLimit(max_age=...) at {f.path}")
        for use in inventory.uses.values():
            if use.framework in inventory.unsure_bounds:
                use.maybe_bounded = True


class _Inventory:
    def __init__(self) -> None:
        self.uses: dict[tuple[str, str], QueueUse] = {}
        self.unsure_bounds: set[str] = set()
        """Frameworks with an age bound on a job or call whose queue is unknown."""

    def use(self, framework: str, name: str) -> QueueUse:
        key = (framework, name)
        if key not in self.uses:
            self.uses[key] = QueueUse(framework, name)
        return self.uses[key]


def _queue_arguments(use: QueueUse, options: tuple[tuple[str, Value], ...], place: Place) -> None:
    """Bounds and dead-letter exchanges in a kombu ``Queue``'s (or a ``task_queues``
    entry's) options."""
    for key, value in options:
        if key == "**":
            use.maybe_bounded = use.unreadable_arguments = True
        elif key in KOMBU_BOUND_OPTIONS and not is_none(value):
            use.bounds.append(KOMBU_BOUND_OPTIONS[key])
        elif key == "queue_arguments":
            if not isinstance(value, DictV):
                use.maybe_bounded = use.unreadable_arguments = True
                continue
            for arg_key, arg_value in value.items:
                name = string(arg_key)
                if arg_key is None or name is None:
                    use.maybe_bounded = use.unreadable_arguments = True
                elif name in COUNT_BOUNDS + AGE_BOUNDS and not is_none(arg_value):
                    use.bounds.append(name)
                elif name == DEAD_LETTER_ARGUMENT:
                    use.dead_letter.append((place, string(arg_value)))


def _may_hold_queue(site: EnqueueSite) -> bool:
    """Options spread from a mapping (``**options``, ``options=...``) may name the queue."""
    return any(key in ("**", "options") for key, _ in site.options)


def _route_pairs(router: Value) -> list[tuple[Value | None, Value]] | None:
    if isinstance(router, DictV):
        return list(router.items)
    if isinstance(router, SeqV):
        pairs = []
        for item in router.items:
            if not (isinstance(item, SeqV) and len(item.items) == 2):
                return None
            pairs.append((item.items[0], item.items[1]))
        return pairs
    return None


def _is_pattern(key: Value) -> bool:
    return _pattern(key) is not None


def _pattern(key: Value | None) -> re.Pattern[str] | None:
    """A ``task_routes`` key that is a glob (``"shop.tasks.*"``) or ``re.compile(...)``."""
    if isinstance(key, Const) and isinstance(key.value, str) and "*" in key.value:
        return re.compile(fnmatch.translate(key.value))
    if isinstance(key, CallV) and key.func == "re.compile" and string(key.arg(0)):
        try:
            return re.compile(string(key.arg(0)))  # type: ignore[arg-type]
        except re.error:
            return None
    return None


def _env_fallback(value: Value) -> str | None:
    """``os.environ.get("X", "celery")`` -> "celery"."""
    if isinstance(value, CallV) and value.func in ENV_READERS:
        return string(value.arg(1, "default"))
    return None


def _is_settings_module(qualname: str, project: Project) -> bool:
    module = qualname.rsplit(".", 1)[0]
    if project.settings_modules:
        return any(module == m or module.startswith(f"{m}.") for m in project.settings_modules)
    return "settings" in module.split(".")
