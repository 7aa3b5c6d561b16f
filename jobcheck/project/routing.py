"""Which queue each job and each enqueue lands on, and what bounds each queue.

Each framework decides a message's queue its own way: its plugin's semantics answer
(``jobcheck/frameworks/<name>/semantics.py``; Celery's routes are in
``jobcheck/frameworks/celery/routes.py``). This module holds what they share: queue
names read from values, the queue inventory with its bounds and dead-letter exchanges.

Where the code does not say, the answer is "unknown", never a guess.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from jobcheck.facts import EnqueueSite, FileFacts, Loc, LoopEnqueue, QueueBinding
from jobcheck.facts.values import CallV, Const, DictV, Ref, Value, is_join, is_none, string
from jobcheck.project.test_code import is_test_code
from jobcheck.registry import owner, plugins, schedule_terms, semantics

if TYPE_CHECKING:
    from jobcheck.frameworks.semantics_base import QueueRules
    from jobcheck.project.model import Job, Project

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
    from_settings: bool = False
    """The route is the configured default (``task_default_queue``), not the job's own."""

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
        self.framework_state: dict[str, object] = {}
        """What a framework's semantics computes once per project (Celery's routes)."""
        self._rules: dict[str | None, QueueRules] = {}

    def rules(self, framework: str | None) -> QueueRules:
        """How ``framework`` routes and bounds its queues in this project, made once."""
        found = self._rules.get(framework)
        if found is None:
            owner = semantics(framework)
            found = self._rules[framework] = owner.queue_rules(self, owner)
        return found

    # -- names ----------------------------------------------------------------------

    def queue_name(self, value: Value | None, depth: int = 0) -> str | _Unknown | None:
        """The queue a value names; None when it names none (``queue=None``)."""
        if value is None or is_none(value):
            return None
        if depth > 5:
            return UNKNOWN
        if isinstance(value, Const):
            return value.value or None if isinstance(value.value, str) else UNKNOWN
        if is_join(value):
            joined = self.project.value(value)
            return self.queue_name(joined, depth + 1) if isinstance(joined, Const) else UNKNOWN
        if isinstance(value, CallV):
            for plugin in plugins():
                named = semantics(plugin.name).queue_of_constructor(value)
                if named is not NOT_A_QUEUE:
                    return named if named is not None else UNKNOWN
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
        resolved = self.project.value(Ref(qualname))  # a constant of a module not analysed
        if isinstance(resolved, Const) and isinstance(resolved.value, str):
            return resolved.value or None
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

    # -- jobs -------------------------------------------------------------------------

    def job_route(self, job: Job) -> Route:
        """The queue a job's plain enqueue (``.delay()``, ``.send()``) lands on."""
        key = f"{job.file.path}:{job.task.qualname}"
        if key not in self._job_routes:
            self._job_routes[key] = self.rules(job.framework).job_route(job)
        return self._job_routes[key]

    # -- enqueue sites ----------------------------------------------------------------

    def site_route(self, f: FileFacts, site: EnqueueSite, job: Job | None) -> Route:
        """The queue one enqueue call lands on."""
        framework = self.rules(site.framework_hint or (job.framework if job else None))
        place = Place(f.path, site.loc)
        named = self.project.as_bound(site, self._site_queues.get((f.path, site.order)))
        if named is None:
            named = framework.call_queue_option(site)
            if named is None and framework.call_options_may_hold_queue(site):
                return UNKNOWN_ROUTE  # apply_async(**options), signature(options=...)
        if named is not None:
            name = self.queue_name(named)
            if name is UNKNOWN:
                return UNKNOWN_ROUTE
            if isinstance(name, str):
                return framework.named_route(name, place)
        through_receiver = framework.receiver_route(site, place)
        if through_receiver is not None:
            return through_receiver
        if job is not None:
            return self.job_route(job)
        return framework.unresolved_route(site)

    @staticmethod
    def queue_arguments(
        use: QueueUse, options: tuple[tuple[str, Value], ...], place: Place
    ) -> None:
        """Bounds and dead-letter exchanges in a queue declaration's options."""
        _read_queue_arguments(use, options, place)

    def binding(self, variable: str) -> QueueBinding | None:
        """The queue object a name stands for (``q = Queue("low")``), or an attribute of a
        module-level instance holds (``queues.reports`` with ``queues = Queues()`` and
        ``self.reports = Queue("reports")`` in a method of ``Queues``)."""
        found = self._bindings.get(variable)
        if found is None and "." in variable:
            holder, _, attribute = variable.rpartition(".")
            cls = self.project.instances.get(holder)
            if cls is not None:
                found = self._bindings.get(f"{cls}.{attribute}")
        return found

    def site_names_queue(self, f: FileFacts, site: EnqueueSite, job: Job | None) -> bool:
        """Whether the call picks its queue itself (``queue=``, ``.set(queue=)``, the RQ
        queue it is made on), known or not, rather than relying on the job's route."""
        framework = self.rules(site.framework_hint or (job.framework if job else None))
        if (f.path, site.order) in self._site_queues:
            return True
        queue = framework.call_queue_option(site)
        if (queue is not None and not is_none(queue)) or framework.call_options_may_hold_queue(
            site
        ):
            return True
        return framework.calls_name_own_queue(site)

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
        for f, entry, job in self.project.scheduled_jobs():
            if job is None or is_test_code(f) or not schedule_terms(entry).sends_messages:
                continue
            key = f"{job.file.path}:{job.task.qualname}"
            sent.add(key)
            queue = dict(entry.options).get("queue")
            if queue is None or is_none(queue):
                relies.add(key)
        return relies, sent

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
        for plugin in plugins():
            self.rules(plugin.name).collect_queues(inventory)
        for use in inventory.uses.values():
            if use.framework in inventory.unsure_bounds:
                use.maybe_bounded = True
        return inventory.uses

    def _collect_declarations(self, inventory: _Inventory) -> None:
        for f in self.project.files:
            for decl in f.queues:
                name = decl.name
                if name is None and decl.named_by is not None:
                    named = self.queue_name(decl.named_by)
                    name = named if isinstance(named, str) else None
                if name is None or is_test_code(f):
                    continue
                use = inventory.use(decl.framework, name)
                use.declarations.append((Place(f.path, decl.loc), decl.options))
                self.queue_arguments(use, decl.options, Place(f.path, decl.loc))

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
            if route.where is not None and not route.from_settings:
                use.namings.append(route.where)  # queue= on the task, @job("name")...
            if not used:
                continue
            use.jobs.append(job)
            if bound:
                use.bounds.append(f"{bound} on '{job.task.name}'")
            if route.age_bound:
                use.bounds.append("expires on its task_routes entry")

    def _job_age_bound(self, job: Job) -> str | None:
        return self.rules(job.framework).job_age_bound(job)

    def _collect_sites(self, inventory: _Inventory) -> None:
        for f, written, job in self.project.enqueues():
            for site in self.project.bound_sites(written):
                self._collect_site(inventory, f, site, job)

    def _collect_site(
        self, inventory: _Inventory, f: FileFacts, site: EnqueueSite, job: Job | None
    ) -> None:
        """The queue one enqueue (of one class, for a bound site) uses."""
        framework = site.framework_hint or (job.framework if job is not None else None)
        if framework is None or is_test_code(f):
            return
        route = self.site_route(f, site, job)
        rules = semantics(framework)
        key = rules.age_bound_key
        value = site.option(key) if key else None
        bound = value is not None and not is_none(value)
        if not bound and job is not None and rules.job_options_apply_to_sends:
            # Celery's task options and Dramatiq's actor options apply to every send.
            bound = self._job_age_bound(job) is not None
        if not route.known:
            if bound:
                inventory.unsure_bounds.add(framework)
            return
        use = inventory.use(framework, route.queue)  # type: ignore[arg-type]
        use.sites.append((f, site))
        if route.where is not None and route.where.loc == site.loc:
            use.namings.append(route.where)
        if bound:
            use.bounds.append(f"{key} on the call at line {site.loc.line}")
        elif (count := self.rules(framework).site_count_bound(site)) is not None:
            use.bounds.append(count)


NOT_A_QUEUE = object()
"""What a framework's ``queue_of_constructor`` says of a call that makes no queue."""


class _Inventory:
    def __init__(self) -> None:
        self.uses: dict[tuple[str, str], QueueUse] = {}
        self.unsure_bounds: set[str] = set()
        """Frameworks with an age bound on a job or call whose queue is unknown."""

    def use(self, framework: str, name: str) -> QueueUse:
        # One queue whatever alias named its framework: an ActiveJob's queue_as and
        # config/sidekiq.yml name the same Sidekiq queue.
        framework = owner(framework) or framework
        key = (framework, name)
        if key not in self.uses:
            self.uses[key] = QueueUse(framework, name)
        return self.uses[key]


def _read_queue_arguments(
    use: QueueUse, options: tuple[tuple[str, Value], ...], place: Place
) -> None:
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


def env_fallback(value: Value) -> str | None:
    """``os.environ.get("X", "celery")`` -> "celery"."""
    if isinstance(value, CallV) and value.func in ENV_READERS:
        return string(value.arg(1, "default"))
    return None


def _is_settings_module(qualname: str, project: Project) -> bool:
    module = qualname.rsplit(".", 1)[0]
    if project.settings_modules:
        return any(module == m or module.startswith(f"{m}.") for m in project.settings_modules)
    return "settings" in module.split(".")
